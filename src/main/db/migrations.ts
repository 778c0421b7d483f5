import type { Database } from 'better-sqlite3'

export interface Migration {
  version: number
  name: string
  up(db: Database): void
}

/**
 * Numbered, append-only: a released migration is never edited, because laptops in the field already
 * ran it. The database's PRAGMA user_version is the number of the last one applied.
 */
export const migrations: Migration[] = [
  {
    version: 1,
    name: 'settings',
    up(db) {
      db.exec(`
        CREATE TABLE settings (
          key TEXT PRIMARY KEY,
          value TEXT NOT NULL
        ) STRICT;
      `)
    },
  },
  {
    version: 2,
    name: 'synced catalogs, customers and orders',
    up(db) {
      // Every synced table keeps the record's original JSON (json) beside the columns Satchel queries,
      // so fields the spec does not show survive. version is the record's latest change in the
      // service's clock (max of updated_at and deleted_at, in ms): an older version never overwrites
      // a newer one. A row with deleted_at stays as a tombstone, out of every live view, so a late page
      // cannot bring it back. unlisted_at marks a row a full listing no longer had but a draft or
      // outbox entry still needs (see store/retention.ts); listed_run is the full listing that last saw it.
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
  },
  {
    version: 3,
    name: 'drafts and the outbox',
    up(db) {
      // Drafts are JSON documents: a draft is edited as a whole and its shape grows with the product.
      // The outbox keeps each entry's request frozen, enforced by a trigger, because "exactly once"
      // depends on every attempt sending the same api_guid and body.
      db.exec(`
      CREATE TABLE drafts (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        api_guid TEXT NOT NULL UNIQUE,
        customer_guid TEXT,
        catalog_guid TEXT,
        document TEXT NOT NULL,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
      ) STRICT;

      -- AUTOINCREMENT: ids give the queue's order and must never be reused after a discard.
      CREATE TABLE outbox (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        api_guid TEXT NOT NULL UNIQUE,
        state TEXT NOT NULL CHECK (state IN ('queued', 'sending', 'retrying', 'needsAttention', 'sent')),
        customer_guid TEXT,
        customer_name TEXT NOT NULL,
        catalog_guid TEXT NOT NULL,
        draft TEXT NOT NULL,
        request TEXT NOT NULL,
        rep_totals TEXT NOT NULL,
        attempts INTEGER NOT NULL DEFAULT 0,
        next_attempt_at INTEGER,
        last_error TEXT,
        errors TEXT NOT NULL DEFAULT '[]',
        result TEXT,
        queued_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        sent_at TEXT
      ) STRICT;

      CREATE INDEX outbox_by_state ON outbox (state, id);

      CREATE TRIGGER outbox_request_is_frozen
      BEFORE UPDATE OF api_guid, request, draft ON outbox
      BEGIN
        SELECT RAISE(ABORT, 'an outbox entry''s request is frozen once queued');
      END;
    `)
    },
  },
  {
    version: 4,
    name: 'search index kept from code',
    up(db) {
      // Index writes made by these triggers measured about twice as slow as the same writes made by
      // statements of their own (20,000 catalog items: 1.7 s against 0.9 s). SyncStore
      // (store/search-index.ts) now keeps catalog_item_search and customer_search in step within each
      // page's transaction. The index content is unchanged, so nothing needs rebuilding.
      db.exec(`
        DROP TRIGGER catalog_items_search_insert;
        DROP TRIGGER catalog_items_search_update;
        DROP TRIGGER catalog_items_search_delete;
        DROP TRIGGER customers_search_insert;
        DROP TRIGGER customers_search_update;
        DROP TRIGGER customers_search_delete;
      `)
    },
  },
  {
    version: 5,
    name: 'outbox payloads apart from the outbox state',
    up(db) {
      // SQLite rewrites a whole row on UPDATE, and every state change of an entry (claimed, sent,
      // retrying) used to rewrite its frozen draft and request too: measured at about a third of the
      // outbox's own time per order. The frozen parts move to a table that is only ever inserted into
      // and deleted from. Waiting entries get a partial index so finding the next one does not read
      // past every order already sent.
      db.exec(`
        CREATE TABLE outbox_payloads (
          entry_id INTEGER PRIMARY KEY REFERENCES outbox (id) ON DELETE CASCADE,
          draft TEXT NOT NULL,
          request TEXT NOT NULL
        ) STRICT;
        INSERT INTO outbox_payloads (entry_id, draft, request) SELECT id, draft, request FROM outbox;
        DROP TRIGGER outbox_request_is_frozen;
        ALTER TABLE outbox DROP COLUMN draft;
        ALTER TABLE outbox DROP COLUMN request;

        CREATE TRIGGER outbox_payload_is_frozen
        BEFORE UPDATE ON outbox_payloads
        BEGIN
          SELECT RAISE(ABORT, 'an outbox entry''s request is frozen once queued');
        END;
        CREATE TRIGGER outbox_key_is_frozen
        BEFORE UPDATE OF api_guid ON outbox
        BEGIN
          SELECT RAISE(ABORT, 'an outbox entry''s request is frozen once queued');
        END;
        CREATE INDEX outbox_waiting ON outbox (id) WHERE state IN ('queued', 'retrying');
      `)
    },
  },
  {
    version: 6,
    name: 'catalog browsing indexes that cover active',
    up(db) {
      // A rep browses and searches active items by name. With active outside the index, every row
      // walked (to an offset deep in a 100,000-item list, or across the matches of a one-letter
      // search) cost a table lookup: 75-300 ms per keystroke. With it inside, those walks read the
      // index alone (2-40 ms). The same names are kept: store/queries.ts refers to them by name.
      // The listing indexes hold deleted_at too, so counting what a listing saw reads no rows.
      // FTS5 merges its index segments fewer at a time (automerge 16, crisis merges later): a first
      // sync of 100,000 items spent a large part of its commits merging.
      db.exec(`
        DROP INDEX catalog_items_by_name;
        CREATE INDEX catalog_items_by_name ON catalog_items (catalog_guid, active, name COLLATE NOCASE)
          WHERE deleted_at IS NULL AND unlisted_at IS NULL;
        DROP INDEX catalog_items_by_category;
        CREATE INDEX catalog_items_by_category ON catalog_items (catalog_guid, active, category_id, name COLLATE NOCASE)
          WHERE deleted_at IS NULL AND unlisted_at IS NULL;
        DROP INDEX catalog_items_by_listing;
        CREATE INDEX catalog_items_by_listing ON catalog_items (catalog_guid, listed_run, deleted_at);
        DROP INDEX customers_by_listing;
        CREATE INDEX customers_by_listing ON customers (listed_run, deleted_at);
        INSERT INTO catalog_item_search (catalog_item_search, rank) VALUES ('automerge', 16);
        INSERT INTO catalog_item_search (catalog_item_search, rank) VALUES ('crisismerge', 64);
        INSERT INTO customer_search (customer_search, rank) VALUES ('automerge', 16);
        INSERT INTO customer_search (customer_search, rank) VALUES ('crisismerge', 64);
      `)
    },
  },
  {
    version: 7,
    name: 'rows that drafts and unsent orders still need',
    up(db) {
      // Sync removes rows a full listing no longer has, except those named here (store/retention.ts):
      // a draft or an unsent order must stay readable and fixable. A view, not a callback, because
      // the writer thread and the CLI write pages on connections of their own.
      db.exec(`
        CREATE VIEW retained_refs (kind, guid) AS
          SELECT 'customer', customer_guid FROM drafts WHERE customer_guid IS NOT NULL
          UNION ALL
          SELECT 'catalog', catalog_guid FROM drafts WHERE catalog_guid IS NOT NULL
          UNION ALL
          SELECT 'priceGroup', json_extract(document, '$.priceGroupGuid') FROM drafts WHERE json_extract(document, '$.priceGroupGuid') IS NOT NULL
          UNION ALL
          SELECT 'catalogItem', json_extract(line.value, '$.catalogItemGuid') FROM drafts, json_each(drafts.document, '$.lines') AS line
          UNION ALL
          SELECT 'customer', customer_guid FROM outbox WHERE state <> 'sent' AND customer_guid IS NOT NULL
          UNION ALL
          SELECT 'catalog', catalog_guid FROM outbox WHERE state <> 'sent'
          UNION ALL
          SELECT 'catalogItem', json_extract(line.value, '$.catalogItemGuid')
          FROM outbox JOIN outbox_payloads ON outbox_payloads.entry_id = outbox.id, json_each(outbox_payloads.draft, '$.lines') AS line
          WHERE outbox.state <> 'sent';
      `)
    },
  },
]
