import { createBrowsing } from '../browse'
import { orderTrackingMethods } from '../browse/order-tracking'
import { connectivityMethods, createConnectivityMonitor, looksOffline, networkSignals, watchReplies } from '../connectivity'
import { UsualItems } from '../usual-items/usual'
import { closeDatabase, openDatabase } from '../db/database'
import { explainDatabaseError } from '../db/file-errors'
import { installSeed, SettingsTable } from '../db/settings'
import { desktopMethods } from '../desktop/methods'
import { documentMethods } from '../documents/methods'
import { EventHub } from '../events'
import { ServiceClients } from '../ordering-client/clients'
import { createOrders } from '../orders'
import { LocalOrderLookup } from '../orders/local-lookup'
import { orderMethods } from '../orders/methods'
import { createMemoryKeychain, silentLogger, systemClock } from '../ports'
import { QuoteDesk } from '../quotes/desk'
import { catalogSyncedAt, quoteMethods } from '../quotes/methods'
import { AppSettings } from '../settings/app-settings'
import { ConnectionSettings } from '../settings/connection'
import { settingsMethods } from '../settings/methods'
import { createSync } from '../sync'
import { LongWrites } from '../sync/long-writes'
import { createHousekeeping as createUpkeep } from '../housekeeping'
import { purgeThreadFor } from '../housekeeping/purge-slices'
import { createHandlerTable } from './handlers'
import { wireReactions } from './reactions'
import type { Core, CoreConfig } from './types'
import { bundleProfiles } from '../housekeeping/support-bundle'

/**
 * Builds the whole Electron-free core from a config: wiring only. The Electron shell and the test
 * bridge both call this and differ only in the transport they put in front of `handlers` and `events`.
 */
export function createCore(config: CoreConfig): Core {
  const { logger = silentLogger, clock = systemClock, desktop, profiles } = config.ports ?? {}
  const hub = new EventHub(config.ports?.events)
  const db = openDatabase(config.databasePath, { nativeBinding: config.nativeBinding, logger, ...(config.largeCatalogItems ? { largeCatalogItems: config.largeCatalogItems } : {}) })
  const settings = new AppSettings(db)
  const connection = new ConnectionSettings(db, config.ports?.secrets ?? createMemoryKeychain())
  const label = config.appName ? `the ${config.appName} app` : 'the Satchel app'

  const connectivity = createConnectivityMonitor({
    ...networkSignals(config.ports?.network),
    baseUrl: async () => (await connection.get())?.baseUrl ?? null,
    logger: logger.child({ area: 'connectivity' }),
    clock,
    // Orders waiting to go, or a sync running, keep the service watched even with the window hidden.
    hasWaitingWork: () => orders.waitingCount() > 0 || sync.scheduler.isRunning(),
    ...config.connectivity,
  })
  const clients = new ServiceClients({ connection, clock, logger: logger.child({ area: 'service' }), watch: (client) => watchReplies(client, connectivity) })
  // The window's writes wait for the writer's long requests without holding the main process.
  const longWrites = new LongWrites()
  const sync = createSync({
    db,
    longWrites,
    clients,
    label,
    syncIntervalMinutes: () => settings.get().syncIntervalMinutes,
    orderDetails: { limit: () => settings.get().orderDetailsPerSync, sentApiGuids: () => orders.desk.outbox.read.sentOrders().map((sent) => sent.apiGuid) },
    clock,
    logger,
    events: hub,
    spreadSeed: installSeed(new SettingsTable(db)),
    quietForMs: () => connectivity.quietForMs(),
    ...{ nativeBinding: config.nativeBinding, writerWorker: config.ports?.syncWriterWorker, gate: config.ports?.syncGate },
    beforeCatalogUpdateSlice: config.beforeCatalogUpdateSlice,
  })
  const orders = createOrders({
    db,
    clock,
    logger,
    label,
    sender: () => clients.forSaved(),
    defaults: () => ({ remainInPreliminary: settings.get().remainInPreliminaryDefault }),
    history: sync.sentHistory,
    onOutboxChanged: (summary) => hub.emit('outboxChanged', summary),
    refreshItems: sync.refreshItems,
    quietForMs: () => connectivity.quietForMs(),
    offline: () => looksOffline(connectivity),
  })
  const browsing = createBrowsing(db, () => orders.desk.outbox.read.sentOrders())
  const syncedAt = catalogSyncedAt(db)
  const quotes = new QuoteDesk({
    db,
    clock,
    desk: orders.desk,
    validityDays: () => settings.get().quoteValidityDays,
    catalogSyncedAt: syncedAt,
    refreshDraft: (draftId) => orders.refreshBeforeSending(draftId),
  })
  const usual = new UsualItems(db, new LocalOrderLookup(db), clock, orders.desk.outbox.read)
  const { purge, supportBundle } = createUpkeep({
    ...{ db, clock, outbox: orders.desk.outbox, drafts: orders.desk.drafts, quotes: quotes.quotes, settings: () => settings.get() },
    logger: logger.child({ area: 'purge' }),
    syncing: () => sync.scheduler.isRunning(),
    ...purgeThreadFor(db, config.ports?.purgeWorker, config.nativeBinding),
    bundle: { appName: config.appName ?? 'Satchel', appVersion: config.appVersion, secrets: () => connection.credentialValues(), logsDirectory: desktop?.logsDirectory ?? null, ...(desktop?.runtime ? { runtime: desktop.runtime } : {}), ...(profiles ? { profiles: () => bundleProfiles(profiles) } : {}), ...(config.nativeBinding ? { nativeBinding: config.nativeBinding } : {}) },
  })
  const unsubscribes = wireReactions({ hub, sync, orders, connectivity, purge, ...(desktop ? { desktop } : {}) })

  const handlers = createHandlerTable(
    {
      ...desktopMethods({ db, databasePath: config.databasePath, appVersion: config.appVersion, ...(config.appName ? { appName: config.appName } : {}), ...(desktop ? { desktop } : {}), supportBundle, ...(profiles ? { profiles } : {}) }),
      ...settingsMethods({ settings, connection, clients, events: hub }),
      ...sync.methods,
      ...browsing.methods,
      ...orderTrackingMethods(db, clock, (apiGuid) => orders.desk.outbox.read.printable(apiGuid)?.draft.lines ?? null),
      ...orderMethods(orders, browsing.queries),
      ...quoteMethods({ quotes, usual }),
      ...documentMethods({ db, desk: orders.desk, quotes, catalogSyncedAt: syncedAt, queries: browsing.queries, ...(desktop ? { desktop } : {}) }),
      ...connectivityMethods(connectivity),
    },
    logger,
    // A database damaged or made read-only after start-up: the same words as at start-up, not INTERNAL.
    (error) => explainDatabaseError(error, config.databasePath, 'app'),
    () => longWrites.settled(),
  )

  if (config.backgroundSync !== false) {
    // Catalog work an upgrade left runs on the writer's thread from now; the window opens meanwhile.
    void sync.startCatalogUpdate()
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
    async close() {
      if (closed) return
      closed = true
      connectivity.stop()
      for (const unsubscribe of unsubscribes) unsubscribe()
      await purge.stop()
      await orders.close()
      await sync.close()
      await clients.close()
      closeDatabase(db)
    },
  }
}
