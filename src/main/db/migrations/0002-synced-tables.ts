import type { Migration } from '../migration'

export const migration: Migration = {
  version: 2,
  name: 'synced catalogs, customers and orders',
  up(db) {
    // Every synced table keeps the record's original JSON (json) beside the columns Satchel queries,
    // so fields the spec does not show survive. version is the record's latest change in the
    // service's clock (max of updated_at and deleted_at, in ms): an older version never overwrites
    // a newer one. A row with deleted_at stays as a tombstone, out of every live view, so a late page
    // cannot bring it back. unlisted_at marks a row a full listing no longer had but a draft or
    // outbox entry still needs (see local/retention.ts); listed_run is the full listing that last saw it.
    db.exec(`
        CREATE TABLE catalogs (
          local_id INTEGER PRIMARY KEY,
          guid TEXT NOT NULL UNIQUE,
          id INTEGER,
          name TEXT NOT NULL DEFAULT '',
          active INTEGER NOT NULL DEFAULT 1,
          version INTEGER NOT NULL DEFAULT 0,
          updated_at TEXT,
          deleted_at TEXT,
          unlisted_at TEXT,
          listed_run INTEGER,
          json TEXT NOT NULL
        ) STRICT;
        CREATE INDEX catalogs_by_id ON catalogs (id);

        CREATE TABLE price_groups (
          local_id INTEGER PRIMARY KEY,
          guid TEXT NOT NULL UNIQUE,
          id INTEGER,
          catalog_guid TEXT NOT NULL,
          name TEXT NOT NULL,
          is_main INTEGER NOT NULL DEFAULT 0,
          version INTEGER NOT NULL DEFAULT 0,
          updated_at TEXT,
          deleted_at TEXT,
          unlisted_at TEXT,
          listed_run INTEGER,
          json TEXT NOT NULL
        ) STRICT;
        CREATE INDEX price_groups_by_catalog ON price_groups (catalog_guid);
        CREATE INDEX price_groups_by_id ON price_groups (id);

        -- Categories arrive on catalog items (Category, CategoryHierarchy); the spec has no list of them.
        CREATE TABLE categories (
          local_id INTEGER PRIMARY KEY,
          catalog_guid TEXT NOT NULL,
          id INTEGER NOT NULL,
          guid TEXT,
          parent_id INTEGER,
          name TEXT NOT NULL DEFAULT '',
          sequence REAL,
          hidden INTEGER NOT NULL DEFAULT 0,
          version INTEGER NOT NULL DEFAULT 0,
          deleted_at TEXT,
          listed_run INTEGER,
          json TEXT NOT NULL,
          UNIQUE (catalog_guid, id)
        ) STRICT;

        CREATE TABLE catalog_items (
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
          -- The service's clock on the page that brought this version: how fresh stock figures are.
          synced_at TEXT,
          json TEXT NOT NULL
        ) STRICT;
        CREATE INDEX catalog_items_by_name ON catalog_items (catalog_guid, name COLLATE NOCASE)
          WHERE deleted_at IS NULL AND unlisted_at IS NULL;
        CREATE INDEX catalog_items_by_category ON catalog_items (catalog_guid, category_id, name COLLATE NOCASE)
          WHERE deleted_at IS NULL AND unlisted_at IS NULL;
        CREATE INDEX catalog_items_by_sku ON catalog_items (catalog_guid, sku COLLATE NOCASE);
        CREATE INDEX catalog_items_by_id ON catalog_items (id);
        CREATE INDEX catalog_items_by_listing ON catalog_items (catalog_guid, listed_run);

        CREATE VIRTUAL TABLE catalog_item_search USING fts5 (
          name, sku, upc, description, manufacturer,
          content = 'catalog_items', content_rowid = 'local_id',
          tokenize = 'unicode61 remove_diacritics 2', prefix = '2 3'
        );
        -- Only live rows are indexed, so search needs no extra filter to hide deleted ones. One trigger
        -- per event, with the removal before the insertion: FTS5 removes tokens by rowid, and the other
        -- order would take shared tokens of the new version away with the old.
        CREATE TRIGGER catalog_items_search_insert AFTER INSERT ON catalog_items
        WHEN new.deleted_at IS NULL AND new.unlisted_at IS NULL BEGIN
          INSERT INTO catalog_item_search (rowid, name, sku, upc, description, manufacturer)
          VALUES (new.local_id, new.name, new.sku, new.upc, new.description, new.manufacturer);
        END;
        CREATE TRIGGER catalog_items_search_update AFTER UPDATE OF name, sku, upc, description, manufacturer, deleted_at, unlisted_at
        ON catalog_items BEGIN
          INSERT INTO catalog_item_search (catalog_item_search, rowid, name, sku, upc, description, manufacturer)
          SELECT 'delete', old.local_id, old.name, old.sku, old.upc, old.description, old.manufacturer
          WHERE old.deleted_at IS NULL AND old.unlisted_at IS NULL;
          INSERT INTO catalog_item_search (rowid, name, sku, upc, description, manufacturer)
          SELECT new.local_id, new.name, new.sku, new.upc, new.description, new.manufacturer
          WHERE new.deleted_at IS NULL AND new.unlisted_at IS NULL;
        END;
        CREATE TRIGGER catalog_items_search_delete AFTER DELETE ON catalog_items
        WHEN old.deleted_at IS NULL AND old.unlisted_at IS NULL BEGIN
          INSERT INTO catalog_item_search (catalog_item_search, rowid, name, sku, upc, description, manufacturer)
          VALUES ('delete', old.local_id, old.name, old.sku, old.upc, old.description, old.manufacturer);
        END;

        CREATE TABLE customers (
          local_id INTEGER PRIMARY KEY,
          guid TEXT NOT NULL UNIQUE,
          id INTEGER,
          name TEXT NOT NULL DEFAULT '',
          customer_internal_id TEXT,
          email TEXT,
          phone TEXT,
          city TEXT,
          state TEXT,
          active INTEGER NOT NULL DEFAULT 1,
          price_group_id INTEGER,
          lock_catalog_id INTEGER,
          require_po INTEGER NOT NULL DEFAULT 0,
          hide_pricing INTEGER NOT NULL DEFAULT 0,
          version INTEGER NOT NULL DEFAULT 0,
          updated_at TEXT,
          deleted_at TEXT,
          unlisted_at TEXT,
          listed_run INTEGER,
          json TEXT NOT NULL,
          -- The supplier-to-customer connection row around the customer, minus Vendor.
          connection_json TEXT
        ) STRICT;
        CREATE INDEX customers_by_name ON customers (name COLLATE NOCASE) WHERE deleted_at IS NULL AND unlisted_at IS NULL;
        CREATE INDEX customers_by_id ON customers (id);
        CREATE INDEX customers_by_listing ON customers (listed_run);

        CREATE VIRTUAL TABLE customer_search USING fts5 (
          name, customer_internal_id, email, city,
          content = 'customers', content_rowid = 'local_id',
          tokenize = 'unicode61 remove_diacritics 2', prefix = '2 3'
        );
        CREATE TRIGGER customers_search_insert AFTER INSERT ON customers
        WHEN new.deleted_at IS NULL AND new.unlisted_at IS NULL BEGIN
          INSERT INTO customer_search (rowid, name, customer_internal_id, email, city)
          VALUES (new.local_id, new.name, new.customer_internal_id, new.email, new.city);
        END;
        CREATE TRIGGER customers_search_update AFTER UPDATE OF name, customer_internal_id, email, city, deleted_at, unlisted_at
        ON customers BEGIN
          INSERT INTO customer_search (customer_search, rowid, name, customer_internal_id, email, city)
          SELECT 'delete', old.local_id, old.name, old.customer_internal_id, old.email, old.city
          WHERE old.deleted_at IS NULL AND old.unlisted_at IS NULL;
          INSERT INTO customer_search (rowid, name, customer_internal_id, email, city)
          SELECT new.local_id, new.name, new.customer_internal_id, new.email, new.city
          WHERE new.deleted_at IS NULL AND new.unlisted_at IS NULL;
        END;
        CREATE TRIGGER customers_search_delete AFTER DELETE ON customers
        WHEN old.deleted_at IS NULL AND old.unlisted_at IS NULL BEGIN
          INSERT INTO customer_search (customer_search, rowid, name, customer_internal_id, email, city)
          VALUES ('delete', old.local_id, old.name, old.customer_internal_id, old.email, old.city);
        END;

        CREATE TABLE orders (
          local_id INTEGER PRIMARY KEY,
          guid TEXT NOT NULL UNIQUE,
          id INTEGER,
          name TEXT,
          api_guid TEXT,
          customer_guid TEXT,
          customer_id INTEGER,
          catalog_guid TEXT,
          catalog_id INTEGER,
          order_state_id INTEGER,
          order_state_name TEXT,
          po_no TEXT,
          sub_total REAL,
          grand_total REAL,
          created_at TEXT,
          created_ms INTEGER,
          version INTEGER NOT NULL DEFAULT 0,
          updated_at TEXT,
          deleted_at TEXT,
          listed_run INTEGER,
          json TEXT NOT NULL
        ) STRICT;
        CREATE INDEX orders_by_customer_guid ON orders (customer_guid, created_ms DESC);
        CREATE INDEX orders_by_customer_id ON orders (customer_id, created_ms DESC);
        CREATE INDEX orders_by_created ON orders (created_ms DESC);
        CREATE INDEX orders_by_api_guid ON orders (api_guid);

        -- One row per sync scope: 'catalogs', 'customers', 'orders', 'catalogItems:<catalog guid>'.
        -- cursor is the serverTimestamp of the first page of the last completed run; run is the JSON
        -- of an unfinished run (mode, its cursor, listing, page count), so the next run resumes it.
        CREATE TABLE sync_scopes (
          scope TEXT PRIMARY KEY,
          cursor TEXT,
          run TEXT,
          verify_needed INTEGER NOT NULL DEFAULT 0,
          last_success_at INTEGER,
          last_server_time TEXT,
          last_error TEXT
        ) STRICT;
        -- Pages of the unfinished run already applied, written in the same transaction as their rows.
        CREATE TABLE sync_pages (
          scope TEXT NOT NULL,
          page INTEGER NOT NULL,
          PRIMARY KEY (scope, page)
        ) STRICT, WITHOUT ROWID;
        -- Ids for full listings (listed_run), unique across runs and restarts.
        CREATE TABLE sync_listings (
          id INTEGER PRIMARY KEY AUTOINCREMENT,
          scope TEXT NOT NULL
        ) STRICT;
        CREATE TABLE sync_runs (
          id INTEGER PRIMARY KEY,
          started_at INTEGER NOT NULL,
          finished_at INTEGER NOT NULL,
          ok INTEGER NOT NULL,
          full INTEGER NOT NULL,
          report TEXT NOT NULL
        ) STRICT;
      `)
  },
}
