/**
 * Writes what sync fetched into the local store. Every page is one short transaction: its rows, the
 * categories they carry, and the note that the page is done, so an interrupted run resumes where it
 * stopped and the renderer can read between pages.
 */
import type { Database, Statement } from 'better-sqlite3'
import type { CustomerConnection } from '../ordering-client/client'
import type { CatalogItemRecord, CatalogRecord, CategoryRecord, CustomerRecord, OrderRecord, PriceGroupRecord } from '../ordering-client/schemas'
import type { SyncReport } from '../../shared/synced'
import type { RetainableKind, Retention } from './retention'
import { SearchIndex } from './search-index'
import { versionOf } from './time'

export interface ApplyCounts {
  /** Rows received. */
  fetched: number
  /** Rows written live: new, or newer than the local copy. */
  upserted: number
  /** Rows that left the live views: tombstones applied and rows a full listing no longer had. */
  deleted: number
}

export function emptyCounts(): ApplyCounts {
  return { fetched: 0, upserted: 0, deleted: 0 }
}

export function addCounts(into: ApplyCounts, more: ApplyCounts): ApplyCounts {
  into.fetched += more.fetched
  into.upserted += more.upserted
  into.deleted += more.deleted
  return into
}

export interface ApplyContext {
  /** The full listing this page belongs to, or null for a delta page. */
  listingId: number | null
  /** The service's serverTimestamp on this page. */
  serverTime: string | null
  /** Record the page as done for the unfinished run of this scope, in the same transaction. */
  page?: { scope: string; page: number }
}

export type SyncMode = 'full' | 'delta'

/** An unfinished run, persisted so the next run resumes it instead of starting over. */
export interface RunState {
  mode: SyncMode
  /** serverTimestamp of the run's first page: the cursor committed when the run completes. */
  cursor: string | null
  /** lastUpdatedAt the run's pages are fetched with (null for a full listing). */
  since: string | null
  listingId: number | null
  /** Rows the first page announced, when the service counts them. */
  total: number | null
}

export interface ScopeState {
  scope: string
  cursor: string | null
  run: RunState | null
  verifyNeeded: boolean
  lastSuccessAt: number | null
  lastServerTime: string | null
  lastError: string | null
}

interface SyncedTable {
  table: string
  kind: RetainableKind | null
  /** Column that limits a listing's scope (catalog items and categories belong to one catalog). */
  scopeColumn: string | null
  /** Whether the table has unlisted_at (rows kept for drafts); categories and orders do not. */
  retainable: boolean
  /** A partial index over exactly the live rows, so counting them reads the index alone. */
  liveIndex?: string
}

const tables = {
  catalogs: { table: 'catalogs', kind: 'catalog', scopeColumn: null, retainable: true },
  priceGroups: { table: 'price_groups', kind: 'priceGroup', scopeColumn: null, retainable: true },
  categories: { table: 'categories', kind: null, scopeColumn: 'catalog_guid', retainable: false },
  catalogItems: { table: 'catalog_items', kind: 'catalogItem', scopeColumn: 'catalog_guid', retainable: true, liveIndex: 'catalog_items_by_name' },
  customers: { table: 'customers', kind: 'customer', scopeColumn: null, retainable: true, liveIndex: 'customers_by_name' },
  orders: { table: 'orders', kind: null, scopeColumn: null, retainable: false },
} as const satisfies Record<string, SyncedTable>

export type SyncedTableName = keyof typeof tables

function bool(value: boolean | null | undefined, fallback: 0 | 1 | null): 0 | 1 | null {
  return value === true ? 1 : value === false ? 0 : fallback
}

/** SQLite page cache during a sync, in KiB (negative: a size, not a page count). */
const bulkCacheSize = -24_576

/** Ids the service sends as 0 for "none". */
function positive(value: unknown): number | null {
  return typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : null
}

function nullable<T>(value: T | null | undefined): T | null {
  return value === undefined ? null : value
}

/** Newer version wins; at the same version a different body wins too (the service may stamp seconds only). */
function upsertGuard(table: string): string {
  return `WHERE excluded.version > ${table}.version OR (excluded.version = ${table}.version AND excluded.json <> ${table}.json)`
}

interface TableStatements {
  markListed: Statement<[number, string]>
  clearUnlisted: Statement<[string]> | null
  candidates: Statement<unknown[], { local_id: number; guid: string; live: number }>
  lastLocalId: Statement<[], number | null>
  remove: Statement<[number]>
  flag: Statement<[string, string]> | null
  countListedLive: Statement<unknown[], { n: number }>
  countLive: Statement<unknown[], { n: number }>
}

export class SyncStore {
  private readonly upsertCatalog
  private readonly upsertPriceGroup
  private readonly upsertCategory
  private readonly upsertItem
  private readonly upsertCustomer
  private readonly upsertOrder
  private readonly customerIdToGuid
  private readonly catalogIdToGuid
  private readonly statements = new Map<SyncedTableName, TableStatements>()
  private readonly indexes = new Map<SyncedTableName, SearchIndex>()
  private readonly selectScope
  private readonly ensureScope
  private readonly updateRun
  private readonly insertPage
  private readonly selectPages
  private readonly clearPages
  private readonly commitScope
  private readonly setVerify
  private readonly setError
  private readonly insertListing
  private readonly deleteScope
  private readonly insertRun
  private readonly trimRuns
  private readonly markCategoryListed
  private readonly dropCursor
  private readonly liveCatalogs
  private readonly lastOkRun
  private readonly lastRun
  private readonly deleteCategoriesOf

  constructor(
    private readonly db: Database,
    private readonly retention: Retention,
  ) {
    this.upsertCatalog = db.prepare(`
      INSERT INTO catalogs (guid, id, name, active, version, updated_at, deleted_at, unlisted_at, listed_run, json)
      VALUES (@guid, @id, @name, @active, @version, @updated_at, @deleted_at, NULL, @listed_run, @json)
      ON CONFLICT (guid) DO UPDATE SET id = excluded.id, name = excluded.name, active = excluded.active,
        version = excluded.version, updated_at = excluded.updated_at, deleted_at = excluded.deleted_at, unlisted_at = NULL,
        listed_run = coalesce(excluded.listed_run, catalogs.listed_run), json = excluded.json
      ${upsertGuard('catalogs')}`)
    this.upsertPriceGroup = db.prepare(`
      INSERT INTO price_groups (guid, id, catalog_guid, name, is_main, version, updated_at, deleted_at, unlisted_at, listed_run, json)
      VALUES (@guid, @id, @catalog_guid, @name, @is_main, @version, @updated_at, @deleted_at, NULL, @listed_run, @json)
      ON CONFLICT (guid) DO UPDATE SET id = excluded.id, catalog_guid = excluded.catalog_guid, name = excluded.name,
        is_main = excluded.is_main, version = excluded.version, updated_at = excluded.updated_at, deleted_at = excluded.deleted_at,
        unlisted_at = NULL, listed_run = coalesce(excluded.listed_run, price_groups.listed_run), json = excluded.json
      ${upsertGuard('price_groups')}`)
    this.upsertCategory = db.prepare(`
      INSERT INTO categories (catalog_guid, id, guid, parent_id, name, sequence, hidden, version, deleted_at, listed_run, json)
      VALUES (@catalog_guid, @id, @guid, @parent_id, @name, @sequence, @hidden, @version, @deleted_at, @listed_run, @json)
      ON CONFLICT (catalog_guid, id) DO UPDATE SET guid = excluded.guid, parent_id = excluded.parent_id, name = excluded.name,
        sequence = excluded.sequence, hidden = excluded.hidden, version = excluded.version, deleted_at = excluded.deleted_at,
        listed_run = coalesce(excluded.listed_run, categories.listed_run), json = excluded.json
      ${upsertGuard('categories')}`)
    this.upsertItem = db.prepare(`
      INSERT INTO catalog_items (guid, id, catalog_guid, category_id, sku, upc, name, description, manufacturer, active, msrp,
        qty_on_hand, min_order_qty, has_inventory, allow_backorder, pricing, version, updated_at, deleted_at, unlisted_at,
        listed_run, synced_at, json)
      VALUES (@guid, @id, @catalog_guid, @category_id, @sku, @upc, @name, @description, @manufacturer, @active, @msrp,
        @qty_on_hand, @min_order_qty, @has_inventory, @allow_backorder, @pricing, @version, @updated_at, @deleted_at, NULL,
        @listed_run, @synced_at, @json)
      ON CONFLICT (guid) DO UPDATE SET id = excluded.id, catalog_guid = excluded.catalog_guid, category_id = excluded.category_id,
        sku = excluded.sku, upc = excluded.upc, name = excluded.name, description = excluded.description,
        manufacturer = excluded.manufacturer, active = excluded.active, msrp = excluded.msrp, qty_on_hand = excluded.qty_on_hand,
        min_order_qty = excluded.min_order_qty, has_inventory = excluded.has_inventory, allow_backorder = excluded.allow_backorder,
        pricing = excluded.pricing, version = excluded.version, updated_at = excluded.updated_at, deleted_at = excluded.deleted_at,
        unlisted_at = NULL, listed_run = coalesce(excluded.listed_run, catalog_items.listed_run), synced_at = excluded.synced_at,
        json = excluded.json
      ${upsertGuard('catalog_items')}`)
    this.upsertCustomer = db.prepare(`
      INSERT INTO customers (guid, id, name, customer_internal_id, email, phone, city, state, active, price_group_id,
        lock_catalog_id, require_po, hide_pricing, version, updated_at, deleted_at, unlisted_at, listed_run, json, connection_json)
      VALUES (@guid, @id, @name, @customer_internal_id, @email, @phone, @city, @state, @active, @price_group_id,
        @lock_catalog_id, @require_po, @hide_pricing, @version, @updated_at, @deleted_at, NULL, @listed_run, @json, @connection_json)
      ON CONFLICT (guid) DO UPDATE SET id = excluded.id, name = excluded.name, customer_internal_id = excluded.customer_internal_id,
        email = excluded.email, phone = excluded.phone, city = excluded.city, state = excluded.state, active = excluded.active,
        price_group_id = excluded.price_group_id, lock_catalog_id = excluded.lock_catalog_id, require_po = excluded.require_po,
        hide_pricing = excluded.hide_pricing, version = excluded.version, updated_at = excluded.updated_at,
        deleted_at = excluded.deleted_at, unlisted_at = NULL, listed_run = coalesce(excluded.listed_run, customers.listed_run),
        json = excluded.json, connection_json = excluded.connection_json
      ${upsertGuard('customers')}`)
    this.upsertOrder = db.prepare(`
      INSERT INTO orders (guid, id, name, api_guid, customer_guid, customer_id, catalog_guid, catalog_id, order_state_id,
        order_state_name, po_no, sub_total, grand_total, created_at, created_ms, version, updated_at, deleted_at, listed_run, json)
      VALUES (@guid, @id, @name, @api_guid, @customer_guid, @customer_id, @catalog_guid, @catalog_id, @order_state_id,
        @order_state_name, @po_no, @sub_total, @grand_total, @created_at, @created_ms, @version, @updated_at, @deleted_at,
        @listed_run, @json)
      ON CONFLICT (guid) DO UPDATE SET id = excluded.id, name = excluded.name, api_guid = excluded.api_guid,
        customer_guid = coalesce(excluded.customer_guid, orders.customer_guid), customer_id = excluded.customer_id,
        catalog_guid = coalesce(excluded.catalog_guid, orders.catalog_guid), catalog_id = excluded.catalog_id,
        order_state_id = excluded.order_state_id, order_state_name = excluded.order_state_name, po_no = excluded.po_no,
        sub_total = excluded.sub_total, grand_total = excluded.grand_total, created_at = excluded.created_at,
        created_ms = excluded.created_ms, version = excluded.version, updated_at = excluded.updated_at,
        deleted_at = excluded.deleted_at, listed_run = coalesce(excluded.listed_run, orders.listed_run), json = excluded.json
      ${upsertGuard('orders')}`)
    this.customerIdToGuid = db.prepare<[number], { guid: string }>('SELECT guid FROM customers WHERE id = ?').pluck()
    this.catalogIdToGuid = db.prepare<[number], { guid: string }>('SELECT guid FROM catalogs WHERE id = ?').pluck()

    this.indexes.set('catalogItems', new SearchIndex(db, 'catalog_items', 'catalog_item_search', ['name', 'sku', 'upc', 'description', 'manufacturer']))
    this.indexes.set('customers', new SearchIndex(db, 'customers', 'customer_search', ['name', 'customer_internal_id', 'email', 'city']))

    for (const [name, spec] of Object.entries(tables) as [SyncedTableName, SyncedTable][]) {
      const scoped = spec.scopeColumn ? `${spec.scopeColumn} = @scope AND` : ''
      const unlisted = spec.retainable ? 'AND unlisted_at IS NULL' : ''
      this.statements.set(name, {
        markListed: db.prepare(`UPDATE ${spec.table} SET listed_run = ? WHERE guid = ?`),
        clearUnlisted: spec.retainable ? db.prepare(`UPDATE ${spec.table} SET unlisted_at = NULL WHERE guid = ? AND unlisted_at IS NOT NULL`) : null,
        // A bounded range of rowids per call, so no single statement scans a 100,000-row table.
        candidates: db.prepare(
          `SELECT local_id, guid, (deleted_at IS NULL ${unlisted}) AS live FROM ${spec.table}
           WHERE local_id > @after AND local_id <= @until AND ${scoped} (listed_run IS NULL OR listed_run <> @listing) ORDER BY local_id`,
        ),
        lastLocalId: db.prepare<[], number | null>(`SELECT max(local_id) FROM ${spec.table}`).pluck(),
        remove: db.prepare(`DELETE FROM ${spec.table} WHERE local_id = ?`),
        flag: spec.retainable ? db.prepare(`UPDATE ${spec.table} SET unlisted_at = ? WHERE guid = ? AND unlisted_at IS NULL`) : null,
        countListedLive: db.prepare(`SELECT count(*) AS n FROM ${spec.table} WHERE ${scoped} listed_run = @listing AND deleted_at IS NULL`),
        countLive: db.prepare(
          `SELECT count(*) AS n FROM ${spec.table} ${spec.liveIndex ? `INDEXED BY ${spec.liveIndex}` : ''} WHERE ${scoped} deleted_at IS NULL ${unlisted}`,
        ),
      })
    }

    this.selectScope = db.prepare<[string], { scope: string; cursor: string | null; run: string | null; verify_needed: number; last_success_at: number | null; last_server_time: string | null; last_error: string | null }>(
      'SELECT * FROM sync_scopes WHERE scope = ?',
    )
    this.ensureScope = db.prepare<[string]>('INSERT INTO sync_scopes (scope) VALUES (?) ON CONFLICT (scope) DO NOTHING')
    this.updateRun = db.prepare<[string | null, string]>('UPDATE sync_scopes SET run = ? WHERE scope = ?')
    this.insertPage = db.prepare<[string, number]>('INSERT OR IGNORE INTO sync_pages (scope, page) VALUES (?, ?)')
    this.selectPages = db.prepare<[string], number>('SELECT page FROM sync_pages WHERE scope = ?').pluck()
    this.clearPages = db.prepare<[string]>('DELETE FROM sync_pages WHERE scope = ?')
    this.commitScope = db.prepare<[string | null, number, string | null, string]>(
      'UPDATE sync_scopes SET cursor = ?, run = NULL, verify_needed = 0, last_success_at = ?, last_server_time = ?, last_error = NULL WHERE scope = ?',
    )
    this.setVerify = db.prepare<[number, string]>('UPDATE sync_scopes SET verify_needed = ? WHERE scope = ?')
    this.setError = db.prepare<[string | null, string]>('UPDATE sync_scopes SET last_error = ? WHERE scope = ?')
    this.insertListing = db.prepare<[string]>('INSERT INTO sync_listings (scope) VALUES (?)')
    this.deleteScope = db.prepare<[string]>('DELETE FROM sync_scopes WHERE scope = ?')
    this.insertRun = db.prepare<[number, number, number, number, string]>(
      'INSERT INTO sync_runs (started_at, finished_at, ok, full, report) VALUES (?, ?, ?, ?, ?)',
    )
    this.trimRuns = db.prepare('DELETE FROM sync_runs WHERE id <= (SELECT max(id) - 100 FROM sync_runs)')
    this.markCategoryListed = db.prepare<[number, string, number]>('UPDATE categories SET listed_run = ? WHERE catalog_guid = ? AND id = ?')
    this.lastOkRun = db.prepare<[], number | null>('SELECT max(finished_at) FROM sync_runs WHERE ok = 1').pluck()
    this.lastRun = db.prepare<[], string>('SELECT report FROM sync_runs ORDER BY id DESC LIMIT 1').pluck()
    this.liveCatalogs = db.prepare<[], string>('SELECT guid FROM catalogs WHERE deleted_at IS NULL AND unlisted_at IS NULL ORDER BY name, guid').pluck()
    this.dropCursor = db.prepare<[string]>('UPDATE sync_scopes SET cursor = NULL WHERE scope = ?')
    this.deleteCategoriesOf = db.prepare<[string]>('DELETE FROM categories WHERE catalog_guid = ?')
  }

  private table(name: SyncedTableName): TableStatements {
    const statements = this.statements.get(name)
    if (!statements) throw new Error(`no statements for ${name}`)
    return statements
  }

  /**
   * Runs one upsert (which writes only a newer version) and keeps the search index in step. In a full
   * listing the row is marked seen even when the local copy was already current, and a row kept
   * unlisted for a draft becomes live again.
   */
  private applyRow(name: SyncedTableName, statement: Statement, params: Record<string, unknown>, guid: string, listingId: number | null): boolean {
    const index = this.indexes.get(name)
    const before = index?.find(guid)
    const result = statement.run(params)
    const applied = result.changes > 0
    if (applied) {
      if (index) {
        if (before) index.drop(before)
        if (params.deleted_at === null) index.add(before?.localId ?? Number(result.lastInsertRowid), index.valuesOf(params))
      }
      return true
    }
    if (listingId !== null) {
      const table = this.table(name)
      table.markListed.run(listingId, guid)
      if (!index) table.clearUnlisted?.run(guid)
      else if (before?.unlisted) {
        table.clearUnlisted?.run(guid)
        if (!before.deleted) index.add(before.localId, before.values)
      }
    }
    return false
  }

  private countRow(counts: ApplyCounts, applied: boolean, deleted: boolean): void {
    counts.fetched++
    if (!applied) return
    if (deleted) counts.deleted++
    else counts.upserted++
  }

  private finishPage(context: ApplyContext): void {
    if (context.page) this.insertPage.run(context.page.scope, context.page.page)
  }

  /** Catalogs with their nested price groups, as one transaction (the list is small and has no pages). */
  applyCatalogs(catalogs: CatalogRecord[], context: ApplyContext): { catalogs: ApplyCounts; priceGroups: ApplyCounts } {
    const result = { catalogs: emptyCounts(), priceGroups: emptyCounts() }
    this.db.transaction(() => {
      for (const catalog of catalogs) {
        const deleted = Boolean(catalog.deleted_at)
        const applied = this.applyRow(
          'catalogs',
          this.upsertCatalog,
          {
            guid: catalog.guid,
            id: nullable(catalog.id),
            name: catalog.name ?? '',
            active: bool(catalog.active, 1),
            version: versionOf(catalog.updated_at, catalog.deleted_at),
            updated_at: nullable(catalog.updated_at),
            deleted_at: nullable(catalog.deleted_at),
            listed_run: context.listingId,
            json: JSON.stringify(catalog),
          },
          catalog.guid,
          context.listingId,
        )
        this.countRow(result.catalogs, applied, deleted)
        for (const group of catalog.Price_Groups ?? []) {
          const groupApplied = this.applyPriceGroupRow(catalog.guid, group, context.listingId)
          this.countRow(result.priceGroups, groupApplied, Boolean(group.deleted_at) || deleted)
        }
      }
      this.finishPage(context)
    })()
    return result
  }

  private applyPriceGroupRow(catalogGuid: string, group: PriceGroupRecord, listingId: number | null): boolean {
    return this.applyRow(
      'priceGroups',
      this.upsertPriceGroup,
      {
        guid: group.guid,
        id: nullable(group.id),
        catalog_guid: catalogGuid,
        name: group.value ?? group.name ?? '',
        is_main: bool(group.is_main, 0),
        version: versionOf(group.updated_at, group.deleted_at),
        updated_at: nullable(group.updated_at),
        deleted_at: nullable(group.deleted_at),
        listed_run: listingId,
        json: JSON.stringify(group),
      },
      group.guid,
      listingId,
    )
  }

  /** One page of a catalog's items, with the categories they carry. */
  applyCatalogItems(catalogGuid: string, items: CatalogItemRecord[], context: ApplyContext): ApplyCounts {
    const counts = emptyCounts()
    this.db.transaction(() => {
      // Many items share a category: write each category once per page, its newest version.
      const categories = new Map<number, CategoryRecord>()
      for (const item of items) {
        for (const category of [...(item.CategoryHierarchy ?? []), ...(item.Category ? [item.Category] : [])]) {
          const seen = categories.get(category.id)
          if (!seen || versionOf(category.updated_at, null) > versionOf(seen.updated_at, null)) categories.set(category.id, category)
        }
        const deleted = Boolean(item.deleted_at)
        const applied = this.applyRow(
          'catalogItems',
          this.upsertItem,
          {
            guid: item.guid,
            id: nullable(item.id),
            catalog_guid: catalogGuid,
            category_id: nullable(item.category_id),
            sku: item.sku ?? '',
            upc: nullable(item.upc),
            name: item.name ?? '',
            description: nullable(item.description),
            manufacturer: nullable(item.manufacturer),
            active: bool(item.active, 1),
            msrp: nullable(item.msrp),
            qty_on_hand: nullable(item.qty_on_hand),
            min_order_qty: nullable(item.min_order_qty),
            has_inventory: bool(item.has_inventory, null),
            allow_backorder: bool(item.allow_backorder, null),
            pricing: item.pricing ? JSON.stringify(item.pricing) : null,
            version: versionOf(item.updated_at, item.deleted_at),
            updated_at: nullable(item.updated_at),
            deleted_at: nullable(item.deleted_at),
            listed_run: context.listingId,
            synced_at: context.serverTime,
            json: JSON.stringify(item),
          },
          item.guid,
          context.listingId,
        )
        this.countRow(counts, applied, deleted)
      }
      for (const category of categories.values()) this.applyCategoryRow(catalogGuid, category, context.listingId)
      this.finishPage(context)
    })()
    return counts
  }

  private applyCategoryRow(catalogGuid: string, category: CategoryRecord, listingId: number | null): void {
    const deletedAt = typeof category.deleted_at === 'string' ? category.deleted_at : null
    const applied =
      this.upsertCategory.run({
        catalog_guid: catalogGuid,
        id: category.id,
        guid: nullable(category.guid),
        parent_id: category.parent_category_id ? category.parent_category_id : null,
        name: category.name ?? '',
        sequence: nullable(category.sequence),
        hidden: bool(category.hide_category, 0),
        version: versionOf(category.updated_at, deletedAt),
        deleted_at: deletedAt,
        listed_run: listingId,
        json: JSON.stringify(category),
      }).changes > 0
    if (!applied && listingId !== null) this.markCategoryListed.run(listingId, catalogGuid, category.id)
  }

  /** One page of the customer list. */
  applyCustomers(rows: CustomerConnection[], context: ApplyContext): ApplyCounts {
    const counts = emptyCounts()
    this.db.transaction(() => {
      for (const row of rows) {
        const customer: CustomerRecord = row.customer
        // A connection that carries deleted_at means the customer left this supplier's list.
        const deletedAt = customer.deleted_at ?? row.connectionDeletedAt ?? null
        const applied = this.applyRow(
          'customers',
          this.upsertCustomer,
          {
            guid: customer.guid,
            id: nullable(customer.id),
            name: customer.name ?? '',
            customer_internal_id: nullable(customer.customer_internal_id),
            email: nullable(customer.email),
            phone: nullable(customer.phone),
            city: nullable(customer.city),
            state: nullable(customer.state),
            active: bool(customer.active, 1),
            // The connection row carries the supplier's own assignment for this customer; it wins.
            price_group_id: positive(row.connection.price_group_id) ?? positive(customer.price_group_id),
            lock_catalog_id: positive(row.connection.lock_catalog_id) ?? positive(customer.lock_catalog_id),
            require_po: bool(customer.require_po, 0),
            hide_pricing: bool(customer.hide_pricing, 0),
            version: Math.max(versionOf(customer.updated_at, deletedAt), versionOf(row.connection.updated_at as string | undefined, null)),
            updated_at: nullable(customer.updated_at),
            deleted_at: deletedAt,
            listed_run: context.listingId,
            json: JSON.stringify(customer),
            connection_json: Object.keys(row.connection).length > 0 ? JSON.stringify(row.connection) : null,
          },
          customer.guid,
          context.listingId,
        )
        this.countRow(counts, applied, Boolean(deletedAt))
      }
      this.finishPage(context)
    })()
    return counts
  }

  /** One page of orders (the list's reduced projection, or a full order from create or read). */
  applyOrders(orders: OrderRecord[], context: ApplyContext): ApplyCounts {
    const counts = emptyCounts()
    this.db.transaction(() => {
      for (const order of orders) {
        const customerId = nullable(order.vendor_id ?? order.Vendor?.id)
        const catalogId = nullable(order.catalog_id ?? order.Catalog?.id)
        const applied = this.applyRow(
          'orders',
          this.upsertOrder,
          {
            guid: order.guid,
            id: nullable(order.id),
            name: nullable(order.name),
            api_guid: nullable(order.api_guid),
            customer_guid: order.Vendor?.guid ?? (customerId !== null ? (this.customerIdToGuid.get(customerId) ?? null) : null),
            customer_id: customerId,
            catalog_guid: order.Catalog?.guid ?? (catalogId !== null ? (this.catalogIdToGuid.get(catalogId) ?? null) : null),
            catalog_id: catalogId,
            order_state_id: nullable(order.order_state_id ?? order.Order_State?.id),
            order_state_name: nullable(order.Order_State?.name),
            po_no: nullable(order.po_no),
            sub_total: nullable(order.sub_total),
            grand_total: nullable(order.grand_total),
            created_at: nullable(order.created_at),
            created_ms: versionOf(order.created_at, null) || null,
            version: versionOf(order.updated_at, order.deleted_at),
            updated_at: nullable(order.updated_at),
            deleted_at: nullable(order.deleted_at),
            listed_run: context.listingId,
            json: JSON.stringify(order),
          },
          order.guid,
          context.listingId,
        )
        this.countRow(counts, applied, Boolean(order.deleted_at))
      }
      this.finishPage(context)
    })()
    return counts
  }

  /**
   * After a complete full listing: rows of the scope the listing did not see are removed, except those
   * a draft or outbox entry still needs, which are flagged unlisted instead. This call handles rows
   * with local_id in (after, after + span] in one short transaction and returns where to go on from,
   * or null when the table is done, so the caller can let the event loop breathe in between.
   */
  pruneUnlistedChunk(
    name: SyncedTableName,
    scope: string | null,
    listingId: number,
    serverTime: string | null,
    after: number,
    span = 2000,
  ): { counts: ApplyCounts; next: number | null } {
    const spec: SyncedTable = tables[name]
    const statements = this.table(name)
    const counts = emptyCounts()
    const last = statements.lastLocalId.get() ?? 0
    if (after >= last) return { counts, next: null }
    const until = after + span
    const batch = statements.candidates.all({ scope, listing: listingId, after, until })
    if (batch.length > 0) {
      const flaggedAt = serverTime ?? new Date(0).toISOString()
      const kept = spec.kind ? this.retention.retained(spec.kind, batch.map((row) => row.guid)) : new Set<string>()
      const index = this.indexes.get(name)
      this.db.transaction(() => {
        for (const row of batch) {
          const indexed = row.live && index ? index.findByLocalId(row.local_id) : undefined
          if (kept.has(row.guid)) {
            if (row.live && statements.flag && statements.flag.run(flaggedAt, row.guid).changes > 0) {
              if (indexed) index?.drop(indexed)
              counts.deleted++
            }
          } else {
            if (indexed) index?.drop(indexed)
            statements.remove.run(row.local_id)
            if (row.live) counts.deleted++
          }
        }
      })()
    }
    return { counts, next: until >= last ? null : until }
  }

  /** The whole of pruneUnlistedChunk at once, for small tables. */
  pruneUnlisted(name: SyncedTableName, scope: string | null, listingId: number, serverTime: string | null): ApplyCounts {
    const counts = emptyCounts()
    for (let after: number | null = 0; after !== null; ) {
      const chunk = this.pruneUnlistedChunk(name, scope, listingId, serverTime, after)
      addCounts(counts, chunk.counts)
      after = chunk.next
    }
    return counts
  }

  /** Rows of a scope that the listing saw and that are not soft-deleted. */
  countListedLive(name: SyncedTableName, scope: string | null, listingId: number): number {
    return this.table(name).countListedLive.get({ scope, listing: listingId })?.n ?? 0
  }

  countLive(name: SyncedTableName, scope: string | null): number {
    return this.table(name).countLive.get({ scope })?.n ?? 0
  }

  /** The items and categories of a catalog that is gone, keeping items a draft still needs (flagged). */
  removeCatalogContents(catalogGuid: string, serverTime: string | null): ApplyCounts {
    // Listing id 0 is never issued (AUTOINCREMENT starts at 1), so every row is a candidate.
    const counts = this.pruneUnlisted('catalogItems', catalogGuid, 0, serverTime)
    this.deleteCategoriesOf.run(catalogGuid)
    return counts
  }

  /**
   * Settings for the length of a sync run; returns the function that restores the previous ones.
   * Checkpoints come four times as often and each is a quarter the size: the checkpoint (with its
   * fsync) runs inside whichever commit crosses the threshold, and at the default of 1,000 pages it
   * held the event loop for 30-100 ms. A larger page cache keeps the indexes of a 100,000-item
   * catalog in memory while its rows arrive in guid order, which is random order for every index.
   */
  beginBulkWrite(): () => void {
    const checkpointPages = this.db.pragma('wal_autocheckpoint', { simple: true }) as number
    const cacheSize = this.db.pragma('cache_size', { simple: true }) as number
    this.db.pragma('wal_autocheckpoint = 250')
    this.db.pragma(`cache_size = ${bulkCacheSize}`)
    return () => {
      this.db.pragma(`wal_autocheckpoint = ${checkpointPages}`)
      this.db.pragma(`cache_size = ${cacheSize}`)
    }
  }

  liveCatalogGuids(): string[] {
    return this.liveCatalogs.all()
  }

  // Scope state -------------------------------------------------------------------------------

  scope(scope: string): ScopeState {
    this.ensureScope.run(scope)
    const row = this.selectScope.get(scope)
    if (!row) throw new Error(`sync scope ${scope} missing`)
    return {
      scope,
      cursor: row.cursor,
      run: row.run ? (JSON.parse(row.run) as RunState) : null,
      verifyNeeded: row.verify_needed === 1,
      lastSuccessAt: row.last_success_at,
      lastServerTime: row.last_server_time,
      lastError: row.last_error,
    }
  }

  allScopes(): ScopeState[] {
    const names = this.db.prepare<[], string>('SELECT scope FROM sync_scopes ORDER BY scope').pluck().all()
    return names.map((name) => this.scope(name))
  }

  newListingId(scope: string): number {
    return Number(this.insertListing.run(scope).lastInsertRowid)
  }

  beginRun(scope: string, run: RunState): void {
    this.db.transaction(() => {
      this.ensureScope.run(scope)
      this.clearPages.run(scope)
      this.updateRun.run(JSON.stringify(run), scope)
    })()
  }

  updateRunState(scope: string, run: RunState): void {
    this.updateRun.run(JSON.stringify(run), scope)
  }

  pagesDone(scope: string): Set<number> {
    return new Set(this.selectPages.all(scope))
  }

  /** The run finished: its first page's serverTimestamp becomes the cursor, and the next run is a delta. */
  completeRun(scope: string, cursor: string | null, localNow: number): void {
    this.db.transaction(() => {
      this.commitScope.run(cursor, localNow, cursor, scope)
      this.clearPages.run(scope)
    })()
  }

  /** Forget the unfinished run (and, for a refused cursor, the cursor): the next pass starts from page 0. */
  abandonRun(scope: string, options: { dropCursor: boolean }): void {
    this.db.transaction(() => {
      this.clearPages.run(scope)
      this.updateRun.run(null, scope)
      if (options.dropCursor) this.dropCursor.run(scope)
    })()
  }

  setVerifyNeeded(scope: string, needed: boolean): void {
    this.setVerify.run(needed ? 1 : 0, scope)
  }

  setLastError(scope: string, message: string | null): void {
    this.setError.run(message, scope)
  }

  forgetScope(scope: string): void {
    this.db.transaction(() => {
      this.clearPages.run(scope)
      this.deleteScope.run(scope)
    })()
  }

  /** Local clock, ms: the end of the last run that finished without error. */
  lastSyncAt(): number | null {
    return this.lastOkRun.get() ?? null
  }

  lastReport(): SyncReport | null {
    const json = this.lastRun.get()
    return json ? (JSON.parse(json) as SyncReport) : null
  }

  recordRun(startedAt: number, finishedAt: number, ok: boolean, full: boolean, report: SyncReport): void {
    this.insertRun.run(startedAt, finishedAt, ok ? 1 : 0, full ? 1 : 0, JSON.stringify(report))
    this.trimRuns.run()
  }
}
