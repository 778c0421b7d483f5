/**
 * The ordering service's client: one method per endpoint, each saying what it sends and how its
 * reply is found and checked. The transport under them (pools, timeouts, deadlines, ceilings,
 * retries, the checks themselves) is transport.ts.
 * Electron-free, so the app, the CLI and the benchmark use the same code.
 */
import { ServiceTransport, type ServiceClientOptions } from './transport'
import { ServiceError } from './errors'
import { findRecordArray, findString, findTotal, hasMoreOf } from './responses'
import {
  catalogItemBatchSchema,
  catalogItemPageSchema,
  catalogItemResponseSchema,
  catalogListSchema,
  customerConnectionSchema,
  customerSchema,
  itemReferenceSchema,
  orderResponseSchema,
  orderSchema,
  orderWithItemsResponseSchema,
  priceGroupListSchema,
  submitResponseSchema,
  type CatalogItemRecord,
  type CatalogRecord,
  type CustomerRecord,
  type OrderRecord,
  type PriceGroupRecord,
} from './schemas'

/** An item the SKU lookup or the typeahead named: enough to read it in full by its guid. */
export interface ItemReference {
  guid: string
  sku: string | null
  upc: string | null
}

/** One page of a paged listing; `rows` are checked records with every field the service sent. */
export interface Page<T> {
  rows: T[]
  /** The service's clock when it answered; the next delta's lastUpdatedAt. */
  serverTimestamp: string | null
  total: number | null
  hasMore: boolean | null
}

/** A row of the customer list: the customer, and the connection row around it (fields not shown in the spec). */
export interface CustomerConnection {
  customer: CustomerRecord
  connection: Record<string, unknown>
  /** The connection itself carried deleted_at: the customer left this supplier's list. */
  connectionDeletedAt: string | null
}

export interface ListParams {
  limit: number
  /** Page number: the service skips offset × limit rows. */
  offset: number
  lastUpdatedAt?: string | null
}

export interface CallOptions {
  signal?: AbortSignal
  /** Act in this customer's context (header `vendorGuid`). */
  vendorGuid?: string
  /**
   * Called once a successful reply's bytes are all in, before they are decoded: a caller that limits
   * its requests on the wire (sync's paging) may send its next one meanwhile. Nothing is sent again
   * after it: what can still fail (JSON, the schema) is not retried.
   */
  onReceived?: () => void
  /**
   * Awaited once a successful reply's bytes are in, before they are decoded: a caller that bounds
   * what it holds decoded (sync's pages waiting for the writer) keeps the compressed bytes meanwhile,
   * and its requests go on. It should return when the call's signal aborts.
   */
  beforeDecode?: () => Promise<void>
  /** false: one attempt, for a caller with a schedule of its own (the picture pass holds to Retry-After itself). */
  retry?: boolean
}

export interface OrderWithItemsResult {
  order: OrderRecord
  vendor: CustomerRecord | null
  billTo: { id?: number | null; guid?: string | null } | null
  shipTo: { id?: number | null; guid?: string | null } | null
  contact: { id?: number | null; guid?: string | null } | null
  note: { id?: number | null; guid?: string | null } | null
  raw: Record<string, unknown>
}

export class ServiceClient {
  readonly baseUrl: string
  /** Which header set it sends: the session-only endpoints need a user session. */
  readonly authKind: 'apiKey' | 'session'
  private readonly transport: ServiceTransport

  constructor(options: ServiceClientOptions) {
    this.transport = new ServiceTransport(options)
    this.baseUrl = this.transport.baseUrl
    this.authKind = options.connection.auth.kind
  }

  /** Closes the pool only when this client made its own; shared pools belong to their owner. */
  async close(): Promise<void> {
    await this.transport.close()
  }

  /** GET /vendors: the customer list, rows found by their `Vendor` shape rather than by one envelope key. */
  async listCustomers(
    params: ListParams & { nameGuidOnly?: boolean; name?: string },
    options: CallOptions = {},
  ): Promise<Page<CustomerConnection>> {
    const body = await this.transport.request({
      method: 'GET',
      path: '/vendors',
      reply: 'page',
      query: {
        limit: params.limit,
        offset: params.offset,
        lastUpdatedAt: params.lastUpdatedAt,
        nameGuidOnly: params.nameGuidOnly ? 'true' : undefined,
        name: params.name,
      },
      ...options,
    })
    const isConnection = (row: Record<string, unknown>) => typeof row.Vendor === 'object' && row.Vendor !== null
    // With nameGuidOnly the rows may be bare customers (id, guid, name); accept that shape too.
    const isBareCustomer = (row: Record<string, unknown>) => typeof row.guid === 'string' && !('Vendor' in row)
    let rows = findRecordArray(body, isConnection, ['rows', 'vendors', 'data', 'items', 'results'])
    let bare = false
    if (rows === null || (rows.length === 0 && params.nameGuidOnly)) {
      const bareRows = findRecordArray(body, isBareCustomer, ['rows', 'vendors', 'data', 'items', 'results'])
      if (bareRows !== null && (rows === null || bareRows.length > 0)) {
        rows = bareRows
        bare = true
      }
    }
    if (rows === null) {
      throw this.transport.redactor.error(
        new ServiceError(
          'invalidResponse',
          'The customer list has no array of customer connections (rows carrying `Vendor`).',
          { body },
        ),
      )
    }
    const connections = rows.map((row, index): CustomerConnection => {
      if (bare) {
        return {
          customer: this.transport.check(customerSchema, row, `customer ${index}`),
          connection: {},
          connectionDeletedAt: null,
        }
      }
      const checked = this.transport.check(customerConnectionSchema, row, `customer connection ${index}`)
      const { Vendor, ...connection } = checked
      return { customer: Vendor, connection, connectionDeletedAt: checked.deleted_at ?? null }
    })
    return {
      rows: connections,
      serverTimestamp: findString(body, 'serverTimestamp'),
      total: findTotal(body, ['total', 'totalCount', 'count', 'totalVendors', 'totalRows']),
      hasMore: hasMoreOf(body),
    }
  }

  /** GET /v1/vendors/{vendorGuid}. */
  async getCustomer(vendorGuid: string, options: CallOptions = {}): Promise<CustomerRecord> {
    const body = await this.transport.request({
      method: 'GET',
      path: `/v1/vendors/${encodeURIComponent(vendorGuid)}`,
      reply: 'record',
      ...options,
    })
    // The spec shows the Vendor itself; tolerate it wrapped under a key as other endpoints do.
    const record =
      body && typeof body === 'object' && !('guid' in body)
        ? (Object.values(body).find((v) => v && typeof v === 'object' && 'guid' in v) ?? body)
        : body
    return this.transport.check(customerSchema, record, 'a customer')
  }

  /** GET /v1/catalogs, with each catalog's price groups (soft-deleted ones too, so they can be removed locally). */
  async listCatalogs(options: CallOptions & { includeDeletedPriceGroups?: boolean } = {}): Promise<CatalogRecord[]> {
    const body = await this.transport.request({
      method: 'GET',
      path: '/v1/catalogs',
      reply: 'catalogs',
      query: { includeDeletedPriceGroups: options.includeDeletedPriceGroups === false ? undefined : 'true' },
      signal: options.signal,
      vendorGuid: options.vendorGuid,
    })
    return this.transport.check(catalogListSchema, body, 'a catalog list').catalogs
  }

  /** GET /v1/catalog/{catalogGuid}/price_groups. */
  async listPriceGroups(catalogGuid: string, options: CallOptions = {}): Promise<PriceGroupRecord[]> {
    const body = await this.transport.request({
      method: 'GET',
      path: `/v1/catalog/${encodeURIComponent(catalogGuid)}/price_groups`,
      reply: 'record',
      ...options,
    })
    return this.transport.check(priceGroupListSchema, body, 'a price group list').priceGroups
  }

  /** GET /v1/catalog/{catalogGuid}/catalog_items: one page of a catalog's items. */
  async listCatalogItems(
    catalogGuid: string,
    params: ListParams & { skipTotalCount?: boolean; skipCategoryRetrieval?: boolean },
    options: CallOptions = {},
  ): Promise<Page<CatalogItemRecord>> {
    const body = await this.transport.request({
      method: 'GET',
      path: `/v1/catalog/${encodeURIComponent(catalogGuid)}/catalog_items`,
      reply: 'page',
      query: {
        limit: params.limit,
        offset: params.offset,
        lastUpdatedAt: params.lastUpdatedAt,
        skipTotalCount: params.skipTotalCount ? 'true' : undefined,
        skipCategoryRetrieval: params.skipCategoryRetrieval ? 'true' : undefined,
      },
      ...options,
    })
    const page = this.transport.checkItems(catalogItemPageSchema, body, 'a catalog item page')
    return {
      rows: page.catalog_items,
      serverTimestamp: page.serverTimestamp ?? null,
      total: params.skipTotalCount ? null : (page.totalCatalogItems ?? null),
      hasMore: page.hasMoreItems ?? null,
    }
  }

  /** GET /v1/catalog/{catalogGuid}/catalog_items/{catalogItemGuid}: one item, with its attachments and options. */
  async getCatalogItem(
    catalogGuid: string,
    catalogItemGuid: string,
    options: CallOptions = {},
  ): Promise<CatalogItemRecord> {
    const body = await this.transport.request({
      method: 'GET',
      path: `/v1/catalog/${encodeURIComponent(catalogGuid)}/catalog_items/${encodeURIComponent(catalogItemGuid)}`,
      reply: 'record',
      ...options,
    })
    return this.transport.check(catalogItemResponseSchema, body, 'a catalog item').catalog_item
  }

  /**
   * POST /v1/catalog_items/sku-lookup: the items whose SKU is exactly `sku` in the catalog. Body and
   * reply are not shown in the spec: `{ catalogGuid, sku, skus: [sku] }` is sent (either spelling
   * answers), and the items are found by shape in whatever envelope comes back (`catalog_items`, a
   * bare array, `catalog_item`, or the item itself); a 404 is "no such SKU".
   */
  async lookupSku(catalogGuid: string, sku: string, options: CallOptions = {}): Promise<ItemReference[]> {
    return this.references(
      { method: 'POST', path: '/v1/catalog_items/sku-lookup', body: { catalogGuid, sku, skus: [sku] } },
      'a SKU lookup',
      options,
    )
  }

  /**
   * POST /v1/catalog/{catalogGuid}/catalog_items/typeahead: the service's search of name, SKU,
   * description and UPC. Body and reply are not shown: `{ query, search, limit }` is sent (either
   * name for the text), and the items are found by shape as for the SKU lookup.
   */
  async typeahead(
    catalogGuid: string,
    query: string,
    limit: number,
    options: CallOptions = {},
  ): Promise<ItemReference[]> {
    return this.references(
      {
        method: 'POST',
        path: `/v1/catalog/${encodeURIComponent(catalogGuid)}/catalog_items/typeahead`,
        body: { query, search: query, limit },
      },
      'a typeahead reply',
      options,
    )
  }

  private async references(
    request: { method: 'POST'; path: string; body: Record<string, unknown> },
    what: string,
    options: CallOptions,
  ): Promise<ItemReference[]> {
    let body: unknown
    try {
      // A look-up writes nothing, so retrying it is safe.
      body = await this.transport.request({ ...request, reply: 'page', retry: true, ...options })
    } catch (error) {
      if (error instanceof ServiceError && error.kind === 'notFound') return []
      throw error
    }
    const guidOf = (row: Record<string, unknown>) => row.guid ?? row.catalog_item_guid ?? row.catalogItemGuid
    const isItem = (row: Record<string, unknown>) => typeof guidOf(row) === 'string' && guidOf(row) !== ''
    const single =
      typeof body === 'object' && body !== null ? (body as Record<string, unknown>).catalog_item : undefined
    const rows =
      typeof single === 'object' && single !== null && !Array.isArray(single)
        ? [single as Record<string, unknown>]
        : typeof body === 'object' && body !== null && !Array.isArray(body) && isItem(body as Record<string, unknown>)
          ? [body as Record<string, unknown>]
          : findRecordArray(body, isItem, ['catalog_items', 'items', 'results', 'data'])
    if (rows === null)
      throw this.transport.redactor.error(
        new ServiceError('invalidResponse', `${what} has no catalog items.`, { body }),
      )
    // A service that reads both `sku` and `skus` may name an item twice.
    const found = new Map<string, ItemReference>()
    rows.forEach((row, index) => {
      const checked = this.transport.check(itemReferenceSchema, row, `${what}, item ${index}`)
      const guid = String(guidOf(checked))
      if (!found.has(guid)) found.set(guid, { guid, sku: checked.sku ?? null, upc: checked.upc ?? null })
    })
    return [...found.values()]
  }

  /** POST /v1/catalog/{catalogGuid}/catalog_items/batch: unknown guids are skipped by the service. */
  async getCatalogItemsByGuid(
    catalogGuid: string,
    guids: readonly string[],
    options: CallOptions = {},
  ): Promise<CatalogItemRecord[]> {
    if (guids.length === 0) return []
    const body = await this.transport.request({
      method: 'POST',
      path: `/v1/catalog/${encodeURIComponent(catalogGuid)}/catalog_items/batch`,
      body: { type: 'guid', values: guids },
      reply: 'page',
      // A batch read writes nothing, so retrying it is safe.
      retry: true,
      ...options,
    })
    return this.transport.checkItems(catalogItemBatchSchema, body, 'a catalog item batch').catalog_items
  }

  /**
   * GET /v1/orders: the reduced order projection, newest first. Its parameters and envelope are not in
   * the spec: rows are found by shape, and limit/offset/lastUpdatedAt are sent as on the other lists.
   */
  async listOrders(params: ListParams, options: CallOptions = {}): Promise<Page<OrderRecord>> {
    const body = await this.transport.request({
      method: 'GET',
      path: '/v1/orders',
      reply: 'page',
      query: { limit: params.limit, offset: params.offset, lastUpdatedAt: params.lastUpdatedAt },
      ...options,
    })
    const isOrder = (row: Record<string, unknown>) =>
      typeof row.guid === 'string' &&
      ('order_state_id' in row || 'Order_Items' in row || 'Order_State' in row || 'api_guid' in row)
    const rows = findRecordArray(body, isOrder, ['orders', 'rows', 'data', 'items', 'results'])
    if (rows === null)
      throw this.transport.redactor.error(
        new ServiceError('invalidResponse', 'The order list has no array of orders.', { body }),
      )
    return {
      rows: rows.map((row, index) => this.transport.check(orderSchema, row, `order ${index}`)),
      serverTimestamp: findString(body, 'serverTimestamp'),
      total: findTotal(body, ['total', 'totalCount', 'count', 'totalOrders', 'totalRows']),
      hasMore: hasMoreOf(body),
    }
  }

  /**
   * GET /v1/orders/{orderGuid}: the full order and its related orders. `once`: a single attempt, for
   * callers that try again on their own schedule (sync fetches a failed order at its next run).
   */
  async getOrder(
    orderGuid: string,
    options: CallOptions & { once?: boolean } = {},
  ): Promise<{ order: OrderRecord; relatedOrders: OrderRecord[] }> {
    const { once, ...call } = options
    const body = await this.transport.request({
      method: 'GET',
      path: `/v1/orders/${encodeURIComponent(orderGuid)}`,
      reply: 'order',
      ...(once ? { retry: false } : {}),
      ...call,
    })
    const checked = this.transport.check(orderResponseSchema, body, 'an order')
    return { order: checked.order, relatedOrders: checked.relatedOrders ?? [] }
  }

  /**
   * POST /v1/orderWithItems. Tried once: the caller owns retries, since only it knows the api_guid
   * that makes a retry safe and the schedule that must survive a restart. Every failure after the
   * request left (timeout, truncated, tooLarge, unreachable, server) may follow a commit; the outbox
   * resends those with the same api_guid, so none turns a committed order into a lost one.
   */
  async createOrderWithItems(body: Record<string, unknown>, options: CallOptions = {}): Promise<OrderWithItemsResult> {
    const response = await this.transport.request({
      method: 'POST',
      path: '/v1/orderWithItems',
      body,
      retry: false,
      reply: 'order',
      order: true,
      ...options,
    })
    const checked = this.transport.check(orderWithItemsResponseSchema, response, 'an order confirmation')
    return {
      order: checked.order,
      vendor: checked.vendor ?? null,
      billTo: checked.billTo ?? null,
      shipTo: checked.shipTo ?? null,
      contact: checked.contact ?? null,
      note: checked.note ?? null,
      raw: checked,
    }
  }

  /**
   * POST /v1/order/submit (user session only). Not idempotent: each call moves the order one step
   * on, so it is tried once and the outbox's rule reads the order before any second attempt.
   */
  async submitOrder(
    body: { orderGuid: string; allowPartialFulfillment?: boolean },
    options: CallOptions = {},
  ): Promise<{ order: OrderRecord; autoFulfilledItems: Record<string, unknown>[] }> {
    const response = await this.transport.request({
      method: 'POST',
      path: '/v1/order/submit',
      body,
      retry: false,
      reply: 'order',
      ...options,
    })
    const checked = this.transport.check(submitResponseSchema, response, 'a submitted order')
    return { order: checked.order, autoFulfilledItems: checked.autoFulfilledItems ?? [] }
  }

  /** PUT /v1/orders/{orderGuid} (user session only): the fields given change; the answer is the order, not wrapped. */
  async updateOrder(orderGuid: string, body: Record<string, unknown>, options: CallOptions = {}): Promise<OrderRecord> {
    const response = await this.transport.request({
      method: 'PUT',
      path: `/v1/orders/${encodeURIComponent(orderGuid)}`,
      body,
      retry: false,
      reply: 'order',
      ...options,
    })
    // Some deployments may wrap it as GET does: either shape is read.
    const wrapped = (response as { order?: unknown } | null)?.order
    return this.transport.check(orderSchema, wrapped ?? response, 'an updated order')
  }

  /**
   * POST /vendors: a customer without an order (a user session, or an API key the supplier granted
   * it). Idempotent only on the new customer's email, so it is tried once; the outbox's rule looks a
   * customer without one up by name before any second attempt.
   */
  async createCustomer(body: Record<string, unknown>, options: CallOptions = {}): Promise<CustomerRecord> {
    const response = await this.transport.request({
      method: 'POST',
      path: '/vendors',
      body,
      retry: false,
      reply: 'record',
      ...options,
    })
    const vendor = (response as { vendor?: unknown } | null)?.vendor ?? response
    return this.transport.check(customerSchema, vendor, 'a new customer')
  }

  /** PUT /v1/vendors/{vendorGuid}: name and email always, the rest as given. The answer's `vendorModel`. */
  async updateCustomer(
    vendorGuid: string,
    body: Record<string, unknown>,
    options: CallOptions = {},
  ): Promise<CustomerRecord> {
    const response = await this.transport.request({
      method: 'PUT',
      path: `/v1/vendors/${encodeURIComponent(vendorGuid)}`,
      body,
      retry: false,
      reply: 'record',
      ...options,
    })
    const vendor = (response as { vendorModel?: unknown } | null)?.vendorModel ?? response
    return this.transport.check(customerSchema, vendor, 'a changed customer')
  }

  /** A light authenticated call that tells the failure classes apart, for "Test connection". */
  async ping(options: CallOptions = {}): Promise<{ catalogs: number }> {
    const catalogs = await this.listCatalogs({ ...options, includeDeletedPriceGroups: false })
    return { catalogs: catalogs.length }
  }
}
