import type { Migration } from '../migration'

export const migration: Migration = {
  version: 15,
  name: 'leases end on evidence, not on the holder’s clock',
  up(db) {
    // A lease was judged by comparing its holder's "expires at" with the reader's clock, so a
    // laptop clock a minute off let a second process take the outbox from a live sender
    // (src/main/db/lease.ts). Now every renewal counts up `renewals`, which another process watches
    // on its own monotonic clock for the holder's `ttl_ms`; `started` (the holder's start time on
    // its machine) tells a dead holder from a process that was given its pid since.
    db.exec(`
      ALTER TABLE leases ADD COLUMN renewals INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE leases ADD COLUMN ttl_ms INTEGER NOT NULL DEFAULT 15000;
      ALTER TABLE leases ADD COLUMN started TEXT;
    `)
  },
}
