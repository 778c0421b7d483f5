/**
 * Delta sync of the ordering service into the local store, one scope at a time: the catalogs with
 * their price groups, the customers, each catalog's items, and recent orders.
 *
 * The rules every scope follows:
 * - The cursor is the serverTimestamp of a run's first page, committed only after its last page and
 *   sent back as lastUpdatedAt next time. The laptop's clock plays no part.
 * - Pages are applied idempotently (the service replays a 60 s overlap) and an older version never
 *   overwrites a newer row (SyncStore's upsert guard).
 * - Each page is one transaction that also records the page as done, so an interrupted run resumes
 *   with the pages it lacks.
 * - A full listing ends with a catch-up delta from its own first page and a count check against the
 *   service; a mismatch means rows moved between pages while paging (drift), and the scope is listed
 *   again before anything is removed. Only a listing that checks out removes the rows it did not see.
 * - INVALID_DELTA_CURSOR drops the cursor and lists the scope in full within the same run.
 */
import type { CatalogItemRecord, CatalogRecord, OrderRecord } from '../ordering-client/schemas'
import type { CustomerConnection, ListParams, Page } from '../ordering-client/client'
import { ServiceError, errorCodeOf } from '../ordering-client/errors'
import { cancelledError } from '../ordering-client/retry'
import type { Clock, Logger } from '../ports'
import { silentLogger } from '../ports'
import type { RunState, SyncMode } from '../store/sync-state'
import { addCounts, emptyCounts, type ApplyContext, type ApplyCounts, type SyncStore, type SyncedTableName } from '../store/sync-store'
import type { ErrorCode } from '../../shared/result'
import { inlineWriter, type PageWriter } from './page-writer'
import { resourceNames, type ResourceName, type SyncProgress, type SyncReport } from '../../shared/synced'

export type ScopeReport = SyncReport['scopes'][number]
export { resourceNames, type ResourceName, type SyncProgress, type SyncReport }

/** What the engine needs of the service client (the real one, or a wrapper in tests). */
export interface SyncSource {
  listCatalogs(options: { signal?: AbortSignal }): Promise<CatalogRecord[]>
  listCustomers(params: ListParams, options: { signal?: AbortSignal }): Promise<Page<CustomerConnection>>
  listCatalogItems(catalogGuid: string, params: ListParams & { skipTotalCount?: boolean }, options: { signal?: AbortSignal }): Promise<Page<CatalogItemRecord>>
  listOrders(params: ListParams, options: { signal?: AbortSignal }): Promise<Page<OrderRecord>>
}

export interface SyncRunOptions {
  /** List every scope in full, ignoring cursors (rows the service no longer lists are removed). */
  full?: boolean
  signal?: AbortSignal
  onProgress?: (progress: SyncProgress) => void
}

export interface SyncEngineOptions {
  store: SyncStore
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
}

/** One listing the engine knows how to page through and store. */
interface ScopeDefinition<T> {
  scope: string
  resource: ResourceName
  table: SyncedTableName
  /** Limits counts and removals to one catalog. */
  catalogGuid: string | null
  fetch(params: ListParams & { first: boolean }, signal: AbortSignal): Promise<Page<T>>
  apply(rows: T[], context: ApplyContext): Promise<ApplyCounts>
  /** Live rows the service holds for this scope, when it can tell; checked after each run. */
  countOnServer?(signal: AbortSignal): Promise<number | null>
  /** A full listing removes local rows it did not see (false for the recent-orders window). */
  prunes: boolean
  /** At most this many pages in a full listing. */
  maxPages?: number
}

export class SyncEngine {
  private readonly store: SyncStore
  private readonly writer: PageWriter
  private readonly source: SyncSource
  private readonly clock: Clock
  private readonly logger: Logger
  private readonly pageSize: number
  private readonly concurrency: number
  private readonly orderHistoryPages: number
  private readonly sliceSize: number
  private readonly monotonic: () => number

  constructor(options: SyncEngineOptions) {
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
  }

  async run(options: SyncRunOptions = {}): Promise<SyncReport> {
    const started = this.monotonic()
    const signal = options.signal ?? new AbortController().signal
    const full = options.full === true
    const resources = Object.fromEntries(resourceNames.map((name) => [name, emptyCounts()])) as Record<ResourceName, ApplyCounts>
    const scopes: ScopeReport[] = []
    let error: SyncReport['error'] = null
    const fail = (scope: string, caught: unknown): boolean => {
      const described = describe(caught)
      this.store.setLastError(scope, described.message)
      this.logger.warn('sync scope failed', { scope, code: described.code, message: described.message })
      error ??= described
      // Offline, refused credentials or cancelled: every other scope would fail the same way.
      return !(caught instanceof ServiceError) || caught.transient || caught.kind === 'credentials' || caught.kind === 'cancelled'
    }

    const runScope = async <T>(definition: ScopeDefinition<T>): Promise<boolean> => {
      try {
        const report = await this.syncScope(definition, full, signal, options.onProgress, resources[definition.resource])
        scopes.push(report)
        return true
      } catch (caught) {
        scopes.push({ scope: definition.scope, mode: full ? 'full' : 'delta', resumed: false, pagesFetched: 0, cursorReset: false, driftRepaired: false, verifyPending: false, error: describe(caught).message })
        return !fail(definition.scope, caught)
      }
    }

    const restore = this.writer.onThisThread ? this.store.beginBulkWrite() : () => {}
    try {
      await this.runScopes(signal, resources, runScope, fail)
    } finally {
      restore()
    }

    const report: SyncReport = { ok: error === null, full, resources, scopes, durationMs: Math.round(this.monotonic() - started), error }
    const now = this.clock.now()
    this.store.recordRun(now - report.durationMs, now, report.ok, full, report)
    return report
  }

  /** Catalogs first (items need them), then customers, each catalog's items, and orders; stops at a failure that would repeat. */
  private async runScopes(
    signal: AbortSignal,
    resources: Record<ResourceName, ApplyCounts>,
    runScope: <T>(definition: ScopeDefinition<T>) => Promise<boolean>,
    fail: (scope: string, caught: unknown) => boolean,
  ): Promise<void> {
    const proceed = await this.syncCatalogs(signal, resources).then(
      () => true,
      (caught: unknown) => !fail('catalogs', caught),
    )
    if (proceed && (await runScope(this.customersScope()))) {
      let go = true
      for (const catalogGuid of this.store.liveCatalogGuids()) {
        if (!go) break
        go = await runScope(this.catalogItemsScope(catalogGuid))
      }
      if (go) await runScope(this.ordersScope())
    }
  }

  /** Catalogs and their price groups: one small list, always read in full. */
  private async syncCatalogs(signal: AbortSignal, resources: Record<ResourceName, ApplyCounts>): Promise<void> {
    const catalogs = await this.source.listCatalogs({ signal })
    const listingId = this.store.newListingId('catalogs')
    const applied = this.store.applyCatalogs(catalogs, { listingId, serverTime: null })
    addCounts(resources.catalogs, applied.catalogs)
    addCounts(resources.priceGroups, applied.priceGroups)
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
    return {
      scope: 'customers',
      resource: 'customers',
      table: 'customers',
      catalogGuid: null,
      fetch: (params, signal) => this.source.listCustomers(params, { signal }),
      apply: (rows, context) => this.writer.applyCustomers(rows, context),
      // The spec shows no count on the customer list; when the service sends one, it is checked.
      countOnServer: async (signal) => (await this.source.listCustomers({ limit: 1, offset: 0 }, { signal })).total,
      prunes: true,
    }
  }

  private catalogItemsScope(catalogGuid: string): ScopeDefinition<CatalogItemRecord> {
    return {
      scope: `catalogItems:${catalogGuid}`,
      resource: 'catalogItems',
      table: 'catalogItems',
      catalogGuid,
      // Only the first page asks for the count: counting is the expensive part on the service.
      fetch: (params, signal) => this.source.listCatalogItems(catalogGuid, { ...params, skipTotalCount: !params.first }, { signal }),
      apply: (rows, context) => this.writer.applyCatalogItems(catalogGuid, rows, context),
      countOnServer: async (signal) => (await this.source.listCatalogItems(catalogGuid, { limit: 1, offset: 0 }, { signal })).total,
      prunes: true,
    }
  }

  private ordersScope(): ScopeDefinition<OrderRecord> {
    return {
      scope: 'orders',
      resource: 'orders',
      table: 'orders',
      catalogGuid: null,
      fetch: (params, signal) => this.source.listOrders(params, { signal }),
      apply: (rows, context) => this.writer.applyOrders(rows, context),
      // Order history is a window of the newest orders, not a mirror: nothing is removed or counted.
      prunes: false,
      maxPages: this.orderHistoryPages,
    }
  }

  private async syncScope<T>(
    definition: ScopeDefinition<T>,
    forceFull: boolean,
    signal: AbortSignal,
    onProgress: SyncRunOptions['onProgress'],
    counts: ApplyCounts,
  ): Promise<ScopeReport> {
    const state = this.store.scope(definition.scope)
    let resume = state.run
    if (resume && forceFull && resume.mode === 'delta') {
      this.store.abandonRun(definition.scope, { dropCursor: false })
      resume = null
    }
    const mode: SyncMode = resume?.mode ?? (forceFull || !state.cursor || state.verifyNeeded ? 'full' : 'delta')
    const report: ScopeReport = {
      scope: definition.scope,
      mode,
      resumed: resume !== null,
      pagesFetched: 0,
      cursorReset: false,
      driftRepaired: false,
      verifyPending: false,
      error: null,
    }
    const pass = (passMode: SyncMode, since: string | null, resumeRun: RunState | null) =>
      this.pass(definition, passMode, since, resumeRun, signal, onProgress, counts, report)

    let cursor: string | null
    try {
      cursor = await pass(mode, mode === 'delta' ? (resume?.since ?? state.cursor) : null, resume)
    } catch (caught) {
      if (!(caught instanceof ServiceError) || caught.kind !== 'invalidCursor') throw caught
      this.logger.warn('delta cursor refused, listing the scope in full', { scope: definition.scope, cursor: state.cursor })
      this.store.abandonRun(definition.scope, { dropCursor: true })
      report.cursorReset = true
      report.mode = 'full'
      cursor = await pass('full', null, null)
    }
    this.store.completeRun(definition.scope, cursor, this.clock.now())
    if (report.verifyPending) this.store.setVerifyNeeded(definition.scope, true)
    return report
  }

  /**
   * One run over a scope: a full listing or a delta, fresh or resumed. Returns the cursor to commit.
   * A full listing that does not add up is listed once more; a delta that does not add up is
   * followed by a full listing.
   */
  private async pass<T>(
    definition: ScopeDefinition<T>,
    mode: SyncMode,
    since: string | null,
    resume: RunState | null,
    signal: AbortSignal,
    onProgress: SyncRunOptions['onProgress'],
    counts: ApplyCounts,
    report: ScopeReport,
    attempt = 1,
  ): Promise<string | null> {
    const run = await this.fetchAll(definition, mode, since, resume, signal, onProgress, counts, report, mode === 'delta' ? 'delta' : 'listing')
    const countOnServer = () => (definition.countOnServer ? definition.countOnServer(signal) : Promise.resolve(null))

    if (mode === 'delta') {
      const serverCount = await countOnServer()
      const local = this.store.countLive(definition.table, definition.catalogGuid)
      if (serverCount !== null && serverCount !== local) {
        this.logger.warn('local rows do not match the service after a delta; listing in full', { scope: definition.scope, local, serverCount })
        report.driftRepaired = true
        return this.pass(definition, 'full', null, null, signal, onProgress, counts, report, attempt)
      }
      return run.cursor
    }

    // Rows changed, added or deleted while the listing paged are fetched by a delta from its own
    // first page, applied as part of the listing.
    if (run.cursor) {
      const catchUp: RunState = { mode: 'delta', cursor: run.cursor, since: run.cursor, listingId: run.listingId, total: null }
      await this.fetchPages(definition, catchUp, new Set(), signal, onProgress, counts, report, 'catchUp', 0)
    }
    // Counted after the catch-up, so the service's count and the local one describe the same moment.
    const serverCount = await countOnServer()
    const listingId = run.listingId ?? 0
    const seen = this.store.countListedLive(definition.table, definition.catalogGuid, listingId)
    const truncated = definition.maxPages !== undefined
    if (serverCount !== null && serverCount !== seen && !truncated) {
      if (attempt >= 2) {
        this.logger.warn('listing still does not add up; keeping rows and checking again next run', { scope: definition.scope, seen, serverCount })
        report.verifyPending = true
        return run.cursor
      }
      this.logger.warn('rows moved while paging; listing the scope again', { scope: definition.scope, seen, serverCount })
      report.driftRepaired = true
      this.store.abandonRun(definition.scope, { dropCursor: false })
      return this.pass(definition, 'full', null, null, signal, onProgress, counts, report, attempt + 1)
    }
    if (definition.prunes && !truncated) {
      addCounts(counts, await this.prune(definition.table, definition.catalogGuid, listingId, run.cursor, signal))
      // Categories belong to a catalog's listing: those no item carried any more are gone.
      if (definition.table === 'catalogItems' && definition.catalogGuid) await this.prune('categories', definition.catalogGuid, listingId, run.cursor, signal)
    }
    return run.cursor
  }

  /**
   * Applies a page in slices, each its own short transaction in its own turn of the event loop, so
   * neither the pages that arrive together nor one large page hold up the window. The page is
   * recorded as done with its last slice; a crash before that only means applying it again.
   */
  private async applyPage<T>(definition: ScopeDefinition<T>, rows: T[], context: ApplyContext): Promise<ApplyCounts> {
    const counts = emptyCounts()
    for (let start = 0; start < rows.length || start === 0; start += this.sliceSize) {
      await breathe()
      const last = start + this.sliceSize >= rows.length
      addCounts(counts, await definition.apply(rows.slice(start, start + this.sliceSize), last ? context : { ...context, page: undefined }))
    }
    return counts
  }

  /** Removes what a listing did not see, a slice of the table at a time, yielding in between. */
  private async prune(table: SyncedTableName, scope: string | null, listingId: number, serverTime: string | null, signal: AbortSignal): Promise<ApplyCounts> {
    const counts = emptyCounts()
    for (let after: number | null = 0; after !== null; ) {
      await breathe()
      throwIfAborted(signal)
      const chunk = this.store.pruneUnlistedChunk(table, scope, listingId, serverTime, after)
      addCounts(counts, chunk.counts)
      after = chunk.next
    }
    return counts
  }

  /** Fetches page 0 (unless resuming), records the run, then the remaining pages. */
  private async fetchAll<T>(
    definition: ScopeDefinition<T>,
    mode: SyncMode,
    since: string | null,
    resume: RunState | null,
    signal: AbortSignal,
    onProgress: SyncRunOptions['onProgress'],
    counts: ApplyCounts,
    report: ScopeReport,
    phase: SyncProgress['phase'],
  ): Promise<RunState> {
    if (resume) {
      const done = this.store.pagesDone(definition.scope)
      await this.fetchPages(definition, resume, done, signal, onProgress, counts, report, phase, 0)
      return resume
    }
    throwIfAborted(signal)
    const first = await definition.fetch({ limit: this.pageSize, offset: 0, lastUpdatedAt: since, first: true }, signal)
    report.pagesFetched++
    const run: RunState = {
      mode,
      cursor: first.serverTimestamp,
      since,
      listingId: mode === 'full' ? this.store.newListingId(definition.scope) : null,
      total: first.total,
    }
    this.store.beginRun(definition.scope, run)
    addCounts(counts, await this.applyPage(definition, first.rows, { listingId: run.listingId, serverTime: first.serverTimestamp, page: { scope: definition.scope, page: 0 } }))
    const done = new Set([0])
    const short = first.rows.length < this.pageSize || first.hasMore === false
    if (!short) await this.fetchPages(definition, run, done, signal, onProgress, counts, report, phase, first.rows.length)
    else this.emit(onProgress, definition, phase, 1, 1, first.rows.length, run.total)
    return run
  }

  /**
   * Fetches every page not yet done, `concurrency` at a time, applying each as it arrives. The end is
   * the page count the first page announced, moved on while the last page comes back full (rows
   * inserted while paging) and pulled in at the first short page.
   */
  private async fetchPages<T>(
    definition: ScopeDefinition<T>,
    run: RunState,
    done: Set<number>,
    outerSignal: AbortSignal,
    onProgress: SyncRunOptions['onProgress'],
    counts: ApplyCounts,
    report: ScopeReport,
    phase: SyncProgress['phase'],
    rowsSoFar: number,
  ): Promise<void> {
    const limit = this.pageSize
    const tracked = phase !== 'catchUp'
    let end = run.total !== null && run.total > 0 && tracked ? Math.ceil(run.total / limit) - 1 : Number.POSITIVE_INFINITY
    if (definition.maxPages !== undefined && run.mode === 'full') end = Math.min(end, definition.maxPages - 1)
    let next = tracked ? 1 : 0
    let rowsDone = rowsSoFar
    const stop = new AbortController()
    const onOuterAbort = () => stop.abort(outerSignal.reason)
    outerSignal.addEventListener('abort', onOuterAbort, { once: true })
    let failure: unknown = null

    const worker = async () => {
      for (;;) {
        if (stop.signal.aborted) return
        while (done.has(next)) next++
        const page = next
        if (page > end) return
        next = page + 1
        try {
          const result = await definition.fetch({ limit, offset: page, lastUpdatedAt: run.since, first: false }, stop.signal)
          // Several pages can arrive together; their continuations would run back to back in one
          // turn of the event loop. One page per turn keeps the window responsive.
          // A page already fetched is applied even if another page failed meanwhile: it is progress.
          report.pagesFetched++
          const context: ApplyContext = { listingId: run.listingId, serverTime: result.serverTimestamp ?? run.cursor }
          if (tracked) context.page = { scope: definition.scope, page }
          addCounts(counts, await this.applyPage(definition, result.rows, context))
          done.add(page)
          rowsDone += result.rows.length
          if (result.rows.length < limit || result.hasMore === false) end = Math.min(end, page)
          else if (page >= end && Number.isFinite(end) && (definition.maxPages === undefined || run.mode !== 'full')) end = page + 1
          this.emit(onProgress, definition, phase, done.size, Number.isFinite(end) ? end + 1 : null, rowsDone, tracked ? run.total : null)
        } catch (caught) {
          failure ??= caught
          stop.abort(caught)
          return
        }
      }
    }
    try {
      await Promise.all(Array.from({ length: this.concurrency }, worker))
    } finally {
      outerSignal.removeEventListener('abort', onOuterAbort)
    }
    if (outerSignal.aborted) throw cancelledError(outerSignal)
    if (failure !== null) throw failure
  }

  private emit<T>(
    onProgress: SyncRunOptions['onProgress'],
    definition: ScopeDefinition<T>,
    phase: SyncProgress['phase'],
    pagesDone: number,
    pagesTotal: number | null,
    rowsDone: number,
    rowsTotal: number | null,
  ): void {
    onProgress?.({ scope: definition.scope, resource: definition.resource, catalogGuid: definition.catalogGuid, phase, pagesDone, pagesTotal, rowsDone, rowsTotal })
  }
}

/** Lets timers, I/O and IPC run before the next piece of synchronous work. */
function breathe(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve))
}

function throwIfAborted(signal: AbortSignal): void {
  if (signal.aborted) throw cancelledError(signal)
}

function describe(error: unknown): { code: ErrorCode; message: string } {
  if (error instanceof ServiceError) return { code: errorCodeOf(error.kind), message: error.message }
  return { code: 'INTERNAL', message: error instanceof Error ? error.message : String(error) }
}
