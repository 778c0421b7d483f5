import { defaultLargeCatalogItems, type Migration } from '../migration'

/**
 * Where a large catalog's items wait, as schema 9 wrote them, for the catalog update to copy them into
 * catalog_item_rows (local/catalog-update-jobs.ts): the table renamed, which touches no row.
 */
export const itemsBefore10 = 'catalog_items_before_10'

/** The columns of catalog_item_rows that leanItemsSelect gives, in its order. */
export const leanItemColumns = `local_id, guid, id, catalog_guid, category_id, sku, upc, name, description, manufacturer,
        active, msrp, qty_on_hand, min_order_qty, has_inventory, allow_backorder, pricing, version, updated_at, deleted_at,
        unlisted_at, listed_run, synced_at, extra`

/**
 * Schema 9's item rows of `source` (`where` picks which), as catalog_item_rows holds them: shared by
 * this migration and the catalog update that finishes it for a large catalog, so both store the same rows.
 */
export function leanItemsSelect(source: string, where: string): string {
  return `
      SELECT i.local_id, i.guid, i.id, i.catalog_guid, i.category_id, i.sku, i.upc, i.name, i.description, i.manufacturer,
        i.active, i.msrp, i.qty_on_hand, i.min_order_qty, i.has_inventory, i.allow_backorder, i.pricing, i.version, i.updated_at,
        i.deleted_at, i.unlisted_at, i.listed_run, i.synced_at,
        CASE WHEN json_valid(i.json) AND json_type(i.json) = 'object' THEN (
          SELECT CASE WHEN ids.list IS NULL THEN kept.object ELSE json_set(kept.object, '$.CategoryHierarchy_ids', json(ids.list)) END
          FROM (
            SELECT coalesce(json_group_object(e.key,
              CASE e.type WHEN 'true' THEN json('true') WHEN 'false' THEN json('false') WHEN 'null' THEN json('null')
                WHEN 'object' THEN json(e.value) WHEN 'array' THEN json(e.value) ELSE e.value END), '{}') AS object
            FROM json_each(i.json) AS e
            WHERE e.key NOT IN ('id', 'guid', 'category_id', 'sku', 'upc', 'name', 'description', 'manufacturer', 'active', 'msrp',
                'qty_on_hand', 'min_order_qty', 'has_inventory', 'allow_backorder', 'pricing', 'updated_at', 'deleted_at')
              AND NOT (e.key IN ('color', 'style', 'product_group_type', 'product_group_display_style', 'group_title',
                  'third_party_sku', 'third_party_pricing', 'third_party_size') AND e.type = 'text' AND e.atom = '')
              AND NOT (e.key IN ('catalog_id', 'group_parent_catalog_item_id', 'group_sequence', 'subsection_id', 'cost_per_uom',
                  'qty_incoming', 'reserved_qty_on_hand', 'qty_backordered', 'qty_held_for_backorders', 'min_qty_on_hand',
                  'max_qty_on_hand', 'qty_break', 'qty_break_price', 'width', 'height', 'depth', 'item_weight', 'shipping_weight')
                AND e.type IN ('integer', 'real') AND e.atom = 0)
              AND NOT (e.key IN ('is_taxable', 'has_serials', 'has_lots', 'has_exp_date', 'is_product_group') AND e.type = 'false')
              AND NOT (e.key = 'Category' AND (
                (e.type = 'object' AND json_type(e.value, '$.id') = 'integer' AND (e.value ->> '$.id') = i.category_id)
                OR (e.type = 'null' AND coalesce(i.category_id, 0) <= 0)))
              AND NOT (e.key = 'CategoryHierarchy' AND e.type = 'array' AND NOT EXISTS (
                SELECT 1 FROM json_each(e.value) AS h WHERE h.type <> 'object' OR coalesce(json_type(h.value, '$.id'), '') <> 'integer'))
          ) AS kept, (
            SELECT CASE WHEN json_type(i.json, '$.CategoryHierarchy') = 'array' AND NOT EXISTS (
                SELECT 1 FROM json_each(i.json, '$.CategoryHierarchy') AS h WHERE h.type <> 'object' OR coalesce(json_type(h.value, '$.id'), '') <> 'integer')
              THEN (SELECT coalesce(json_group_array(h.value ->> '$.id'), '[]') FROM json_each(i.json, '$.CategoryHierarchy') AS h) END AS list
          ) AS ids
        ) ELSE '{}' END
      FROM ${source} AS i ${where}`
}

/** The full-text rows of these catalog_item_rows (`where` picks them among the live ones). */
export function itemSearchFill(where: string): string {
  return `
      INSERT INTO catalog_item_search (rowid, name, sku, upc, description, manufacturer)
        SELECT local_id, name, sku, upc, description, manufacturer FROM catalog_item_rows WHERE deleted_at IS NULL AND unlisted_at IS NULL ${where};`
}

export const migration: Migration = {
  version: 10,
  name: 'lean catalog items behind a view, indexes a first sync can defer',
  up(db, options) {
    // A catalog item row held its ~2 KB record as JSON beside the columns copied out of it; at ~2.5 KB
    // such a row fills a 4 KB page alone, so 100,000 items took 407 MB. catalog_item_rows keeps each
    // field once: the columns Satchel queries, and in `extra` only what no column holds, without the
    // spec's fields at their default ('' / 0 / false, put back on reading), with Category taken from
    // the categories table by category_id and CategoryHierarchy kept as the ids of its categories
    // (CategoryHierarchy_ids). Fields the spec does not show stay in `extra` as sent.
    //
    // catalog_items becomes a view that puts the record back together, so every reader of the old
    // table (the order desk, the CLI, support queries) still sees the same columns and a whole `json`;
    // the sync writer and the catalog screens use catalog_item_rows directly. Updating a column through
    // the view is passed on (support scripts and drills do it); `json` itself is derived.
    //
    // deferred_indexes holds the definitions of secondary indexes a first sync dropped while it
    // inserts (local/copy.ts), so a crash before they are rebuilt cannot lose them.
    //
    // customers_by_name also holds active: the active-only customer list and its count walked the
    // index and read every row for its flag (about 130 ms at 20,000 customers).
    //
    // Past options.largeCatalogItems items that copy would hold start-up for minutes (107 s for a mere
    // table copy at a million). Such a catalog's rows are set aside instead (renamed, with the old
    // full-text index and secondary indexes dropped) and the new tables start empty; the catalog
    // update copies them in short slices on the sync writer's thread while drafts and the outbox are
    // in use (local/catalog-update-jobs.ts).
    const limit = options?.largeCatalogItems ?? defaultLargeCatalogItems
    const stored =
      db
        .prepare<[number], number>('SELECT count(*) FROM (SELECT 1 FROM catalog_items LIMIT ?)')
        .pluck()
        .get(limit + 1) ?? 0
    const large = stored > limit
    if (large) {
      db.exec(`
      DROP TABLE catalog_item_search;
      DROP INDEX catalog_items_by_name;
      DROP INDEX catalog_items_by_category;
      DROP INDEX catalog_items_by_sku;
      DROP INDEX catalog_items_by_id;
      DROP INDEX catalog_items_by_listing;
      ALTER TABLE catalog_items RENAME TO ${itemsBefore10};
    `)
    }
    db.exec(`
      CREATE TABLE catalog_item_rows (
        local_id INTEGER PRIMARY KEY,
        guid TEXT NOT NULL UNIQUE,
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
      ) STRICT;
`)
    if (!large) {
      db.exec(`
      INSERT INTO catalog_item_rows (${leanItemColumns})${leanItemsSelect('catalog_items', '')};

      DROP TABLE catalog_item_search;
      DROP TABLE catalog_items;
    `)
    }
    db.exec(`
      CREATE INDEX catalog_items_by_name ON catalog_item_rows (catalog_guid, active, name COLLATE NOCASE)
        WHERE deleted_at IS NULL AND unlisted_at IS NULL;
      CREATE INDEX catalog_items_by_category ON catalog_item_rows (catalog_guid, active, category_id, name COLLATE NOCASE)
        WHERE deleted_at IS NULL AND unlisted_at IS NULL;
      CREATE INDEX catalog_items_by_sku ON catalog_item_rows (catalog_guid, sku COLLATE NOCASE);
      CREATE INDEX catalog_items_by_id ON catalog_item_rows (id);
      CREATE INDEX catalog_items_by_listing ON catalog_item_rows (catalog_guid, listed_run, deleted_at);

      CREATE VIRTUAL TABLE catalog_item_search USING fts5 (
        name, sku, upc, description, manufacturer,
        content = 'catalog_item_rows', content_rowid = 'local_id',
        tokenize = 'unicode61 remove_diacritics 2', prefix = '2 3'
      );
      INSERT INTO catalog_item_search (catalog_item_search, rank) VALUES ('automerge', 16);
      INSERT INTO catalog_item_search (catalog_item_search, rank) VALUES ('crisismerge', 64);`)
    if (!large) db.exec(itemSearchFill(''))
    db.exec(`
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

      CREATE TABLE deferred_indexes (
        name TEXT PRIMARY KEY,
        sql TEXT NOT NULL
      ) STRICT;

      DROP INDEX customers_by_name;
      CREATE INDEX customers_by_name ON customers (name COLLATE NOCASE, active) WHERE deleted_at IS NULL AND unlisted_at IS NULL;
    `)
  },
}
