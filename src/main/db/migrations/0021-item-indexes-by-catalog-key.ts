import { addNullableColumns, defaultLargeCatalogItems, type Migration } from '../migration'

export const migration: Migration = {
  version: 21,
  name: "item indexes headed by the catalog's small key, not its 36-byte guid",
  up(db, options) {
    // Four item indexes (name, category, SKU, listing) led with the catalog's guid: 36 bytes in each of
    // their million entries, about 140 MB of a 1.6 GB database at a million items. The catalog's
    // small key (catalog_keys, migration 20) says the same in a byte or two. Item rows keep their
    // catalog_guid, which every read of a row still names; the key is a column beside it that the
    // sync writer sets (CatalogItemWrites) and these triggers set for any other writer (the catalog
    // update's copy, a test's fixture), so no row can drop out of its catalog's listings.
    // AFTER, not BEFORE: SQLite cannot assign NEW in a trigger. The writer's own rows carry the key,
    // so the WHEN stops the trigger there, as it does for a row past where the catalog update's fill
    // of the keys has got to (below), which that fill will reach: the update's copy of a million rows
    // (migration 10) would otherwise write each twice. No statement
    // in it can meet a conflict or call a function, so the item writes still keep no statement journal
    // (see migration 20). The column is added without reading the rows (addNullableColumns: ALTER's
    // check of a STRICT table held start 1.0 s at a million items).
    addNullableColumns(db, 'catalog_item_rows', ['catalog_key INTEGER'])
    db.exec(`
      CREATE TABLE catalog_item_keys_fill (
        filled_until INTEGER NOT NULL
      ) STRICT;
      CREATE TRIGGER catalog_item_key_insert AFTER INSERT ON catalog_item_rows
        WHEN NEW.catalog_key IS NULL AND NOT EXISTS (SELECT 1 FROM catalog_item_keys_fill WHERE filled_until < NEW.local_id)
      BEGIN
        UPDATE catalog_item_rows SET catalog_key = (SELECT key FROM catalog_keys WHERE catalog_guid = NEW.catalog_guid)
          WHERE local_id = NEW.local_id;
      END;
      CREATE TRIGGER catalog_item_key_update AFTER UPDATE OF catalog_guid, catalog_key ON catalog_item_rows
        WHEN NEW.catalog_key IS NOT (SELECT key FROM catalog_keys WHERE catalog_guid = NEW.catalog_guid)
      BEGIN
        UPDATE catalog_item_rows SET catalog_key = (SELECT key FROM catalog_keys WHERE catalog_guid = NEW.catalog_guid)
          WHERE local_id = NEW.local_id;
      END;
    `)
    // The rows stored before get their key, and the indexes are rebuilt on it, while that costs little
    // at start (up to largeCatalogItems). Past it, the indexes stay on the guid, and a row in
    // catalog_item_keys_fill says how far the catalog update has filled the keys; once it has, it
    // rebuilds the indexes one at a time (local/catalog-update-jobs.ts). Each query filters on the catalog
    // as the index it walks stands (ItemIndexLayout). Rows that migration 10's or 13's copy has still
    // to write are written with their key (CatalogItemUpdate.copyRows).
    const limit = options?.largeCatalogItems ?? defaultLargeCatalogItems
    const stored =
      db
        .prepare<[number], number>('SELECT count(*) FROM (SELECT 1 FROM catalog_item_rows LIMIT ?)')
        .pluck()
        .get(limit + 1) ?? 0
    if (stored > limit) {
      db.exec('INSERT INTO catalog_item_keys_fill (filled_until) VALUES (-9223372036854775808)')
      return
    }
    if (stored > 0) {
      db.exec(`
        INSERT OR IGNORE INTO catalog_keys (catalog_guid) SELECT DISTINCT catalog_guid FROM catalog_item_rows;
        UPDATE catalog_item_rows SET catalog_key = (SELECT key FROM catalog_keys k WHERE k.catalog_guid = catalog_item_rows.catalog_guid);
      `)
    }
    // An index a first sync deferred (DeferredItemIndexes.defer) is built from its saved definition: that
    // definition changes instead.
    const exists = db.prepare<[string], number>("SELECT 1 FROM sqlite_schema WHERE type = 'index' AND name = ?").pluck()
    const deferred = db.prepare<[string, string]>('UPDATE deferred_indexes SET sql = ? WHERE name = ?')
    for (const [name, sql] of Object.entries(keyedItemIndexes)) {
      if (exists.get(name) !== undefined) db.exec(`DROP INDEX ${name}; ${sql}`)
      else deferred.run(sql, name)
    }
  },
}

/**
 * The four item indexes a catalog heads, under the names the queries give them (INDEXED BY), headed by
 * `head`: the catalog's small key (this migration) or its guid (migration 13's, where a large laptop's
 * stay until the catalog update rebuilds them).
 */
function catalogHeadedIndexes(head: 'catalog_key' | 'catalog_guid'): Record<string, string> {
  const live = 'WHERE deleted_at IS NULL AND unlisted_at IS NULL'
  return {
    catalog_items_by_name: `CREATE INDEX catalog_items_by_name ON catalog_item_rows (${head}, active, name COLLATE NOCASE)
        ${live}`,
    catalog_items_by_category: `CREATE INDEX catalog_items_by_category ON catalog_item_rows (${head}, active, category_id, name COLLATE NOCASE)
        ${live}`,
    catalog_items_by_sku: `CREATE INDEX catalog_items_by_sku ON catalog_item_rows (${head}, sku COLLATE NOCASE)`,
    catalog_items_by_listing: `CREATE INDEX catalog_items_by_listing ON catalog_item_rows (${head}, listed_run, deleted_at)`,
  }
}

export const keyedItemIndexes = catalogHeadedIndexes('catalog_key')
export const guidItemIndexes = catalogHeadedIndexes('catalog_guid')
