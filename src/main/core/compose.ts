import type { Worker } from 'node:worker_threads'
import { createConnectivityMonitor, syncOnReconnect, watchReplies, watchSyncEvents, type ConnectivityMonitor, type ConnectivityMonitorOptions } from '../connectivity'
import { closeDatabase, openDatabase, type Database } from '../db/database'
import { explainDatabaseError } from '../db/file-errors'
import { documentMethods } from '../documents/methods'
import { CoreError } from '../errors'
import { EventHub, type EventStream } from '../events'
import { createOrders, type OutboxActivity, type Orders } from '../orders'
import { orderMethods } from '../orders/handlers'
import { UsualItems } from '../customers/usual'
import { StoreOrderLookup } from '../orders/store-lookup'
import { QuoteDesk } from '../quotes/desk'
import { catalogSyncedAt, quoteMethods } from '../quotes/handlers'
import { createMemorySecretStore, silentLogger, systemClock, type Clock, type DesktopPort, type EventSink, type Logger, type NetworkPort, type SecretStore } from '../ports'
import { createSync, type Sync } from '../sync'
import type { WriterWorkerData } from '../sync/page-writer'
import { ConnectionStore } from './connection'
import { createHandlerTable, type HandlerTable } from './handlers'
import { SettingsRepository } from './settings'

export interface CoreConfig {
  /** SQLite file; ':memory:' for throwaway cores in tests. */
  databasePath: string
  /** better_sqlite3.node for the running runtime, when it is not the one in node_modules. */
  nativeBinding?: string
  appName?: string
  appVersion: string
  ports?: {
    clock?: Clock
    logger?: Logger
    secrets?: SecretStore
    events?: EventSink
    /** Whether any network is up; without it, only the service's answers say. */
    network?: NetworkPort
    desktop?: DesktopPort
    /**
     * Starts the thread that writes synced pages, from the build's bundled entry for
     * src/main/sync/writer-worker.ts. A source checkout (tsx, tests) starts it by itself; without
     * either, pages are written on the main thread.
     */
    syncWriterWorker?: (data: WriterWorkerData) => Worker
  }
  /** How often connectivity is checked; the defaults suit a laptop, tests want seconds. */
  connectivity?: Pick<ConnectivityMonitorOptions, 'pollIntervalMs' | 'activeOnlineMs' | 'activeOfflineMs' | 'recheckOnlineMs' | 'recheckOfflineMs' | 'probe'>
  /** Sync at start-up and every settings.syncIntervalMinutes (default true; tests that drive sync themselves turn it off). */
  backgroundSync?: boolean
}

export interface Core {
  handlers: HandlerTable
  events: EventStream
  /** For the CLI and tests that drive the core below the contract. */
  readonly db: Database
  readonly connection: ConnectionStore
  /** The scheduler (connectivityRestored, syncNow), the query layer, and the retention hook for drafts. */
  readonly sync: Sync
  /** Drafts, the outbox, its flusher and driver. */
  readonly orders: Orders
  /** What the desktop shell watches to hold a quit or an update restart while an order is on the wire. */
  readonly outboxActivity: OutboxActivity
  /** Whether the ordering service answers; checked in the background, refreshed on demand. */
  readonly connectivity: ConnectivityMonitor
  /** Sync, then send the outbox: at start-up, on connectivity's return, after wake. */
  syncAndFlush(reason: string): void
  close(): Promise<void>
}

/**
 * Builds the whole Electron-free core from a config. The Electron shell and the test bridge both call
 * this and differ only in the transport they put in front of `handlers` and `events`.
 */
export function createCore(config: CoreConfig): Core {
  const logger = config.ports?.logger ?? silentLogger
  const clock = config.ports?.clock ?? systemClock
  const hub = new EventHub(config.ports?.events)
  const db = openDatabase(config.databasePath, { nativeBinding: config.nativeBinding, logger })
  const settings = new SettingsRepository(db)
  const connection = new ConnectionStore(db, config.ports?.secrets ?? createMemorySecretStore())
  const desktop = config.ports?.desktop
  const noUpdates = { status: 'disabled' as const, currentVersion: config.appVersion, reason: 'Updates come with the desktop app; this window has none.' }

  const connectivity = createConnectivityMonitor({
    isNetworkUp: () => config.ports?.network?.isUp() ?? true,
    baseUrl: async () => (await connection.get())?.baseUrl ?? null,
    logger: logger.child({ area: 'connectivity' }),
    clock,
    // Orders waiting to go keep the service watched even with the window hidden.
    hasWaitingWork: () => {
      const { queued, sending, retrying } = orders.desk.outbox.summary()
      return queued + sending + retrying > 0
    },
    ...config.connectivity,
  })
  const watched = <T extends object>(client: T | null): T | null => (client ? watchReplies(client, connectivity) : null)
  const label = config.appName ? `the ${config.appName} app` : 'the Satchel app'
  const sync = createSync({
    db,
    label,
    connection,
    syncIntervalMinutes: () => settings.get().syncIntervalMinutes,
    clock,
    logger,
    events: hub,
    ...(config.nativeBinding ? { nativeBinding: config.nativeBinding } : {}),
    ...(config.ports?.syncWriterWorker ? { writerWorker: config.ports.syncWriterWorker } : {}),
  })
  const orders = createOrders({
    db,
    clock,
    logger,
    label,
    sender: async () => watched(await sync.client()),
    defaults: () => ({ remainInPreliminary: settings.get().remainInPreliminaryDefault }),
    history: {
      recordCustomer: (customer) => sync.store.applyCustomers([{ customer, connection: {}, connectionDeletedAt: null }], { listingId: null, serverTime: null }),
      recordOrders: (sent) => sync.store.applyOrders(sent, { listingId: null, serverTime: null }),
    },
    onOutboxChanged: (summary) => hub.emit('outboxChanged', summary),
    refreshItems: async (catalogGuid, itemGuids, customerGuid) => {
      // A rep pressing Send waits for this: one attempt, a few seconds at most, then the local copy decides.
      const client = watched(await sync.client({ retry: { maxAttempts: 1 }, timeouts: { connectMs: 2_500 } }))
      if (!client) return
      const items = await client.getCatalogItemsByGuid(catalogGuid, itemGuids, { signal: AbortSignal.timeout(4_000), ...(customerGuid ? { vendorGuid: customerGuid } : {}) })
      sync.store.applyCatalogItems(catalogGuid, items, { listingId: null, serverTime: null })
    },
  })

  const syncedAt = catalogSyncedAt(db)
  const quotes = new QuoteDesk({
    db,
    clock,
    desk: orders.desk,
    validityDays: () => settings.get().quoteValidityDays,
    catalogSyncedAt: syncedAt,
    refreshDraft: (draftId) => orders.refreshBeforeSending(draftId),
  })
  const usual = new UsualItems(db, new StoreOrderLookup(db), clock)

  const syncAndFlush = (reason: string) => {
    // The service is back (or the credentials changed, or the laptop woke): waiting orders need not
    // sit out the rest of their retry wait.
    orders.desk.outbox.retryNow()
    sync.scheduler.trigger(reason)
    orders.driver.nudge()
  }
  const unsubscribes = [
    connectivity.onChange((state) => hub.emit('connectivityChanged', state)),
    desktop?.updates?.onChange((state) => hub.emit('updateStateChanged', state)) ?? (() => undefined),
    hub.subscribe((event) => {
      if (event.name === 'syncFinished') orders.driver.nudge()
    }),
    // Every answer sync gets is proof the service is there; a failed run is a reason to look now.
    hub.subscribe(watchSyncEvents(connectivity)),
    // Back online (or on a new network): sync, then send what waited.
    syncOnReconnect(connectivity, syncAndFlush),
  ]

  const handlers = createHandlerTable(
    {
      getAppInfo: () => ({
        name: config.appName ?? 'Satchel',
        version: config.appVersion,
        database: {
          path: config.databasePath,
          schemaVersion: db.pragma('user_version', { simple: true }) as number,
          journalMode: String(db.pragma('journal_mode', { simple: true })),
        },
      }),
      getSettings: () => settings.get(),
      updateSettings: (patch) => {
        const next = settings.update(patch)
        sync.scheduler.settingsChanged()
        hub.emit('settingsChanged', next)
        return next
      },
      getConnection: () => connection.get(),
      saveConnection: async (input) => {
        const saved = await connection.save(input)
        hub.emit('connectionChanged', saved)
        // New credentials may be the ones the service was refusing: the paused outbox tries again.
        orders.desk.outbox.resume()
        orders.changed()
        void connectivity.refresh('settings-changed')
        syncAndFlush('connection-changed')
        return saved
      },
      ...sync.methods,
      ...orderMethods(orders, sync.queries),
      ...quoteMethods({ quotes, usual }),
      ...documentMethods({ db, desk: orders.desk, quotes, catalogSyncedAt: syncedAt, queries: sync.queries, ...(desktop ? { desktop } : {}) }),
      getConnectivity: () => connectivity.current(),
      checkConnectivity: () => connectivity.refresh('requested'),
      setWindowVisible: ({ visible }) => {
        connectivity.setWindowVisible(visible)
        return null
      },
      getUpdateState: () => desktop?.updates?.state() ?? noUpdates,
      checkForUpdates: async () => {
        if (!desktop?.updates) return noUpdates
        await desktop.updates.checkNow()
        return desktop.updates.state()
      },
      restartToUpdate: async () => ({ outcome: desktop?.updates ? await desktop.updates.restartToUpdate() : ('not-ready' as const) }),
      openLogsFolder: async () => {
        if (!desktop?.openLogsFolder) throw new CoreError('CONFLICT', 'Logs are kept by the desktop app; this window has none.')
        const problem = await desktop.openLogsFolder()
        if (problem) throw new CoreError('INTERNAL', `The log folder could not be opened: ${problem}`)
        return null
      },
    },
    logger,
    // A database damaged or made read-only after start-up: the same words as at start-up, not INTERNAL.
    (error) => explainDatabaseError(error, config.databasePath, 'app'),
  )

  if (config.backgroundSync !== false) {
    sync.scheduler.start()
    connectivity.start()
    orders.driver.start()
  }

  let closed = false
  return {
    handlers,
    events: hub,
    db,
    connection,
    sync,
    orders,
    outboxActivity: orders.activity,
    connectivity,
    syncAndFlush,
    async close() {
      if (closed) return
      closed = true
      connectivity.stop()
      for (const unsubscribe of unsubscribes) unsubscribe()
      await orders.close()
      await sync.close()
      closeDatabase(db)
    },
  }
}
