import type { Migration } from '../migration'

export const migration: Migration = {
  version: 26,
  name: "customers' order histories read for their brief, and the rep's visits to their page",
  up(db) {
    // The orders themselves join the order history (orders); this row says how far back it is held
    // for the customer and when it was last read, so a brief never shows a short history as whole.
    // covered_from_ms: the oldest creation time the last read reached (the 24 months' start when
    // complete); cursor: the service's serverTimestamp of that read, so the next reads only what is
    // newer. visited_at: the rep's last look at the customer's page, one of the ways a customer
    // counts as worked with (their history is then kept fresh in the background).
    db.exec(`
      CREATE TABLE IF NOT EXISTS customer_histories (
        customer_guid TEXT PRIMARY KEY,
        fetched_at TEXT,
        covered_from_ms INTEGER,
        complete INTEGER NOT NULL DEFAULT 0,
        cursor TEXT,
        visited_at TEXT
      ) STRICT;
    `)
  },
}
