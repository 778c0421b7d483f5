/**
 * Delta sync of the ordering service into the local store, one scope at a time: the catalogs with
 * their price groups, the customers, each catalog's items, and recent orders.
 *
 * The rules every scope follows:
 * - The cursor is the serverTimestamp of a run's first page, committed only after its last page and
 *   sent back as lastUpdatedAt next time. The laptop's clock plays no part.
 * - Pages are applied idempotently (the service replays a 60 s overlap) and an older version never
 *   overwrites a newer row (LocalCopy's upsert guard).
 * - Each page is one transaction that also records the page as done, so an interrupted run resumes
 *   with the pages it lacks.
 * - A full listing ends with a catch-up delta from its own first page and a count check against the
 *   service; a mismatch means rows moved between pages while paging (drift), and the scope is listed
 *   again before anything is removed. Only a listing that checks out removes the rows it did not see.
 * - INVALID_DELTA_CURSOR drops the cursor and lists the scope in full within the same run.
 * - A cursor is not trusted once the service's clock shows it ran ahead: a reply to a delta whose
 *   serverTimestamp is more than the 60 s overlap behind the cursor the delta was sent with. Such a
 *   delta would silently miss every change since, so the cursor is dropped and the scope listed in
 *   full within the same run. A run's own cursor is held to the same test by the count request after
 *   a delta (and by a listing's catch-up): when that reply is behind it, the cursor the delta started
 *   from is kept instead. Either way the scope's report line (warnings) and the log say so.
 *   serverTimestamp is compared only with serverTimestamp, the clock the service stamps rows with:
 *   the HTTP Date header may come from another machine (the double's shiftClock leaves it behind).
 * - A listing ends where the service says it does (hasMoreItems false, or a page that is short or
 *   empty without hasMoreItems true), never at a total: a total is a guess at the size, for progress
 *   and as a bound. A page that repeats one already received in the pass (same first and last rows),
 *   or a listing that runs on past twice its announced total (or past maxListingPages), ends the
 *   scope with an error naming the listing: something between here and the service is not moving
 *   the offset, and asking on would never end.
 * - A scope whose rows were all, or mostly, refused as impossible says so on its report line.
 */
import type { CatalogItemRecord, CatalogRecord, OrderRecord } from '../ordering-client/schemas'
import type { CustomerConnection, ListParams, Page } from '../ordering-client/client'
import { ServiceError } from '../ordering-client/errors'
import { cancelledError } from '../ordering-client/retry'
import type { Clock, Logger } from '../ports'
import { silentLogger } from '../ports'
import type { RunState, SyncMode } from '../local/sync-state'
import { addCounts, emptyCounts, type ApplyContext, type ApplyCounts, type LocalCopy, type SyncedTableName } from '../local/copy'
import { parseServerTime } from '../local/time'
import { describe } from './failures'
import { inlineWriter, type PageWriter } from './page-writer'
import { Turns } from '../turns'
import { RequestSlots } from './request-slots'
import { limitHeapGrowth } from './heap-growth'
import { resourceNames, type ResourceName, type SyncProgress, type SyncReport } from '../../shared/synced'

export type ScopeReport = SyncReport['scopes'][number]
export { resourceNames, type SyncProgress, type SyncReport }

/**
 * How the engine calls for a page. onReceived, when the source calls it, says the reply's bytes are
 * in and only their decoding is left: the request's slot is given back then (request-slots.ts). A
 * source that never calls it holds the slot until the page is returned.
 */
interface PageCallOptions {
  signal?: AbortSignal
  onReceived?: () => void
}

/** What the engine needs of the service client (the real one, or a wrapper in tests). */
export interface SyncSource {
  listCatalogs(options: { signal?: AbortSignal }): Promise<CatalogRecord[]>
  listCustomers(params: ListParams, options: PageCallOptions): Promise<Page<CustomerConnection>>
  listCatalogItems(catalogGuid: string, params: ListParams & { skipTotalCount?: boolean }, options: PageCallOptions): Promise<Page<CatalogItemRecord>>
  listOrders(params: ListParams, options: PageCallOptions): Promise<Page<OrderRecord>>
}

export interface SyncRunOptions {
  /** List every scope in full, ignoring cursors (rows the service no longer lists are removed). */
  full?: boolean
  signal?: AbortSignal
  onProgress?: (progress: SyncProgress) => void
}

export interface SyncEngineOptions {
  store: LocalCopy
  /** Where pages are written: a worker thread in the app (page-writer.ts); this thread by default. */
  writer?: PageWriter
  source: SyncSource
  clock: Clock
  logger?: Logger
  /** Rows per page (the service's maximum is 100). */
  pageSize?: number
  /** Pages in flight at once within one scope. */
  concurrency?: number
  /** Recent order history kept: pages of the newest orders on a full listing. */
  orderHistoryPages?: number
  /**
   * Rows written per transaction (and per turn of the event loop). A whole page by default: 25-row
   * transactions measured half again slower (more index segments to merge) for no shorter stalls.
   */
  rowsPerTransaction?: number
  /** Monotonic milliseconds for durations (performance.now). */
  monotonic?: () => number
  /**
   * Pages of one listing pass, at most, however the service answers (the bound when it announced no
   * usable total). 20,000 pages of 100 is 2,000,000 rows, twenty times the bench's catalog.
   */
  maxListingPages?: number
  /**
   * Pages fetched and waiting to be written, at most, per scope. The writer thread commits what is
   * waiting in one transaction (writer-worker.ts): enough pages must be waiting for those to be large.
   */
  writeAhead?: number
}

/** The service replays this much before a cursor (spec, Limits): a cursor ahead by less misses nothing. */
const OVERLAP_MS = 60_000

/**
 * A listing may run past the pages its total announced (rows inserted while paging move the end on),
 * up to twice them and this many more; then it is not the data that grows, it is the paging that
 * does not end.
 */
const EXTRA_PAGES_PAST_TOTAL = 10

/** Where a listing ends: the service says there is no more, or a page is short or empty and it does not say there is more. */
function endsListing(page: Pick<Page<unknown>, 'rows' | 'hasMore'>, limit: number): boolean {
  return page.hasMore === false || page.rows.length === 0 || (page.rows.length < limit && page.hasMore !== true)
}

/** A page's rows as far as telling it apart from another page of the same pass: its first and last rows and its length. */
function pageSignature<T>(rows: readonly T[], keyOf: (row: T) => string): string | null {
  // One row cannot tell a repeat from rows shifted by one between two requests (an order inserted
  // at the front of the newest-first list): only pages of two rows or more are compared.
  if (rows.length < 2) return null
  return `${keyOf(rows[0]!)}\u0000${keyOf(rows[rows.length - 1]!)}\u0000${rows.length}`
}

/** A listing that does not end: its pages repeat, or run on far past its total. The scope stops with this. */
function brokenListing(message: string): ServiceError {
  return new ServiceError('invalidResponse', message)
}

/** A delta's cursor turned out to be ahead of the service's clock; the scope is listed in full instead. */
class UntrustedCursor extends Error {
  constructor(
    readonly cursor: string,
    readonly reason: string,
    readonly serverTimestamp: string | null,
  ) {
    super(`Delta cursor ${cursor} not trusted: ${reason}`)
    this.name = 'UntrustedCursor'
  }
}

/**
 * Why `cursor` cannot be trusted, judged by a later reply of the service; null when it can (or when
 * either time is missing or unreadable). The laptop's clock plays no part.
 */
function distrust(cursor: string | null, page: Pick<Page<unknown>, 'serverTimestamp'> | null): UntrustedCursor | null {
  const cursorMs = parseServerTime(cursor)
  const stampMs = parseServerTime(page?.serverTimestamp)
  if (cursor === null || cursorMs === null || stampMs === null || cursorMs - stampMs <= OVERLAP_MS) return null
  return new UntrustedCursor(cursor, `the service's serverTimestamp ${page!.serverTimestamp} is ${describeGap(cursorMs - stampMs)} behind it`, page!.serverTimestamp)
}

function describeGap(ms: number): string {
  if (ms >= 2 * 60 * 60_000) return `${Math.round(ms / (60 * 60_000))} h`
  if (ms >= 2 * 60_000) return `${Math.round(ms / 60_000)} min`
  return `${Math.round(ms / 1000)} s`
}

/** Resources listed in pages, a scope each (items: one per catalog); each is also the table its rows go to. */
type PagedResource = 'customers' | 'catalogItems' | 'orders'

/** One listing the engine knows how to page through and store. */
interface ScopeDefinition<T> {
  /** 'customers', 'orders' or 'catalogItems:<catalog guid>': the key of the scope's state in the store. */
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

/** What the scopes of one run share. */
interface RunContext {
  full: boolean
  signal: AbortSignal
  onProgress: SyncRunOptions['onProgress']
  /** The run's counts per resource, as its report gives them. */
  resources: Record<ResourceName, ApplyCounts>
  /**
   * Catalogs whose items this run listed in full: their kept counts are recounted after it. A delta's
   * writes keep the counts as they go (LocalCopy.countedWrites); a listing reads the whole catalog
   * anyway, and counting it again then puts right a count that went wrong.
   */
  itemsListed: Set<string>
}

/** One scope's sync within a run: built once by syncScope and handed to each step of it. */
interface ScopeRun<T> extends ScopeDefinition<T> {
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

/** What a scope's turn may bring: its first page asked for ahead, and what to do once its listing is fetched. */
interface ScopeTurn<T> {
  ahead?: FirstPageAhead<T>
  listingFetched?: () => void
}

/** Where a scope's pass starts, planned from its state. */
interface ScopePlan {
  /** Its unfinished delta is abandoned first (this run lists in full): a write, made on its turn. */
  dropDelta: boolean
  start: PassStart
}

/** A scope planned, and its first page asked for, while the scope before it finished. */
interface FirstPageAhead<T> {
  plan: ScopePlan
  /** None when the scope resumes a run (it fetches only the pages it lacks). */
  firstPage?: Promise<Page<T>>
  cancel(): void
}

/**
 * A scope's pages on their way to the writer. Fetching goes on while they are written (and the
 * listing's catch-up and count go out before the last of them is in); what reads the scope's rows
 * back waits for drained() first.
 */
class WritesInFlight {
  private readonly pending = new Set<Promise<void>>()
  private failure: { error: unknown } | null = null
  private onFailure: ((error: unknown) => void) | null = null

  get size(): number {
    return this.pending.size
  }

  add(write: Promise<void>): void {
    this.pending.add(write)
    write.then(
      () => this.pending.delete(write),
      (error: unknown) => {
        this.pending.delete(write)
        this.failure ??= { error }
        this.onFailure?.(error)
      },
    )
  }

  /** While fetching: a write that fails stops the fetching (at once, if one failed already). */
  watch(onFailure: (error: unknown) => void): () => void {
    this.onFailure = onFailure
    if (this.failure) onFailure(this.failure.error)
    return () => void (this.onFailure = null)
  }

  /** Until one more write settles. */
  async oneSettled(): Promise<void> {
    await Promise.race(this.pending).catch(() => {})
  }

  /** Until every write is in; throws the first that failed. */
  async drained(): Promise<void> {
    while (this.pending.size > 0) await Promise.allSettled([...this.pending])
    if (this.failure) throw this.failure.error
  }
}

/** Where a pass starts: a fresh listing, a fresh delta from `since`, or an unfinished run to resume. */
interface PassStart {
  mode: SyncMode
  since: string | null
  /** When set, the pass resumes it (mode is its mode) and fetches only the pages it lacks. */
  resume: RunState | null
}

/** A full listing from page 0. */
const freshListing: PassStart = { mode: 'full', since: null, resume: null }

/** Pages of a run still to fetch: all but those done; rowsDone counts the rows of those, for progress. */
interface Paging {
  run: RunState
  phase: SyncProgress['phase']
  done: Set<number>
  rowsDone: number
  /** The pass's pages received so far, by signature (pageSignature): a page that comes again is a repeat. */
  received: Map<string, number>
  /** Rows the listing announced (its catch-up's bound too); null when it announced none it could stand by. */
  announced: number | null
}

export class SyncEngine {
  private readonly store: LocalCopy
  private readonly writer: PageWriter
  private readonly source: SyncSource
  private readonly clock: Clock
  private readonly logger: Logger
  private readonly pageSize: number
  private readonly concurrency: number
  private readonly orderHistoryPages: number
  private readonly sliceSize: number
  private readonly monotonic: () => number
  private readonly writeAhead: number
  private readonly maxListingPages: number
  /** Pages' work and prunes' chunks on this thread: one at a time, each in a turn of its own. */
  private readonly turns = new Turns()

  constructor(options: SyncEngineOptions) {
    // Whatever runs a sync (the app, the CLI, the benches) keeps its heaps near what they hold alive.
    limitHeapGrowth()
    this.store = options.store
    this.writer = options.writer ?? inlineWriter(options.store)
    this.source = options.source
    this.clock = options.clock
    this.logger = options.logger ?? silentLogger
    this.pageSize = options.pageSize ?? 100
    this.concurrency = Math.max(1, options.concurrency ?? 4)
    this.orderHistoryPages = options.orderHistoryPages ?? 20
    this.sliceSize = Math.max(1, options.rowsPerTransaction ?? 100)
    this.monotonic = options.monotonic ?? (() => performance.now())
    this.writeAhead = Math.max(this.concurrency, options.writeAhead ?? 8)
    this.maxListingPages = Math.max(1, options.maxListingPages ?? 20_000)
  }

  async run(options: SyncRunOptions = {}): Promise<SyncReport> {
    const started = this.monotonic()
    const context: RunContext = {
      full: options.full === true,
      signal: options.signal ?? new AbortController().signal,
      onProgress: options.onProgress,
      resources: Object.fromEntries(resourceNames.map((name) => [name, emptyCounts()])) as Record<ResourceName, ApplyCounts>,
      itemsListed: new Set(),
    }
    const scopes: ScopeReport[] = []
    let error: SyncReport['error'] = null
    // Written once the writer is done: an index build may hold the write lock when a scope fails,
    // and this thread would wait for it with the event loop blocked.
    const failed: [scope: string, message: string][] = []
    const fail = (scope: string, caught: unknown): boolean => {
      const described = describe(caught)
      failed.push([scope, described.message])
      this.logger.warn('sync scope failed', { scope, code: described.code, message: described.message })
      error ??= described
      // Offline, refused credentials or cancelled: every other scope would fail the same way.
      return !(caught instanceof ServiceError) || caught.transient || caught.kind === 'credentials' || caught.kind === 'cancelled'
    }

    const runScope = async <T>(definition: ScopeDefinition<T>, turn: ScopeTurn<T> = {}): Promise<boolean> => {
      try {
        scopes.push(await this.syncScope(definition, context, turn))
        return true
      } catch (caught) {
        scopes.push({ scope: definition.name, mode: context.full ? 'full' : 'delta', resumed: false, pagesFetched: 0, cursorReset: false, driftRepaired: false, verifyPending: false, error: describe(caught).message })
        return !fail(definition.name, caught)
      }
    }

    const restore = this.writer.onThisThread ? this.store.beginBulkWrite() : this.store.leaveCheckpointsToWriter()
    let report: SyncReport
    try {
      try {
        await this.runScopes(context, runScope, fail)
      } finally {
        // A first listing cut short (offline, cancelled, failed) still leaves its catalog browsable.
        await this.writer.finishBulk().catch((caught: unknown) => this.logger.warn('rebuilding deferred indexes failed', { message: describe(caught).message }))
        // Before the run is reported: the window reloads its counts when told the run finished.
        await this.writer.recountItems([...context.itemsListed]).catch((caught: unknown) => this.logger.warn('counting items failed', { message: describe(caught).message }))
        for (const [scope, message] of failed) this.store.setLastError(scope, message)
      }
      const { full, resources } = context
      report = { ok: error === null, full, resources, scopes, durationMs: Math.round(this.monotonic() - started), error }
      const now = this.clock.now()
      this.store.recordRun(now - report.durationMs, now, report.ok, full, report)
    } finally {
      // The run's WAL (up to 32 MB, writer-worker.ts) is copied into the database on the writer's
      // thread, after this thread's last writes: this connection checkpoints again once restored,
      // and would otherwise do it at its next commit, with the window waiting. The run does not
      // wait for it: a checkpoint changes nothing a reader sees (150 ms of a delta's 430).
      this.writer.checkpoint().catch((caught: unknown) => this.logger.warn('checkpointing after sync failed', { message: describe(caught).message }))
      restore()
    }
    return report
  }

  /**
   * Catalogs first (items need them), then customers, each catalog's items, and orders; stops at a
   * failure that would repeat. A scope's first page is asked for once the scope before has fetched
   * its listing, while that one still waits for its catch-up and count: over a WAN, a round trip
   * saved at every scope. Nothing of the next scope is written before its turn.
   */
  private async runScopes(
    context: RunContext,
    runScope: <T>(definition: ScopeDefinition<T>, turn?: ScopeTurn<T>) => Promise<boolean>,
    fail: (scope: string, caught: unknown) => boolean,
  ): Promise<void> {
    const proceed = await this.syncCatalogs(context).then(
      () => true,
      (caught: unknown) => !fail('catalogs', caught),
    )
    if (!proceed) return
    // The item indexes a first listing deferred are shared by every catalog: built once, after the
    // last catalog's items, rather than after each catalog only to be dropped for the next. The
    // orders are fetched meanwhile (over a WAN, most of the build's second), but the build starts
    // only once the orders' own bookkeeping and first page are written: the build holds the write
    // lock, and a write of this thread's would wait for it with the event loop blocked (measured:
    // 645 ms). The orders' pages wait for it on the writer thread instead.
    let building: Promise<void> | null = null
    const definitions: ScopeDefinition<unknown>[] = [
      this.customersScope(),
      ...this.store.liveCatalogGuids().map((catalogGuid) => this.catalogItemsScope(catalogGuid)),
      { ...this.ordersScope(), firstPageWritten: () => void (building ??= this.writer.finishBulk()) },
    ]
    let ahead: FirstPageAhead<unknown> | undefined
    for (const [index, definition] of definitions.entries()) {
      const next = definitions[index + 1]
      let aheadOfNext: FirstPageAhead<unknown> | undefined
      const listingFetched = next ? () => void (aheadOfNext ??= this.askAhead(next, context)) : undefined
      const go = await runScope(definition, { ahead, listingFetched })
      ahead = aheadOfNext
      if (!go) {
        ahead?.cancel()
        break
      }
    }
    await (building ?? this.writer.finishBulk())
  }

  /** Where a scope's next pass starts, from its state; reads only (see syncScope for the write it may need). */
  private plan(name: string, context: RunContext): ScopePlan {
    const state = this.store.scope(name)
    // An unfinished delta is dropped when this run lists in full.
    const dropDelta = state.run !== null && context.full && state.run.mode === 'delta'
    const resume = dropDelta ? null : state.run
    const mode: SyncMode = resume?.mode ?? (context.full || !state.cursor || state.verifyNeeded ? 'full' : 'delta')
    return { dropDelta, start: { mode, since: mode === 'delta' ? (resume?.since ?? state.cursor) : null, resume } }
  }

  /** Plans a scope and asks for its first page before its turn (nothing to ask when it resumes). */
  private askAhead<T>(definition: ScopeDefinition<T>, context: RunContext): FirstPageAhead<T> {
    const plan = this.plan(definition.name, context)
    const cancelled = new AbortController()
    let firstPage: Promise<Page<T>> | undefined
    if (!plan.start.resume && !context.signal.aborted) {
      const signal = AbortSignal.any([context.signal, cancelled.signal])
      firstPage = definition.fetch({ limit: this.pageSize, offset: 0, lastUpdatedAt: plan.start.since, first: true }, { signal })
      // Its failure is the scope's, met when its turn comes; not at all when the run stops before.
      firstPage.catch(() => {})
    }
    return { plan, firstPage, cancel: () => cancelled.abort(new Error('the run stopped before this scope')) }
  }

  /** Catalogs and their price groups: one small list, always read in full. */
  private async syncCatalogs({ signal, resources }: RunContext): Promise<void> {
    const catalogs = await this.source.listCatalogs({ signal })
    const listingId = this.store.newListingId('catalogs')
    const applied = this.store.applyCatalogs(catalogs, { listingId, serverTime: null })
    addCounts(resources.catalogs, applied.catalogs)
    addCounts(resources.priceGroups, applied.priceGroups)
    if (applied.priceGroups.rejected) this.logger.warn('price groups refused as impossible; the last good copy is kept', { rejected: applied.priceGroups.rejected, reasons: applied.priceGroups.rejections })
    // The catalog list carries no serverTimestamp; the flag on a kept row is for display only.
    const flaggedAt = new Date(this.clock.now()).toISOString()
    addCounts(resources.catalogs, this.store.pruneUnlisted('catalogs', null, listingId, flaggedAt))
    addCounts(resources.priceGroups, this.store.pruneUnlisted('priceGroups', null, listingId, flaggedAt))
    // Items of a catalog that is gone leave with it (those a draft still needs are flagged).
    const live = new Set(this.store.liveCatalogGuids())
    for (const state of this.store.allScopes()) {
      const catalogGuid = state.scope.startsWith('catalogItems:') ? state.scope.slice('catalogItems:'.length) : null
      if (catalogGuid && !live.has(catalogGuid)) {
        addCounts(resources.catalogItems, this.store.removeCatalogContents(catalogGuid, flaggedAt))
        this.store.forgetScope(state.scope)
      }
    }
    this.store.completeRun('catalogs', null, this.clock.now())
  }

  private customersScope(): ScopeDefinition<CustomerConnection> {
    return defineScope('customers', null, {
      label: 'customers',
      keyOf: (row) => row.customer.guid,
      fetch: (params, call) => this.source.listCustomers(params, call),
      apply: (rows, context) => this.writer.applyCustomers(rows, context),
      // The spec shows no count on the customer list; when the service sends one, it is checked.
      countOnServer: (signal) => this.source.listCustomers({ limit: 1, offset: 0 }, { signal }),
      prunes: true,
    })
  }

  private catalogItemsScope(catalogGuid: string): ScopeDefinition<CatalogItemRecord> {
    const name = this.store.catalogName(catalogGuid)
    return defineScope('catalogItems', catalogGuid, {
      label: name ? `catalog items of "${name}"` : `catalog items of catalog ${catalogGuid}`,
      keyOf: (row) => row.guid,
      // Only the first page asks for the count: counting is the expensive part on the service.
      fetch: (params, call) => this.source.listCatalogItems(catalogGuid, { ...params, skipTotalCount: !params.first }, call),
      apply: (rows, context) => this.writer.applyCatalogItems(catalogGuid, rows, context),
      countOnServer: (signal) => this.source.listCatalogItems(catalogGuid, { limit: 1, offset: 0 }, { signal }),
      prunes: true,
    })
  }

  private ordersScope(): ScopeDefinition<OrderRecord> {
    return defineScope('orders', null, {
      label: 'orders',
      keyOf: (row) => row.guid,
      fetch: (params, call) => this.source.listOrders(params, call),
      apply: (rows, context) => this.writer.applyOrders(rows, context),
      // Order history is a window of the newest orders, not a mirror: nothing is removed or counted.
      // All of the window may wait to be written (behind the item index build, see runScopes).
      prunes: false,
      maxPages: this.orderHistoryPages,
    })
  }

  private async syncScope<T>(definition: ScopeDefinition<T>, context: RunContext, turn: ScopeTurn<T>): Promise<ScopeReport> {
    const { name, resource, catalogGuid } = definition
    const { dropDelta, start } = turn.ahead?.plan ?? this.plan(name, context)
    if (dropDelta) this.store.abandonRun(name, { dropCursor: false })
    const { mode, resume } = start
    const report: ScopeReport = {
      scope: name,
      mode,
      resumed: resume !== null,
      pagesFetched: 0,
      cursorReset: false,
      driftRepaired: false,
      verifyPending: false,
      error: null,
    }
    const scope: ScopeRun<T> = {
      ...definition,
      listingInFull: resource === 'catalogItems' && catalogGuid ? () => context.itemsListed.add(catalogGuid) : undefined,
      signal: context.signal,
      counts: context.resources[resource],
      report,
      progress: (update) => context.onProgress?.({ scope: name, resource, catalogGuid, ...update }),
      writes: new WritesInFlight(),
      tally: { fetched: 0, rejected: 0, rejections: [] },
      listingFetched: turn.listingFetched,
    }

    let cursor: string | null
    try {
      cursor = await this.pass(scope, start, 1, turn.ahead?.firstPage)
    } catch (caught) {
      if (caught instanceof UntrustedCursor) {
        this.warnScope(scope, `${caught.message}; the scope was listed in full instead`, 'delta cursor not trusted, listing the scope in full', {
          cursor: caught.cursor,
          serverTimestamp: caught.serverTimestamp,
          reason: caught.reason,
        })
      } else if (caught instanceof ServiceError && caught.kind === 'invalidCursor') {
        this.logger.warn('delta cursor refused, listing the scope in full', { scope: name, cursor: start.since })
      } else {
        throw caught
      }
      this.store.abandonRun(name, { dropCursor: true })
      report.cursorReset = true
      report.mode = 'full'
      cursor = await this.pass(scope, freshListing)
    }
    this.store.completeRun(name, cursor, this.clock.now())
    if (report.verifyPending) this.store.setVerifyNeeded(name, true)
    this.reportRefused(scope)
    return report
  }

  /**
   * One run over a scope: a full listing or a delta, fresh or resumed. Returns the cursor to commit.
   * A full listing that does not add up is listed once more; a delta that does not add up is
   * followed by a full listing.
   */
  private async pass<T>(scope: ScopeRun<T>, start: PassStart, attempt = 1, firstPage?: Promise<Page<T>>): Promise<string | null> {
    scope.tally = { fetched: 0, rejected: 0, rejections: [] }
    if (start.mode === 'full') scope.listingInFull?.()
    const run = await this.fetchAll(scope, start, firstPage)
    const countPage = () => (scope.countOnServer ? scope.countOnServer(scope.signal) : Promise.resolve(null))
    const countOnServer = async () => (await countPage())?.total ?? null

    if (start.mode === 'delta') {
      const counting = countPage()
      counting.catch(() => {})
      // The scope's own count goes out before the next scope's first page: the run waits on it first.
      scope.listingFetched?.()
      await scope.writes.drained()
      const counted = await counting
      const serverCount = counted?.total ?? null
      // The count's reply is the service's clock after the run's first page: the run's own cursor
      // must not be ahead of it. The cursor the delta was sent with passed that test on every page.
      let cursor = run.cursor
      const ahead = distrust(run.cursor, counted)
      if (ahead) {
        cursor = start.since ?? run.since
        this.warnScope(scope, `${ahead.message}; the cursor ${cursor} the delta started from is kept instead`, 'cursor of this run not trusted, keeping the previous one', {
          cursor: run.cursor,
          serverTimestamp: ahead.serverTimestamp,
          kept: cursor,
        })
      }
      const local = await this.writer.countRows(scope.resource, scope.catalogGuid, null)
      if (serverCount !== null && serverCount !== local) {
        this.logger.warn('local rows do not match the service after a delta; listing in full', { scope: scope.name, local, serverCount })
        scope.report.driftRepaired = true
        return this.pass(scope, freshListing, attempt)
      }
      return cursor
    }

    // Rows changed, added or deleted while the listing paged are fetched by a delta from its own
    // first page, applied as part of the listing. The service counts its rows meanwhile: both
    // replies describe it as the listing ended (a row changed between them would be off just the
    // same one after the other), and over a slow network that is a round trip saved per scope.
    const counting = countOnServer()
    counting.catch(() => {})
    scope.listingFetched?.()
    if (run.cursor) {
      const catchUp: RunState = { mode: 'delta', cursor: run.cursor, since: run.cursor, listingId: run.listingId, total: null }
      await this.fetchPages(scope, { run: catchUp, phase: 'catchUp', done: new Set(), rowsDone: 0, received: new Map(), announced: run.total })
    }
    await scope.writes.drained()
    const serverCount = await counting
    const listingId = run.listingId ?? 0
    const seen = await this.writer.countRows(scope.resource, scope.catalogGuid, listingId)
    const truncated = scope.maxPages !== undefined
    if (serverCount !== null && serverCount !== seen && !truncated) {
      if (attempt >= 2) {
        this.logger.warn('listing still does not add up; keeping rows and checking again next run', { scope: scope.name, seen, serverCount })
        scope.report.verifyPending = true
        return run.cursor
      }
      this.logger.warn('rows moved while paging; listing the scope again', { scope: scope.name, seen, serverCount })
      scope.report.driftRepaired = true
      this.store.abandonRun(scope.name, { dropCursor: false })
      return this.pass(scope, freshListing, attempt + 1)
    }
    if (scope.prunes && !truncated) {
      // A scope's first listing began with no rows of it here: every row it holds now came with the
      // listing, so there is nothing to prune, and reading the whole catalog to find that out cost a
      // first sync half a second per 100,000 items.
      if (!run.fresh) addCounts(scope.counts, await this.prune(scope, scope.resource, listingId, run.cursor))
      // Categories belong to a catalog's listing: those no item carried any more are gone.
      if (scope.resource === 'catalogItems' && scope.catalogGuid) await this.prune(scope, 'categories', listingId, run.cursor)
    }
    return run.cursor
  }

  /**
   * A scope whose rows were all, or mostly, refused ran without error and stored next to nothing:
   * that must not pass for a sync that worked. Its report line says how many (report.refused, and a
   * warning naming the listing), which the CLI's exit code and the window's status bar show.
   */
  private reportRefused<T>(scope: ScopeRun<T>): void {
    const { fetched, rejected, rejections } = scope.tally
    if (rejected === 0 || rejected * 2 <= fetched) return
    scope.report.refused = { rows: rejected, of: fetched }
    const example = rejections[0] ? ` (for example ${rejections[0]})` : ''
    this.warnScope(scope, `${rejected} of ${fetched} ${scope.label} were refused as impossible and not stored${example}; the last good copy of each is kept`, 'most rows of a scope refused as impossible', {
      rejected,
      fetched,
      reasons: rejections,
    })
  }

  /** A warning on the scope's report line and in the log. */
  private warnScope<T>(scope: ScopeRun<T>, note: string, message: string, fields: Record<string, unknown>): void {
    ;(scope.report.warnings ??= []).push(note)
    this.logger.warn(message, { scope: scope.name, ...fields })
  }

  /**
   * Applies a page in slices, each its own short transaction in its own turn of the event loop, so
   * neither the pages that arrive together nor one large page hold up the window. The page is
   * recorded as done with its last slice; a crash before that only means applying it again. The
   * whole page's counts are added to the scope's once its last slice is in.
   */
  private applyPage<T>(scope: ScopeRun<T>, rows: T[], context: ApplyContext): Promise<void> {
    const slices: T[][] = []
    for (let start = 0; start < rows.length || start === 0; start += this.sliceSize) slices.push(rows.slice(start, start + this.sliceSize))
    return this.applySlices(scope, slices, context)
  }

  /**
   * Nothing here holds a slice once it is handed over: with the writer thread, a page waiting for its
   * commit is a copy on that thread only (the bench's peak RSS counts both). Hence no local for the
   * slice (applyNext hands it over): a suspended function keeps its locals, and every page waiting
   * for its commit was held here too (sync-engine-memory.test.ts).
   */
  private async applySlices<T>(scope: ScopeRun<T>, slices: T[][], context: ApplyContext): Promise<void> {
    const counts = emptyCounts()
    while (slices.length > 0) {
      await this.turns.next()
      const written = applyNext(scope, slices, context)
      addCounts(counts, await written)
    }
    // Rows the store refused as impossible were not written; the log says which and why, for whoever
    // asks why an item kept its old price.
    if (counts.rejected) this.logger.warn('rows refused as impossible; the last good copy is kept', { scope: scope.name, rejected: counts.rejected, reasons: counts.rejections })
    addCounts(scope.counts, counts)
    const { tally } = scope
    tally.fetched += counts.fetched
    if (counts.rejected) {
      tally.rejected += counts.rejected
      if (tally.rejections.length < 3) tally.rejections.push(...(counts.rejections ?? []).slice(0, 3 - tally.rejections.length))
    }
  }

  /** Removes what a listing of the scope did not see, a slice of the table at a time, yielding in between. */
  private async prune<T>(scope: ScopeRun<T>, table: SyncedTableName, listingId: number, serverTime: string | null): Promise<ApplyCounts> {
    const counts = emptyCounts()
    for (let after: number | null = 0; after !== null; ) {
      await this.turns.next()
      throwIfAborted(scope.signal)
      const chunk = this.store.pruneUnlistedChunk(table, scope.catalogGuid, listingId, serverTime, after)
      addCounts(counts, chunk.counts)
      after = chunk.next
    }
    return counts
  }

  /** Fetches page 0 (unless resuming), records the run, then the remaining pages (see fetchPages). */
  private async fetchAll<T>(scope: ScopeRun<T>, { mode, since, resume }: PassStart, firstPage?: Promise<Page<T>>): Promise<RunState> {
    const phase = mode === 'delta' ? 'delta' : 'listing'
    if (resume) {
      await this.fetchPages(scope, { run: resume, phase, done: this.store.pagesDone(scope.name), rowsDone: 0, received: new Map(), announced: resume.total })
      return resume
    }
    throwIfAborted(scope.signal)
    const first = await (firstPage ?? scope.fetch({ limit: this.pageSize, offset: 0, lastUpdatedAt: since, first: true }, { signal: scope.signal }))
    scope.report.pagesFetched++
    const untrusted = distrust(since, first)
    if (untrusted) throw untrusted
    const short = endsListing(first, this.pageSize)
    // A total the first page already contradicts (the page is full and the service says there is
    // more) bounds nothing: the listing goes on while the service says there is more.
    let total = first.total
    if (!short && total !== null && total <= first.rows.length) {
      this.warnScope(scope, `the service gave a total of ${total} ${scope.label}, but its first page held ${first.rows.length} and it said there were more; listed until it said there were no more`, 'listing total contradicted by its first page, ignoring it', {
        total,
        firstPageRows: first.rows.length,
      })
      total = null
    }
    const run: RunState = {
      mode,
      cursor: first.serverTimestamp,
      since,
      listingId: mode === 'full' ? this.store.newListingId(scope.name) : null,
      total,
      pageSize: this.pageSize,
    }
    // A scope listed for the first time (none of its rows here) has nothing to prune afterwards, and
    // its items are written as new rows (ApplyContext.fresh).
    if (mode === 'full' && !this.store.hasRows(scope.resource, scope.catalogGuid)) run.fresh = true
    this.store.beginRun(scope.name, run)
    // The next pages are asked for while the first is written.
    const firstWritten = this.applyPage(scope, first.rows, { listingId: run.listingId, serverTime: first.serverTimestamp, page: { scope: scope.name, page: 0 }, ...(run.fresh ? { fresh: true } : {}) })
    scope.writes.add(firstWritten)
    // The scope's first word to the window: the status bar names it from here on, not the scope
    // before, while its later pages are on their way (over a slow link, seconds of them).
    const end = short ? 0 : this.lastPage(scope, run)
    const pagesTotal = Number.isFinite(end) ? end + 1 : null
    firstWritten.then(
      () => {
        scope.firstPageWritten?.()
        scope.progress({ phase, pagesDone: 1, pagesTotal, rowsDone: first.rows.length, rowsTotal: run.total })
      },
      () => {},
    )
    if (!short) {
      const received = new Map<string, number>()
      const signature = pageSignature(first.rows, scope.keyOf)
      if (signature !== null) received.set(signature, 0)
      await this.fetchPages(scope, { run, phase, done: new Set([0]), rowsDone: first.rows.length, received, announced: run.total })
    }
    return run
  }

  /**
   * The last page of a run as its first page announced it: from the service's total, no further than
   * the scope's maxPages in a full listing; unknown (infinite) without a total.
   */
  private lastPage<T>(scope: ScopeRun<T>, run: RunState): number {
    // Called only for a listing whose first page did not end it: there is a page 1 at least.
    const end = run.total !== null && run.total > 0 ? Math.max(1, Math.ceil(run.total / this.pageSize) - 1) : Number.POSITIVE_INFINITY
    return scope.maxPages !== undefined && run.mode === 'full' ? Math.min(end, scope.maxPages - 1) : end
  }

  /**
   * Fetches every page not yet done, `concurrency` requests on the wire at a time, handing each page
   * to the writer as it arrives (scope.writes: the last may still be written when this returns). The
   * end is the page count the first page announced, moved on while the last page comes back full
   * (rows inserted while paging) and pulled in at the first short page.
   *
   * When the end is known, twice as many workers as slots take pages: a worker whose reply is in
   * gives its slot to one waiting with the next page and decodes meanwhile (request-slots.ts). When
   * it is not (a catch-up, a delta with no total), each further page is a guess, and `concurrency`
   * workers guess no further than before.
   */
  private async fetchPages<T>(scope: ScopeRun<T>, { run, phase, done, rowsDone, received, announced }: Paging): Promise<void> {
    const limit = this.pageSize
    const tracked = phase !== 'catchUp'
    // No page at or past this one is asked for: twice what the total announced (and some), and never
    // more than maxListingPages. Rows inserted while paging move the end on; this far, nothing does.
    const cap = Math.min(this.maxListingPages, announced !== null && announced > 0 ? 2 * Math.ceil(announced / limit) + EXTRA_PAGES_PAST_TOTAL : Number.POSITIVE_INFINITY)
    // A catch-up (a delta, so no maxPages) has no total of its own: its end is found by paging.
    let end = tracked ? this.lastPage(scope, run) : Number.POSITIVE_INFINITY
    let next = tracked ? 1 : 0
    const outerSignal = scope.signal
    const stop = new AbortController()
    const onOuterAbort = () => stop.abort(outerSignal.reason)
    outerSignal.addEventListener('abort', onOuterAbort, { once: true })
    let failure: unknown = null
    const writes = scope.writes
    const unwatch = writes.watch((caught) => {
      failure ??= caught
      stop.abort(caught)
    })
    // A listing of at most maxPages pages (the recent orders) may have all of them waiting.
    const writeAhead = Math.max(this.writeAhead, scope.maxPages ?? 0)
    const slots = new RequestSlots(this.concurrency)
    const workers = Number.isFinite(end) ? 2 * this.concurrency : this.concurrency
    // Pages asked for or waiting to be written, at most: what `concurrency` workers that each waited
    // for fewer than writeAhead pages to be waiting could hold, however many workers there are.
    const mostPages = writeAhead + this.concurrency - 1
    let asked = 0

    /**
     * A page received, checked and handed to the writer. Its own function, and the fetch that brings
     * the page one of its own (fetchAndHandOver), not the worker's body: a suspended async function
     * keeps every local it has, used again or not, and the worker kept the last page it fetched while
     * it waited for the writer and a slot, each of its eight workers one (sync-engine-memory.test.ts).
     */
    const handOver = (page: number, result: Page<T>): void => {
      // Every reply to a delta (a resumed one, a listing's catch-up) checks the cursor it was sent with.
      const untrusted = distrust(run.since, result)
      if (untrusted) throw untrusted
      const signature = pageSignature(result.rows, scope.keyOf)
      const earlier = signature === null ? undefined : received.get(signature)
      if (earlier !== undefined) {
        throw brokenListing(
          `The service's listing of ${scope.label} repeats: page ${page + 1} came back as page ${earlier + 1} again, as from a proxy that ignores the offset. The listing was stopped; nothing was removed.`,
        )
      }
      if (signature !== null) received.set(signature, page)
      // Several pages can arrive together; their continuations would run back to back in one
      // turn of the event loop. One page per turn keeps the window responsive.
      // A page already fetched is applied even if another page failed meanwhile: it is progress.
      scope.report.pagesFetched++
      const context: ApplyContext = { listingId: run.listingId, serverTime: result.serverTimestamp ?? run.cursor }
      if (tracked) context.page = { scope: scope.name, page }
      if (tracked && run.fresh) context.fresh = true
      if (endsListing(result, limit)) end = Math.min(end, page)
      else if (page >= end && Number.isFinite(end) && (scope.maxPages === undefined || run.mode !== 'full')) end = page + 1
      // The next request goes out while this page is written: waiting for the write before asking
      // again would add the writer's time to every round trip (over a WAN, most of the run).
      // Memory stays bounded by mostPages, checked before a page is asked for.
      const rowCount = result.rows.length
      const applying = this.applyPage(scope, result.rows, context).then(() => {
        done.add(page)
        rowsDone += rowCount
        scope.progress({ phase, pagesDone: done.size, pagesTotal: Number.isFinite(end) ? end + 1 : null, rowsDone, rowsTotal: tracked ? run.total : null })
      })
      writes.add(applying)
    }

    const fetchAndHandOver = async (page: number, release: () => void): Promise<void> => {
      handOver(page, await scope.fetch({ limit, offset: page, lastUpdatedAt: run.since, first: false }, { signal: stop.signal, onReceived: release }))
    }

    const worker = async () => {
      for (;;) {
        while (writes.size > 0 && writes.size + asked >= mostPages) await writes.oneSettled()
        if (stop.signal.aborted) return
        while (done.has(next)) next++
        const page = next
        if (page > end) return
        if (page >= cap) {
          const bound = announced !== null && announced > 0 && cap < this.maxListingPages ? `twice the ${announced} it announced` : `${cap * limit} rows`
          failure ??= brokenListing(`The service's listing of ${scope.label} did not end: it still said there was more after ${cap} pages of ${limit}, past ${bound}. The listing was stopped; nothing was removed.`)
          stop.abort(failure)
          return
        }
        next = page + 1
        asked++
        const release = await slots.take()
        try {
          // The end may have been pulled in (a short page) while this worker waited for its slot.
          if (stop.signal.aborted || page > end) return
          await fetchAndHandOver(page, release)
        } catch (caught) {
          failure ??= caught
          stop.abort(caught)
          return
        } finally {
          // Synchronously after the page is handed over (it counts in writes.size now), or given up.
          asked--
          release()
        }
      }
    }
    try {
      await Promise.all(Array.from({ length: workers }, worker))
    } finally {
      outerSignal.removeEventListener('abort', onOuterAbort)
      unwatch()
    }
    // A fetch that failed ends the pass: what was fetched before it is written first (it is progress,
    // and an abandoned run must not have pages still arriving). Otherwise the writes go on behind.
    if (outerSignal.aborted || failure !== null) await writes.drained().catch(() => {})
    if (outerSignal.aborted) throw cancelledError(outerSignal)
    if (failure !== null) throw failure
  }
}

/** Hands the next slice to the scope's writer, from a frame that ends at once (see applySlices). */
function applyNext<T>(scope: ScopeRun<T>, slices: T[][], context: ApplyContext): Promise<ApplyCounts> {
  const slice = slices.shift()!
  return scope.apply(slice, slices.length === 0 ? context : { ...context, page: undefined })
}

function throwIfAborted(signal: AbortSignal): void {
  if (signal.aborted) throw cancelledError(signal)
}
