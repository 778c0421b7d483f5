import type { Worker } from 'node:worker_threads'
import type { Database } from '../db/database'
import type { Lease, LeaseHolder } from '../db/lease'
import type { LocalCopy } from '../local/copy'
import type { Clock, Logger } from '../ports'
import { SyncEngine, type SyncRunOptions } from './engine'
import type { SyncSource } from './scopes'
import { withSyncLease } from './exclusive'
import type { OrderRecord } from '../ordering-client/schemas'
import type { ListParams, Page } from '../ordering-client/client'
import { CoreError } from '../errors'
import type { CatalogUpdateProgress } from '../local/catalog-update-jobs'
import type { SyncReport, SyncWait } from '../../shared/synced'
import { runCatalogUpdate } from './catalog-update'
import { trackingLongWrites, type LongWrites } from './long-writes'
import {
  inlineWriter,
  runningFromSource,
  sourceSyncThread,
  startWorkerWriter,
  type PageWriter,
  type SyncThreadData,
} from './page-writer'

/** The part of the service client the full orders are fetched with. */
export interface OrderDetailSource {
  getOrder(
    orderGuid: string,
    options: { signal?: AbortSignal; vendorGuid?: string; once?: boolean },
  ): Promise<{ order: OrderRecord; relatedOrders: OrderRecord[] }>
}

export type OrderDetailReport = NonNullable<SyncReport['orderDetails']>

/**
 * After the listings, the full orders (tracking/ does it): sync only says when, with the run's client,
 * so the history rows it just wrote say which orders moved.
 */
export interface OrderDetailStep {
  fetchDetails(source: OrderDetailSource, signal: AbortSignal): Promise<OrderDetailReport>
}

/** What a customer's order history is read with: the order list, in the customer's context where asked. */
export interface CustomerHistorySource {
  listOrders(params: ListParams, options: { signal?: AbortSignal; vendorGuid?: string }): Promise<Page<OrderRecord>>
}

/**
 * After a run that reached the service throughout, the order histories of the customers the rep works
 * with are kept fresh (brief/ does it) with the run's client, their pages through the run's writer.
 * `ordersListed`: the run listed every order changed from `from` to `to` (the orders scope's cursors
 * before and after its delta), so a history read at `from` or later is up to date at `to` with no
 * request of its own; null when the run listed no such delta.
 */
export interface CustomerHistoryStep {
  refreshHistories(
    source: CustomerHistorySource,
    writer: Pick<PageWriter, 'applyOrders'>,
    signal: AbortSignal,
    ordersListed: { from: string; to: string } | null,
  ): Promise<void>
}

export interface SyncRunParts {
  db: Database
  copy: LocalCopy
  /** The database's sync lease: one process syncs it at a time (exclusive.ts). */
  lease: Lease
  clock: Clock
  logger: Logger
  /** better_sqlite3.node for the runtime, passed on to the writer thread. */
  nativeBinding?: string
  /** Builds the writer thread from a bundled entry; a source checkout needs none (page-writer.ts). */
  syncThread?: (data: SyncThreadData) => Worker
  /** Fetches the full orders after the listings; none when absent (tracking/). */
  orderDetails?: OrderDetailStep
  /** Keeps the worked-with customers' histories fresh after the run; none when absent (brief/). */
  customerHistories?: CustomerHistoryStep
  /** Where the catalog work a migration left stands, after each of its slices (sync/catalog-update.ts). */
  onCatalogUpdateProgress?: (progress: CatalogUpdateProgress) => void
  /** Awaited before each of its slices (see CoreConfig.beforeCatalogUpdateSlice). */
  beforeCatalogUpdateSlice?: () => Promise<void>
  /** Told of the writer thread's requests that hold the write lock for seconds (long-writes.ts). */
  longWrites?: LongWrites
}

interface SyncRunRequest extends SyncRunOptions {
  source: SyncSource & OrderDetailSource
  /** How long to wait for another process's sync of this database (0: refuse at once). */
  waitMs: number
  onWait?: (holder: LeaseHolder) => void
  /** Told while the run does the catalog work a migration left, before it syncs anything. */
  onWaiting?: (waitingFor: SyncWait | null) => void
}

/** One sync run: whoever asks (the app's scheduler, `satchel sync`), the run is built the same way. */
export type SyncRun = (request: SyncRunRequest) => Promise<SyncReport>

/**
 * The catalog work a migration left, done alone (the app starts it at once after an upgrade), under
 * the sync lease and on the writer's thread like a run; resolves when none is left, or when cancelled.
 */
export type CatalogUpdateRun = (options?: { signal?: AbortSignal }) => Promise<void>

/**
 * Builds the run both the app and the CLI use: under the sync lease, pages written on a thread of
 * their own where one can start (a file database, and a source checkout or a build that supplies its
 * bundled worker), else on this thread, and the writer closed whatever happens.
 */
export function createSyncRun(parts: SyncRunParts): SyncRun & { catalogUpdate: CatalogUpdateRun } {
  const { db, copy, lease, clock, logger } = parts
  const createWorker = parts.syncThread ?? (runningFromSource() ? sourceSyncThread : undefined)
  const inMemory = db.memory || db.name === '' || db.name === ':memory:'

  const pageWriter = async (): Promise<PageWriter> => {
    if (!createWorker || inMemory) return inlineWriter(copy, inMemory ? undefined : db.name)
    try {
      const writer = await startWorkerWriter(createWorker, {
        databasePath: db.name,
        lease: lease.forWriter(),
        ...(parts.nativeBinding ? { nativeBinding: parts.nativeBinding } : {}),
      })
      return parts.longWrites ? trackingLongWrites(writer, parts.longWrites) : writer
    } catch (error) {
      logger.warn('the sync writer thread did not start; writing on the main thread', {
        error: error instanceof Error ? error.message : String(error),
      })
      return inlineWriter(copy, inMemory ? undefined : db.name)
    }
  }

  // Sync writes the rows the catalog work copies: a run does what is left of it first.
  const catalogUpdateFirst = async (
    writer: PageWriter,
    signal: AbortSignal,
    onWaiting?: (waitingFor: SyncWait | null) => void,
  ): Promise<boolean> => {
    if (copy.catalogUpdateJobs().next() === null) return false
    onWaiting?.('catalogUpdate')
    try {
      await runCatalogUpdate(writer, {
        signal,
        ...(writer.onThisThread ? {} : { leaveCheckpoints: () => copy.leaveCheckpointsToWriter() }),
        ...(parts.onCatalogUpdateProgress ? { onProgress: parts.onCatalogUpdateProgress } : {}),
        ...(parts.beforeCatalogUpdateSlice ? { beforeSlice: parts.beforeCatalogUpdateSlice } : {}),
      })
    } finally {
      onWaiting?.(null)
    }
    return true
  }

  const catalogUpdate: CatalogUpdateRun = async (options = {}) => {
    if (copy.catalogUpdateJobs().next() === null) return
    await withSyncLease(
      lease,
      async (signal) => {
        const writer = await pageWriter()
        try {
          await catalogUpdateFirst(writer, signal)
        } finally {
          await writer.close()
        }
      },
      { waitMs: 0, logger, ...(options.signal ? { signal: options.signal } : {}) },
    )
  }

  const run: SyncRun = ({ source, waitMs, onWait, onWaiting, ...runOptions }) =>
    withSyncLease(
      lease,
      async (signal) => {
        const writer = await pageWriter()
        try {
          if ((await catalogUpdateFirst(writer, signal, onWaiting)) && signal.aborted)
            throw new CoreError('CANCELLED', 'Sync was cancelled while the catalog was being updated.')
          const ordersFrom = copy.scope('orders').cursor
          const report = await new SyncEngine({ copy, writer, source, clock, logger }).run({ ...runOptions, signal })
          // After the listings, so the history rows say which orders moved; a run that failed before
          // the orders were listed still fetches what earlier runs left waiting.
          // Refused credentials or a cancelled run would only fail every fetch again.
          const done =
            !parts.orderDetails ||
            signal.aborted ||
            report.error?.code === 'UNAUTHORIZED' ||
            report.error?.code === 'CANCELLED'
              ? report
              : { ...report, orderDetails: await parts.orderDetails.fetchDetails(source, signal) }
          // Only after a run the service answered throughout: a failed one would fail these reads too.
          if (parts.customerHistories && report.ok && !signal.aborted)
            await parts.customerHistories.refreshHistories(source, writer, signal, ordersDelta(report, ordersFrom))
          return done
        } finally {
          await writer.close()
        }
      },
      { waitMs, logger, ...(onWait ? { onWait } : {}), ...(runOptions.signal ? { signal: runOptions.signal } : {}) },
    )
  return Object.assign(run, { catalogUpdate })

  /** The orders the run listed as a delta: from the cursor it started at to the one it ended at. */
  function ordersDelta(report: SyncReport, from: string | null): { from: string; to: string } | null {
    const line = report.scopes.find((scope) => scope.scope === 'orders')
    const to = copy.scope('orders').cursor
    if (!line || line.mode !== 'delta' || line.error !== null || line.cursorReset || from === null || to === null)
      return null
    return { from, to }
  }
}
