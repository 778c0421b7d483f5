import { defaultLargeCatalogItems, type Migration } from '../migration'

export const migration: Migration = {
  version: 20,
  name: 'a narrow table of what a catalog search filters items on, kept by triggers',
  up(db, options) {
    // The full-text index is shared by every catalog, and each match was joined to its item row
    // (about 840 bytes) to tell its catalog, whether it is live and active, its category and its
    // family: 40-120 ms for a count or a word only another catalog holds, at a million items. This
    // table holds just that, a few bytes an item (a catalog by a small key, never its 36-byte guid),
    // so a search reads item rows only for the page it shows. Triggers keep it true through every
    // write to the items, whoever makes it: sync, unlisting, tombstones, purges, the catalog update.
    //
    // Items stored before are filled here while that costs little at start (up to largeCatalogItems);
    // past it the table starts empty with a row in catalog_item_filters_fill, and the catalog update
    // fills it in slices (local/catalog-update-jobs.ts). Until that row is gone, searches filter on the
    // item rows as before. The SQL is exec'd whole, so its text is pinned (migrations-list.test.ts).
    const limit = options?.largeCatalogItems ?? defaultLargeCatalogItems
    db.exec(`
      CREATE TABLE catalog_keys (
        key INTEGER PRIMARY KEY,
        catalog_guid TEXT NOT NULL UNIQUE
      ) STRICT;
      CREATE TABLE catalog_item_filters (
        local_id INTEGER PRIMARY KEY,
        catalog_key INTEGER NOT NULL,
        live INTEGER NOT NULL,
        active INTEGER NOT NULL,
        category_id INTEGER,
        family_parent_id INTEGER NOT NULL
      ) STRICT;
      CREATE TABLE catalog_item_filters_fill (
        filled_until INTEGER NOT NULL
      ) STRICT;
      INSERT INTO catalog_item_filters_fill (filled_until)
        SELECT -9223372036854775808 WHERE (SELECT count(*) FROM (SELECT 1 FROM catalog_item_rows LIMIT ${limit + 1})) > ${limit};
      ${catalogKeysFill(unlessLeftToFill, '')}
      ${itemFiltersFill(unlessLeftToFill, '')}

      CREATE TRIGGER catalog_keys_insert BEFORE INSERT ON catalog_item_rows
        WHEN NOT EXISTS (SELECT 1 FROM catalog_keys WHERE catalog_guid = NEW.catalog_guid)
      BEGIN
        INSERT INTO catalog_keys (catalog_guid) VALUES (NEW.catalog_guid);
      END;
      CREATE TRIGGER catalog_keys_update
        BEFORE UPDATE OF local_id, catalog_guid, active, category_id, deleted_at, unlisted_at, group_parent_id ON catalog_item_rows
        WHEN NOT EXISTS (SELECT 1 FROM catalog_keys WHERE catalog_guid = NEW.catalog_guid)
      BEGIN
        INSERT INTO catalog_keys (catalog_guid) VALUES (NEW.catalog_guid);
      END;
      CREATE TRIGGER catalog_item_filters_insert AFTER INSERT ON catalog_item_rows BEGIN
        ${filtersOfNew}
      END;
      CREATE TRIGGER catalog_item_filters_update
        AFTER UPDATE OF local_id, catalog_guid, active, category_id, deleted_at, unlisted_at, group_parent_id ON catalog_item_rows
        WHEN OLD.local_id IS NOT NEW.local_id OR OLD.catalog_guid IS NOT NEW.catalog_guid OR OLD.active IS NOT NEW.active
          OR OLD.category_id IS NOT NEW.category_id OR (OLD.deleted_at IS NULL) IS NOT (NEW.deleted_at IS NULL)
          OR (OLD.unlisted_at IS NULL) IS NOT (NEW.unlisted_at IS NULL) OR OLD.group_parent_id IS NOT NEW.group_parent_id
      BEGIN
        DELETE FROM catalog_item_filters WHERE local_id = OLD.local_id;
        ${filtersOfNew}
      END;
      CREATE TRIGGER catalog_item_filters_delete AFTER DELETE ON catalog_item_rows BEGIN
        DELETE FROM catalog_item_filters WHERE local_id = OLD.local_id;
      END;
    `)
  },
}

/**
 * The filter row of the item a trigger sees as NEW; its catalog's key was given by a BEFORE trigger
 * (SQLite runs those first). The triggers are written so that SQLite keeps no statement journal for
 * the item writes that fire them, which would copy each page they touch, per item: with one, a first
 * sync's writer took twice the CPU per item (11,000 rows/s against 21,000, CPU time). So no statement
 * can meet a conflict (no OR IGNORE, OR REPLACE: the writes are OR FAIL, CatalogItemWrites, a policy
 * the trigger's statements take over), and no function is called (json_extract). A row written with
 * no family column (NULL) is taken as in no family: only the copy of rows stored before migration 17
 * writes one, and fills the family columns of its members in the same transaction.
 */
const filtersOfNew = `DELETE FROM catalog_item_filters WHERE local_id = NEW.local_id;
        INSERT INTO catalog_item_filters (local_id, catalog_key, live, active, category_id, family_parent_id)
          VALUES (NEW.local_id, (SELECT key FROM catalog_keys WHERE catalog_guid = NEW.catalog_guid),
            NEW.deleted_at IS NULL AND NEW.unlisted_at IS NULL, NEW.active, NEW.category_id, coalesce(NEW.group_parent_id, 0));`

/**
 * A row only when nothing is left to the catalog update, joined ahead of the items: as a term of
 * WHERE, SQLite would test the subquery on each item (0.3 s at a million) rather than once.
 */
const unlessLeftToFill = '(SELECT 1 WHERE NOT EXISTS (SELECT 1 FROM catalog_item_filters_fill)) CROSS JOIN'

/** Gives a key to each catalog of the stored items `i` (`where` narrows them; `gate`, a FROM term joined ahead). */
export function catalogKeysFill(gate: string, where: string): string {
  return `INSERT OR IGNORE INTO catalog_keys (catalog_guid) SELECT DISTINCT i.catalog_guid FROM ${gate} catalog_item_rows i ${where};`
}

/**
 * Derives the filter row of each stored item `i` (`where` narrows them; `gate`, a FROM term joined
 * ahead), as the triggers do: a row stored before migration 17 names its family only in its record.
 */
export function itemFiltersFill(gate: string, where: string): string {
  return `INSERT OR REPLACE INTO catalog_item_filters (local_id, catalog_key, live, active, category_id, family_parent_id)
        SELECT i.local_id, k.key, i.deleted_at IS NULL AND i.unlisted_at IS NULL, i.active, i.category_id,
          coalesce(i.group_parent_id, json_extract(i.extra, '$.group_parent_catalog_item_id'), 0)
        FROM ${gate} catalog_item_rows i JOIN catalog_keys k ON k.catalog_guid = i.catalog_guid ${where};`
}
