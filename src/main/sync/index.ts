/**
 * Sync and the synced data as the core offers them: the scheduler, the query layer, the retention
 * hook for drafts and the outbox, and the contract methods over them. compose.ts wires this in.
 */
import type { ConnectionInput, Implementations } from '../../shared/contract'
import type { SyncProgress } from '../../shared/synced'
import type { ConnectionSource, ServiceConnection } from '../ordering-client/connection'
import type { Database } from '../db/database'
import { CoreError } from '../errors'
import type { EventHub } from '../events'
import type { Clock, Logger } from '../ports'
import { ServiceClient, ServicePools, type ServiceClientOptions } from '../ordering-client/client'
import { errorCodeOf, isServiceError } from '../ordering-client/errors'
import { StoreQueries } from '../store/queries'
import { Retention } from '../store/retention'
import { SyncStore } from '../store/sync-store'
import { Lease } from '../db/lease'
import { SyncEngine } from './engine'
import { withSyncLease } from './exclusive'
import { SyncScheduler } from './scheduler'
import { inlineWriter, runningFromSource, sourceWriterWorker, startWorkerWriter, type PageWriter, type WriterWorkerData } from './page-writer'
import type { Worker } from 'node:worker_threads'

type SyncMethods = Pick<
  Implementations,
  | 'testConnection'
  | 'syncNow'
  | 'cancelSync'
  | 'getSyncStatus'
  | 'listCatalogs'
  | 'listCategories'
  | 'searchCatalogItems'
  | 'getCatalogItem'
  | 'searchCustomers'
  | 'getCustomer'
  | 'listOrders'
  | 'getOrder'
>

export interface Sync {
  scheduler: SyncScheduler
  queries: StoreQueries
  store: SyncStore
  /** Drafts and the outbox register here the rows they still need (see store/retention.ts). */
  retention: Retention
  /** A client for the saved connection, sharing the core's keep-alive pools; null when none is saved. */
  client(overrides?: Pick<ServiceClientOptions, 'retry' | 'timeouts'>): Promise<ServiceClient | null>
  methods: SyncMethods
  close(): Promise<void>
}

export interface SyncOptions {
  db: Database
  connection: ConnectionSource
  syncIntervalMinutes: () => number
  clock: Clock
  logger: Logger
  events: EventHub
  /** Who this process is, in words, for other processes' "… is syncing" messages. */
  label?: string
  /** Progress events per second at most, per scope. */
  progressPerSecond?: number
  /** better_sqlite3.node for the runtime, passed on to the writer thread. */
  nativeBinding?: string
  /** Builds the writer thread from a bundled entry; a source checkout needs none (page-writer.ts). */
  writerWorker?: (data: WriterWorkerData) => Worker
}

/** Turns a service failure into the error the renderer shows; anything else passes through. */
function asCoreError(error: unknown): unknown {
  if (isServiceError(error)) return new CoreError(errorCodeOf(error.kind), error.message)
  return error
}

export function createSync(options: SyncOptions): Sync {
  const { db, connection, clock, logger, events } = options
  const retention = new Retention(db)
  const store = new SyncStore(db, retention)
  const queries = new StoreQueries(db)
  const pools = new ServicePools()
  const syncLogger = logger.child({ area: 'sync' })
  const syncLease = new Lease(db, 'sync', { label: options.label ?? 'Satchel', clock })

  const clientFor = (resolved: ServiceConnection, overrides: Pick<ServiceClientOptions, 'retry' | 'timeouts'> = {}) =>
    new ServiceClient({ connection: resolved, pools, clock, logger: syncLogger, ...overrides })
  const client = async (overrides?: Pick<ServiceClientOptions, 'retry' | 'timeouts'>) => {
    const resolved = await connection.resolve()
    return resolved ? clientFor(resolved, overrides) : null
  }

  // The renderer needs a moving bar, not every page: one event per scope per interval, plus the last.
  const minGapMs = 1000 / (options.progressPerSecond ?? 5)
  let lastEmit = { scope: '', at: 0 }
  const emitProgress = (progress: SyncProgress) => {
    const now = performance.now()
    const finished = progress.pagesTotal !== null && progress.pagesDone >= progress.pagesTotal
    if (progress.scope === lastEmit.scope && now - lastEmit.at < minGapMs && !finished) return
    lastEmit = { scope: progress.scope, at: now }
    events.emit('syncProgress', progress)
  }

  // Pages are written on a worker thread where one can start: a file database, and either a source
  // checkout or a build that supplies its bundled worker. Otherwise on this thread.
  const createWorker = options.writerWorker ?? (runningFromSource() ? sourceWriterWorker : undefined)
  const inMemory = db.memory || db.name === '' || db.name === ':memory:'
  const pageWriter = async (): Promise<PageWriter> => {
    if (!createWorker || inMemory) return inlineWriter(store)
    try {
      return await startWorkerWriter(createWorker, { databasePath: db.name, lease: syncLease.forWriter(), ...(options.nativeBinding ? { nativeBinding: options.nativeBinding } : {}) })
    } catch (error) {
      syncLogger.warn('the sync writer thread did not start; writing on the main thread', { error: error instanceof Error ? error.message : String(error) })
      return inlineWriter(store)
    }
  }

  const scheduler = new SyncScheduler({
    createEngine: async () => {
      const made = await client()
      if (!made) return null
      return {
        // Another process (a CLI sync) may be writing this database's sync bookkeeping: this run is
        // refused with who it is, and the next trigger tries again.
        run: (runOptions = {}) =>
          withSyncLease(
            syncLease,
            async (signal) => {
              const writer = await pageWriter()
              try {
                return await new SyncEngine({ store, writer, source: made, clock, logger: syncLogger }).run({ ...runOptions, signal })
              } finally {
                await writer.close()
              }
            },
            { waitMs: 0, logger: syncLogger, ...(runOptions.signal ? { signal: runOptions.signal } : {}) },
          ),
      }
    },
    store,
    intervalMinutes: options.syncIntervalMinutes,
    clock,
    logger: syncLogger,
    onStatus: (status) => events.emit('syncStatusChanged', status),
    onProgress: emitProgress,
    onFinished: (report) => events.emit('syncFinished', report),
  })

  /** The connection to test: the one typed in (missing secrets taken from the saved one), else the saved one. */
  async function connectionToTest(input: ConnectionInput | undefined): Promise<ServiceConnection> {
    const saved = await connection.resolve()
    if (!input) {
      if (!saved) throw new CoreError('NOT_CONFIGURED', 'Set up the connection to the ordering service first.')
      return saved
    }
    const baseUrl = input.baseUrl.replace(/\/+$/, '')
    if (input.auth.kind === 'apiKey') {
      const apiSecret = input.auth.apiSecret ?? (saved?.auth.kind === 'apiKey' ? saved.auth.apiSecret : undefined)
      if (!apiSecret) throw new CoreError('INVALID_ARGUMENT', 'Enter the API secret.', [{ path: 'auth.apiSecret', message: 'Required' }])
      return { baseUrl, auth: { kind: 'apiKey', apiKey: input.auth.apiKey, apiSecret, ...(input.auth.userGuid ? { userGuid: input.auth.userGuid } : {}) } }
    }
    const userToken = input.auth.userToken ?? (saved?.auth.kind === 'session' ? saved.auth.userToken : undefined)
    if (!userToken) throw new CoreError('INVALID_ARGUMENT', 'Enter the user token.', [{ path: 'auth.userToken', message: 'Required' }])
    return { baseUrl, auth: { kind: 'session', userGuid: input.auth.userGuid, userToken, supplierGuid: input.auth.supplierGuid } }
  }

  const notFound = (what: string): never => {
    throw new CoreError('NOT_FOUND', `${what} is not in the local copy. Sync, then try again.`)
  }

  const methods: SyncMethods = {
    testConnection: async (input) => {
      // One attempt, no retries: the rep is waiting for a yes or a no.
      const tester = new ServiceClient({ connection: await connectionToTest(input), pools, clock, logger: syncLogger, retry: { maxAttempts: 1 } })
      try {
        return await tester.ping()
      } catch (error) {
        throw asCoreError(error)
      }
    },
    syncNow: async (input) => scheduler.syncNow({ full: input?.full }),
    cancelSync: () => ({ cancelled: scheduler.cancel() }),
    getSyncStatus: () => scheduler.status(),
    listCatalogs: (input) => queries.listCatalogs({ customerGuid: input?.customerGuid }),
    listCategories: (input) => queries.listCategories(input.catalogGuid),
    searchCatalogItems: (input) => queries.searchCatalogItems(input),
    getCatalogItem: (input) => queries.getCatalogItem(input) ?? notFound('This catalog item'),
    searchCustomers: (input) => queries.searchCustomers(input),
    getCustomer: (input) => queries.getCustomer(input.guid) ?? notFound('This customer'),
    listOrders: (input) => queries.listOrders(input),
    getOrder: (input) => queries.getOrder(input.guid) ?? notFound('This order'),
  }

  return {
    scheduler,
    queries,
    store,
    retention,
    client,
    methods,
    async close() {
      await scheduler.stop()
      await pools.closeAll()
    },
  }
}
