/**
 * The read side of the local store: what the renderer, the CLI and the order rules ask of the synced
 * data. Only live rows (not soft-deleted, still listed by the service) appear in lists and searches;
 * single-record reads also return rows kept for a draft, with their status, so a draft can still
 * show what it refers to.
 */
import type { Database, Statement } from 'better-sqlite3'
import type {
  Address,
  CatalogLoading,
  CatalogItemDetail,
  CatalogItemLookup,
  CatalogItemSearch,
  CatalogItemSummary,
  CatalogSummary,
  CategorySummary,
  CustomerDetail,
  CustomerSummary,
  OrderDetail,
  OrderLine,
  OrderTotals,
  OrderSummary,
  Price,
  PriceGroupSummary,
  SentOrderSummary,
} from '../../shared/synced'
import { describePriceGroupChoice, listPrice, quantityBreak } from '../pricing'
import { PriceGroups } from '../local/price-groups'
import { SyncState } from '../local/sync-state'
import { wordPrefixQuery } from './search'

export interface StoreCounts {
  catalogs: number
  priceGroups: number
  customers: number
  catalogItems: number
  orders: number
}

/** The state names the spec gives; other states are shown by id. */
const knownStates: Record<number, string> = { 1: 'PRELIMINARY', 2: 'SUBMITTED', 8: 'SHIPPED', 9: 'COMPLETED', 23: 'CANCELLED' }

const live = 'deleted_at IS NULL AND unlisted_at IS NULL'

/**
 * Above this many matches a search is listed by name instead of ranked by relevance: bm25 must score
 * every match before the first row comes back, which on 100,000 items takes longer than a keystroke.
 */
const rankedSearchLimit = 2000

/** While a first sync has the name index deferred, a broad search counts its matches up to here. */
const arrivalCountLimit = 10_000

function clampLimit(limit: number | undefined, fallback: number, max = 500): number {
  if (limit === undefined || !Number.isFinite(limit)) return fallback
  return Math.max(1, Math.min(max, Math.floor(limit)))
}

function clampOffset(offset: number | undefined): number {
  return offset === undefined || !Number.isFinite(offset) ? 0 : Math.max(0, Math.floor(offset))
}

function parseObject(json: string | null): Record<string, unknown> {
  if (!json) return {}
  const value: unknown = JSON.parse(json)
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {}
}

function flag(value: number | null): boolean | null {
  return value === null ? null : value === 1
}

function text(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value : null
}

function numberOrNull(value: unknown): number | null {
  if (typeof value === 'number' && Number.isFinite(value)) return value
  if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value))) return Number(value)
  return null
}

/** The break the catalog row and item panel show: the same rule that prices the draft line. */
function catalogBreak(row: { pricing: string | null; qty_break: unknown; qty_break_price: unknown }, priceGroupName: string | null): { qty: number; price: number } | null {
  const found = quantityBreak({ pricing: parseObject(row.pricing), qtyBreak: numberOrNull(row.qty_break), qtyBreakPrice: numberOrNull(row.qty_break_price) }, priceGroupName)
  return found ? { qty: found.qty, price: found.unitPrice } : null
}

/** The catalog's price for one of an item, by the same rule the draft's check uses (src/main/pricing.ts). */
function catalogPrice(pricing: Record<string, unknown>, priceGroupName: string | null): Price {
  const price = listPrice(pricing, priceGroupName)
  return price === null ? { price: null, offered: false } : { price, offered: true }
}

interface ItemRow {
  local_id: number
  guid: string
  id: number | null
  catalog_guid: string
  category_id: number | null
  sku: string
  upc: string | null
  name: string
  description: string | null
  manufacturer: string | null
  active: number
  msrp: number | null
  qty_on_hand: number | null
  min_order_qty: number | null
  has_inventory: number | null
  allow_backorder: number | null
  pricing: string | null
  synced_at: string | null
  deleted_at: string | null
  unlisted_at: string | null
  /** From `extra`: no column holds them (absent when 0, the spec default). */
  qty_break: unknown
  qty_break_price: unknown
}

interface CustomerRow {
  guid: string
  id: number | null
  name: string
  customer_internal_id: string | null
  email: string | null
  phone: string | null
  city: string | null
  state: string | null
  active: number
  price_group_id: number | null
  lock_catalog_id: number | null
  require_po: number
  hide_pricing: number
  deleted_at: string | null
  unlisted_at: string | null
  json: string
}

interface OrderRow {
  guid: string
  id: number | null
  name: string | null
  api_guid: string | null
  customer_guid: string | null
  customer_name: string | null
  catalog_guid: string | null
  order_state_id: number | null
  order_state_name: string | null
  po_no: string | null
  sub_total: number | null
  grand_total: number | null
  created_at: string | null
  json: string
}

const itemColumns = `i.local_id, i.guid, i.id, i.catalog_guid, i.category_id, i.sku, i.upc, i.name, i.description, i.manufacturer,
  i.active, i.msrp, i.qty_on_hand, i.min_order_qty, i.has_inventory, i.allow_backorder, i.pricing, i.synced_at, i.deleted_at, i.unlisted_at,
  json_extract(i.extra, '$.qty_break') AS qty_break, json_extract(i.extra, '$.qty_break_price') AS qty_break_price`

const customerColumns = `c.guid, c.id, c.name, c.customer_internal_id, c.email, c.phone, c.city, c.state, c.active, c.price_group_id,
  c.lock_catalog_id, c.require_po, c.hide_pricing, c.deleted_at, c.unlisted_at, c.json`

const orderColumns = `o.guid, o.id, o.name, o.api_guid, coalesce(o.customer_guid, c.guid) AS customer_guid, c.name AS customer_name,
  o.catalog_guid, o.order_state_id, o.order_state_name, o.po_no, o.sub_total, o.grand_total, o.created_at, o.json`

export class BrowseQueries {
  private readonly catalogs
  private readonly catalogById
  private readonly itemCounts
  private readonly syncState: SyncState
  private readonly anyItemOf
  private readonly categoriesOf
  private readonly categoryCounts
  private readonly categoryTree
  private readonly itemByGuid
  private readonly itemBySku
  private readonly itemBySkuAnyCatalog
  private readonly customerByGuid
  private readonly orderByGuid
  private readonly countStatements
  private readonly itemJson
  private readonly indexExists
  /** Searches combine filters, so their SQL varies; each variant is prepared once and kept. */
  private readonly prepared = new Map<string, Statement<Record<string, unknown>, unknown>>()

  private readonly groups: PriceGroups

  constructor(private readonly db: Database) {
    this.groups = new PriceGroups(db)
    this.syncState = new SyncState(db)
    this.catalogs = db.prepare<[], { guid: string; id: number | null; name: string; active: number }>(
      `SELECT guid, id, name, active FROM catalogs WHERE ${live} ORDER BY name COLLATE NOCASE, guid`,
    )
    this.catalogById = db.prepare<[number], string>(`SELECT guid FROM catalogs WHERE id = ? AND ${live}`).pluck()
    this.itemCounts = (indexed: string) => `SELECT catalog_guid, count(*) AS n FROM catalog_item_rows ${indexed} WHERE ${live} GROUP BY catalog_guid`
    this.anyItemOf = db.prepare<[string], number>('SELECT 1 FROM catalog_item_rows INDEXED BY catalog_items_by_listing WHERE catalog_guid = ? LIMIT 1').pluck()
    this.categoriesOf = db.prepare<[string], { id: number; guid: string | null; parent_id: number | null; name: string; sequence: number | null; hidden: number }>(
      'SELECT id, guid, parent_id, name, sequence, hidden FROM categories WHERE catalog_guid = ? AND deleted_at IS NULL ORDER BY sequence, name COLLATE NOCASE',
    )
    this.categoryCounts = (indexed: string) =>
      `SELECT category_id, count(*) AS n FROM catalog_item_rows ${indexed} WHERE catalog_guid = @catalog AND ${live} GROUP BY category_id`
    this.categoryTree = db.prepare<[string, number, string], number>(
      `WITH RECURSIVE tree(id) AS (
         SELECT id FROM categories WHERE catalog_guid = ? AND id = ?
         UNION SELECT c.id FROM categories c JOIN tree ON c.parent_id = tree.id WHERE c.catalog_guid = ?
       ) SELECT id FROM tree`,
    ).pluck()
    this.itemByGuid = db.prepare<[string], ItemRow>(`SELECT ${itemColumns} FROM catalog_item_rows i WHERE i.guid = ?`)
    this.itemBySku = db.prepare<[string, string], ItemRow>(
      `SELECT ${itemColumns} FROM catalog_item_rows i WHERE i.catalog_guid = ? AND i.sku = ? COLLATE NOCASE
       ORDER BY (i.deleted_at IS NULL AND i.unlisted_at IS NULL) DESC, i.active DESC LIMIT 1`,
    )
    this.itemBySkuAnyCatalog = db.prepare<[string], ItemRow>(
      `SELECT ${itemColumns} FROM catalog_item_rows i WHERE i.sku = ? COLLATE NOCASE AND i.deleted_at IS NULL AND i.unlisted_at IS NULL LIMIT 1`,
    )
    this.customerByGuid = db.prepare<[string], CustomerRow>(`SELECT ${customerColumns} FROM customers c WHERE c.guid = ?`)
    this.orderByGuid = db.prepare<[string], OrderRow>(
      `SELECT ${orderColumns} FROM orders o LEFT JOIN customers c ON c.guid = o.customer_guid OR (o.customer_guid IS NULL AND c.id = o.customer_id)
       WHERE o.guid = ?`,
    )
    this.indexExists = db.prepare<[string], number>("SELECT 1 FROM sqlite_schema WHERE type = 'index' AND name = ?").pluck()
    this.itemJson = db.prepare<[number], string>('SELECT json FROM catalog_items WHERE local_id = ?').pluck()
    this.countStatements = {
      catalogs: db.prepare<[], number>(`SELECT count(*) FROM catalogs WHERE ${live}`).pluck(),
      customers: db.prepare<[], number>(`SELECT count(*) FROM customers WHERE ${live}`).pluck(),
      catalogItems: db.prepare<[], number>(`SELECT count(*) FROM catalog_item_rows WHERE ${live}`).pluck(),
      orders: db.prepare<[], number>('SELECT count(*) FROM orders WHERE deleted_at IS NULL').pluck(),
    }
  }

  private all<T>(sql: string, params: Record<string, unknown>): T[] {
    return unlessIndexGone(sql, (text) => this.statement(text).all(params) as T[])
  }

  private count(sql: string, params: Record<string, unknown>): number {
    return unlessIndexGone(sql, (text) => Number(this.statement(text).pluck().get(params) ?? 0))
  }

  /** More matches than can be ranked within a keystroke; counts no further than it needs to know. */
  private isBroad(fts: 'catalog_item_search' | 'customer_search', params: Record<string, unknown>): boolean {
    const sql = `SELECT count(*) FROM (SELECT 1 FROM ${fts} WHERE ${fts} MATCH @match LIMIT ${rankedSearchLimit + 1})`
    return this.count(sql, params) > rankedSearchLimit
  }

  /**
   * One page of a search and its total. A narrow full-text match is ranked by bm25, then name. With
   * no match, or a broad one ("c", "co"), rows go by name, walking an index that holds every
   * filtered column, so rows skipped on the way to a deep offset (or rejected by the match set) cost
   * no table lookup; only the page's rows are read. Ranking a broad match in full would take longer
   * than the rep waits between keystrokes.
   */
  private searchPage<Row>(spec: {
    fts: 'catalog_item_search' | 'customer_search'
    /** The table and its alias, e.g. 'customers c'. */
    table: string
    columns: string
    rank: string
    index: string
    where: string[]
    params: Record<string, unknown>
    match: string | null
    /** While `index` is missing: list in arrival order; `count` estimates an unfiltered total cheaply. */
    arrival?: { count: string }
  }): { rows: Row[]; total: number } {
    const { fts, table, columns, where, params, match } = spec
    const alias = table.split(' ')[1]!
    if (match) params.match = match
    if (match && !this.isBroad(fts, params)) {
      const from = `${fts} s JOIN ${table} ON ${alias}.local_id = s.rowid`
      const condition = `${fts} MATCH @match AND ${where.join(' AND ')}`
      const rows = this.all<Row>(
        `SELECT ${columns} FROM ${from} WHERE ${condition}
         ORDER BY ${spec.rank}, ${alias}.name COLLATE NOCASE LIMIT @limit OFFSET @offset`,
        params,
      )
      return { rows, total: this.count(`SELECT count(*) FROM ${from} WHERE ${condition}`, params) }
    }
    const filters = match ? [...where, `${alias}.local_id IN (SELECT rowid FROM ${fts} WHERE ${fts} MATCH @match)`] : where
    if (spec.arrival && !this.indexExists.get(spec.index)) {
      // A first sync is bringing items in and the name index waits for its end (deferIndexes): sorting
      // a whole catalog by name on every keystroke would hold the window. Rows come in the order they
      // arrived, and the total is counted no further than a screenful's worth needs.
      const rows = this.all<Row>(`SELECT ${columns} FROM ${table} WHERE ${filters.join(' AND ')} ORDER BY ${alias}.local_id LIMIT @limit OFFSET @offset`, params)
      const counted = match
        ? `SELECT count(*) FROM (SELECT 1 FROM ${fts} s JOIN ${table} ON ${alias}.local_id = s.rowid WHERE ${fts} MATCH @match AND ${where.join(' AND ')} LIMIT ${arrivalCountLimit})`
        : spec.arrival.count
      return { rows, total: this.count(counted, params) }
    }
    const condition = `FROM ${table} ${this.indexedBy(spec.index)} WHERE ${filters.join(' AND ')}`
    const rows = this.all<Row>(
      `SELECT ${columns} FROM ${table} WHERE ${alias}.local_id IN (
           SELECT ${alias}.local_id ${condition} ORDER BY ${alias}.name COLLATE NOCASE, ${alias}.local_id LIMIT @limit OFFSET @offset
         ) ORDER BY ${alias}.name COLLATE NOCASE, ${alias}.local_id`,
      params,
    )
    return { rows, total: this.count(`SELECT count(*) ${condition}`, params) }
  }

  /**
   * Names an index for the planner when it exists. A catalog's first sync builds its item indexes only
   * once its pages are in (local/copy.ts, deferIndexes); meanwhile the same queries run without.
   */
  private indexedBy(index: string): string {
    return this.indexExists.get(index) ? `INDEXED BY ${index}` : ''
  }

  private statement(sql: string): Statement<Record<string, unknown>, unknown> {
    let statement = this.prepared.get(sql)
    if (!statement) {
      statement = this.db.prepare<Record<string, unknown>, unknown>(sql)
      this.prepared.set(sql, statement)
    }
    return statement
  }

  /** Live rows per resource: soft-deleted rows do not count; inactive customers and items do. */
  counts(): StoreCounts {
    return {
      catalogs: this.countStatements.catalogs.get() ?? 0,
      priceGroups: this.groups.countLive(),
      customers: this.countStatements.customers.get() ?? 0,
      catalogItems: this.countStatements.catalogItems.get() ?? 0,
      orders: this.countStatements.orders.get() ?? 0,
    }
  }

  /**
   * Catalogs, with their price groups. For a customer, only the catalogs that customer may order
   * from: the one it is locked to (lock_catalog_id) when set, otherwise every active catalog.
   */
  listCatalogs(options: { customerGuid?: string } = {}): CatalogSummary[] {
    let rows = this.catalogs.all()
    if (options.customerGuid) {
      const customer = this.customerByGuid.get(options.customerGuid)
      const locked = customer?.lock_catalog_id ? this.catalogById.get(customer.lock_catalog_id) : undefined
      rows = locked ? rows.filter((row) => row.guid === locked) : rows.filter((row) => row.active === 1)
    }
    const counts = new Map(this.all<{ catalog_guid: string; n: number }>(this.itemCounts(this.indexedBy('catalog_items_by_name')), {}).map((row) => [row.catalog_guid, row.n]))
    return rows.map((row) => ({
      guid: row.guid,
      id: row.id,
      name: row.name,
      active: row.active === 1,
      priceGroups: this.priceGroups(row.guid),
      itemCount: counts.get(row.guid) ?? 0,
      lastSyncAt: this.syncState.catalogItems(row.guid)?.lastSuccessAt ?? null,
      loading: this.catalogLoading(row.guid),
    }))
  }

  /**
   * A catalog still in its first sync: its items scope never completed, and either has not begun (0
   * of an unknown number) or is in a first listing (pages done so far, of the total the service gave).
   * Null once the catalog has synced once: a later listing or delta replaces rows already usable.
   */
  catalogLoading(catalogGuid: string): CatalogLoading | null {
    const scope = this.syncState.catalogItems(catalogGuid)
    if (scope?.lastSuccessAt) return null
    const run = scope?.run ?? null
    if (run && !(run.mode === 'full' && run.fresh)) return null
    if (!run && this.anyItemOf.get(catalogGuid)) return null
    const total = run?.total ?? null
    const done = run ? scope!.pagesDone * (run.pageSize ?? 100) : 0
    return { itemsDone: total === null ? done : Math.min(done, total), itemsTotal: total }
  }

  priceGroups(catalogGuid: string): PriceGroupSummary[] {
    return this.groups.ofCatalog(catalogGuid)
  }

  /** The catalog's categories, flat (parentId gives the tree), each with its live item count. */
  listCategories(catalogGuid: string): CategorySummary[] {
    const counts = new Map(
      this.all<{ category_id: number | null; n: number }>(this.categoryCounts(this.indexedBy('catalog_items_by_category')), { catalog: catalogGuid }).map((row) => [row.category_id, row.n]),
    )
    return this.categoriesOf.all(catalogGuid).map((row) => ({
      id: row.id,
      guid: row.guid,
      parentId: row.parent_id,
      name: row.name,
      sequence: row.sequence,
      hidden: row.hidden === 1,
      itemCount: counts.get(row.id) ?? 0,
    }))
  }

  /** The price group whose name keys a catalog item's pricing for this customer, by the one rule (PriceGroups.choose). */
  priceGroupName(catalogGuid: string, customerGuid?: string): string | null {
    return this.groups.choose(catalogGuid, { customerGuid: customerGuid ?? null }).group?.name ?? null
  }

  /** A catalog's live items, by search and/or category, each priced for the customer's price group. */
  searchCatalogItems(search: CatalogItemSearch): { items: CatalogItemSummary[]; total: number; priceGroupName: string | null; priceGroupNote: string | null; loading: CatalogLoading | null } {
    const limit = clampLimit(search.limit, 50)
    const offset = clampOffset(search.offset)
    const choice = search.priceGroupName === undefined ? this.groups.choose(search.catalogGuid, { customerGuid: search.customerGuid ?? null }) : null
    const priceGroupName = search.priceGroupName ?? choice?.group?.name ?? null
    const priceGroupNote = choice ? describePriceGroupChoice(choice) : null
    const where = ['i.catalog_guid = @catalog', 'i.deleted_at IS NULL', 'i.unlisted_at IS NULL']
    const params: Record<string, unknown> = { catalog: search.catalogGuid, limit, offset }
    if (!search.includeInactive) where.push('i.active = 1')
    if (search.categoryId !== undefined) {
      const ids = this.categoryTree.all(search.catalogGuid, search.categoryId, search.catalogGuid)
      if (ids.length <= 1) {
        where.push('i.category_id = @category')
        params.category = search.categoryId
      } else {
        where.push(`i.category_id IN (SELECT value FROM json_each(@categories))`)
        params.categories = JSON.stringify(ids)
      }
    }
    const match = search.query ? wordPrefixQuery(search.query) : null
    const loading = this.catalogLoading(search.catalogGuid)
    if (!match && search.query && search.query.trim() !== '') return { items: [], total: 0, priceGroupName, priceGroupNote, loading }
    const { rows, total } = this.searchPage<ItemRow>({
      fts: 'catalog_item_search',
      table: 'catalog_item_rows i',
      columns: itemColumns,
      // bm25 ranks name and SKU hits above hits in the description.
      rank: 'bm25(catalog_item_search, 10.0, 10.0, 5.0, 1.0, 2.0)',
      index: search.categoryId !== undefined ? 'catalog_items_by_category' : 'catalog_items_by_name',
      where,
      params,
      match,
      // Inactive rows (a few percent) are counted too; no row of a first listing is unlisted.
      ...(search.categoryId === undefined
        ? { arrival: { count: 'SELECT count(*) FROM catalog_item_rows INDEXED BY catalog_items_by_listing WHERE catalog_guid = @catalog AND deleted_at IS NULL' } }
        : {}),
    })
    return { items: rows.map((row) => this.itemSummary(row, priceGroupName)), total, priceGroupName, priceGroupNote, loading }
  }

  private itemSummary(row: ItemRow, priceGroupName: string | null): CatalogItemSummary {
    return {
      guid: row.guid,
      id: row.id,
      sku: row.sku,
      name: row.name,
      upc: row.upc,
      manufacturer: row.manufacturer,
      active: row.active === 1,
      msrp: row.msrp,
      qtyOnHand: row.qty_on_hand,
      minOrderQty: row.min_order_qty,
      hasInventory: flag(row.has_inventory),
      allowBackorder: flag(row.allow_backorder),
      categoryId: row.category_id,
      syncedAt: row.synced_at,
      ...catalogPrice(parseObject(row.pricing), priceGroupName),
      priceBreak: catalogBreak(row, priceGroupName),
    }
  }

  /**
   * One catalog item by guid, or by SKU within a catalog (exact, case-insensitive: what a barcode
   * scanner types). Rows kept only for a draft are returned too, with their status.
   */
  getCatalogItem(lookup: CatalogItemLookup): CatalogItemDetail | null {
    let row: ItemRow | undefined
    if (lookup.guid) row = this.itemByGuid.get(lookup.guid)
    else if (lookup.sku) row = lookup.catalogGuid ? this.itemBySku.get(lookup.catalogGuid, lookup.sku) : this.itemBySkuAnyCatalog.get(lookup.sku)
    if (!row || (lookup.catalogGuid && row.catalog_guid !== lookup.catalogGuid)) return null
    const record = parseObject(this.itemJson.get(row.local_id) ?? null)
    const priceGroupName = lookup.priceGroupName ?? this.priceGroupName(row.catalog_guid, lookup.customerGuid)
    return {
      ...this.itemSummary(row, priceGroupName),
      catalogGuid: row.catalog_guid,
      description: row.description,
      status: row.deleted_at ? 'deleted' : row.unlisted_at ? 'unlisted' : 'live',
      priceGroupName,
      pricing: parseObject(row.pricing),
      record,
    }
  }

  /** Customers by word-prefix search on name, internal id, email and city; empty lists everyone by name. */
  searchCustomers(search: { query?: string; includeInactive?: boolean; limit?: number; offset?: number }): { customers: CustomerSummary[]; total: number } {
    const limit = clampLimit(search.limit, 50)
    const offset = clampOffset(search.offset)
    const where = ['c.deleted_at IS NULL', 'c.unlisted_at IS NULL']
    if (search.includeInactive === false) where.push('c.active = 1')
    const params: Record<string, unknown> = { limit, offset }
    const match = search.query ? wordPrefixQuery(search.query) : null
    if (search.query && search.query.trim() !== '' && !match) return { customers: [], total: 0 }
    const { rows, total } = this.searchPage<CustomerRow>({
      fts: 'customer_search',
      table: 'customers c',
      columns: customerColumns,
      rank: 'bm25(customer_search, 10.0, 5.0, 2.0, 1.0)',
      index: 'customers_by_name',
      where,
      params,
      match,
    })
    return { customers: rows.map((row) => this.customerSummary(row)), total }
  }

  private customerSummary(row: CustomerRow): CustomerSummary {
    return {
      guid: row.guid,
      id: row.id,
      name: row.name,
      customerInternalId: row.customer_internal_id,
      email: row.email,
      city: row.city,
      state: row.state,
      active: row.active === 1,
    }
  }

  /** A customer's details and addresses (bill-to and ship-to as the service sent them). */
  getCustomer(guid: string): CustomerDetail | null {
    const row = this.customerByGuid.get(guid)
    if (!row) return null
    const record = parseObject(row.json)
    const priceGroupName = row.price_group_id !== null ? this.groups.nameOf(row.price_group_id) : null
    return {
      ...this.customerSummary(row),
      status: row.deleted_at ? 'deleted' : row.unlisted_at ? 'unlisted' : 'live',
      phone: row.phone,
      requirePo: row.require_po === 1,
      hidePricing: row.hide_pricing === 1,
      priceGroup: row.price_group_id !== null ? { id: row.price_group_id, name: priceGroupName } : null,
      lockCatalogId: row.lock_catalog_id,
      creditLimit: numberOrNull(record.credit_limit),
      openBalance: numberOrNull(record.open_balance),
      notes: text(record.notes),
      addresses: addressesOf(record),
      record,
    }
  }

  /** Orders newest first, across customers or for one customer; searched by number, PO or customer, filtered by state and day. */
  listOrders(
    options: OrderListOptions = {},
    sent: SentOrderSummary[] = [],
  ): { orders: OrderSummary[]; total: number; sentNotSynced: SentOrderSummary[]; states: { id: number | null; name: string; count: number }[] } {
    const limit = clampLimit(options.limit, 50)
    const offset = clampOffset(options.offset)
    const join = 'orders o LEFT JOIN customers c ON c.guid = o.customer_guid OR (o.customer_guid IS NULL AND c.id = o.customer_id)'
    const where = ['o.deleted_at IS NULL']
    const params: Record<string, unknown> = { limit, offset }
    if (options.customerGuid) {
      const customer = this.customerByGuid.get(options.customerGuid)
      where.push('(o.customer_guid = @customer OR (o.customer_guid IS NULL AND o.customer_id = @customerId))')
      params.customer = options.customerGuid
      params.customerId = customer?.id ?? null
    }
    // The state filter's choices come from the customer's (or every) order, not from the search.
    const scope = where.join(' AND ')
    const filters = orderFilters(options, params)
    const condition = [scope, ...filters].join(' AND ')
    const rows = this.all<OrderRow>(`SELECT ${orderColumns} FROM ${join} WHERE ${condition} ORDER BY o.created_ms DESC, o.id DESC LIMIT @limit OFFSET @offset`, params)
    const total = this.count(`SELECT count(*) FROM ${options.query ? join : 'orders o'} WHERE ${condition}`, params)
    const states = this.all<{ id: number | null; name: string | null; count: number }>(
      `SELECT o.order_state_id AS id, max(o.order_state_name) AS name, count(*) AS count FROM orders o WHERE ${scope} GROUP BY o.order_state_id ORDER BY o.order_state_id`,
      params,
    ).map((state) => ({ id: state.id, name: state.name ?? (state.id !== null ? (knownStates[state.id] ?? `State ${state.id}`) : 'Unknown'), count: state.count }))
    return { orders: rows.map((row) => orderSummary(row, parseObject(row.json))), total, sentNotSynced: this.notYetSynced(sent.filter((entry) => sentMatches(entry, options))), states }
  }

  /**
   * The sent orders the history does not hold, whatever it holds them under: its api_guid or the
   * service's guid, in any case (the service's answer and its order list need not agree on case).
   */
  private notYetSynced(sent: SentOrderSummary[]): SentOrderSummary[] {
    if (sent.length === 0) return []
    const keysOf = (entry: SentOrderSummary): string[] => [entry.apiGuid, entry.orderGuid].filter((key): key is string => key !== null).map((key) => key.toLowerCase())
    const wanted = [...new Set(sent.flatMap(keysOf))]
    // By the indexes first (the keys as lower and upper case); only what is still missing by a scan.
    const held = new Set(
      this.all<{ key: string }>(
        `SELECT lower(guid) AS key FROM orders WHERE guid IN (SELECT value FROM json_each(@keys))
         UNION ALL SELECT lower(api_guid) FROM orders WHERE api_guid IN (SELECT value FROM json_each(@keys))`,
        { keys: JSON.stringify(wanted.flatMap((key) => [key, key.toUpperCase()])) },
      ).map((row) => row.key),
    )
    const missing = wanted.filter((key) => !held.has(key))
    if (missing.length > 0) {
      for (const row of this.all<{ key: string }>(
        `SELECT lower(guid) AS key FROM orders WHERE lower(guid) IN (SELECT value FROM json_each(@keys))
         UNION ALL SELECT lower(api_guid) FROM orders WHERE lower(api_guid) IN (SELECT value FROM json_each(@keys))`,
        { keys: JSON.stringify(missing) },
      ))
        held.add(row.key)
    }
    return sent.filter((entry) => !keysOf(entry).some((key) => held.has(key)))
  }

  getOrder(guid: string): OrderDetail | null {
    const row = this.orderByGuid.get(guid)
    if (!row) return null
    const record = parseObject(row.json)
    return { ...orderSummary(row, record), lines: orderLines(record), totals: orderTotals(record), record }
  }
}

export interface OrderListOptions {
  customerGuid?: string
  query?: string
  stateId?: number
  from?: string
  to?: string
  limit?: number
  offset?: number
}

/** A day (YYYY-MM-DD) as this laptop's midnight, in ms, `after` days on; the rep's "from the 3rd" means their 3rd. */
function localMidnight(day: string, after = 0): number {
  const [year, month, date] = day.split('-').map(Number) as [number, number, number]
  return new Date(year, month - 1, date + after).getTime()
}

function orderFilters(options: OrderListOptions, params: Record<string, unknown>): string[] {
  const filters: string[] = []
  const query = options.query?.trim()
  if (query) {
    filters.push("(o.name LIKE @like ESCAPE '\\' OR o.po_no LIKE @like ESCAPE '\\' OR coalesce(c.name, json_extract(o.json, '$.Vendor.name')) LIKE @like ESCAPE '\\')")
    params.like = `%${query.replace(/[\\%_]/g, (char) => `\\${char}`)}%`
  }
  if (options.stateId !== undefined) {
    filters.push('o.order_state_id = @stateId')
    params.stateId = options.stateId
  }
  if (options.from) {
    filters.push('o.created_ms >= @fromMs')
    params.fromMs = localMidnight(options.from)
  }
  if (options.to) {
    filters.push('o.created_ms < @toMs')
    params.toMs = localMidnight(options.to, 1)
  }
  return filters
}

/** The list's search and filters, applied to an order sent from this laptop as to a synced one. */
function sentMatches(entry: SentOrderSummary, options: OrderListOptions): boolean {
  if (options.customerGuid && entry.customerGuid !== options.customerGuid) return false
  const query = options.query?.trim().toLowerCase()
  if (query && ![entry.orderName, entry.poNo, entry.customerName].some((field) => field?.toLowerCase().includes(query))) return false
  if (options.stateId !== undefined && entry.orderStateId !== options.stateId) return false
  const at = Date.parse(entry.sentAt)
  if (options.from && !(at >= localMidnight(options.from))) return false
  if (options.to && !(at < localMidnight(options.to, 1))) return false
  return true
}

function orderTotals(record: Record<string, unknown>): OrderTotals {
  return {
    subTotal: numberOrNull(record.sub_total),
    tax: numberOrNull(record.tax),
    shipping: numberOrNull(record.shipping),
    labor: numberOrNull(record.labor),
    other: numberOrNull(record.other),
    discount: numberOrNull(record.discount_total) ?? numberOrNull(record.discount),
    grandTotal: numberOrNull(record.grand_total),
  }
}

function addressesOf(record: Record<string, unknown>): Address[] {
  const addresses: Address[] = []
  const seen = new Set<string>()
  for (const [key, kind] of [
    ['Bill_To', 'billTo'],
    ['Ship_To', 'shipTo'],
  ] as const) {
    const value = record[key]
    if (!value || typeof value !== 'object' || Array.isArray(value)) continue
    const address = value as Record<string, unknown>
    const guid = text(address.guid)
    const identity = guid ?? `${kind}:${JSON.stringify(address)}`
    if (seen.has(identity)) continue
    seen.add(identity)
    addresses.push({
      guid,
      kind,
      name: text(address.name),
      companyName: text(address.company_name),
      addressLineOne: text(address.address_line_one),
      addressLineTwo: text(address.address_line_two),
      city: text(address.city),
      state: text(address.state),
      postalCode: text(address.postal_code),
      country: text(address.country),
      isMainShipTo: address.is_vendor_main_ship_to === true,
      record: address,
    })
  }
  return addresses
}

function orderSummary(row: OrderRow, record: Record<string, unknown>): OrderSummary {
  const items = Array.isArray(record.Order_Items) ? record.Order_Items : []
  return {
    guid: row.guid,
    id: row.id,
    name: row.name,
    apiGuid: row.api_guid,
    customerGuid: row.customer_guid,
    customerName: row.customer_name ?? text((record.Vendor as Record<string, unknown> | undefined)?.name),
    catalogGuid: row.catalog_guid,
    state: {
      id: row.order_state_id,
      name: row.order_state_name ?? (row.order_state_id !== null ? (knownStates[row.order_state_id] ?? `State ${row.order_state_id}`) : 'Unknown'),
    },
    poNo: row.po_no,
    subTotal: row.sub_total,
    grandTotal: row.grand_total,
    createdAt: row.created_at,
    lineCount: items.length,
  }
}

function orderLines(record: Record<string, unknown>): OrderLine[] {
  const items = Array.isArray(record.Order_Items) ? record.Order_Items : []
  return items
    .filter((item): item is Record<string, unknown> => Boolean(item) && typeof item === 'object')
    .map((item) => {
      const catalogItem = (item.Catalog_Item && typeof item.Catalog_Item === 'object' ? item.Catalog_Item : {}) as Record<string, unknown>
      return {
        itemNo: numberOrNull(item.item_no),
        catalogItemGuid: text(item.catalog_item_guid) ?? text(catalogItem.guid),
        catalogItemId: numberOrNull(item.catalog_item_id) ?? numberOrNull(catalogItem.id),
        sku: text(item.sku) ?? text(catalogItem.sku),
        name: text(item.name) ?? text(catalogItem.name),
        qty: numberOrNull(item.qty),
        note: text(item.note),
        unitPrice: numberOrNull(item.net_price),
        lineTotal: numberOrNull(item.total),
      }
    })
}

/** Runs `run(sql)`; if the writer thread dropped a named index in between (deferIndexes), runs it again without naming one. */
function unlessIndexGone<T>(sql: string, run: (sql: string) => T): T {
  try {
    return run(sql)
  } catch (error) {
    if (!/no such index/.test(String((error as Error)?.message)) || !sql.includes('INDEXED BY')) throw error
    return run(sql.replace(/INDEXED BY \w+/g, ''))
  }
}
