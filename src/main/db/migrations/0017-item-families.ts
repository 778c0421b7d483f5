import type { Migration } from '../migration'

export const migration: Migration = {
  version: 17,
  name: 'catalog item families: each member names its parent in a column',
  up(db) {
    // A family's members are found by their parent's id. The fields stay in `extra` as sent; these
    // columns copy them for rows sync writes from now on (group_parent_id 0: not a member), so the
    // members of a family are an index range, not a walk over every item's JSON. ADD COLUMN leaves
    // the rows as they are (O(1)); rows stored before hold NULL and are read from `extra` instead.
    // The index is built here only over an empty table: over a laptop's million items it would hold
    // the window for seconds at start, so such a laptop reads members without it (browse falls back).
    db.exec(`
      ALTER TABLE catalog_item_rows ADD COLUMN group_parent_id INTEGER;
      ALTER TABLE catalog_item_rows ADD COLUMN is_product_group INTEGER;
    `)
    const empty = db.prepare('SELECT 1 FROM catalog_item_rows LIMIT 1').get() === undefined
    if (empty) {
      db.exec(`
      CREATE INDEX catalog_items_by_family ON catalog_item_rows (catalog_guid, group_parent_id)
        WHERE group_parent_id > 0;
    `)
    }
  },
}
