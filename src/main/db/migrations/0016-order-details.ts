import type { Migration } from '../migration'

export const migration: Migration = {
  version: 16,
  name: 'full orders after Send, what this laptop saw change, and what the rep last opened',
  up(db) {
    // The order list's projection has no prices, shipped or backordered quantities, state history or
    // related orders: the full order (GET /v1/orders/{guid}) is kept beside the history row, with the
    // updated_at it was fetched for, so an unchanged order is never fetched twice. status_key is the
    // part the rep is told about (state, shipped and backordered quantities, hold, cancel);
    // opened_status_key is that key when the rep last opened the order (or when it was first
    // fetched), so "changed since I last looked" is a comparison of two columns.
    db.exec(`
      CREATE TABLE order_details (
        order_guid TEXT PRIMARY KEY,
        order_updated_at TEXT,
        fetched_at TEXT NOT NULL,
        json TEXT NOT NULL,
        related_json TEXT NOT NULL,
        status_key TEXT NOT NULL,
        opened_status_key TEXT NOT NULL,
        opened_at TEXT
      ) STRICT;

      -- Each time this laptop saw an order's status change, for the order's timeline.
      CREATE TABLE order_detail_sightings (
        order_guid TEXT NOT NULL,
        seen_at TEXT NOT NULL,
        state_id INTEGER,
        state_name TEXT,
        status_key TEXT NOT NULL,
        summary TEXT NOT NULL
      ) STRICT;
      CREATE INDEX order_detail_sightings_by_order ON order_detail_sightings (order_guid, seen_at);
    `)
  },
}
