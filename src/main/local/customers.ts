/**
 * The customers table's one home: how sync writes a customer (with its full-text index) and every
 * read of it, for the screens, the order checks, price groups and usual items.
 */
import type { Database, Statement } from 'better-sqlite3'
import { SearchIndex } from './search-index'
import { SearchPages } from './search-page'
import { prepareTableStatements, upsertGuard, type SyncedTable } from './synced-table'

export const customersTable = {
  table: 'customers',
  kind: 'customer',
  scopeColumn: null,
  retainable: true,
  liveIndex: 'customers_by_name',
} as const satisfies SyncedTable

/**
 * How an order finds its customer, for the order history's queries (order-history.ts) to join: by
 * guid, or by the service's id when the order carries only that. The customer's columns are `c.`.
 */
export const customerOfOrder =
  'customers c ON c.guid = o.customer_guid OR (o.customer_guid IS NULL AND c.id = o.customer_id)'

/** What sync writes: the upsert, the statements every synced table has, and the full-text index. */
export class CustomerWrites {
  readonly upsert: Statement
  readonly rows
  readonly index
  private readonly guidById

  constructor(db: Database) {
    this.upsert = db.prepare(`
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
    this.rows = prepareTableStatements(db, customersTable)
    this.index = new SearchIndex(db, 'customers', 'customer_search', ['name', 'customer_internal_id', 'email', 'city'])
    this.guidById = db.prepare<[number], string>('SELECT guid FROM customers WHERE id = ?').pluck()
  }

  /** The local guid of a customer by the service's id, for orders that carry only the id. */
  guidOf(id: number): string | null {
    return this.guidById.get(id) ?? null
  }
}

export interface CustomerRow {
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

/** What the order checks read of a customer. */
interface CustomerCheckRow {
  guid: string
  name: string
  active: number
  require_po: number
  price_group_id: number | null
  lock_catalog_id: number | null
  deleted_at: string | null
  json: string
}

const customerColumns = `c.guid, c.id, c.name, c.customer_internal_id, c.email, c.phone, c.city, c.state, c.active, c.price_group_id,
  c.lock_catalog_id, c.require_po, c.hide_pricing, c.deleted_at, c.unlisted_at, c.json`

const live = 'deleted_at IS NULL AND unlisted_at IS NULL'

/** Every read of the customers table. Single-customer reads also return rows kept for a draft. */
export class Customers {
  private readonly statements
  private readonly searches: SearchPages
  /** The phone search's statement for each set of conditions (active only, or every customer). */
  private readonly byPhone = new Map<string, Statement<{ digits: string }, CustomerRow>>()

  constructor(private readonly db: Database) {
    // A phone's digits, for search by phone whatever its punctuation.
    db.function('digits_only', { deterministic: true }, (value: unknown) =>
      typeof value === 'string' ? value.replace(/\D/g, '') : null,
    )
    this.searches = new SearchPages(db)
    this.statements = {
      byGuid: db.prepare<[string], CustomerRow>(`SELECT ${customerColumns} FROM customers c WHERE c.guid = ?`),
      forChecks: db.prepare<[string], CustomerCheckRow>(
        'SELECT guid, name, active, require_po, price_group_id, lock_catalog_id, deleted_at, json FROM customers WHERE guid = ?',
      ),
      idOf: db.prepare<[string], number | null>('SELECT id FROM customers WHERE guid = ?').pluck(),
      priceGroupIdOf: db
        .prepare<[string], number | null>('SELECT price_group_id FROM customers WHERE guid = ?')
        .pluck(),
      countLive: db.prepare<[], number>(`SELECT count(*) FROM customers WHERE ${live}`).pluck(),
    }
  }

  byGuid(guid: string): CustomerRow | undefined {
    return this.statements.byGuid.get(guid)
  }

  /** The columns the order checks read, by guid. */
  forChecks(guid: string): CustomerCheckRow | undefined {
    return this.statements.forChecks.get(guid)
  }

  /** The service's id of a customer, or null (unknown, or the customer is not here). */
  idOf(guid: string): number | null {
    return this.statements.idOf.get(guid) ?? null
  }

  /** The id of the customer's price group as synced; undefined when the customer is not here. */
  priceGroupIdOf(guid: string): number | null | undefined {
    return this.statements.priceGroupIdOf.get(guid)
  }

  countLive(): number {
    return this.statements.countLive.get() ?? 0
  }

  /** One page of live customers by full-text match (wordPrefixQuery) or, with none, by name, and how many match. */
  search(search: {
    match: string | null
    /** The digits of a query that reads as a phone number (phoneSearchDigits): its matches join the text's. */
    phone?: string | null
    includeInactive?: boolean
    limit: number
    offset: number
  }): {
    rows: CustomerRow[]
    total: number
  } {
    const where = ['c.deleted_at IS NULL', 'c.unlisted_at IS NULL']
    if (search.includeInactive === false) where.push('c.active = 1')
    const spec = {
      fts: 'customer_search' as const,
      table: 'customers c',
      columns: customerColumns,
      rank: 'bm25(customer_search, 10.0, 5.0, 2.0, 1.0)',
      index: 'customers_by_name',
      where,
      params: { limit: search.limit, offset: search.offset } as Record<string, unknown>,
      match: search.match,
      // A supplier's customers number thousands, not millions: listed by name and counted in full.
      broad: 'by name' as const,
      countCap: Number.MAX_SAFE_INTEGER,
    }
    if (search.phone) return this.withPhoneMatches(spec, search.phone, search.limit, search.offset)
    return { rows: this.searches.page<CustomerRow>(spec).rows, total: this.searches.countMatches(spec).total }
  }

  /**
   * The text's matches (best first), then the customers whose phone holds the digits, by name. A
   * query that reads as a phone finds few of either, so both are read whole and paged here.
   */
  private withPhoneMatches(
    spec: { where: string[]; match: string | null } & Parameters<SearchPages['page']>[0],
    digits: string,
    limit: number,
    offset: number,
  ): { rows: CustomerRow[]; total: number } {
    const most = 1000
    const byText = spec.match
      ? this.searches.page<CustomerRow>({ ...spec, params: { limit: most, offset: 0 } }).rows
      : []
    const where = spec.where.join(' AND ')
    let statement = this.byPhone.get(where)
    if (!statement) {
      statement = this.db.prepare<{ digits: string }, CustomerRow>(
        `SELECT ${customerColumns} FROM customers c WHERE ${where} AND c.phone IS NOT NULL
         AND instr(digits_only(c.phone), @digits) > 0 ORDER BY c.name LIMIT ${most}`,
      )
      this.byPhone.set(where, statement)
    }
    const byPhone = statement.all({ digits })
    const seen = new Set(byText.map((row) => row.guid))
    const rows = [...byText, ...byPhone.filter((row) => !seen.has(row.guid))]
    return { rows: rows.slice(offset, offset + limit), total: rows.length }
  }
}
