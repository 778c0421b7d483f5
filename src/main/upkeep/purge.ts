import type { Settings } from '../../shared/contract'
import { leaveCheckpointsToAnotherThread } from '../db/checkpoints'
import type { Database } from '../db/database'
import { databaseSize, recordPurge, type PurgeRecord } from '../db/storage'
import type { DraftRepository } from '../orders/drafts'
import type { Outbox } from '../orders/outbox'
import type { Clock, Logger } from '../ports'
import { localDay } from '../quotes/desk'
import type { QuoteRepository } from '../quotes/repository'
import { Turns } from '../turns'

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
   * Opens a connection on another thread that copies the WAL into the database (the sync writer's
   * worker, asked only to checkpoint). Without one, this connection checkpoints as it commits.
   */
  walCheckpointer?: () => Promise<WalCheckpointer>
}

/** A connection on another thread that checkpoints the WAL when asked. */
interface WalCheckpointer {
  checkpoint(): Promise<void>
  close(): Promise<void>
}

/**
 * The WAL's checkpoints for the length of a purge, away from this thread. A slice's commit that
 * found the WAL past SQLite's threshold (1,000 pages) ran the checkpoint inside it: copying 4 MB and
 * two fsyncs, 40-80 ms of the main thread, where the slices themselves take 2-12 ms. So this
 * connection stops checkpointing while the purge writes, and a thread of its own is asked to
 * checkpoint after each slice that removed rows, one request at a time; the WAL it has copied is
 * reused from its start by the next commit, so it stays small. Started at the first slice that
 * removed something: most runs remove nothing and need no thread.
 */
class PurgeCheckpoints {
  private checkpointer: Promise<WalCheckpointer | null> | null = null
  private inFlight: Promise<void> | null = null
  private restore: (() => void) | null = null

  constructor(
    private readonly db: Database,
    private readonly open: (() => Promise<WalCheckpointer>) | undefined,
    private readonly logger: Logger,
  ) {}

  /** After a slice that removed rows. */
  wrote(): void {
    if (!this.open || this.db.memory) return
    if (!this.checkpointer) {
      this.restore = leaveCheckpointsToAnotherThread(this.db)
      this.checkpointer = this.open().catch((error: unknown) => {
        this.logger.warn('the purge’s checkpoint thread did not start; this thread checkpoints', { error: error instanceof Error ? error.message : String(error) })
        this.restore?.()
        this.restore = null
        return null
      })
    }
    if (this.inFlight) return
    const checkpointer = this.checkpointer
    this.inFlight = checkpointer
      .then((ready) => ready?.checkpoint())
      .catch((error: unknown) => this.logger.warn('a checkpoint during the purge failed', { error: error instanceof Error ? error.message : String(error) }))
      .finally(() => {
        this.inFlight = null
      })
  }

  /** After the last slice: the WAL copied once more, the thread closed, this connection's checkpoints back. */
  async finish(): Promise<void> {
    if (!this.checkpointer) return
    const checkpointer = await this.checkpointer
    try {
      await this.inFlight
      await checkpointer?.checkpoint().catch((error: unknown) => this.logger.warn('the checkpoint after the purge failed', { error: error instanceof Error ? error.message : String(error) }))
    } finally {
      await checkpointer?.close().catch(() => undefined)
      this.restore?.()
      this.restore = null
      this.checkpointer = null
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
  /** Each slice of the last run, in ms of wall time on this thread, for the bench. */
  sliceMs: number[] = []

  constructor(private readonly parts: PurgeParts) {
    const slice = parts.slice ?? { start: 100, min: 10, max: 1000 }
    this.sliceRows = slice.start
    this.bounds = { min: slice.min, max: slice.max }
    this.budgetMs = parts.sliceBudgetMs ?? 20
  }

  /** After a sync: a purge that fails is logged and tried again after the next. */
  afterSync(): void {
    this.run().catch((error: unknown) => this.parts.logger.warn('the purge after the sync failed', { error: error instanceof Error ? error.message : String(error) }))
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
    let bytesFreed = 0
    const checkpoints = new PurgeCheckpoints(db, this.parts.walCheckpointer, logger)

    /**
     * One window of rows per slice, by id, until a window finds no rows left; false when the purge
     * left off (the core is closing, or a sync began).
     */
    const slices = async <T extends { lastId: number | null }>(slice: (afterId: number, window: number) => T, use: (result: T) => void): Promise<boolean> => {
      let afterId = 0
      for (;;) {
        await this.turns.next()
        if (this.stopped || this.parts.syncing?.()) return false
        const started = performance.now()
        const { result, freed, changes } = this.freeing(() => slice(afterId, this.sliceRows))
        this.adapt(performance.now() - started)
        if (changes > 0) checkpoints.wrote()
        bytesFreed += freed
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
      if (await slices((afterId, window) => quotes.purgeExpired(validBefore, drafts.ids(), afterId, window), (result) => (quotesRemoved += result.removed))) {
        if (await slices((afterId, window) => quotes.convertedDraftIds(afterId, window), (result) => keepDraftIds.push(...result.draftIds))) {
          await slices((afterId, window) => outbox.purgeSent(sentBefore, keepDraftIds, afterId, window), (result) => (sentRemoved += result.removed))
        }
      }
    } finally {
      await checkpoints.finish()
    }
    const record: PurgeRecord = { at: new Date(clock.now()).toISOString(), sentOrders: sentRemoved, quotes: quotesRemoved, bytesFreed }
    if (quotesRemoved + sentRemoved > 0) {
      recordPurge(db, record)
      logger.info('purged what the retention settings no longer keep', { ...record, longestSliceMs: Math.round(this.longestSliceMs) })
    }
    return record
  }

  /** Runs one slice in one transaction, with the pages it put on the free list and the rows it changed. */
  private freeing<T>(slice: () => T): { result: T; freed: number; changes: number } {
    const { db } = this.parts
    return db
      .transaction(() => {
        const before = databaseSize(db).freeBytes
        const changesBefore = totalChanges(db)
        const result = slice()
        return { result, freed: Math.max(0, databaseSize(db).freeBytes - before), changes: totalChanges(db) - changesBefore }
      })
      .immediate()
  }

  private adapt(elapsedMs: number): void {
    this.longestSliceMs = Math.max(this.longestSliceMs, elapsedMs)
    this.sliceMs.push(elapsedMs)
    if (elapsedMs > this.budgetMs / 2) this.sliceRows = Math.max(this.bounds.min, Math.floor(this.sliceRows / 2))
    else if (elapsedMs < this.budgetMs / 8) this.sliceRows = Math.min(this.bounds.max, this.sliceRows * 2)
  }
}

/** Rows this connection has changed since it opened (SQLite's total_changes()). */
function totalChanges(db: Database): number {
  return db.prepare<[], number>('SELECT total_changes()').pluck().get() ?? 0
}

/** `months` calendar months before `ms`, as an ISO time (the outbox's sent_at is ISO, UTC). */
function monthsBefore(ms: number, months: number): string {
  const date = new Date(ms)
  date.setUTCMonth(date.getUTCMonth() - months)
  return date.toISOString()
}
