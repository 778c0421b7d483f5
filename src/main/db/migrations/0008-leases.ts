import type { Migration } from '../migration'

export const migration: Migration = {
  version: 8,
  name: 'leases: one sender and one sync writer across processes',
  up(db) {
    // The desktop app and CLI processes share the database. A lease names the one process that may
    // send the outbox (or write a sync run's bookkeeping) until it expires (src/main/db/lease.ts);
    // `sent_by` records which holder recorded each order as sent, for support and the drills.
    db.exec(`
      CREATE TABLE leases (
        name TEXT PRIMARY KEY,
        owner TEXT NOT NULL,
        label TEXT NOT NULL,
        pid INTEGER NOT NULL,
        host TEXT NOT NULL,
        expires_at INTEGER NOT NULL
      ) STRICT;
      ALTER TABLE outbox ADD COLUMN sent_by TEXT;
    `)
  },
}
