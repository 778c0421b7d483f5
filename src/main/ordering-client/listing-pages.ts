/**
 * The paged listings a sync reads (customers, a catalog's items, orders): what each asks of the
 * service and how a page is found and checked in its reply. Pure, so a page decodes the same on
 * the thread that fetched it (client.ts) and on sync's page reader thread (sync/page-reader.ts).
 * Errors come unredacted; the caller redacts them where the credentials are.
 */
import { ServiceError } from './errors'
import { findRecordArray, findString, findTotal, hasMoreOf } from './responses'
import { checked, checkedItems } from './reply-value'
import {
  catalogItemPageSchema,
  customerConnectionSchema,
  customerSchema,
  orderSchema,
  type CatalogItemRecord,
  type CustomerRecord,
  type OrderRecord,
} from './schemas'

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

export type CustomerListParams = ListParams & { nameGuidOnly?: boolean; name?: string }
export type CatalogItemListParams = ListParams & { skipTotalCount?: boolean; skipCategoryRetrieval?: boolean }

/** A page of one listing, as asked for. */
export type Listing =
  | { kind: 'customers'; params: CustomerListParams }
  | { kind: 'catalogItems'; catalogGuid: string; params: CatalogItemListParams }
  | { kind: 'orders'; params: ListParams }

/** The rows a listing's page holds. */
export type ListingRow<L extends Listing> = L extends { kind: 'customers' }
  ? CustomerConnection
  : L extends { kind: 'catalogItems' }
    ? CatalogItemRecord
    : OrderRecord

/** The request for a listing's page (transport.ts's RequestSpec, less what the call adds). */
export function listingRequest(listing: Listing): {
  method: 'GET'
  path: string
  reply: 'page'
  query: Record<string, string | number | null | undefined>
} {
  const { limit, offset, lastUpdatedAt } = listing.params
  switch (listing.kind) {
    case 'customers':
      return {
        method: 'GET',
        path: '/vendors',
        reply: 'page',
        query: {
          limit,
          offset,
          lastUpdatedAt,
          nameGuidOnly: listing.params.nameGuidOnly ? 'true' : undefined,
          name: listing.params.name,
        },
      }
    case 'catalogItems':
      return {
        method: 'GET',
        path: `/v1/catalog/${encodeURIComponent(listing.catalogGuid)}/catalog_items`,
        reply: 'page',
        query: {
          limit,
          offset,
          lastUpdatedAt,
          skipTotalCount: listing.params.skipTotalCount ? 'true' : undefined,
          skipCategoryRetrieval: listing.params.skipCategoryRetrieval ? 'true' : undefined,
        },
      }
    case 'orders':
      // Its parameters and envelope are not in the spec: rows are found by shape, and
      // limit/offset/lastUpdatedAt are sent as on the other lists.
      return { method: 'GET', path: '/v1/orders', reply: 'page', query: { limit, offset, lastUpdatedAt } }
  }
}

/** A listing's page found and checked in its reply's value. */
export function listingPage<L extends Listing>(listing: L, body: unknown): Page<ListingRow<L>> {
  switch (listing.kind) {
    case 'customers':
      return customerPage(body, listing.params.nameGuidOnly === true) as Page<ListingRow<L>>
    case 'catalogItems':
      return catalogItemPage(body, listing.params.skipTotalCount === true) as Page<ListingRow<L>>
    case 'orders':
      return orderPage(body) as Page<ListingRow<L>>
  }
  throw new Error(`no such listing: ${(listing as { kind: string }).kind}`)
}

/** GET /vendors: rows found by their `Vendor` shape rather than by one envelope key. */
function customerPage(body: unknown, nameGuidOnly: boolean): Page<CustomerConnection> {
  const isConnection = (row: Record<string, unknown>) => typeof row.Vendor === 'object' && row.Vendor !== null
  // With nameGuidOnly the rows may be bare customers (id, guid, name); accept that shape too.
  const isBareCustomer = (row: Record<string, unknown>) => typeof row.guid === 'string' && !('Vendor' in row)
  let rows = findRecordArray(body, isConnection, ['rows', 'vendors', 'data', 'items', 'results'])
  let bare = false
  if (rows === null || (rows.length === 0 && nameGuidOnly)) {
    const bareRows = findRecordArray(body, isBareCustomer, ['rows', 'vendors', 'data', 'items', 'results'])
    if (bareRows !== null && (rows === null || bareRows.length > 0)) {
      rows = bareRows
      bare = true
    }
  }
  if (rows === null) {
    throw new ServiceError(
      'invalidResponse',
      'The customer list has no array of customer connections (rows carrying `Vendor`).',
      { body },
    )
  }
  const connections = rows.map((row, index): CustomerConnection => {
    if (bare) {
      return { customer: checked(customerSchema, row, `customer ${index}`), connection: {}, connectionDeletedAt: null }
    }
    const { Vendor, ...connection } = checked(customerConnectionSchema, row, `customer connection ${index}`)
    return { customer: Vendor, connection, connectionDeletedAt: connection.deleted_at ?? null }
  })
  return {
    rows: connections,
    serverTimestamp: findString(body, 'serverTimestamp'),
    total: findTotal(body, ['total', 'totalCount', 'count', 'totalVendors', 'totalRows']),
    hasMore: hasMoreOf(body),
  }
}

/** GET /v1/catalog/{catalogGuid}/catalog_items. */
function catalogItemPage(body: unknown, skipTotalCount: boolean): Page<CatalogItemRecord> {
  const page = checkedItems(catalogItemPageSchema, body, 'a catalog item page')
  return {
    rows: page.catalog_items,
    serverTimestamp: page.serverTimestamp ?? null,
    total: skipTotalCount ? null : (page.totalCatalogItems ?? null),
    hasMore: page.hasMoreItems ?? null,
  }
}

/** GET /v1/orders: the reduced order projection, newest first. */
function orderPage(body: unknown): Page<OrderRecord> {
  const isOrder = (row: Record<string, unknown>) =>
    typeof row.guid === 'string' &&
    ('order_state_id' in row || 'Order_Items' in row || 'Order_State' in row || 'api_guid' in row)
  const rows = findRecordArray(body, isOrder, ['orders', 'rows', 'data', 'items', 'results'])
  if (rows === null) throw new ServiceError('invalidResponse', 'The order list has no array of orders.', { body })
  return {
    rows: rows.map((row, index) => checked(orderSchema, row, `order ${index}`)),
    serverTimestamp: findString(body, 'serverTimestamp'),
    total: findTotal(body, ['total', 'totalCount', 'count', 'totalOrders', 'totalRows']),
    hasMore: hasMoreOf(body),
  }
}
