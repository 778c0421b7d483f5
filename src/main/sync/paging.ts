/**
 * How one pass over a scope fetches its pages and hands them to the writer: page 0 and the run's
 * bookkeeping, then the rest `concurrency` at a time, in slices of their own turns, and the prune
 * after a listing; where a listing ends, repeats and runaway listings. Which pass to make, and what
 * its count means, is the run's (engine.ts).
 */
import { setMaxListeners } from 'node:events'
import { ServiceError } from '../ordering-client/errors'
import { cancelledError } from '../ordering-client/retry'
import type { Logger } from '../ports'
import type { RunState, SyncMode } from '../local/sync-state'
import {
  addCounts,
  emptyCounts,
  type ApplyContext,
  type ApplyCounts,
  type LocalCopy,
  type SyncedTableName,
} from '../local/copy'
import type { SyncProgress } from '../../shared/synced'
import { Turns } from '../turns'
import { RequestSlots } from './request-slots'
import { distrust } from './cursor-trust'
import { warnScope, type ScopeDefinition, type ScopeRun } from './scopes'
import { isHeld, type ListedPage } from './listed-pages'
import type { HeldPage } from './thread-data'

/**
 * A listing may run past the pages its total announced (rows inserted while paging move the end on),
 * up to twice them and this many more; then it is not the data that grows, it is the paging that
 * does not end.
 */
const EXTRA_PAGES_PAST_TOTAL = 10

/** Where a listing ends: the service says there is no more, or a page is short or empty and it does not say there is more. */
function endsListing(page: Pick<ListedPage<unknown>, 'count' | 'hasMore'>, limit: number): boolean {
  return page.hasMore === false || page.count === 0 || (page.count < limit && page.hasMore !== true)
}

/** A page's rows as far as telling it apart from another page of the same pass: its first and last rows and its length. */
function pageSignature(page: ListedPage<unknown>): string | null {
  // One row cannot tell a repeat from rows shifted by one between two requests (an order inserted
  // at the front of the newest-first list): only pages of two rows or more are compared.
  if (page.count < 2) return null
  return `${page.firstKey}\u0000${page.lastKey}\u0000${page.count}`
}

/** A listing that does not end: its pages repeat, or run on far past its total. The scope stops with this. */
function brokenListing(message: string): ServiceError {
  return new ServiceError('invalidResponse', message)
}

/** Where a pass starts: a fresh listing, a fresh delta from `since`, or an unfinished run to resume. */
export interface PassStart {
  mode: SyncMode
  since: string | null
  /** When set, the pass resumes it (mode is its mode) and fetches only the pages it lacks. */
  resume: RunState | null
}

/** A full listing from page 0. */
export const freshListing: PassStart = { mode: 'full', since: null, resume: null }

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
  /** Pages asked for before the scope's turn (Pager.askAhead), taken instead of asking again. */
  ahead?: Map<number, PageAhead<unknown>>
}

/** A scope's first page asked for before its turn, and the pages after it once it is in (Pager.askAhead). */
export interface PagesAhead<T> {
  first: Promise<ListedPage<T>>
  more: Map<number, PageAhead<T>>
}

/** A page asked for ahead; `received` once its bytes are in (or it failed): its request is off the wire. */
interface PageAhead<T> {
  page: Promise<ListedPage<T>>
  received: Promise<void>
}

/** What the paging is given by the engine (SyncEngineOptions, with its defaults applied). */
interface PagerOptions {
  copy: LocalCopy
  logger: Logger
  pageSize: number
  concurrency: number
  sliceSize: number
  writeAhead: number
  fetchAhead: number
  maxListingPages: number
}

/** Pages a scope's pass, for the engine (engine.ts). */
export class Pager {
  private readonly copy: LocalCopy
  private readonly logger: Logger
  private readonly pageSize: number
  private readonly concurrency: number
  private readonly sliceSize: number
  private readonly writeAhead: number
  private readonly fetchAhead: number
  private readonly maxListingPages: number
  /** Pages' work and prunes' chunks on this thread: one at a time, each in a turn of its own. */
  private readonly turns = new Turns()

  constructor(options: PagerOptions) {
    this.copy = options.copy
    this.logger = options.logger
    this.pageSize = options.pageSize
    this.concurrency = options.concurrency
    this.sliceSize = options.sliceSize
    this.writeAhead = options.writeAhead
    this.fetchAhead = options.fetchAhead
    this.maxListingPages = options.maxListingPages
  }

  /**
   * Applies a page in slices, each its own short transaction in its own turn of the event loop, so
   * neither the pages that arrive together nor one large page hold up the window. The page is
   * recorded as done with its last slice; a crash before that only means applying it again. The
   * whole page's counts are added to the scope's once its last slice is in.
   */
  private applyPage<T>(scope: ScopeRun<T>, rows: T[] | HeldPage, context: ApplyContext): Promise<void> {
    // A held page is on the writer's thread already, in one piece: this thread has nothing of it to slice.
    const slices: (T[] | HeldPage)[] = []
    if (isHeld(rows)) slices.push(rows)
    else
      for (let start = 0; start < rows.length || start === 0; start += this.sliceSize)
        slices.push(rows.slice(start, start + this.sliceSize))
    return this.applySlices(scope, slices, context)
  }

  /**
   * Nothing here holds a slice once it is handed over: with the writer thread, a page waiting for its
   * commit is a copy on that thread only (the bench's peak RSS counts both). Hence no local for the
   * slice (applyNext hands it over): a suspended function keeps its locals, and every page waiting
   * for its commit was held here too (sync-engine-memory.test.ts).
   */
  private async applySlices<T>(scope: ScopeRun<T>, slices: (T[] | HeldPage)[], context: ApplyContext): Promise<void> {
    const counts = emptyCounts()
    while (slices.length > 0) {
      await this.turns.next()
      const written = applyNext(scope, slices, context)
      addCounts(counts, await written)
    }
    // Rows the local copy refused as impossible were not written; the log says which and why, for whoever
    // asks why an item kept its old price.
    if (counts.rejected)
      this.logger.warn('rows refused as impossible; the last good copy is kept', {
        scope: scope.name,
        rejected: counts.rejected,
        reasons: counts.rejections,
      })
    addCounts(scope.counts, counts)
    const { tally } = scope
    tally.fetched += counts.fetched
    if (counts.rejected) {
      tally.rejected += counts.rejected
      if (tally.rejections.length < 3)
        tally.rejections.push(...(counts.rejections ?? []).slice(0, 3 - tally.rejections.length))
    }
  }

  /** Removes what a listing of the scope did not see, a slice of the table at a time, yielding in between. */
  async prune<T>(
    scope: ScopeRun<T>,
    table: SyncedTableName,
    listingId: number,
    serverTime: string | null,
  ): Promise<ApplyCounts> {
    const counts = emptyCounts()
    for (let after: number | null = 0; after !== null;) {
      await this.turns.next()
      throwIfAborted(scope.signal)
      const chunk = this.copy.pruneUnlistedChunk(table, scope.catalogGuid, listingId, serverTime, after)
      addCounts(counts, chunk.counts)
      after = chunk.next
    }
    return counts
  }

  /**
   * A scope's first page, asked for while the scope before it finishes; for a full listing, once it
   * is in and announces more, the next `concurrency − 1` pages too. Over a slow link the scope's turn
   * then starts with its pages on the wire, not a round trip away; nothing is written before it.
   */
  askAhead<T>(
    scope: Pick<ScopeDefinition<T>, 'fetch' | 'maxPages'>,
    { mode, since }: PassStart,
    signal: AbortSignal,
  ): PagesAhead<T> {
    const first = scope.fetch({ limit: this.pageSize, offset: 0, lastUpdatedAt: since, first: true }, { signal })
    const more = new Map<number, PageAhead<T>>()
    // Registered before the turn awaits the first page, so these are asked for before it goes on.
    first.then(
      (page) => {
        if (mode !== 'full' || endsListing(page, this.pageSize) || page.total === null) return
        if (page.total <= page.count) return
        const last = Math.min(this.lastPage(scope, { mode, total: page.total }), this.concurrency - 1)
        for (let offset = 1; offset <= last && !signal.aborted; offset++) {
          let onReceived = () => {}
          const received = new Promise<void>((resolve) => (onReceived = resolve))
          const asked = scope.fetch(
            { limit: this.pageSize, offset, lastUpdatedAt: since, first: false },
            { signal, onReceived },
          )
          // Its failure is met when the page is taken; none when the turn never comes. `received`
          // resolves with nothing: a promise of the page itself would keep it, and its turn holds
          // these promises past the page's hand-over (sync-engine-memory.test.ts).
          asked.then(
            () => onReceived(),
            () => onReceived(),
          )
          more.set(offset, { page: asked, received })
        }
      },
      () => {},
    )
    return { first, more }
  }

  /** Fetches page 0 (unless resuming), records the run, then the remaining pages (see fetchPages). */
  async fetchAll<T>(scope: ScopeRun<T>, { mode, since, resume }: PassStart, ahead?: PagesAhead<T>): Promise<RunState> {
    const firstPage = ahead?.first
    const phase = mode === 'delta' ? 'delta' : 'listing'
    if (resume) {
      await this.fetchPages(scope, {
        run: resume,
        phase,
        done: this.copy.pagesDone(scope.name),
        rowsDone: 0,
        received: new Map(),
        announced: resume.total,
      })
      return resume
    }
    throwIfAborted(scope.signal)
    const first = await (firstPage ??
      scope.fetch({ limit: this.pageSize, offset: 0, lastUpdatedAt: since, first: true }, { signal: scope.signal }))
    scope.report.pagesFetched++
    const untrusted = distrust(since, first)
    if (untrusted) {
      letGo(scope, first)
      throw untrusted
    }
    const short = endsListing(first, this.pageSize)
    // A total the first page already contradicts (the page is full and the service says there is
    // more) bounds nothing: the listing goes on while the service says there is more.
    let total = first.total
    if (!short && total !== null && total <= first.count) {
      warnScope(
        this.logger,
        scope,
        `the service gave a total of ${total} ${scope.label}, but its first page held ${first.count} and it said there were more; listed until it said there were no more`,
        'listing total contradicted by its first page, ignoring it',
        {
          total,
          firstPageRows: first.count,
        },
      )
      total = null
    }
    const run: RunState = {
      mode,
      cursor: first.serverTimestamp,
      since,
      listingId: mode === 'full' ? this.copy.newListingId(scope.name) : null,
      total,
      pageSize: this.pageSize,
    }
    // A scope listed for the first time (none of its rows here) has nothing to prune afterwards, and
    // its items are written as new rows (ApplyContext.fresh).
    if (mode === 'full' && !this.copy.hasRows(scope.resource, scope.catalogGuid)) run.fresh = true
    this.copy.beginRun(scope.name, run)
    // The next pages are asked for while the first is written.
    const firstWritten = this.applyPage(scope, first.rows, {
      listingId: run.listingId,
      serverTime: first.serverTimestamp,
      page: { scope: scope.name, page: 0 },
      ...(run.fresh ? { fresh: true } : {}),
    })
    scope.writes.add(firstWritten)
    // The scope's first word to the window: the status bar names it from here on, not the scope
    // before, while its later pages are on their way (over a slow link, seconds of them).
    const end = short ? 0 : this.lastPage(scope, run)
    const pagesTotal = Number.isFinite(end) ? end + 1 : null
    firstWritten.then(
      () => {
        scope.firstPageWritten?.()
        scope.progress({ phase, pagesDone: 1, pagesTotal, rowsDone: first.count, rowsTotal: run.total })
      },
      () => {},
    )
    if (!short) {
      const received = new Map<string, number>()
      const signature = pageSignature(first)
      if (signature !== null) received.set(signature, 0)
      await this.fetchPages(scope, {
        run,
        phase,
        done: new Set([0]),
        rowsDone: first.count,
        received,
        announced: run.total,
        ahead: ahead?.more,
      })
    }
    return run
  }

  /**
   * The last page of a run as its first page announced it: from the service's total, no further than
   * the scope's maxPages in a full listing; unknown (infinite) without a total.
   */
  private lastPage(scope: { maxPages?: number }, run: Pick<RunState, 'mode' | 'total'>): number {
    // Called only for a listing whose first page did not end it: there is a page 1 at least.
    const end =
      run.total !== null && run.total > 0
        ? Math.max(1, Math.ceil(run.total / this.pageSize) - 1)
        : Number.POSITIVE_INFINITY
    return scope.maxPages !== undefined && run.mode === 'full' ? Math.min(end, scope.maxPages - 1) : end
  }

  /**
   * Fetches every page not yet done, `concurrency` requests on the wire at a time, handing each page
   * to the writer as it arrives (scope.writes: the last may still be written when this returns). The
   * end is the page count the first page announced, moved on while the last page comes back full
   * (rows inserted while paging) and pulled in at the first short page.
   *
   * When the end is known, a worker whose reply is in gives its slot to one waiting with the next
   * page (request-slots.ts) and decodes meanwhile, or keeps the reply's compressed bytes while
   * `writeAhead` decoded pages already wait for the writer: the requests go on through the writer's
   * pauses (a checkpoint), up to `fetchAhead` pages ahead, and only `writeAhead` of them are decoded.
   * So there are as many workers as pages that may be held. When the end is not known (a catch-up,
   * a delta with no total), each further page is a guess, and `concurrency` workers guess no
   * further than before.
   */
  async fetchPages<T>(
    scope: ScopeRun<T>,
    { run, phase, done, rowsDone, received, announced, ahead }: Paging,
  ): Promise<void> {
    const limit = this.pageSize
    const tracked = phase !== 'catchUp'
    // No page at or past this one is asked for: twice what the total announced (and some), and never
    // more than maxListingPages. Rows inserted while paging move the end on; this far, nothing does.
    const cap = Math.min(
      this.maxListingPages,
      announced !== null && announced > 0
        ? 2 * Math.ceil(announced / limit) + EXTRA_PAGES_PAST_TOTAL
        : Number.POSITIVE_INFINITY,
    )
    // A catch-up (a delta, so no maxPages) has no total of its own: its end is found by paging.
    let end = tracked ? this.lastPage(scope, run) : Number.POSITIVE_INFINITY
    let next = tracked ? 1 : 0
    const outerSignal = scope.signal
    const stop = new AbortController()
    // Every request on the wire and every worker's wait listens to it, more than Node's leak warning
    // allows at eight requests at once: many listeners by design, not a leak.
    setMaxListeners(8 * this.concurrency, stop.signal)
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
    const fetchAhead = Math.max(this.fetchAhead, writeAhead)
    const slots = new RequestSlots(this.concurrency)
    // Pages asked for, held in their compressed bytes, or waiting to be written, at most: what
    // workers that each waited for fewer than fetchAhead pages to be held could hold.
    const mostPages = fetchAhead + this.concurrency - 1
    const workers = Number.isFinite(end) ? mostPages : this.concurrency
    // Pages asked for ahead and still on the wire hold slots of their own: never more requests
    // than `concurrency` once the scope's turn has come.
    // (In a function of its own: this one is suspended for the whole pass, and would keep the last
    // page it looped over.)
    await holdSlotsWhileOnTheWire(
      slots,
      [...(ahead?.values() ?? [])].map(({ received }) => received),
    )
    let asked = 0
    // A catch-up is nearly always one short page: its page 0 is asked for alone, and the guesses
    // past it only once it came back full (concurrency requests for one page, otherwise).
    let firstIn: Promise<void> | null = null
    let firstSettled = () => {}
    if (!tracked && !done.has(0)) firstIn = new Promise<void>((resolve) => (firstSettled = resolve))
    /**
     * A received reply is decoded once fewer than writeAhead decoded pages wait for the writer or are
     * being decoded: the replies that wake at one write's end take its one place, not all of it.
     * Each place taken is given back once its page is handed over or given up.
     */
    let decoding = 0
    const roomToDecode = async (): Promise<void> => {
      while (writes.size > 0 && writes.size + decoding >= writeAhead && !stop.signal.aborted) await writes.oneSettled()
      decoding++
    }

    /**
     * A page received, checked and handed to the writer. Its own function, and the fetch that brings
     * the page one of its own (fetchAndHandOver), not the worker's body: a suspended async function
     * keeps every local it has, used again or not, and the worker kept the last page it fetched while
     * it waited for the writer and a slot, each of its eight workers one (sync-engine-memory.test.ts).
     */
    const handOver = (page: number, result: ListedPage<T>): void => {
      // Every reply to a delta (a resumed one, a listing's catch-up) checks the cursor it was sent with.
      const untrusted = distrust(run.since, result)
      if (untrusted) {
        letGo(scope, result)
        throw untrusted
      }
      const signature = pageSignature(result)
      const earlier = signature === null ? undefined : received.get(signature)
      if (earlier !== undefined) {
        letGo(scope, result)
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
      else if (page >= end && Number.isFinite(end) && (scope.maxPages === undefined || run.mode !== 'full'))
        end = page + 1
      // The next request goes out while this page is written: waiting for the write before asking
      // again would add the writer's time to every round trip (over a WAN, most of the run).
      // Memory stays bounded by mostPages, checked before a page is asked for.
      const rowCount = result.count
      const applying = this.applyPage(scope, result.rows, context).then(() => {
        done.add(page)
        rowsDone += rowCount
        scope.progress({
          phase,
          pagesDone: done.size,
          pagesTotal: Number.isFinite(end) ? end + 1 : null,
          rowsDone,
          rowsTotal: tracked ? run.total : null,
        })
      })
      writes.add(applying)
    }

    const fetchAndHandOver = async (page: number, release: () => void): Promise<void> => {
      const asked = ahead?.get(page)
      let waited = false
      // Once per page: a reply that did not inflate is asked for again, and its page keeps the place
      // it already took.
      const beforeDecode = async () => {
        if (waited) return
        waited = true
        await roomToDecode()
      }
      try {
        let result: ListedPage<T>
        if (asked) {
          ahead!.delete(page)
          release()
          // Decoded as it came, before the turn: its place is taken once it is in.
          result = (await asked.page) as ListedPage<T>
        } else {
          result = await scope.fetch(
            { limit, offset: page, lastUpdatedAt: run.since, first: false },
            { signal: stop.signal, onReceived: release, beforeDecode },
          )
        }
        // A source that did not wait before decoding (a test's) waits here, holding the decoded page.
        if (!waited) await beforeDecode()
        handOver(page, result)
      } finally {
        if (waited) decoding--
      }
    }

    const worker = async () => {
      for (;;) {
        while (writes.size > 0 && writes.size + asked >= mostPages) await writes.oneSettled()
        if (stop.signal.aborted) return
        while (done.has(next)) next++
        const page = next
        if (page > end) return
        if (page >= cap) {
          const bound =
            announced !== null && announced > 0 && cap < this.maxListingPages
              ? `twice the ${announced} it announced`
              : `${cap * limit} rows`
          failure ??= brokenListing(
            `The service's listing of ${scope.label} did not end: it still said there was more after ${cap} pages of ${limit}, past ${bound}. The listing was stopped; nothing was removed.`,
          )
          stop.abort(failure)
          return
        }
        next = page + 1
        asked++
        if (page > 0 && firstIn) await firstIn
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
          if (page === 0) firstSettled()
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

/** Takes a slot for each request already on the wire, given back once its bytes are in. */
async function holdSlotsWhileOnTheWire(slots: RequestSlots, received: Promise<void>[]): Promise<void> {
  for (const bytesIn of received) void bytesIn.then(await slots.take())
}

/** Hands the next slice to the scope's writer, from a frame that ends at once (see applySlices). */
function applyNext<T>(scope: ScopeRun<T>, slices: (T[] | HeldPage)[], context: ApplyContext): Promise<ApplyCounts> {
  const slice = slices.shift()!
  return scope.apply(slice, slices.length === 0 ? context : { ...context, page: undefined })
}

/** A page that will not be written: its rows, if the writer's thread holds them, are let go. */
function letGo<T>(scope: ScopeRun<T>, page: ListedPage<T>): void {
  if (isHeld(page.rows)) scope.discard(page.rows)
}

function throwIfAborted(signal: AbortSignal): void {
  if (signal.aborted) throw cancelledError(signal)
}
