import { closeDatabase, latestSchemaVersion, openDatabase, type Database } from '../db/database'
import { EventHub, type EventStream } from '../events'
import { createMemorySecretStore, silentLogger, systemClock, type Clock, type EventSink, type Logger, type SecretStore } from '../ports'
import { createHandlerTable, type HandlerTable } from './handlers'
import { ConnectionStore } from './connection'
import { SettingsRepository } from './settings'
import { createSyncServices, type SyncServices } from '../sync/service'
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
  }
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
  sync.retention.register(orders.retention)

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
        const next = orders.desk.outbox.nextRetryAt()
        if (closed || next === null) return
        retryTimer = setTimeout(flushNow, Math.max(1_000, next - clock.now()))
        retryTimer.unref?.()
      })
  }
  const unsubscribeSyncFinished = hub.subscribe((event) => {
    if (event.name === 'syncFinished') flushNow()
  })

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
        sync.scheduler.trigger('connection-changed')
        flushNow()
        return saved
      },
      ...sync.methods,
      ...orderMethods(orders, flushNow, outboxChanged),
    },
    logger,
  )

  if (config.backgroundSync !== false) {
    sync.scheduler.start()
    flushNow()
  }

  return {
    handlers,
    events: hub,
    db,
    connection,
    sync,
    orders,
    syncAndFlush(reason) {
      sync.scheduler.trigger(reason)
      flushNow()
    },
    async close() {
      if (closed) return
      closed = true
      clearTimeout(retryTimer)
      clearTimeout(outboxChangeTimer)
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
