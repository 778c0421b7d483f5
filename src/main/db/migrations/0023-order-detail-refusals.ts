import type { Migration } from '../migration'

export const migration: Migration = {
  version: 23,
  name: 'full orders this laptop could not keep, and why',
  up(db) {
    // A full order whose reply could not be kept (impossible figures, too large to read) leaves the
    // last good copy in order_details; this row says the supplier's latest copy could not be read,
    // and order_updated_at is the version refused, so that version is not fetched again every sync.
    // IF NOT EXISTS: a database whose version was set back to replay earlier upgrades (the catalog
    // update's drills) already holds it, and holds nothing the replay should lose.
    db.exec(`
      CREATE TABLE IF NOT EXISTS order_detail_refusals (
        order_guid TEXT PRIMARY KEY,
        order_updated_at TEXT,
        refused_at TEXT NOT NULL,
        reason TEXT NOT NULL
      ) STRICT;
    `)
  },
}
