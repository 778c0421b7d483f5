import { createBrowsing } from '../browse'
import { createConnectivityMonitor, looksOffline, networkSignals, watchReplies } from '../connectivity'
import { UsualItems } from '../usual-items/usual'
import { openDatabase } from '../db/database'
import { explainDatabaseError } from '../db/file-errors'
import { openLocalData } from '../local/data'
import { installSeed, SettingsTable } from '../db/settings'
import { installShare } from '../timers'
import { EventHub } from '../events'
import { ServiceClients } from '../ordering-client/clients'
import { createOrders } from '../orders'
import { createMemoryKeychain, silentLogger, systemClock } from '../ports'
import { QuoteDesk } from '../quotes/desk'
import { catalogSyncedAt } from '../quotes/methods'
import { AppSettings } from '../settings/app-settings'
import { ConnectionSettings } from '../settings/connection'
import { createSync } from '../sync'
import { LongWrites } from '../sync/long-writes'
import { createTracking } from '../tracking'
import { orderWriteRules } from '../tracking/order-writes'
import { createHousekeeping } from '../housekeeping'
import { purgeThreadFor } from '../housekeeping/purge-slices'
import { createCoreBrief } from './brief'
import { closeCore, startBackground } from './lifetime'
import { createHandlerTable } from './handlers'
import { bundleSources, contractMethods } from './methods'
import { createCorePictures } from './pictures'
import { wireReactions } from './reactions'
import type { Core, CoreConfig } from './types'

/**
 * Builds the whole Electron-free core from a config: wiring only. The Electron shell and the test
 * bridge both call this and differ only in the transport they put in front of `handlers` and `events`.
 */
export function createCore(config: CoreConfig): Core {
  const { logger = silentLogger, clock = systemClock, desktop } = config.ports ?? {}
  const hub = new EventHub(config.ports?.events)
  const { nativeBinding, largeCatalogItems } = config
  const db = openDatabase(config.databasePath, {
    nativeBinding,
    logger,
    ...(largeCatalogItems ? { largeCatalogItems } : {}),
  })
  const local = openLocalData(db) // the local copy's readers and writers, once: each part is handed them
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
  const watch = <T extends object>(client: T): T => watchReplies(client, connectivity)
  const clients = new ServiceClients({ connection, clock, logger: logger.child({ area: 'service' }), watch })
  // Life after Send: orders record what a send confirmed through it, sync fetches the full orders through it.
  const detailsPerSync = () => settings.get().orderDetailsPerSync
  const tracking = createTracking({ db, local, clock, logger, detailsPerSync })
  // The window's writes wait for the writer's long requests without holding the main process.
  const longWrites = new LongWrites()
  const spreadSeed = installSeed(new SettingsTable(db))
  const orderParts = { orders: () => orders, quotes: () => quotes }
  const brief = createCoreBrief({ local, clock, logger, clients, connectivity, longWrites, events: hub, ...orderParts })
  const sync = createSync({
    ...{ db, local, longWrites, clients, label, clock, logger, events: hub, orderDetails: tracking },
    customerHistories: brief.step,
    syncIntervalMinutes: () => settings.get().syncIntervalMinutes,
    spreadSeed,
    quietForMs: () => connectivity.quietForMs(),
    ...{ nativeBinding, syncThread: config.ports?.syncThread, gate: config.ports?.syncGate },
    beforeCatalogUpdateSlice: config.beforeCatalogUpdateSlice,
  })
  const orders = createOrders({
    ...{
      db,
      local,
      clock,
      logger,
      label,
      confirmations: tracking,
      ...(config.locale ? { locale: config.locale } : {}),
    },
    sender: () => clients.forSaved(),
    missingCredential: () => connection.missingSecret(),
    defaults: () => ({ remainInPreliminary: settings.get().remainInPreliminaryDefault }),
    onOutboxChanged: (summary) => hub.emit('outboxChanged', summary),
    freshItemSource: () => clients.forSaved({ retry: { maxAttempts: 1 }, timeouts: { connectMs: 2_500 } }),
    quietForMs: () => connectivity.quietForMs(),
    offline: () => looksOffline(connectivity),
    afterOutageShare: installShare(spreadSeed, 'orders-after-outage'),
    writeRules: orderWriteRules,
  })
  const browsing = createBrowsing(local, orders.desk.outbox.read)
  const syncedAt = catalogSyncedAt(local)
  const quotes = new QuoteDesk({
    ...{ db, clock, desk: orders.desk, catalogSyncedAt: syncedAt },
    validityDays: () => settings.get().quoteValidityDays,
    refreshDraft: (draftId) => orders.refreshBeforeSending(draftId),
  })
  const usual = new UsualItems(local, orders.lookup, clock, orders.desk.outbox.read, config.locale)
  const { purge, supportBundle } = createHousekeeping({
    ...{ db, local, clock, outbox: orders.desk.outbox, drafts: orders.desk.drafts, quotes: quotes.quotes },
    settings: () => settings.get(),
    logger: logger.child({ area: 'purge' }),
    syncing: () => sync.scheduler.isRunning(),
    ...purgeThreadFor(db, config.ports?.purgeWorker, nativeBinding),
    bundle: bundleSources(config, connection),
  })
  const pictures = createCorePictures({
    ...{ local, databasePath: config.databasePath, settings, connection, clients, connectivity, events: hub },
    ...{ clock, logger },
    ...(nativeBinding ? { nativeBinding } : {}),
  })
  const unsubscribes = wireReactions({ hub, sync, orders, connectivity, purge, ...(desktop ? { desktop } : {}) })

  const handlers = createHandlerTable(
    contractMethods({
      ...{ config, db, local, settings, connection, clients, hub, sync, browsing, tracking, orders, quotes, usual },
      ...{ connectivity, catalogSyncedAt: syncedAt, supportBundle, pictures, brief },
    }),
    logger,
    // A database damaged or made read-only after start-up: the same words as at start-up, not INTERNAL.
    (error) => explainDatabaseError(error, config.databasePath, 'app'),
    () => longWrites.settled(),
  )

  const lifetime = { db, connectivity, sync, orders, brief, pictures, purge, clients, unsubscribes }
  if (config.backgroundSync !== false) startBackground(lifetime, config.backgroundPictures === true)

  let closed = false
  return {
    ...{ handlers, events: hub, db, connection, sync, orders, outboxActivity: orders.activity, connectivity, pictures },
    async close() {
      if (closed) return
      closed = true
      await closeCore(lifetime)
    },
  }
}
