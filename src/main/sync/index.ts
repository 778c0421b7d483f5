/**
 * Sync as the core offers it: the scheduler that decides when, the run that fills the local copy, and
 * the contract's sync methods. Browsing what it filled is browse/'s; the service clients are given.
 */
import type { Implementations } from '../../shared/contract'
import type { CatalogUpdate, SyncProgress } from '../../shared/synced'
import type { CatalogUpdateProgress } from '../local/catalog-update-jobs'
import type { Database } from '../db/database'
import { Lease } from '../db/lease'
import type { EventHub } from '../events'
import type { LocalCopy } from '../local/copy'
import type { Retention } from '../local/retention'
import type { LocalData } from '../local/data'
import type { ServiceClients } from '../ordering-client/clients'
import type { Clock, Logger, SyncGate } from '../ports'
import type { SyncThreadData } from './page-writer'
import { createSyncRun } from './run'
import type { CustomerHistoryStep, OrderDetailStep } from './run'
import { statusWithCatalogStep, withCatalogStep } from './progress'
import { SyncScheduler, watchBusy } from './scheduler'
import type { LongWrites } from './long-writes'
import type { Worker } from 'node:worker_threads'

type SyncMethods = Pick<Implementations, 'syncNow' | 'cancelSync' | 'getSyncStatus' | 'getCatalogUpdate'>

export interface Sync {
  scheduler: SyncScheduler
  copy: LocalCopy
  /** Drafts and the outbox register here the rows they still need (see local/retention.ts). */
  retention: Retention
  methods: SyncMethods
  /**
   * Starts the catalog work an upgrade left (local/catalog-update-jobs.ts) on the writer's thread, when
   * there is any; runs of the scheduler wait for it. Resolves when it is done or stopped.
   */
  startCatalogUpdate(): Promise<void>
  close(): Promise<void>
}

export interface SyncOptions {
  db: Database
  /** The local copy's surface on `db`: sync writes through its copy, and shares its retention. */
  local: LocalData
  clients: ServiceClients
  syncIntervalMinutes: () => number
  clock: Clock
  logger: Logger
  events: EventHub
  /** Who this process is, in words, for other processes' "… is syncing" messages. */
  label?: string
  /** Progress events per second at most, per scope. */
  progressPerSecond?: number
  /** This install's seed: background runs are spread over a share of the interval by it (scheduler.ts). */
  spreadSeed?: string
  /** How much longer the service's last Retry-After to any request runs (the connectivity monitor's). */
  quietForMs?: () => number
  /** better_sqlite3.node for the runtime, passed on to the writer thread. */
  nativeBinding?: string
  /** Builds the writer thread from a bundled entry; a source checkout needs none (page-writer.ts). */
  syncThread?: (data: SyncThreadData) => Worker
  /** Fetches the full orders after each run's listings (tracking/). */
  orderDetails?: OrderDetailStep
  /** Keeps the worked-with customers' order histories fresh after each run (brief/). */
  customerHistories?: CustomerHistoryStep
  /** One sync at a time across profiles (src/main/profiles/sync-gate.ts). */
  gate?: SyncGate
  /** See CoreConfig.beforeCatalogUpdateSlice. */
  beforeCatalogUpdateSlice?: () => Promise<void>
  /** Told of the writer thread's requests that hold the write lock for seconds (long-writes.ts). */
  longWrites?: LongWrites
}

export function createSync(options: SyncOptions): Sync {
  const { db, clients, clock, logger, events } = options
  const retention = options.local.retention
  const copy = options.local.copy
  const syncLogger = logger.child({ area: 'sync' })
  const lease = new Lease(db, 'sync', { label: options.label ?? 'Satchel', clock })
  const run = createSyncRun({
    db,
    copy,
    lease,
    clock,
    logger: syncLogger,
    ...(options.orderDetails ? { orderDetails: options.orderDetails } : {}),
    ...(options.customerHistories ? { customerHistories: options.customerHistories } : {}),
    onCatalogUpdateProgress: (progress) => reportUpdate(progress),
    ...(options.beforeCatalogUpdateSlice ? { beforeCatalogUpdateSlice: options.beforeCatalogUpdateSlice } : {}),
    ...(options.longWrites ? { longWrites: options.longWrites } : {}),
    ...(options.nativeBinding ? { nativeBinding: options.nativeBinding } : {}),
    ...(options.syncThread ? { syncThread: options.syncThread } : {}),
  })

  // The renderer needs a moving bar, not every page: one event per scope per interval, plus the last.
  const minGapMs = 1000 / (options.progressPerSecond ?? 5)
  let lastEmit = { scope: '', at: 0 }
  const emitProgress = (progress: SyncProgress) => {
    const now = performance.now()
    const finished = progress.pagesTotal !== null && progress.pagesDone >= progress.pagesTotal
    if (progress.scope === lastEmit.scope && now - lastEmit.at < minGapMs && !finished) return
    lastEmit = { scope: progress.scope, at: now }
    // The catalogs' order is read when a catalog's bar is shown, a few times a second at most.
    events.emit(
      'syncProgress',
      progress.resource === 'catalogItems' ? withCatalogStep(progress, copy.liveCatalogGuids()) : progress,
    )
  }

  // The catalog work an upgrade left: its progress as the screens show it, a few times a second at most.
  // Counting a catalog not counted yet is too short to be worth a notice: every other job is shown,
  // by its name (a job added to local/catalog-update-jobs.ts is refused here until the contract's list
  // has it, and then the notice until it has its words).
  const shown = (job: CatalogUpdateProgress['job']): CatalogUpdate['job'] =>
    job === null || job === 'counts' ? null : job
  const firstJob = copy.catalogUpdateJobs().next()
  let update: CatalogUpdate = {
    updating: shown(firstJob) !== null,
    job: shown(firstJob),
    percent: 0,
    itemsBrowsable: firstJob !== 'leanItems',
  }
  let lastUpdateEmit = 0
  function reportUpdate(progress: CatalogUpdateProgress): void {
    // The count that follows a shown job is the end of it: the screens, told the update is over, read
    // the lists and counts again, which must be the counts as they stay.
    const job = shown(progress.job) ?? (progress.job !== null && update.updating ? update.job : null)
    const next: CatalogUpdate = {
      updating: job !== null,
      job,
      percent:
        job === null
          ? 100
          : job === progress.job
            ? Math.min(99, Math.floor((progress.done / Math.max(progress.total, 1)) * 100))
            : 99,
      itemsBrowsable: progress.itemsBrowsable,
    }
    const changed = next.job !== update.job || next.itemsBrowsable !== update.itemsBrowsable
    update = next
    const now = performance.now()
    if (!changed && now - lastUpdateEmit < minGapMs) return
    lastUpdateEmit = now
    events.emit('catalogUpdateChanged', update)
  }
  const stopUpdate = new AbortController()
  let updating: Promise<void> | null = null
  let updateRunning = false
  const startCatalogUpdate = (): Promise<void> => {
    if (updating) return updating
    updateRunning = true
    updating = run
      .catalogUpdate({ signal: stopUpdate.signal })
      .catch((error: unknown) => {
        // Left as it is: the next start, or the next sync run, goes on from there.
        syncLogger.warn('the catalog update stopped', {
          message: error instanceof Error ? error.message : String(error),
        })
      })
      .finally(() => (updateRunning = false))
    return updating
  }

  const scheduler = new SyncScheduler({
    createEngine: async () => {
      const source = await clients.forSaved()
      if (!source) return null
      // A 429 or 503 on any of the run's requests holds or widens the laptop's next runs.
      const watched = watchBusy(source, (busy) => scheduler.serviceBusy(busy), options.quietForMs)
      // Another process (a CLI sync) may be writing this database's sync bookkeeping: this run is
      // refused with who it is, and the next trigger tries again.
      return {
        run: async ({ onWaiting, ...runOptions }) => {
          // The update holds the sync lease while it runs: a run waits for it rather than be refused,
          // and says so (else the rep reads "Starting sync…" for as long as the update takes).
          if (updateRunning) {
            onWaiting?.('catalogUpdate')
            await updating
            onWaiting?.(null)
          }
          return run({ ...runOptions, source: watched, waitMs: 0, ...(onWaiting ? { onWaiting } : {}) })
        },
      }
    },
    copy,
    intervalMinutes: options.syncIntervalMinutes,
    ...(options.gate ? { gate: options.gate } : {}),
    clock,
    ...(options.spreadSeed === undefined ? {} : { spread: { seed: options.spreadSeed } }),
    ...(options.quietForMs ? { quietForMs: options.quietForMs } : {}),
    logger: syncLogger,
    onStatus: (status) =>
      events.emit(
        'syncStatusChanged',
        statusWithCatalogStep(status, () => copy.liveCatalogGuids()),
      ),
    onProgress: emitProgress,
    onFinished: (report) => events.emit('syncFinished', report),
  })

  return {
    scheduler,
    copy,
    retention,
    methods: {
      syncNow: async (input) => scheduler.syncNow({ full: input?.full }),
      cancelSync: () => ({ cancelled: scheduler.cancel() }),
      getSyncStatus: () => statusWithCatalogStep(scheduler.status(), () => copy.liveCatalogGuids()),
      getCatalogUpdate: () => update,
    },
    startCatalogUpdate,
    async close() {
      stopUpdate.abort()
      await updating
      await scheduler.stop()
    },
  }
}
