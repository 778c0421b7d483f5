import type { Migration } from '../migration'

export const migration: Migration = {
  version: 22,
  name: 'leaner item rows: updated_at and the category path put back by the view where they can be',
  up(db) {
    // Two things a million-item catalog stored that it need not (issue 28: 1.5 GB at a million):
    // - updated_at is left out where it is a live item's version written the service's way (rows.ts
    //   storedUpdatedAt): 24 bytes an item. The view puts it back from the version; a row that holds
    //   none at version 0 or deleted was sent none, as rows stored before say;
    // - on such a row, CategoryHierarchy_ids is left out where it is the path to the item's category by
    //   its categories' parents (rows.ts leanItemExtra): 36 bytes an item. The view walks that path in
    //   the categories table (at most 64 deep, as the writer checks). Rows stored before always
    //   hold their updated_at, so their paths are read from their ids as before.
    // Rows written from now on are lean; those stored before stay as they are (no row is read here).
    // Only the view changes: it is made again, with its INSTEAD OF trigger, which goes with it.
    db.exec(`
      DROP VIEW catalog_items;

      CREATE VIEW catalog_items AS
      SELECT r.local_id, r.guid, r.id, r.catalog_guid, r.category_id, r.sku, r.upc, r.name, r.description, r.manufacturer, r.active,
        r.msrp, r.qty_on_hand, r.min_order_qty, r.has_inventory, r.allow_backorder, r.pricing, r.version,
        coalesce(r.updated_at, CASE WHEN r.deleted_at IS NULL AND r.version > 0 AND r.version <= 253402300799999
          THEN strftime('%Y-%m-%dT%H:%M:%S', r.version / 1000, 'unixepoch') || printf('.%03dZ', r.version % 1000) END) AS updated_at, r.deleted_at,
        r.unlisted_at, r.listed_run, r.synced_at,
        json_insert(json_remove(r.extra, '$.CategoryHierarchy_ids'),
          '$.id', r.id, '$.guid', r.guid, '$.category_id', r.category_id, '$.sku', r.sku, '$.upc', r.upc, '$.name', r.name,
          '$.description', r.description, '$.manufacturer', r.manufacturer,
          '$.active', json(CASE r.active WHEN 0 THEN 'false' ELSE 'true' END),
          '$.has_inventory', json(CASE r.has_inventory WHEN 1 THEN 'true' WHEN 0 THEN 'false' ELSE 'null' END),
          '$.allow_backorder', json(CASE r.allow_backorder WHEN 1 THEN 'true' WHEN 0 THEN 'false' ELSE 'null' END),
          '$.msrp', r.msrp, '$.qty_on_hand', r.qty_on_hand, '$.min_order_qty', r.min_order_qty, '$.pricing', json(r.pricing),
          '$.updated_at', coalesce(r.updated_at, CASE WHEN r.deleted_at IS NULL AND r.version > 0 AND r.version <= 253402300799999
            THEN strftime('%Y-%m-%dT%H:%M:%S', r.version / 1000, 'unixepoch') || printf('.%03dZ', r.version % 1000) END), '$.deleted_at', r.deleted_at,
          '$.Category', (SELECT json(c.json) FROM categories AS c WHERE c.catalog_guid = r.catalog_guid AND c.id = r.category_id),
          '$.CategoryHierarchy', CASE
            WHEN r.updated_at IS NULL AND r.deleted_at IS NULL AND r.version > 0 AND json_type(r.extra, '$.CategoryHierarchy_ids') IS NULL THEN (
              WITH RECURSIVE path(id, parent_id, json, depth) AS (
                SELECT c.id, c.parent_id, c.json, 0 FROM categories AS c WHERE c.catalog_guid = r.catalog_guid AND c.id = r.category_id
                UNION ALL
                SELECT p.id, p.parent_id, p.json, path.depth + 1 FROM path JOIN categories AS p ON p.catalog_guid = r.catalog_guid AND p.id = path.parent_id
                WHERE path.depth < 63)
              SELECT json_group_array(json(json) ORDER BY depth DESC) FROM path)
            ELSE (
              SELECT json_group_array(json(c.json) ORDER BY h.key)
              FROM json_each(r.extra, '$.CategoryHierarchy_ids') AS h JOIN categories AS c ON c.catalog_guid = r.catalog_guid AND c.id = h.value)
            END,
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
