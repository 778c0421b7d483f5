import { defaultLargeCatalogItems, type Migration } from '../migration'

/**
 * Where a large catalog's rows wait for the catalog update to copy them into the new table
 * (local/catalog-update-jobs.ts): the table renamed, which touches no row. The full-text index, keyed by
 * local_id, stays as it is: the rows keep their local_id.
 */
export const itemsBefore13 = 'catalog_item_rows_before_13'

export const migration: Migration = {
  version: 13,
  name: 'catalog item guids in an index a first sync can defer',
  up(db, options) {
    // The guid was a UNIQUE constraint of catalog_item_rows, an index SQLite does not let go of. Guids
    // are random, so each commit of a first sync rewrote most of that index's pages: about a sixth of
    // the writer's time at 100,000 items. As a named unique index it can wait, like the
    // name, category and SKU indexes, until a first sync's last page (local/copy.ts), while the
    // writer finds rows by guid in memory. SQLite changes a constraint only by copying the table: the
    // rows keep their local_id, so catalog_item_search (keyed by it) stays as it is. The view and its
    // trigger name the table, so they go first and come back unchanged.
    //
    // The full-text index gathers a transaction's terms in memory and writes a segment each time they
    // pass hashsize (1 MB by default): a 2,000-item commit of a first sync wrote several small segments
    // for automerge to merge again. 32 MB holds such a commit in one.
    //
    // Past options.largeCatalogItems items that copy held start-up for minutes (107 s at a million):
    // the old table is renamed aside instead (its secondary indexes dropped, their names being the
    // new table's) and the catalog update copies its rows in short slices after start.
    const limit = options?.largeCatalogItems ?? defaultLargeCatalogItems
    const stored =
      db
        .prepare<[number], number>('SELECT count(*) FROM (SELECT 1 FROM catalog_item_rows LIMIT ?)')
        .pluck()
        .get(limit + 1) ?? 0
    const large = stored > limit
    db.exec(`
      DROP TRIGGER catalog_items_update;
      DROP VIEW catalog_items;
`)
    if (large) {
      // A first sync cut short may have left some of them dropped, waiting in deferred_indexes.
      db.exec(`
      DROP INDEX IF EXISTS catalog_items_by_name;
      DROP INDEX IF EXISTS catalog_items_by_category;
      DROP INDEX IF EXISTS catalog_items_by_sku;
      DROP INDEX IF EXISTS catalog_items_by_id;
      DROP INDEX IF EXISTS catalog_items_by_listing;
      ALTER TABLE catalog_item_rows RENAME TO ${itemsBefore13};
    `)
    }
    db.exec(`
      CREATE TABLE ${large ? 'catalog_item_rows' : 'catalog_item_rows_13'} (
        local_id INTEGER PRIMARY KEY,
        guid TEXT NOT NULL,
        id INTEGER,
        catalog_guid TEXT NOT NULL,
        category_id INTEGER,
        sku TEXT NOT NULL DEFAULT '',
        upc TEXT,
        name TEXT NOT NULL DEFAULT '',
        description TEXT,
        manufacturer TEXT,
        active INTEGER NOT NULL DEFAULT 1,
        msrp REAL,
        qty_on_hand REAL,
        min_order_qty REAL,
        has_inventory INTEGER,
        allow_backorder INTEGER,
        pricing TEXT,
        version INTEGER NOT NULL DEFAULT 0,
        updated_at TEXT,
        deleted_at TEXT,
        unlisted_at TEXT,
        listed_run INTEGER,
        synced_at TEXT,
        extra TEXT NOT NULL DEFAULT '{}'
      ) STRICT;`)
    if (!large) {
      db.exec(`
      INSERT INTO catalog_item_rows_13 SELECT * FROM catalog_item_rows;
      DROP TABLE catalog_item_rows;
      ALTER TABLE catalog_item_rows_13 RENAME TO catalog_item_rows;
    `)
    }
    db.exec(`

      CREATE UNIQUE INDEX catalog_items_by_guid ON catalog_item_rows (guid);
      CREATE INDEX catalog_items_by_name ON catalog_item_rows (catalog_guid, active, name COLLATE NOCASE)
        WHERE deleted_at IS NULL AND unlisted_at IS NULL;
      CREATE INDEX catalog_items_by_category ON catalog_item_rows (catalog_guid, active, category_id, name COLLATE NOCASE)
        WHERE deleted_at IS NULL AND unlisted_at IS NULL;
      CREATE INDEX catalog_items_by_sku ON catalog_item_rows (catalog_guid, sku COLLATE NOCASE);
      CREATE INDEX catalog_items_by_id ON catalog_item_rows (id);
      CREATE INDEX catalog_items_by_listing ON catalog_item_rows (catalog_guid, listed_run, deleted_at);
      DELETE FROM deferred_indexes;

      INSERT INTO catalog_item_search (catalog_item_search, rank) VALUES ('hashsize', 33554432);

      CREATE VIEW catalog_items AS
      SELECT r.local_id, r.guid, r.id, r.catalog_guid, r.category_id, r.sku, r.upc, r.name, r.description, r.manufacturer, r.active,
        r.msrp, r.qty_on_hand, r.min_order_qty, r.has_inventory, r.allow_backorder, r.pricing, r.version, r.updated_at, r.deleted_at,
        r.unlisted_at, r.listed_run, r.synced_at,
        json_insert(json_remove(r.extra, '$.CategoryHierarchy_ids'),
          '$.id', r.id, '$.guid', r.guid, '$.category_id', r.category_id, '$.sku', r.sku, '$.upc', r.upc, '$.name', r.name,
          '$.description', r.description, '$.manufacturer', r.manufacturer,
          '$.active', json(CASE r.active WHEN 0 THEN 'false' ELSE 'true' END),
          '$.has_inventory', json(CASE r.has_inventory WHEN 1 THEN 'true' WHEN 0 THEN 'false' ELSE 'null' END),
          '$.allow_backorder', json(CASE r.allow_backorder WHEN 1 THEN 'true' WHEN 0 THEN 'false' ELSE 'null' END),
          '$.msrp', r.msrp, '$.qty_on_hand', r.qty_on_hand, '$.min_order_qty', r.min_order_qty, '$.pricing', json(r.pricing),
          '$.updated_at', r.updated_at, '$.deleted_at', r.deleted_at,
          '$.Category', (SELECT json(c.json) FROM categories AS c WHERE c.catalog_guid = r.catalog_guid AND c.id = r.category_id),
          '$.CategoryHierarchy', (
            SELECT json_group_array(json(c.json) ORDER BY h.key)
            FROM json_each(r.extra, '$.CategoryHierarchy_ids') AS h JOIN categories AS c ON c.catalog_guid = r.catalog_guid AND c.id = h.value),
          '$.catalog_id', 0, '$.group_parent_catalog_item_id', 0, '$.group_sequence', 0, '$.subsection_id', 0,
          '$.color', '', '$.style', '', '$.product_group_type', '', '$.product_group_display_style', '', '$.group_title', '',
          '$.third_party_sku', '', '$.third_party_pricing', '', '$.third_party_size', '',
          '$.is_taxable', json('false'), '$.has_serials', json('false'), '$.has_lots', json('false'), '$.has_exp_date', json('false'),
          '$.is_product_group', json('false'),
          '$.cost_per_uom', 0, '$.qty_incoming', 0, '$.reserved_qty_on_hand', 0, '$.qty_backordered', 0, '$.qty_held_for_backorders', 0,
          '$.min_qty_on_hand', 0, '$.max_qty_on_hand', 0, '$.qty_break', 0, '$.qty_break_price', 0, '$.width', 0, '$.height', 0,
          '$.depth', 0, '$.item_weight', 0, '$.shipping_weight', 0) AS json
      FROM catalog_item_rows AS r;

      CREATE TRIGGER catalog_items_update INSTEAD OF UPDATE ON catalog_items BEGIN
        UPDATE catalog_item_rows SET id = new.id, catalog_guid = new.catalog_guid, category_id = new.category_id, sku = new.sku,
          upc = new.upc, name = new.name, description = new.description, manufacturer = new.manufacturer, active = new.active,
          msrp = new.msrp, qty_on_hand = new.qty_on_hand, min_order_qty = new.min_order_qty, has_inventory = new.has_inventory,
          allow_backorder = new.allow_backorder, pricing = new.pricing, version = new.version, updated_at = new.updated_at,
          deleted_at = new.deleted_at, unlisted_at = new.unlisted_at, listed_run = new.listed_run, synced_at = new.synced_at
        WHERE local_id = old.local_id;
      END;
    `)
  },
}
