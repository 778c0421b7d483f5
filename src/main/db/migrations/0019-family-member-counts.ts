import type { Migration } from '../migration'

export const migration: Migration = {
  version: 19,
  name: 'kept item counts hold family members apart',
  up(db) {
    // A family is one row of the catalog (its parent's), so the screens' counts leave its members out,
    // while a delta's check against the service's count of items still needs every item. The counts
    // kept before this did not tell members apart: they are forgotten here (a few rows, no item read)
    // and counted again on the writer's thread (the catalog update's counts job, or the next sync).
    db.exec(`
      ALTER TABLE catalog_item_counts ADD COLUMN members_live INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE catalog_item_counts ADD COLUMN members_active INTEGER NOT NULL DEFAULT 0;
      DELETE FROM catalog_item_counts;
    `)
  },
}
