import { closeDatabase, latestSchemaVersion, openDatabase, type Database } from '../db/database'
import { EventHub, type EventStream } from '../events'
import { createMemorySecretStore, silentLogger, systemClock, type Clock, type DesktopPort, type EventSink, type Logger, type NetworkPort, type SecretStore } from '../ports'
import { createConnectivityMonitor, syncOnReconnect, type ConnectivityMonitor, type ConnectivityMonitorOptions } from '../connectivity'
import { CoreError } from '../errors'
import { createHandlerTable, type HandlerTable } from './handlers'
import { ConnectionStore } from './connection'
import { SettingsRepository } from './settings'
import { createSyncServices, type SyncServices } from '../sync/service'
import type { WriterWorkerData } from '../sync/page-writer'
import type { Worker } from 'node:worker_threads'
import { orderMethods } from '../orders/handlers'
import type { OrderRecord } from '../service/schemas'
import { createOrderServices, type OrderServices } from '../orders/services'

function withoutEmbeddedItems(order: OrderRecord): OrderRecord {
  const lines: unknown = (order as Record<string, unknown>).Order_Items
  if (!Array.isArray(lines)) return order
  const slim = lines.map((line: unknown) => {
    if (typeof line !== 'object' || line === null) return line
    const { Catalog_Item: _item, ...rest } = line as Record<string, unknown>
    return rest
  })
  return { ...order, Order_Items: slim }
}

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
  connectivity?: Pick<ConnectivityMonitorOptions, 'pollIntervalMs' | 'recheckOnlineMs' | 'recheckOfflineMs' | 'probe'>
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
  readonly sync: SyncServices
  /** Drafts, the outbox and its flusher. */
  readonly orders: OrderServices
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
  const hub = new EventHub(config.ports?.events)
  const db = openDatabase(config.databasePath, { nativeBinding: config.nativeBinding, logger })
  const settings = new SettingsRepository(db)
  const connection = new ConnectionStore(db, config.ports?.secrets ?? createMemorySecretStore())
  const clock = config.ports?.clock ?? systemClock
  const sync = createSyncServices({
    db,
    connection,
    syncIntervalMinutes: () => settings.get().syncIntervalMinutes,
    clock,
    logger,
    events: hub,
    ...(config.nativeBinding ? { nativeBinding: config.nativeBinding } : {}),
    ...(config.ports?.syncWriterWorker ? { writerWorker: config.ports.syncWriterWorker } : {}),
  })
  // Coalesced: a flush changes entries hundreds of times a second, the window needs a few updates.
  let outboxChangeTimer: NodeJS.Timeout | undefined
  const outboxChanged = () => {
    outboxChangeTimer ??= setTimeout(() => {
      outboxChangeTimer = undefined
      if (!closed) hub.emit('outboxChanged', orders.desk.outbox.summary())
    }, 50)
  }
  const sentForHistory: OrderRecord[] = []
  const orders = createOrderServices({
    db,
    clock,
    logger,
    sender: () => sync.client(),
    defaults: () => ({ remainInPreliminary: settings.get().remainInPreliminaryDefault }),
    onSent: (_work, result) => {
      // A customer created with the order is needed at once (the rep's next draft may be for them).
      if (result.vendor) sync.store.applyCustomers([{ customer: result.vendor, connection: {}, connectionDeletedAt: null }], { listingId: null, serverTime: null })
      // Lines' embedded catalog items (most of the reply's size) are left out, as the order list's projection does.
      sentForHistory.push(withoutEmbeddedItems(result.order))
    },
    onSettled: async () => {
      // Sent orders join the local history when the sending is done, in batches between which the
      // window gets the event loop back: writing each one while sending cost a third of a flush.
      while (sentForHistory.length > 0 && !closed) {
        sync.store.applyOrders(sentForHistory.splice(0, 100), { listingId: null, serverTime: null })
        if (sentForHistory.length > 0) await new Promise((resolve) => setImmediate(resolve))
      }
    },
    onChange: outboxChanged,
    refreshItems: async (catalogGuid, itemGuids, customerGuid) => {
      // A rep pressing Send waits for this: one attempt, a few seconds at most, then the local copy decides.
      const client = await sync.client({ retry: { maxAttempts: 1 }, timeouts: { connectMs: 2_500 } })
      if (!client) return
      const items = await client.getCatalogItemsByGuid(catalogGuid, itemGuids, { signal: AbortSignal.timeout(4_000), ...(customerGuid ? { vendorGuid: customerGuid } : {}) })
      sync.store.applyCatalogItems(catalogGuid, items, { listingId: null, serverTime: null })
    },
  })

  const connectivity = createConnectivityMonitor({
    isNetworkUp: () => config.ports?.network?.isUp() ?? true,
    baseUrl: async () => (await connection.get())?.baseUrl ?? null,
    logger: logger.child({ area: 'connectivity' }),
    clock,
    ...config.connectivity,
  })
  const stopConnectivityEvents = connectivity.onChange((state) => hub.emit('connectivityChanged', state))
  const desktop = config.ports?.desktop
  const stopUpdateEvents = desktop?.updates?.onChange((state) => hub.emit('updateStateChanged', state))
  const noUpdates = { status: 'disabled' as const, currentVersion: config.appVersion, reason: 'Updates come with the desktop app; this window has none.' }

  // Entries waiting to retry are sent when they fall due, without waiting for another trigger.
  let retryTimer: NodeJS.Timeout | undefined
  let closed = false
  const flushNow = () => {
    if (closed) return
    clearTimeout(retryTimer)
    orders.flusher
      .flush()
      .catch((error: unknown) => logger.error('outbox flush failed', { error: error instanceof Error ? error.stack : String(error) }))
      .finally(() => {
        // A send that found the service unreachable is news for the status bar before the next poll.
        if (!closed && connectivity.current().online && orders.desk.outbox.summary().retrying > 0) void connectivity.refresh('requested')
        const next = orders.desk.outbox.nextRetryAt()
        if (closed || next === null) return
        retryTimer = setTimeout(flushNow, Math.max(1_000, next - clock.now()))
        retryTimer.unref?.()
      })
  }
  const unsubscribeSyncFinished = hub.subscribe((event) => {
    if (event.name === 'syncFinished') flushNow()
  })
  const syncAndFlush = (reason: string) => {
    // The service is back (or the credentials changed, or the laptop woke): waiting orders need not
    // sit out the rest of their retry wait.
    orders.desk.outbox.retryNow()
    sync.scheduler.trigger(reason)
    flushNow()
  }
  // Back online (or on a new network): sync, then send what waited.
  const stopReconnect = syncOnReconnect(connectivity, syncAndFlush)

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
        outboxChanged()
        void connectivity.refresh('settings-changed')
        syncAndFlush('connection-changed')
        return saved
      },
      ...sync.methods,
      ...orderMethods(orders, flushNow, outboxChanged),
      reorder: ({ orderGuid }) => {
        const order = sync.queries.getOrder(orderGuid)
        if (!order) throw new CoreError('NOT_FOUND', 'That order is not in the local copy. Sync, then try again.')
        if (!order.customerGuid) throw new CoreError('CONFLICT', 'The customer of that order is not on this laptop.')
        return orders.desk.reorder({
          customerGuid: order.customerGuid,
          catalogGuid: order.catalogGuid,
          lines: order.lines.map((line) => ({ sku: line.sku ?? '', name: line.name ?? '', qty: line.qty ?? 0, catalogItemGuid: line.catalogItemGuid })),
        })
      },
      getConnectivity: () => connectivity.current(),
      checkConnectivity: () => connectivity.refresh('requested'),
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
  )

  if (config.backgroundSync !== false) {
    sync.scheduler.start()
    connectivity.start()
    flushNow()
  }

  return {
    handlers,
    events: hub,
    db,
    connection,
    sync,
    orders,
    connectivity,
    syncAndFlush,
    async close() {
      if (closed) return
      closed = true
      clearTimeout(retryTimer)
      clearTimeout(outboxChangeTimer)
      connectivity.stop()
      stopReconnect()
      stopConnectivityEvents()
      stopUpdateEvents?.()
      unsubscribeSyncFinished()
      // An order in flight gets a bounded chance to finish; cut off, it is resent with its api_guid next start.
      orders.flusher.stop()
      if (!(await orders.flusher.waitUntilIdle(10_000))) {
        orders.flusher.cancel()
        await orders.flusher.waitUntilIdle(2_000)
      }
      await sync.close()
      closeDatabase(db)
    },
  }
}

export { latestSchemaVersion }
