import type { Settings } from '../../shared/contract'
import { leaveCheckpointsToAnotherThread } from '../db/checkpoints'
import type { Database } from '../db/database'
import { recordPurge, type PurgeRecord } from '../db/storage'
import type { DraftRepository } from '../orders/drafts'
import type { Outbox } from '../orders/outbox/outbox'
import type { Clock, Logger } from '../ports'
import { localDay } from '../quotes/desk'
import type { QuoteRepository } from '../quotes/repository'
import { Turns } from '../turns'
import { runSlice, type PurgeThread, type SliceRequest, type SliceResult, type SliceTables } from './purge-slices'

export interface PurgeParts {
  db: Database
  outbox: Outbox
  drafts: DraftRepository
  quotes: QuoteRepository
  /** The retention settings of the database this purge tidies (each profile keeps its own). */
  settings: () => Pick<Settings, 'keepSentOrdersMonths' | 'keepExpiredQuotesDays'>
  clock: Clock
  logger: Logger
  /**
   * Whether a sync is writing: its writer thread holds SQLite's write lock for a page's commit at a
   * time, and a slice that waited for it would wait on the main thread. The purge leaves off and the
   * sync's end starts it again.
   */
  syncing?: () => boolean
  /** Rows looked at per slice to start with, and the bounds the slice size adapts within. */
  slice?: { start: number; min: number; max: number }
  /** How long one slice may hold the thread; slices shrink when one runs longer. */
  sliceBudgetMs?: number
  /**
   * Opens the purge's own thread (purge-worker.ts), which runs the slices on a connection of its own.
   * Without one, the slices run on this thread.
   */
  purgeThread?: () => Promise<PurgeThread>
}

/**
 * Where the slices run. On the main thread a slice's commit could stall for 20-180 ms however few
 * rows it held: the checkpoint a commit runs once the WAL passes 1,000 pages (4 MB copied, two
 * fsyncs), and, even with checkpoints elsewhere, a write to the WAL that the file system holds while
 * another fsync commits its journal (strace: 4 KB pwrite64 calls of 15-45 ms). So once a slice has
 * removed rows, the rest of the purge runs on a thread of its own with its own connection: its
 * commits, their checkpoints and their stalls are off the main thread, which only posts a slice and
 * reads the answer. This connection leaves checkpoints to that thread meanwhile (the WAL its slices
 * write would otherwise be copied at the window's next commit). Most runs remove nothing and need
 * no thread.
 */
class SliceThreads {
  private starting: Promise<PurgeThread | null> | null = null
  private restore: (() => void) | null = null

  constructor(
    private readonly tables: SliceTables,
    private readonly open: (() => Promise<PurgeThread>) | undefined,
    private readonly logger: Logger,
  ) {}

  /**
   * Runs a slice: here until one removes rows, then on the purge's thread, waiting for it to start
   * (the main thread is free meanwhile); here again if it could not start. Says where it ran.
   */
  async run(request: SliceRequest): Promise<SliceResult & { onThread: boolean }> {
    const thread = this.starting ? await this.starting : null
    const result = thread
      ? { ...(await thread.run(request)), onThread: true }
      : { ...runSlice(this.tables, request), onThread: false }
    if (result.changes > 0 && !this.starting && this.open && !this.tables.db.memory) this.start(this.open)
    return result
  }

  private start(open: () => Promise<PurgeThread>): void {
    this.restore = leaveCheckpointsToAnotherThread(this.tables.db)
    this.starting = open().catch((error: unknown) => {
      this.logger.warn('the purge’s thread did not start; its slices run on the main thread', {
        error: error instanceof Error ? error.message : String(error),
      })
      this.restore?.()
      this.restore = null
      return null
    })
  }

  /** After the last slice: the thread checkpoints and closes, and this connection checkpoints again. */
  async finish(): Promise<void> {
    const thread = await this.starting
    this.starting = null
    try {
      await thread?.close()
    } catch (error) {
      this.logger.warn('the purge’s thread did not close cleanly', {
        error: error instanceof Error ? error.message : String(error),
      })
    } finally {
      this.restore?.()
      this.restore = null
    }
  }
}

/**
 * Removes what the retention settings say has been kept long enough: sent orders from the outbox's
 * list, and quotes long past their validity. Synced history is not touched: it is kept as the
 * service lists it, and a full sync removes what the service no longer has.
 *
 * Deleting thousands of rows in one statement would hold the main process (the window's IPC, the
 * outbox's sends) for as long as it takes. Each slice is one transaction over a window of a bounded
 * number of rows (the next ones by id, whether they go or stay, so rows kept never make a later
 * slice look at more), taken in a turn of the event loop of its own; the window halves after a slice
 * that ran past half the budget and doubles after quick ones, so a slow disk gets smaller slices.
 */
export class Purge {
  private readonly turns = new Turns()
  private running: Promise<PurgeRecord> | null = null
  private following: Promise<PurgeRecord> | null = null
  private stopped = false
  private sliceRows: number
  private readonly bounds: { min: number; max: number }
  private readonly budgetMs: number
  /** The longest slice of the last run, in ms, for the bench and the log. */
  longestSliceMs = 0
  /** Each slice of the last run, in ms of wall time on the thread that ran it, for the bench. */
  sliceMs: number[] = []
  /** How many of those slices ran on the purge's own thread. */
  slicesOnThread = 0
  /** The slices of the last run that ran on the main thread, in ms of wall time. */
  mainThreadSliceMs: number[] = []

  constructor(private readonly parts: PurgeParts) {
    const slice = parts.slice ?? { start: 100, min: 10, max: 1000 }
    this.sliceRows = slice.start
    this.bounds = { min: slice.min, max: slice.max }
    this.budgetMs = parts.sliceBudgetMs ?? 20
  }

  /** After a sync: a purge that fails is logged and tried again after the next. */
  afterSync(): void {
    this.run().catch((error: unknown) =>
      this.parts.logger.warn('the purge after the sync failed', {
        error: error instanceof Error ? error.message : String(error),
      }),
    )
  }

  /** Ends a running purge after its current slice (what it removed stays removed), and runs no more. */
  async stop(): Promise<void> {
    this.stopped = true
    await this.following?.catch(() => undefined)
    await this.running?.catch(() => undefined)
  }

  /**
   * Runs a purge. While one runs, answers the one that follows it: a sync finished meanwhile, or
   * a setting changed, after the running purge had read them.
   */
  run(): Promise<PurgeRecord> {
    if (this.running) {
      this.following ??= this.running
        .catch(() => undefined)
        .then(() => {
          this.following = null
          return this.run()
        })
      return this.following
    }
    const running = this.purgeAll().finally(() => {
      this.running = null
    })
    this.running = running
    return running
  }

  private async purgeAll(): Promise<PurgeRecord> {
    const { db, outbox, drafts, quotes, clock, logger } = this.parts
    const retention = this.parts.settings()
    const now = clock.now()
    const sentBefore = monthsBefore(now, retention.keepSentOrdersMonths)
    // A quote is expired from the day after its last valid day; it stays that many days more.
    const validBefore = localDay(now, -retention.keepExpiredQuotesDays)
    this.longestSliceMs = 0
    this.sliceMs = []
    this.slicesOnThread = 0
    this.mainThreadSliceMs = []
    let bytesFreed = 0
    const threads = new SliceThreads({ db, outbox, quotes }, this.parts.purgeThread, logger)

    /**
     * One window of rows per slice, by id, until a window finds no rows left; false when the purge
     * left off (the core is closing, or a sync began).
     */
    const slices = async (
      request: (afterId: number, window: number) => SliceRequest,
      use: (result: SliceResult) => void,
    ): Promise<boolean> => {
      let afterId = 0
      for (;;) {
        await this.turns.next()
        if (this.stopped || this.parts.syncing?.()) return false
        const result = await threads.run(request(afterId, this.sliceRows))
        if (result.onThread) this.slicesOnThread++
        else this.mainThreadSliceMs.push(result.ms)
        this.adapt(result.ms)
        bytesFreed += result.freed
        use(result)
        if (result.lastId === null) return true
        afterId = result.lastId
      }
    }

    // Quotes first: a quote purged now no longer keeps the order it was converted into. Drafts are
    // read again for each slice (a quote may be converted meanwhile); the drafts kept quotes were
    // converted into are gathered after, and a quote converted since only names a draft not yet sent.
    let quotesRemoved = 0
    let sentRemoved = 0
    const keepDraftIds: number[] = []
    try {
      if (
        await slices(
          (afterId, window) => ({ kind: 'expiredQuotes', validBefore, openDraftIds: drafts.ids(), afterId, window }),
          (result) => (quotesRemoved += result.removed),
        )
      ) {
        if (
          await slices(
            (afterId, window) => ({ kind: 'convertedDraftIds', afterId, window }),
            (result) => keepDraftIds.push(...result.draftIds),
          )
        ) {
          await slices(
            (afterId, window) => ({ kind: 'sentOrders', sentBefore, keepDraftIds, afterId, window }),
            (result) => (sentRemoved += result.removed),
          )
        }
      }
    } finally {
      await threads.finish()
    }
    const record: PurgeRecord = {
      at: new Date(clock.now()).toISOString(),
      sentOrders: sentRemoved,
      quotes: quotesRemoved,
      bytesFreed,
    }
    if (quotesRemoved + sentRemoved > 0) {
      recordPurge(db, record)
      logger.info('purged what the retention settings no longer keep', {
        ...record,
        longestSliceMs: Math.round(this.longestSliceMs),
      })
    }
    return record
  }

  private adapt(elapsedMs: number): void {
    this.longestSliceMs = Math.max(this.longestSliceMs, elapsedMs)
    this.sliceMs.push(elapsedMs)
    if (elapsedMs > this.budgetMs / 2) this.sliceRows = Math.max(this.bounds.min, Math.floor(this.sliceRows / 2))
    else if (elapsedMs < this.budgetMs / 8) this.sliceRows = Math.min(this.bounds.max, this.sliceRows * 2)
  }
}

/** `months` calendar months before `ms`, as an ISO time (the outbox's sent_at is ISO, UTC). */
function monthsBefore(ms: number, months: number): string {
  const date = new Date(ms)
  date.setUTCMonth(date.getUTCMonth() - months)
  return date.toISOString()
}
