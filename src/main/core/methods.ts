/**
 * Which part answers which method of the contract, and what the support bundle is told of this
 * install: from the parts compose.ts built, so the composer itself stays wiring.
 */
import type { Implementations } from '../../shared/contract'
import type { Browsing } from '../browse'
import { connectivityMethods, type ConnectivityMonitor } from '../connectivity'
import type { UsualItems } from '../usual-items/usual'
import type { Database } from '../db/database'
import type { LocalData } from '../local/data'
import { desktopMethods } from '../desktop/methods'
import { documentMethods } from '../documents/methods'
import type { EventHub } from '../events'
import type { ServiceClients } from '../ordering-client/clients'
import type { Orders } from '../orders'
import { orderMethods } from '../orders/methods'
import { customerWriteMethods } from '../orders/customer-methods'
import type { QuoteDesk } from '../quotes/desk'
import { quoteMethods } from '../quotes/methods'
import type { AppSettings } from '../settings/app-settings'
import type { ConnectionSettings } from '../settings/connection'
import { settingsMethods } from '../settings/methods'
import type { Sync } from '../sync'
import type { Tracking } from '../tracking'
import { sentOrderWriteMethods } from '../tracking/write-methods'
import { bundleProfiles, type SupportBundleSources } from '../housekeeping/support-bundle'
import type { CorePictures } from './pictures'
import type { Brief } from '../brief'
import type { CoreConfig } from './types'

export interface BuiltParts {
  config: CoreConfig
  db: Database
  local: LocalData
  settings: AppSettings
  connection: ConnectionSettings
  clients: ServiceClients
  hub: EventHub
  sync: Sync
  browsing: Browsing
  tracking: Tracking
  orders: Orders
  quotes: QuoteDesk
  usual: UsualItems
  connectivity: ConnectivityMonitor
  catalogSyncedAt: (catalogGuid: string) => number | null
  supportBundle: () => Promise<Buffer>
  pictures: CorePictures | null
  brief: Brief
}

export function contractMethods(parts: BuiltParts): Implementations {
  const { config, db, local, orders, quotes, browsing } = parts
  const desktop = config.ports?.desktop
  const profiles = config.ports?.profiles
  return {
    ...desktopMethods({
      db,
      databasePath: config.databasePath,
      appVersion: config.appVersion,
      ...(config.appName ? { appName: config.appName } : {}),
      ...(desktop ? { desktop } : {}),
      supportBundle: parts.supportBundle,
      ...(profiles ? { profiles } : {}),
    }),
    ...settingsMethods({
      settings: parts.settings,
      connection: parts.connection,
      clients: parts.clients,
      events: parts.hub,
    }),
    ...parts.sync.methods,
    ...browsing.methods,
    ...parts.tracking.methods,
    ...orderMethods(orders, browsing.queries),
    ...sentOrderWriteMethods(local, orders, async () => (await parts.connection.get())?.auth.kind === 'session'),
    ...customerWriteMethods(local, orders),
    ...parts.brief.methods,
    ...quoteMethods({ quotes, usual: parts.usual }),
    ...documentMethods({
      local,
      lookup: orders.lookup,
      desk: orders.desk,
      quotes,
      catalogSyncedAt: parts.catalogSyncedAt,
      queries: browsing.queries,
      settings: parts.settings,
      ...(desktop ? { desktop } : {}),
    }),
    ...connectivityMethods(parts.connectivity),
    getPictureStatus: () => parts.pictures?.status() ?? null,
    getItemPictures: async ({ itemGuid, fetch }) => (await parts.pictures?.itemPictures(itemGuid, fetch)) ?? null,
    setPicturesOnScreen: ({ itemGuids }) => {
      parts.pictures?.setOnScreen(itemGuids)
      return {}
    },
  }
}

/** What the support bundle says of this install besides the database: names, versions, logs, profiles. */
export function bundleSources(
  config: CoreConfig,
  connection: ConnectionSettings,
): Omit<SupportBundleSources, 'local' | 'clock'> {
  const desktop = config.ports?.desktop
  const profiles = config.ports?.profiles
  return {
    appName: config.appName ?? 'Satchel',
    appVersion: config.appVersion,
    secrets: () => connection.credentialValues(),
    logsDirectory: desktop?.logsDirectory ?? null,
    ...(desktop?.runtime ? { runtime: desktop.runtime } : {}),
    ...(profiles ? { profiles: () => bundleProfiles(profiles) } : {}),
    ...(config.nativeBinding ? { nativeBinding: config.nativeBinding } : {}),
  }
}
