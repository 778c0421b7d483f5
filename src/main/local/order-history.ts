/**
 * The synced orders table's one home (the order history the service keeps; orders waiting to be sent
 * are the outbox's, orders/outbox.ts): how sync writes an order and every read of the history.
 */
import type { Database, Statement } from 'better-sqlite3'
import { customerOfOrder } from './customers'
import { SearchPages } from './search-page'
import { prepareTableStatements, upsertGuard, type SyncedTable } from './synced-table'

export const ordersTable = {
  table: 'orders',
  kind: null,
  scopeColumn: null,
  retainable: false,
} as const satisfies SyncedTable

/** What sync writes. */
export class OrderWrites {
  readonly upsert: Statement
  readonly rows

  constructor(db: Database) {
    this.upsert = db.prepare(`
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
    this.rows = prepareTableStatements(db, ordersTable)
  }
}

export interface OrderRow {
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

/** An order as a customer's brief reads it: the record whole, and the columns it sorts and sums by. */
export interface BriefOrderRow {
  guid: string
  name: string | null
  catalog_guid: string | null
  created_ms: number
  sub_total: number | null
  order_state_id: number | null
  json: string
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

const orderColumns = `o.guid, o.id, o.name, o.api_guid, coalesce(o.customer_guid, c.guid) AS customer_guid, c.name AS customer_name,
  o.catalog_guid, o.order_state_id, o.order_state_name, o.po_no, o.sub_total, o.grand_total, o.created_at, o.json`

/**
 * The history's orders as other homes join them (full orders after Send, in order-details.ts), so
 * the orders table's SQL stays here: `o` is the history row.
 */
export const historyOrders = 'orders o'
/** Joins the history row `o` to the full order `d`. */
export const historyOrderOfDetail = 'orders o ON o.guid = d.order_guid'

/** The supplier's name on the newest synced order that carries one, or null. */
export function latestSupplierName(db: Database): string | null {
  const name = db
    .prepare<[], string | null>(
      `SELECT json_extract(json, '$.Supplier.name') FROM orders
       WHERE json_type(json, '$.Supplier.name') = 'text' ORDER BY created_ms DESC LIMIT 1`,
    )
    .pluck()
    .get()
  return typeof name === 'string' && name.trim() !== '' ? name.trim() : null
}

/** Every read of the order history. */
export class OrderHistory {
  private readonly statements
  private readonly queries: SearchPages

  constructor(db: Database) {
    this.queries = new SearchPages(db)
    this.statements = {
      byGuid: db.prepare<[string], OrderRow>(`SELECT ${orderColumns} FROM orders o LEFT JOIN ${customerOfOrder}
       WHERE o.guid = ?`),
      // An order number is the service's display name: compared without regard to case, newest first.
      byName: db.prepare<[string], OrderRow>(`SELECT ${orderColumns} FROM orders o LEFT JOIN ${customerOfOrder}
       WHERE lower(o.name) = lower(?) AND o.deleted_at IS NULL ORDER BY o.created_ms DESC LIMIT 1`),
      countLive: db.prepare<[], number>('SELECT count(*) FROM orders WHERE deleted_at IS NULL').pluck(),
      isLive: db.prepare<[string], number>('SELECT 1 FROM orders WHERE guid = ? AND deleted_at IS NULL').pluck(),
      lastCatalogOf: db
        .prepare<[string], string>(
          'SELECT catalog_guid FROM orders WHERE customer_guid = ? AND catalog_guid IS NOT NULL AND deleted_at IS NULL ORDER BY created_ms DESC LIMIT 1',
        )
        .pluck(),
      customerSince: db.prepare<
        { guid: string; id: number | null; since: number },
        { api_guid: string | null; catalog_guid: string | null; created_at: string | null; json: string }
      >(
        `SELECT api_guid, catalog_guid, created_at, json FROM orders
         WHERE deleted_at IS NULL AND created_ms >= @since
           AND (customer_guid = @guid OR (customer_guid IS NULL AND customer_id = @id))`,
      ),
      forBrief: db.prepare<{ guid: string; id: number | null; since: number }, BriefOrderRow>(
        `SELECT guid, name, catalog_guid, created_ms, sub_total, order_state_id, json FROM orders
         WHERE deleted_at IS NULL AND created_ms >= @since
           AND (customer_guid = @guid OR (customer_guid IS NULL AND customer_id = @id))
         ORDER BY created_ms`,
      ),
      briefVersion: db.prepare<
        { guid: string; id: number | null; since: number },
        { n: number; version: number | null }
      >(
        `SELECT count(*) AS n, max(version) AS version FROM orders WHERE created_ms >= @since
           AND (customer_guid = @guid OR (customer_guid IS NULL AND customer_id = @id))`,
      ),
      latestSupplier: db
        .prepare<[], string>(
          `SELECT json_extract(json, '$.Supplier') FROM orders WHERE json_type(json, '$.Supplier') = 'object' ORDER BY created_ms DESC LIMIT 1`,
        )
        .pluck(),
    }
  }

  byGuid(guid: string): OrderRow | undefined {
    return this.statements.byGuid.get(guid)
  }

  /** By the order number as the service shows it. */
  byName(name: string): OrderRow | undefined {
    return this.statements.byName.get(name)
  }

  countLive(): number {
    return this.statements.countLive.get() ?? 0
  }

  /** The order is in the history and not deleted by the service. */
  has(guid: string): boolean {
    return this.statements.isLive.get(guid) !== undefined
  }

  /** The catalog of the customer's newest order that names one. */
  lastCatalogOf(customerGuid: string): string | null {
    return this.statements.lastCatalogOf.get(customerGuid) ?? null
  }

  /** A customer's orders created from `since` (ms) on, found by guid or, when an order carries only that, by id. */
  customerSince(customer: { guid: string; id: number | null }, since: number) {
    return this.statements.customerSince.all({ guid: customer.guid, id: customer.id, since })
  }

  /** A customer's orders created from `since` (ms) on, oldest first, with what their brief reads. */
  forBrief(customer: { guid: string; id: number | null }, since: number): BriefOrderRow[] {
    return this.statements.forBrief.all({ guid: customer.guid, id: customer.id, since })
  }

  /** What changes when any of forBrief's orders does (deleted ones included): to keep a brief's reading of them. */
  briefVersion(customer: { guid: string; id: number | null }, since: number): string {
    const { n, version } = this.statements.briefVersion.get({ guid: customer.guid, id: customer.id, since }) ?? {
      n: 0,
      version: null,
    }
    return `${since}:${n}:${version ?? 0}`
  }

  /** The Supplier object of the newest order that carries one, as JSON. */
  latestSupplier(): string | undefined {
    return this.statements.latestSupplier.get()
  }

  /**
   * Orders newest first, across customers or for one (`customerId`: the customer's service id, for
   * orders that carry only that), searched and filtered; with the states of the customer's (or
   * every) order, which the state filter offers.
   */
  list(
    options: OrderListOptions,
    limit: number,
    offset: number,
    customerId: number | null,
  ): { rows: OrderRow[]; total: number; states: { id: number | null; name: string | null; count: number }[] } {
    const join = `orders o LEFT JOIN ${customerOfOrder}`
    const where = ['o.deleted_at IS NULL']
    const params: Record<string, unknown> = { limit, offset }
    if (options.customerGuid) {
      where.push('(o.customer_guid = @customer OR (o.customer_guid IS NULL AND o.customer_id = @customerId))')
      params.customer = options.customerGuid
      params.customerId = customerId
    }
    // The state filter's choices come from the customer's (or every) order, not from the search.
    const scope = where.join(' AND ')
    const filters = orderFilters(options, params)
    const condition = [scope, ...filters].join(' AND ')
    const rows = this.queries.all<OrderRow>(
      `SELECT ${orderColumns} FROM ${join} WHERE ${condition} ORDER BY o.created_ms DESC, o.id DESC LIMIT @limit OFFSET @offset`,
      params,
    )
    const total = this.queries.count(
      `SELECT count(*) FROM ${options.query ? join : 'orders o'} WHERE ${condition}`,
      params,
    )
    const states = this.queries.all<{ id: number | null; name: string | null; count: number }>(
      `SELECT o.order_state_id AS id, max(o.order_state_name) AS name, count(*) AS count FROM orders o WHERE ${scope} GROUP BY o.order_state_id ORDER BY o.order_state_id`,
      params,
    )
    return { rows, total, states }
  }

  /**
   * Which of `wanted` (lower-case keys) the history holds, as its guid or api_guid, in any case (the
   * service's answer and its order list need not agree on case).
   */
  held(wanted: string[]): Set<string> {
    // By the indexes first (the keys as lower and upper case); only what is still missing by a scan.
    const held = new Set(
      this.queries
        .all<{ key: string }>(
          `SELECT lower(guid) AS key FROM orders WHERE guid IN (SELECT value FROM json_each(@keys))
         UNION ALL SELECT lower(api_guid) FROM orders WHERE api_guid IN (SELECT value FROM json_each(@keys))`,
          { keys: JSON.stringify(wanted.flatMap((key) => [key, key.toUpperCase()])) },
        )
        .map((row) => row.key),
    )
    const missing = wanted.filter((key) => !held.has(key))
    if (missing.length > 0) {
      for (const row of this.queries.all<{ key: string }>(
        `SELECT lower(guid) AS key FROM orders WHERE lower(guid) IN (SELECT value FROM json_each(@keys))
         UNION ALL SELECT lower(api_guid) FROM orders WHERE lower(api_guid) IN (SELECT value FROM json_each(@keys))`,
        { keys: JSON.stringify(missing) },
      ))
        held.add(row.key)
    }
    return held
  }
}

/** A day (YYYY-MM-DD) as this laptop's midnight, in ms, `after` days on; the rep's "from the 3rd" means their 3rd. */
export function localMidnight(day: string, after = 0): number {
  const [year, month, date] = day.split('-').map(Number) as [number, number, number]
  return new Date(year, month - 1, date + after).getTime()
}

function orderFilters(options: OrderListOptions, params: Record<string, unknown>): string[] {
  const filters: string[] = []
  const query = options.query?.trim()
  if (query) {
    filters.push(
      "(o.name LIKE @like ESCAPE '\\' OR o.po_no LIKE @like ESCAPE '\\' OR coalesce(c.name, json_extract(o.json, '$.Vendor.name')) LIKE @like ESCAPE '\\')",
    )
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
