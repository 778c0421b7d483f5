/**
 * The ordering service's client: one method per endpoint, each saying what it sends and how its
 * reply is found and checked. The transport under them (pools, timeouts, deadlines, ceilings,
 * retries, the checks themselves) is transport.ts.
 * Electron-free, so the app, the CLI and the benchmark use the same code.
 */
import { ServiceTransport, type ServiceClientOptions } from './transport'
import {
  listingPage,
  listingRequest,
  type CatalogItemListParams,
  type CustomerConnection,
  type CustomerListParams,
  type Listing,
  type ListingRow,
  type ListParams,
  type Page,
} from './listing-pages'
import type { WireReply } from './reply-value'
import { ServiceError } from './errors'
import { findRecordArray } from './responses'
import {
  catalogItemBatchSchema,
  catalogItemResponseSchema,
  catalogListSchema,
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

export type { CustomerConnection, ListParams, Page } from './listing-pages'

/** An item the SKU lookup or the typeahead named: enough to read it in full by its guid. */
export interface ItemReference {
  guid: string
  sku: string | null
  upc: string | null
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
  listCustomers(params: CustomerListParams, options: CallOptions = {}): Promise<Page<CustomerConnection>> {
    return this.listPage({ kind: 'customers', params }, options)
  }

  /**
   * One page of a listing, its reply decoded by `decode` instead of on this thread: sync's page
   * reader (sync/page-reader.ts). The request, its retries and the errors it meets are as for
   * listCustomers, listCatalogItems and listOrders, and so are the decoder's (listing-pages.ts).
   */
  async readListingPage<R>(
    listing: Listing,
    options: CallOptions,
    decode: (wire: WireReply) => Promise<R>,
  ): Promise<R> {
    return (await this.transport.request({ ...listingRequest(listing), ...options, decode })) as R
  }

  private async listPage<L extends Listing>(listing: L, options: CallOptions): Promise<Page<ListingRow<L>>> {
    const body = await this.transport.request({ ...listingRequest(listing), ...options })
    try {
      return listingPage(listing, body)
    } catch (error) {
      throw this.transport.redactor.error(error)
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
  listCatalogItems(
    catalogGuid: string,
    params: CatalogItemListParams,
    options: CallOptions = {},
  ): Promise<Page<CatalogItemRecord>> {
    return this.listPage({ kind: 'catalogItems', catalogGuid, params }, options)
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
   * the spec: rows are found by shape (listing-pages.ts).
   */
  listOrders(params: ListParams, options: CallOptions = {}): Promise<Page<OrderRecord>> {
    return this.listPage({ kind: 'orders', params }, options)
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
