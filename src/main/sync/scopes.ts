/**
 * The listings a sync pages through (customers, each catalog's items, recent orders): what the
 * engine asks of the service, what it knows of each scope, and what one scope's sync carries from
 * step to step. Adding a listing touches this file, not the paging or the run.
 */
import type { CatalogItemRecord, CatalogRecord, OrderRecord } from '../ordering-client/schemas'
import type { CustomerConnection, ListParams, Page } from '../ordering-client/client'
import { ServiceError } from '../ordering-client/errors'
import type { Logger } from '../ports'
import type { ApplyContext, ApplyCounts, LocalCopy } from '../local/copy'
import type { PageWriter } from './page-writer'
import type { SyncProgress, SyncReport } from '../../shared/synced'
import type { WritesInFlight } from './writes-in-flight'

export type ScopeReport = SyncReport['scopes'][number]

/**
 * How the engine calls for a page. onReceived, when the source calls it, says the reply's bytes are
 * in and only their decoding is left: the request's slot is given back then (request-slots.ts). A
 * source that never calls it holds the slot until the page is returned.
 */
interface PageCallOptions {
  signal?: AbortSignal
  onReceived?: () => void
  /** Awaited before the reply is decoded (CallOptions.beforeDecode); a source may skip it. */
  beforeDecode?: () => Promise<void>
}

/** What the engine needs of the service client (the real one, or a wrapper in tests). */
export interface SyncSource {
  listCatalogs(options: { signal?: AbortSignal }): Promise<CatalogRecord[]>
  listCustomers(
    params: ListParams & { nameGuidOnly?: boolean },
    options: PageCallOptions,
  ): Promise<Page<CustomerConnection>>
  listCatalogItems(
    catalogGuid: string,
    params: ListParams & { skipTotalCount?: boolean; skipCategoryRetrieval?: boolean },
    options: PageCallOptions,
  ): Promise<Page<CatalogItemRecord>>
  listOrders(params: ListParams, options: PageCallOptions): Promise<Page<OrderRecord>>
}

/** Resources listed in pages, a scope each (items: one per catalog); each is also the table its rows go to. */
type PagedResource = 'customers' | 'catalogItems' | 'orders'

/** One listing the engine knows how to page through and write into the local copy. */
export interface ScopeDefinition<T> {
  /** 'customers', 'orders' or 'catalogItems:<catalog guid>': the key of the scope's state in the local copy. */
  name: string
  resource: PagedResource
  /** The listing as the rep would name it, in messages: 'customers', 'catalog items of "Spring"'. */
  label: string
  /** A row's guid: pages are compared by their first and last rows. */
  keyOf(row: T): string
  /** Limits counts and removals to one catalog. */
  catalogGuid: string | null
  fetch(params: ListParams & { first: boolean }, call: PageCallOptions & { signal: AbortSignal }): Promise<Page<T>>
  apply(rows: T[], context: ApplyContext): Promise<ApplyCounts>
  /** A one-row page: its total is the live rows the service holds for this scope, when it can tell; checked after each run. */
  countOnServer?(signal: AbortSignal): Promise<Page<unknown>>
  /** A full listing removes local rows it did not see (false for the recent-orders window). */
  prunes: boolean
  /** At most this many pages in a full listing. */
  maxPages?: number
  /**
   * Called once a fresh run's bookkeeping and first page are written, when this thread has no more
   * writes of the scope's to make until its pages are in (runScopes starts the index build there).
   */
  firstPageWritten?: () => void
}

/** A scope's name follows from its resource and, for items, its catalog. */
function defineScope<T>(
  resource: PagedResource,
  catalogGuid: string | null,
  listing: Omit<ScopeDefinition<T>, 'name' | 'resource' | 'catalogGuid'>,
): ScopeDefinition<T> {
  return { name: catalogGuid === null ? resource : `${resource}:${catalogGuid}`, resource, catalogGuid, ...listing }
}

/** One scope's sync within a run: built once by syncScope and handed to each step of it. */
export interface ScopeRun<T> extends ScopeDefinition<T> {
  signal: AbortSignal
  /** The resource's counts in the run's report; every page applied adds to them. */
  counts: ApplyCounts
  /** The scope's line in the run's report. */
  report: ScopeReport
  /** Tells the run's caller how far the scope's paging has got. */
  progress(update: Omit<SyncProgress, 'scope' | 'resource' | 'catalogGuid'>): void
  /** Its pages handed to the writer and not yet written. */
  writes: WritesInFlight
  /** Rows received and refused in the scope's latest pass (a listing done again starts over). */
  tally: { fetched: number; rejected: number; rejections: string[] }
  /** Called when a pass has fetched its listing (what is left: its catch-up, count and prune). */
  listingFetched?: () => void
  /** Called when a pass lists the scope in full (a first sync, a resumed listing, a repair). */
  listingInFull?: () => void
}

export function customersScope(source: SyncSource, writer: PageWriter): ScopeDefinition<CustomerConnection> {
  return defineScope('customers', null, {
    label: 'customers',
    keyOf: (row) => row.customer.guid,
    fetch: (params, call) => source.listCustomers(params, call),
    apply: (rows, context) => writer.applyCustomers(rows, context),
    // The spec shows no count on the customer list; when the service sends one, it is checked. Only
    // the total is read, so the row is asked for bare (id, guid, name).
    countOnServer: (signal) => source.listCustomers({ limit: 1, offset: 0, nameGuidOnly: true }, { signal }),
    prunes: true,
  })
}

export function catalogItemsScope(
  copy: LocalCopy,
  source: SyncSource,
  writer: PageWriter,
  catalogGuid: string,
): ScopeDefinition<CatalogItemRecord> {
  const name = copy.catalogName(catalogGuid)
  // Read once for the run, not once a page: the pages' check below runs on the main thread.
  const catalogId = copy.catalogId(catalogGuid)
  return defineScope('catalogItems', catalogGuid, {
    label: name ? `catalog items of "${name}"` : `catalog items of catalog ${catalogGuid}`,
    keyOf: (row) => row.guid,
    // Only the first page asks for the count: counting is the expensive part on the service.
    fetch: async (params, call) => {
      const page = await source.listCatalogItems(catalogGuid, { ...params, skipTotalCount: !params.first }, call)
      // A page of another catalog's items (a misrouted cache) is no page of this listing: written, its
      // items would move to this catalog here, and a full pass would take them out of their own.
      const stray =
        catalogId === null ? undefined : page.rows.find((row) => row.catalog_id != null && row.catalog_id !== catalogId)
      if (stray)
        throw new ServiceError(
          'invalidResponse',
          `A page of the ${name ? `"${name}"` : `catalog ${catalogGuid}`} listing holds items of another catalog (catalog_id ${String(stray.catalog_id)}); it was not used.`,
        )
      return page
    },
    apply: (rows, context) => writer.applyCatalogItems(catalogGuid, rows, context),
    // Only the total is read, so the row is asked for without its categories.
    countOnServer: (signal) =>
      source.listCatalogItems(catalogGuid, { limit: 1, offset: 0, skipCategoryRetrieval: true }, { signal }),
    prunes: true,
  })
}

export function ordersScope(
  source: SyncSource,
  writer: PageWriter,
  orderHistoryPages: number,
): ScopeDefinition<OrderRecord> {
  return defineScope('orders', null, {
    label: 'orders',
    keyOf: (row) => row.guid,
    fetch: (params, call) => source.listOrders(params, call),
    apply: (rows, context) => writer.applyOrders(rows, context),
    // Order history is a window of the newest orders, not a mirror: nothing is removed or counted.
    // All of the window may wait to be written (behind the item index build, see runScopes).
    prunes: false,
    maxPages: orderHistoryPages,
  })
}

/** A warning on the scope's report line and in the log. */
export function warnScope<T>(
  logger: Logger,
  scope: ScopeRun<T>,
  note: string,
  message: string,
  fields: Record<string, unknown>,
): void {
  ;(scope.report.warnings ??= []).push(note)
  logger.warn(message, { scope: scope.name, ...fields })
}
