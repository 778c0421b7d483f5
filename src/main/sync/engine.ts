/**
 * Delta sync of the ordering service into the local copy, one scope at a time: the catalogs with
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
 *
 * This file is the run: which scopes, in what order, where each pass starts and what its count
 * means. The scopes it pages through are defined in scopes.ts, the paging itself is paging.ts
 * (with writes-in-flight.ts), and the cursor's test against the service's clock is cursor-trust.ts.
 */
import { ServiceError } from '../ordering-client/errors'
import type { Clock, Logger } from '../ports'
import { silentLogger } from '../ports'
import type { RunState, SyncMode } from '../local/sync-state'
import { addCounts, emptyCounts, type ApplyCounts, type LocalCopy } from '../local/copy'
import { describe } from './failures'
import { inlineWriter, type PageWriter } from './page-writer'
import { limitHeapGrowth } from './heap-growth'
import { resourceNames, type ResourceName, type SyncProgress, type SyncReport } from '../../shared/synced'
import { UntrustedCursor, distrust } from './cursor-trust'
import {
  catalogItemsScope,
  customersScope,
  ordersScope,
  warnScope,
  type ScopeDefinition,
  type ScopeReport,
  type ScopeRun,
  type SyncSource,
} from './scopes'
import { WritesInFlight } from './writes-in-flight'
import { Pager, freshListing, type PagesAhead, type PassStart } from './paging'

export interface SyncRunOptions {
  /** List every scope in full, ignoring cursors (rows the service no longer lists are removed). */
  full?: boolean
  signal?: AbortSignal
  onProgress?: (progress: SyncProgress) => void
}

export interface SyncEngineOptions {
  copy: LocalCopy
  /** Where pages are written: a worker thread in the app (page-writer.ts); this thread by default. */
  writer?: PageWriter
  source: SyncSource
  clock: Clock
  logger?: Logger
  /** Rows per page (the service's maximum is 100). */
  pageSize?: number
  /** Pages in flight at once within one scope (defaultConcurrency). */
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
   * Pages fetched and waiting to be written, at most, per scope (defaultWriteAhead). The writer
   * thread commits what is waiting in one transaction (writer-thread.ts): enough pages must be
   * waiting for those to be large.
   */
  writeAhead?: number
  /** Pages asked for ahead of the writer, held compressed until decoded (defaultFetchAhead). */
  fetchAhead?: number
}

/** Requests a scope's paging has on the wire at once, unless told otherwise. */
export const defaultConcurrency = 8

/** Decoded pages waiting for the writer, unless told otherwise: enough to fill its 2,000-row commits. */
const defaultWriteAhead = 8

/**
 * Pages asked for ahead of the writer, unless told otherwise, held as the compressed bytes they came
 * in until there is room to decode them: the requests go on through the writer's pauses (a WAL
 * checkpoint, a few hundred ms) while a slow link would otherwise sit idle. On a fast link the writer
 * is the limit and the pages wait as bytes, not as decoded rows (docs/sync.md).
 */
const defaultFetchAhead = 32

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

/** A scope planned, and its first pages asked for, while the scope before it finished. */
interface FirstPageAhead<T> {
  plan: ScopePlan
  /** None when the scope resumes a run (it fetches only the pages it lacks). */
  pages?: PagesAhead<T>
  cancel(): void
}

export class SyncEngine {
  private readonly copy: LocalCopy
  private readonly writer: PageWriter
  private readonly source: SyncSource
  private readonly clock: Clock
  private readonly logger: Logger
  private readonly pageSize: number
  private readonly orderHistoryPages: number
  private readonly monotonic: () => number
  private readonly pager: Pager

  constructor(options: SyncEngineOptions) {
    // Whatever runs a sync (the app, the CLI, the benches) keeps its heaps near what they hold alive.
    limitHeapGrowth()
    this.copy = options.copy
    this.writer = options.writer ?? inlineWriter(options.copy)
    this.source = options.source
    this.clock = options.clock
    this.logger = options.logger ?? silentLogger
    this.pageSize = options.pageSize ?? 100
    // Enough compressed pages on the wire to keep a slow, distant link busy (docs/sync.md says how
    // many that takes). Only a first sync ever has them all out; a delta is a page or two.
    const concurrency = Math.max(1, options.concurrency ?? defaultConcurrency)
    this.orderHistoryPages = options.orderHistoryPages ?? 20
    this.monotonic = options.monotonic ?? (() => performance.now())
    this.pager = new Pager({
      copy: this.copy,
      logger: this.logger,
      pageSize: this.pageSize,
      concurrency,
      sliceSize: Math.max(1, options.rowsPerTransaction ?? 100),
      writeAhead: Math.max(concurrency, options.writeAhead ?? defaultWriteAhead),
      fetchAhead: options.fetchAhead ?? defaultFetchAhead,
      maxListingPages: Math.max(1, options.maxListingPages ?? 20_000),
    })
  }

  async run(options: SyncRunOptions = {}): Promise<SyncReport> {
    const started = this.monotonic()
    const context: RunContext = {
      full: options.full === true,
      signal: options.signal ?? new AbortController().signal,
      onProgress: options.onProgress,
      resources: Object.fromEntries(resourceNames.map((name) => [name, emptyCounts()])) as Record<
        ResourceName,
        ApplyCounts
      >,
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
      return (
        !(caught instanceof ServiceError) ||
        caught.transient ||
        caught.kind === 'credentials' ||
        caught.kind === 'cancelled'
      )
    }

    const runScope = async <T>(definition: ScopeDefinition<T>, turn: ScopeTurn<T> = {}): Promise<boolean> => {
      try {
        scopes.push(await this.syncScope(definition, context, turn))
        return true
      } catch (caught) {
        scopes.push({
          scope: definition.name,
          mode: context.full ? 'full' : 'delta',
          resumed: false,
          pagesFetched: 0,
          cursorReset: false,
          driftRepaired: false,
          verifyPending: false,
          error: describe(caught).message,
        })
        return !fail(definition.name, caught)
      }
    }

    const restore = this.writer.onThisThread ? this.copy.beginBulkWrite() : this.copy.leaveCheckpointsToWriter()
    let report: SyncReport
    try {
      try {
        await this.runScopes(context, runScope, fail)
      } finally {
        // A first listing cut short (offline, cancelled, failed) still leaves its catalog browsable.
        await this.writer
          .finishBulk()
          .catch((caught: unknown) =>
            this.logger.warn('rebuilding deferred indexes failed', { message: describe(caught).message }),
          )
        // Before the run is reported: the window reloads its counts when told the run finished.
        await this.writer
          .recountItems([...context.itemsListed])
          .catch((caught: unknown) => this.logger.warn('counting items failed', { message: describe(caught).message }))
        for (const [scope, message] of failed) this.copy.setLastError(scope, message)
      }
      const { full, resources } = context
      report = {
        ok: error === null,
        full,
        resources,
        scopes,
        durationMs: Math.round(this.monotonic() - started),
        error,
      }
      const now = this.clock.now()
      this.copy.recordRun(now - report.durationMs, now, report.ok, full, report)
    } finally {
      // The run's WAL (up to 32 MB, writer-thread.ts) is copied into the database on the writer's
      // thread, after this thread's last writes: this connection checkpoints again once restored,
      // and would otherwise do it at its next commit, with the window waiting. The run does not
      // wait for it: a checkpoint changes nothing a reader sees (150 ms of a delta's 430).
      this.writer
        .checkpoint()
        .catch((caught: unknown) =>
          this.logger.warn('checkpointing after sync failed', { message: describe(caught).message }),
        )
      restore()
    }
    return report
  }

  /**
   * Catalogs first (items need them), then customers, each catalog's items, and orders; stops at a
   * failure that would repeat. A scope's first pages are asked for once the scope before has fetched
   * its listing, while that one still waits for its catch-up and count: over a WAN, round trips
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
      customersScope(this.source, this.writer),
      ...this.copy
        .liveCatalogGuids()
        .map((catalogGuid) => catalogItemsScope(this.copy, this.source, this.writer, catalogGuid)),
      {
        ...ordersScope(this.source, this.writer, this.orderHistoryPages),
        firstPageWritten: () => void (building ??= this.writer.finishBulk()),
      },
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
    const state = this.copy.scope(name)
    // An unfinished delta is dropped when this run lists in full.
    const dropDelta = state.run !== null && context.full && state.run.mode === 'delta'
    const resume = dropDelta ? null : state.run
    const mode: SyncMode = resume?.mode ?? (context.full || !state.cursor || state.verifyNeeded ? 'full' : 'delta')
    return { dropDelta, start: { mode, since: mode === 'delta' ? (resume?.since ?? state.cursor) : null, resume } }
  }

  /** Plans a scope and asks for its first pages before its turn (nothing to ask when it resumes). */
  private askAhead<T>(definition: ScopeDefinition<T>, context: RunContext): FirstPageAhead<T> {
    const plan = this.plan(definition.name, context)
    const cancelled = new AbortController()
    let pages: PagesAhead<T> | undefined
    if (!plan.start.resume && !context.signal.aborted) {
      pages = this.pager.askAhead(definition, plan.start, AbortSignal.any([context.signal, cancelled.signal]))
      // Its failure is the scope's, met when its turn comes; not at all when the run stops before.
      pages.first.catch(() => {})
    }
    return { plan, pages, cancel: () => cancelled.abort(new Error('the run stopped before this scope')) }
  }

  /** Catalogs and their price groups: one small list, always read in full. */
  private async syncCatalogs({ signal, resources }: RunContext): Promise<void> {
    const catalogs = await this.source.listCatalogs({ signal })
    const listingId = this.copy.newListingId('catalogs')
    const applied = this.copy.applyCatalogs(catalogs, { listingId, serverTime: null })
    addCounts(resources.catalogs, applied.catalogs)
    addCounts(resources.priceGroups, applied.priceGroups)
    if (applied.priceGroups.rejected)
      this.logger.warn('price groups refused as impossible; the last good copy is kept', {
        rejected: applied.priceGroups.rejected,
        reasons: applied.priceGroups.rejections,
      })
    // The catalog list carries no serverTimestamp; the flag on a kept row is for display only.
    const flaggedAt = new Date(this.clock.now()).toISOString()
    addCounts(resources.catalogs, this.copy.pruneUnlisted('catalogs', null, listingId, flaggedAt))
    addCounts(resources.priceGroups, this.copy.pruneUnlisted('priceGroups', null, listingId, flaggedAt))
    // Items of a catalog that is gone leave with it (those a draft still needs are flagged).
    const live = new Set(this.copy.liveCatalogGuids())
    for (const state of this.copy.allScopes()) {
      const catalogGuid = state.scope.startsWith('catalogItems:') ? state.scope.slice('catalogItems:'.length) : null
      if (catalogGuid && !live.has(catalogGuid)) {
        addCounts(resources.catalogItems, this.copy.removeCatalogContents(catalogGuid, flaggedAt))
        this.copy.forgetScope(state.scope)
      }
    }
    this.copy.completeRun('catalogs', null, this.clock.now())
  }

  private async syncScope<T>(
    definition: ScopeDefinition<T>,
    context: RunContext,
    turn: ScopeTurn<T>,
  ): Promise<ScopeReport> {
    const { name, resource, catalogGuid } = definition
    const { dropDelta, start } = turn.ahead?.plan ?? this.plan(name, context)
    if (dropDelta) this.copy.abandonRun(name, { dropCursor: false })
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
      listingInFull:
        resource === 'catalogItems' && catalogGuid ? () => context.itemsListed.add(catalogGuid) : undefined,
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
      cursor = await this.pass(scope, start, 1, turn.ahead?.pages)
    } catch (caught) {
      if (caught instanceof UntrustedCursor) {
        warnScope(
          this.logger,
          scope,
          `${caught.message}; the scope was listed in full instead`,
          'delta cursor not trusted, listing the scope in full',
          {
            cursor: caught.cursor,
            serverTimestamp: caught.serverTimestamp,
            reason: caught.reason,
          },
        )
      } else if (caught instanceof ServiceError && caught.kind === 'invalidCursor') {
        this.logger.warn('delta cursor refused, listing the scope in full', { scope: name, cursor: start.since })
      } else {
        throw caught
      }
      this.copy.abandonRun(name, { dropCursor: true })
      report.cursorReset = true
      report.mode = 'full'
      cursor = await this.pass(scope, freshListing)
    }
    this.copy.completeRun(name, cursor, this.clock.now())
    if (report.verifyPending) this.copy.setVerifyNeeded(name, true)
    this.reportRefused(scope)
    return report
  }

  /**
   * One run over a scope: a full listing or a delta, fresh or resumed. Returns the cursor to commit.
   * A full listing that does not add up is listed once more; a delta that does not add up is
   * followed by a full listing.
   */
  private async pass<T>(
    scope: ScopeRun<T>,
    start: PassStart,
    attempt = 1,
    ahead?: PagesAhead<T>,
  ): Promise<string | null> {
    scope.tally = { fetched: 0, rejected: 0, rejections: [] }
    if (start.mode === 'full') scope.listingInFull?.()
    const run = await this.pager.fetchAll(scope, start, ahead)
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
        warnScope(
          this.logger,
          scope,
          `${ahead.message}; the cursor ${cursor} the delta started from is kept instead`,
          'cursor of this run not trusted, keeping the previous one',
          {
            cursor: run.cursor,
            serverTimestamp: ahead.serverTimestamp,
            kept: cursor,
          },
        )
      }
      const local = await this.writer.countRows(scope.resource, scope.catalogGuid, null)
      if (serverCount !== null && serverCount !== local) {
        this.logger.warn('local rows do not match the service after a delta; listing in full', {
          scope: scope.name,
          local,
          serverCount,
        })
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
      const catchUp: RunState = {
        mode: 'delta',
        cursor: run.cursor,
        since: run.cursor,
        listingId: run.listingId,
        total: null,
      }
      await this.pager.fetchPages(scope, {
        run: catchUp,
        phase: 'catchUp',
        done: new Set(),
        rowsDone: 0,
        received: new Map(),
        announced: run.total,
      })
    }
    await scope.writes.drained()
    const serverCount = await counting
    const listingId = run.listingId ?? 0
    const seen = await this.writer.countRows(scope.resource, scope.catalogGuid, listingId)
    const truncated = scope.maxPages !== undefined
    if (serverCount !== null && serverCount !== seen && !truncated) {
      if (attempt >= 2) {
        this.logger.warn('listing still does not add up; keeping rows and checking again next run', {
          scope: scope.name,
          seen,
          serverCount,
        })
        scope.report.verifyPending = true
        return run.cursor
      }
      this.logger.warn('rows moved while paging; listing the scope again', { scope: scope.name, seen, serverCount })
      scope.report.driftRepaired = true
      this.copy.abandonRun(scope.name, { dropCursor: false })
      return this.pass(scope, freshListing, attempt + 1)
    }
    if (scope.prunes && !truncated) {
      // A scope's first listing began with no rows of it here: every row it holds now came with the
      // listing, so there is nothing to prune, and reading the whole catalog to find that out cost a
      // first sync half a second per 100,000 items.
      if (!run.fresh) addCounts(scope.counts, await this.pager.prune(scope, scope.resource, listingId, run.cursor))
      // Categories belong to a catalog's listing: those no item carried any more are gone.
      if (scope.resource === 'catalogItems' && scope.catalogGuid)
        await this.pager.prune(scope, 'categories', listingId, run.cursor)
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
    warnScope(
      this.logger,
      scope,
      `${rejected} of ${fetched} ${scope.label} were refused as impossible and not stored${example}; the last good copy of each is kept`,
      'most rows of a scope refused as impossible',
      {
        rejected,
        fetched,
        reasons: rejections,
      },
    )
  }
}
