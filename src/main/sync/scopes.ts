/**
 * The listings a sync pages through (customers, each catalog's items, recent orders): what the
 * engine asks of the service, what it knows of each scope, and what one scope's sync carries from
 * step to step. Adding a listing touches this file, not the paging or the run.
 */
import type { CatalogItemRecord, CatalogRecord, OrderRecord } from '../ordering-client/schemas'
import type { CustomerConnection, Listing, ListParams, Page } from '../ordering-client/listing-pages'
import type { WireReply } from '../ordering-client/reply-value'
import type { Logger } from '../ports'
import type { ApplyContext, ApplyCounts, LocalCopy } from '../local/copy'
import type { PageWriter } from './page-writer'
import type { HeldPage } from './thread-data'
import { isHeld, listedHere, strayItems, type ListedPage, type StrayCheck } from './listed-pages'
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
  /**
   * A listing's page with its reply decoded by `decode` (ServiceClient.readListingPage). With it, and
   * a writer that has a page reader, no page is decoded on this thread (page-reader.ts); a source
   * without it (a test's) hands over pages decoded.
   */
  readListingPage?<R>(listing: Listing, options: PageCallOptions, decode: (wire: WireReply) => Promise<R>): Promise<R>
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
  /** Limits counts and removals to one catalog. */
  catalogGuid: string | null
  fetch(
    params: ListParams & { first: boolean },
    call: PageCallOptions & { signal: AbortSignal },
  ): Promise<ListedPage<T>>
  /** Writes a page's rows: here, or held on the writer's thread by the page reader. */
  apply(rows: T[] | HeldPage, context: ApplyContext): Promise<ApplyCounts>
  /** Lets go of a held page that will not be written. */
  discard(rows: HeldPage): void
  /** A one-row page: its total is the live rows the service holds for this scope, when it can tell; checked after each run. */
  countOnServer?(signal: AbortSignal): Promise<Pick<ListedPage<unknown>, 'total' | 'serverTimestamp'>>
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

/**
 * A page of `listing`: decoded on the page reader's thread where the writer has one and the source
 * can hand over a reply's bytes, else here (`here`), and checked the same either way.
 */
async function fetchListed<T>(
  source: SyncSource,
  writer: PageWriter,
  listing: Listing,
  call: PageCallOptions,
  here: () => Promise<Page<T>>,
  stray: StrayCheck | null = null,
): Promise<ListedPage<T>> {
  const reader = writer.reader
  if (reader && source.readListingPage)
    return source.readListingPage(listing, call, (wire) => reader.read(listing, wire, stray))
  const page = await here()
  const refused = stray && strayItems(page.rows as CatalogItemRecord[], stray)
  if (refused) throw refused
  return listedHere(listing.kind, page)
}

/** A page read only for its total: decoded where the scope's pages are, and its row never written. */
async function totalOf<T>(
  source: SyncSource,
  writer: PageWriter,
  listing: Listing,
  signal: AbortSignal,
  here: () => Promise<Page<T>>,
): Promise<Pick<ListedPage<T>, 'total' | 'serverTimestamp'>> {
  const page = await fetchListed(source, writer, listing, { signal }, here)
  if (isHeld(page.rows)) writer.discardHeld(page.rows)
  return { total: page.total, serverTimestamp: page.serverTimestamp }
}

/** A scope's writes: rows decoded here by `applyRows`, held rows by the writer's thread. */
function writes<T>(
  writer: PageWriter,
  applyRows: (rows: T[], context: ApplyContext) => Promise<ApplyCounts>,
): Pick<ScopeDefinition<T>, 'apply' | 'discard'> {
  return {
    apply: (rows, context) => (isHeld(rows) ? writer.applyHeld(rows, context) : applyRows(rows, context)),
    discard: (rows) => writer.discardHeld(rows),
  }
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
    fetch: ({ first: _first, ...params }, call) =>
      fetchListed(source, writer, { kind: 'customers', params }, call, () => source.listCustomers(params, call)),
    ...writes(writer, (rows, context) => writer.applyCustomers(rows, context)),
    // The spec shows no count on the customer list; when the service sends one, it is checked. Only
    // the total is read, so the row is asked for bare (id, guid, name).
    countOnServer: (signal) => {
      const params = { limit: 1, offset: 0, nameGuidOnly: true }
      return totalOf(source, writer, { kind: 'customers', params }, signal, () =>
        source.listCustomers(params, { signal }),
      )
    },
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
  // Read once for the run, not once a page.
  const catalogId = copy.catalogId(catalogGuid)
  const stray: StrayCheck | null =
    catalogId === null ? null : { catalogId, catalogName: name ? `"${name}"` : `catalog ${catalogGuid}` }
  return defineScope('catalogItems', catalogGuid, {
    label: name ? `catalog items of "${name}"` : `catalog items of catalog ${catalogGuid}`,
    // Only the first page asks for the count: counting is the expensive part on the service.
    fetch: ({ first, ...rest }, call) => {
      const params = { ...rest, skipTotalCount: !first }
      return fetchListed(
        source,
        writer,
        { kind: 'catalogItems', catalogGuid, params },
        call,
        () => source.listCatalogItems(catalogGuid, params, call),
        stray,
      )
    },
    ...writes(writer, (rows, context) => writer.applyCatalogItems(catalogGuid, rows, context)),
    // Only the total is read, so the row is asked for without its categories.
    countOnServer: (signal) => {
      const params = { limit: 1, offset: 0, skipCategoryRetrieval: true }
      const listing: Listing = { kind: 'catalogItems', catalogGuid, params }
      return totalOf(source, writer, listing, signal, () => source.listCatalogItems(catalogGuid, params, { signal }))
    },
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
    fetch: ({ first: _first, ...params }, call) =>
      fetchListed(source, writer, { kind: 'orders', params }, call, () => source.listOrders(params, call)),
    ...writes(writer, (rows, context) => writer.applyOrders(rows, context)),
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
