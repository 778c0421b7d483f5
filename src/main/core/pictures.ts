/**
 * The item pictures of one core, wired to the parts they need: the cache beside its database, read
 * by the shell's protocol (and the bridge's route) at render time, and filled in the background by
 * pictures/passes.ts, in the order the demand (picture-demand.ts) reads from orders and quotes.
 */
import { existsSync } from 'node:fs'
import { looksOffline, type ConnectivityMonitor } from '../connectivity'
import type { EventHub } from '../events'
import {
  openItemPictures,
  picturesFolder,
  PicturePasses,
  type GalleryState,
  type OpenedPictures,
  type PassReport,
  type PictureStatus,
} from '../pictures'
import type { LocalData } from '../local/data'
import type { ServiceClients } from '../ordering-client/clients'
import type { Clock, Logger } from '../ports'
import type { AppSettings } from '../settings/app-settings'
import type { ConnectionSettings } from '../settings/connection'
import type { PictureSize } from '../../shared/pictures'
import { createPictureDemand } from './picture-demand'

/** The items the rep opened last that the demand remembers (most recent first). */
const viewedKept = 100

export interface CorePictures {
  /** The picture from the cache only (never the network), or null when it has not been fetched. */
  read(itemGuid: string, size: PictureSize, position?: number): Buffer | null
  /**
   * The panel opened on an item: it joins what the rep viewed, and with `fetch` its pictures are read
   * and fetched now (the gallery), where the service answers; the answer says which the cache holds.
   */
  itemPictures(itemGuid: string, fetch: boolean): Promise<GalleryState>
  /**
   * The items of the families on screen (their grids; [] when none is): fetched before the rest of
   * the catalog, and never evicted while there. A pass for them starts now.
   */
  setOnScreen(itemGuids: string[]): void
  /** One idle pass now; null when one is already running, or there is no connection or network. */
  pass(): Promise<PassReport | null>
  status(): PictureStatus
  start(): void
  close(): Promise<void>
}

interface CorePicturesParts {
  local: LocalData
  databasePath: string
  nativeBinding?: string
  settings: AppSettings
  connection: ConnectionSettings
  clients: ServiceClients
  connectivity: ConnectivityMonitor
  events: EventHub
  clock: Clock
  logger: Logger
}

export function createCorePictures(parts: CorePicturesParts): CorePictures | null {
  // A throwaway core (tests, ':memory:') has no folder to keep pictures in.
  if (parts.databasePath === ':memory:' || parts.databasePath === '') return null
  const { clock, logger } = parts
  let origin: string | null = null
  // Opened at the first pass (or read of a folder already there): a profile that never fetched a
  // picture has no folder for them.
  let opened: OpenedPictures | null = null
  let onScreen: string[] = []
  const viewed: string[] = []
  const open = (): OpenedPictures =>
    (opened ??= openItemPictures({
      sources: parts.local.pictureSources,
      databasePath: parts.databasePath,
      ...(parts.nativeBinding ? { nativeBinding: parts.nativeBinding } : {}),
      serviceOrigin: () => origin,
      service: {
        async getCatalogItem(catalogGuid, guid) {
          const client = await parts.clients.forSaved()
          if (!client) throw new Error('no connection is saved')
          return client.getCatalogItem(catalogGuid, guid)
        },
      },
      demand: createPictureDemand(parts.local, clock, { familiesOnScreen: () => onScreen, viewed: () => viewed }),
      budgetMB: () => parts.settings.get().pictureBudgetMB,
      logger: logger.child({ area: 'pictures' }),
      now: () => clock.now(),
    }))
  /** Whether pictures can be fetched now: a saved connection, and the service not known to be away. */
  const online = async (): Promise<boolean> => {
    if (looksOffline(parts.connectivity)) return false
    const saved = await parts.connection.get()
    origin = saved ? new URL(saved.baseUrl).origin : null
    return origin !== null
  }
  const passes = new PicturePasses({
    online,
    run: (idle, signal) => open().pictures.pass({ idle, background: true, signal }),
    finished(report) {
      if (report.fetched > 0) parts.events.emit('picturesFetched', { fetched: report.fetched })
    },
    afterEachSync: (listener) =>
      parts.events.subscribe((event) => {
        if (event.name === 'syncFinished') listener()
      }),
    logger,
  })

  const hasFolder = () => opened !== null || existsSync(picturesFolder(parts.databasePath))

  return {
    read(itemGuid, size, position = 1) {
      if (!hasFolder()) return null
      return open().cache.read(itemGuid, size, clock.now(), position)
    },
    async itemPictures(itemGuid, fetch) {
      const at = viewed.indexOf(itemGuid)
      if (at >= 0) viewed.splice(at, 1)
      viewed.unshift(itemGuid)
      viewed.length = Math.min(viewed.length, viewedKept)
      const fetching = fetch && (await online().catch(() => false))
      if (!fetching && !hasFolder()) return { count: 0, fetched: [] }
      const before = fetching ? open().cache.totals().cached : 0
      const state = await open().pictures.gallery(itemGuid, fetching)
      // The primary shows in the rows and grids too: a placeholder there may now be a picture.
      if (fetching && open().cache.totals().cached > before) parts.events.emit('picturesFetched', { fetched: 1 })
      return state
    },
    setOnScreen(itemGuids) {
      onScreen = [...new Set(itemGuids)]
      if (onScreen.length === 0) return
      // Not the idle pass: the tiers only (the on-screen ones among them), not the rest of the catalog.
      passes.passAfterThis()
    },
    pass: () => passes.pass(true),
    status() {
      if (opened || existsSync(picturesFolder(parts.databasePath))) return open().pictures.status()
      const budget = parts.settings.get().pictureBudgetMB * 1024 * 1024
      return { cached: 0, bytes: 0, budget, waiting: parts.local.pictureSources.countLive(), failed: 0 }
    },
    start: () => passes.start(),
    async close() {
      await passes.close()
      await opened?.close()
    },
  }
}
