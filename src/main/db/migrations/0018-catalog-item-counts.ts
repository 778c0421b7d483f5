import type { Migration } from '../migration'

export const migration: Migration = {
  version: 18,
  name: 'live item counts per catalog and category, kept by the sync writer',
  up(db) {
    // Counting a catalog's items per category on each visit of the catalog screen read every item's
    // index entry: 90-160 ms on the window's thread at a million items. The sync writer recounts
    // after each run instead and the screens read these few rows. The table starts empty, so this
    // migration reads no item; a catalog with no row yet is counted as before until its first recount.
    // A catalog counted has a row for its items without a category (category_id NULL), even at 0.
    db.exec(`
      CREATE TABLE catalog_item_counts (
        catalog_guid TEXT NOT NULL,
        category_id INTEGER,
        live INTEGER NOT NULL,
        active INTEGER NOT NULL
      ) STRICT;
      CREATE INDEX catalog_item_counts_by_catalog ON catalog_item_counts (catalog_guid, category_id);
    `)
  },
}
