/**
 * A database as Satchel left it at schema 9, built from a current sync: what the upgrade tests
 * (sync-lean-migration, catalog-update) migrate and compare.
 */
import { openDatabase, type Database } from '../../src/main/db/database'
import { migrations } from '../../src/main/db/migrations'
import type { CatalogItemRecord } from '../../src/main/ordering-client/schemas'
import { catalogItemRow, categoriesOf, categoryRow } from '../../src/main/local/rows'
import { liveCatalogGuids, type Harness } from './sync-support'

/** Every item of every catalog as the service lists it to the app (pages of 100, parsed by the client). */
export async function serviceItems(h: Harness): Promise<Map<string, CatalogItemRecord[]>> {
  const byCatalog = new Map<string, CatalogItemRecord[]>()
  for (const catalogGuid of liveCatalogGuids(h)) {
    const items: CatalogItemRecord[] = []
    for (let offset = 0; ; offset++) {
      const page = await h.client.listCatalogItems(catalogGuid, { limit: 100, offset }, {})
      items.push(...page.rows)
      if (page.rows.length < 100) break
    }
    byCatalog.set(catalogGuid, items)
  }
  return byCatalog
}

/**
 * The database as Satchel left it at schema 9: every synced table copied from a current sync except
 * the catalog items, which are written as schema 9's writer wrote them (catalogItemRow: the whole
 * record as JSON), with their search index; plus a draft and a queued order.
 */
export function schema9Database(
  path: string,
  synced: Database,
  items: Map<string, CatalogItemRecord[]>,
  listingId: number,
): Database {
  const old = openDatabase(path, { migrations: migrations.filter((m) => m.version <= 9) })
  for (const table of ['catalogs', 'price_groups', 'customers', 'orders', 'sync_scopes', 'sync_listings']) {
    const rows = synced.prepare(`SELECT * FROM ${table}`).all() as Record<string, unknown>[]
    if (rows.length === 0) continue
    const columns = Object.keys(rows[0]!)
    const insert = old.prepare(
      `INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map((c) => `@${c}`).join(', ')})`,
    )
    old.transaction(() => rows.forEach((row) => insert.run(row)))()
  }
  old.exec(
    'INSERT INTO customer_search (rowid, name, customer_internal_id, email, city) SELECT local_id, name, customer_internal_id, email, city FROM customers WHERE deleted_at IS NULL AND unlisted_at IS NULL',
  )
  const insertItem =
    old.prepare(`INSERT INTO catalog_items (guid, id, catalog_guid, category_id, sku, upc, name, description, manufacturer, active,
    msrp, qty_on_hand, min_order_qty, has_inventory, allow_backorder, pricing, version, updated_at, deleted_at, listed_run, synced_at, json)
    VALUES (@guid, @id, @catalog_guid, @category_id, @sku, @upc, @name, @description, @manufacturer, @active, @msrp, @qty_on_hand,
    @min_order_qty, @has_inventory, @allow_backorder, @pricing, @version, @updated_at, @deleted_at, @listed_run, @synced_at, @json)`)
  const insertCategory =
    old.prepare(`INSERT OR REPLACE INTO categories (catalog_guid, id, guid, parent_id, name, sequence, hidden, version, deleted_at, listed_run, json)
    VALUES (@catalog_guid, @id, @guid, @parent_id, @name, @sequence, @hidden, @version, @deleted_at, @listed_run, @json)`)
  old.transaction(() => {
    for (const [catalogGuid, records] of items) {
      for (const item of records)
        insertItem.run(catalogItemRow(catalogGuid, item, listingId, '2026-11-01T00:00:00.000Z'))
      for (const category of categoriesOf(records)) insertCategory.run(categoryRow(catalogGuid, category, listingId))
    }
  })()
  old.exec(`INSERT INTO catalog_item_search (rowid, name, sku, upc, description, manufacturer)
    SELECT local_id, name, sku, upc, description, manufacturer FROM catalog_items WHERE deleted_at IS NULL AND unlisted_at IS NULL`)
  return old
}
