import { addNullableColumns, defaultLargeCatalogItems, type Migration } from '../migration'

export const migration: Migration = {
  version: 17,
  name: 'catalog item families: each member names its parent in a column',
  up(db, options) {
    // A family's members are found by their parent's id. The fields stay in `extra` as sent; these
    // columns copy them for rows sync writes from now on (group_parent_id 0: not a member), so the
    // members of a family are an index range, not a walk over every item's JSON. The columns are added
    // without reading the rows (addNullableColumns: ALTER's check of a STRICT table took 2 s here at a
    // million items); rows stored before hold NULL and are read from `extra` instead.
    addNullableColumns(db, 'catalog_item_rows', ['group_parent_id INTEGER', 'is_product_group INTEGER'])
    // Rows stored before are filled here, and the index built, while that costs little at start: a
    // scan of up to largeCatalogItems items' JSON and the few family rows written (about 0.3 s at 100,000).
    // Past that, start-up would wait seconds; such a laptop reads members from `extra` (browse falls back)
    // until the catalog update has filled them and built the index (local/catalog-update-jobs.ts).
    const limit = options?.largeCatalogItems ?? defaultLargeCatalogItems
    const stored =
      db
        .prepare<[number], number>('SELECT count(*) FROM (SELECT 1 FROM catalog_item_rows LIMIT ?)')
        .pluck()
        .get(limit + 1) ?? 0
    if (stored > limit) return
    if (stored > 0) db.exec(familyColumnsFill(''))
    db.exec(familyIndex)
  },
}

/** Fills the family columns of the stored rows that are members or parents (`where` narrows them). */
export function familyColumnsFill(where: string): string {
  return `
        UPDATE catalog_item_rows
        SET group_parent_id = coalesce(json_extract(extra, '$.group_parent_catalog_item_id'), 0),
            is_product_group = coalesce(json_extract(extra, '$.is_product_group'), 0)
        WHERE (coalesce(json_extract(extra, '$.group_parent_catalog_item_id'), 0) > 0 OR json_extract(extra, '$.is_product_group') = 1) ${where};
      `
}

export const familyIndex = `
      CREATE INDEX catalog_items_by_family ON catalog_item_rows (catalog_guid, group_parent_id)
        WHERE group_parent_id > 0;
    `
