/**
 * Item pictures for one profile: the cache beside its database, the fetcher, the codec, and the
 * pass that fills the cache in the order the rep needs pictures. docs/pictures.md tells the whole.
 */
import type { ItemPictureSources } from '../local/catalog-items/pictures'
import type { Logger } from '../ports'
import { defaultBudgetMB, PictureCache, picturesFolder } from './cache'
import type { ImageCodec } from './codec'
import { PictureFetcher, type FetcherOptions } from './fetcher'
import { createSharpCodec } from './sharp-codec'
import type { AttachmentReader } from './attachments'
import { ItemPictures, type PictureDemand } from './item-pictures'

export { picturesFolder, PictureCache } from './cache'
export { PicturePasses } from './passes'
export type { GalleryState, PassReport, PictureDemand, PictureStatus, PictureTier } from './item-pictures'

interface OpenPicturesOptions {
  /** Each catalog item's picture addresses (the local copy's, handed in). */
  sources: ItemPictureSources
  databasePath: string
  serviceOrigin: () => string | null
  service: AttachmentReader | null
  demand: PictureDemand
  /** The setting pictureBudgetMB, read at each pass. */
  budgetMB: () => number
  /** Bytes exactly, over budgetMB: the tests fill a budget of a few pictures. */
  budgetBytes?: () => number
  logger: Logger
  now?: () => number
  codec?: ImageCodec
  fetcher?: FetcherOptions
  nativeBinding?: string
  parallel?: number
  backgroundReadsPerHour?: number
}

export interface OpenedPictures {
  pictures: ItemPictures
  cache: PictureCache
  fetcher: PictureFetcher
  close(): Promise<void>
}

/** What the rep and support read when the cache's index was damaged: the cache's, never the database's. */
export function damagedCacheWords(asidePath: string): string {
  return `The picture cache was damaged: it was set aside (${asidePath}) and started again empty; pictures are fetched again as they are needed. The profile's database, drafts and outbox are not affected.`
}

export function openItemPictures(options: OpenPicturesOptions): OpenedPictures {
  const now = options.now ?? Date.now
  const cache = new PictureCache(
    picturesFolder(options.databasePath),
    options.nativeBinding ? { nativeBinding: options.nativeBinding } : {},
  )
  if (cache.damagedIndexAside) options.logger.warn(damagedCacheWords(cache.damagedIndexAside))
  const fetcher = new PictureFetcher({ now, ...options.fetcher })
  const pictures = new ItemPictures({
    cache,
    fetcher,
    codec: options.codec ?? createSharpCodec(),
    sources: options.sources,
    service: options.service,
    serviceOrigin: options.serviceOrigin,
    demand: options.demand,
    budgetBytes: options.budgetBytes ?? (() => Math.max(1, options.budgetMB() || defaultBudgetMB) * 1024 * 1024),
    now,
    logger: options.logger,
    ...(options.parallel ? { parallel: options.parallel } : {}),
    ...(options.backgroundReadsPerHour !== undefined ? { backgroundReadsPerHour: options.backgroundReadsPerHour } : {}),
  })
  return {
    pictures,
    cache,
    fetcher,
    async close() {
      await fetcher.close()
      cache.close()
    },
  }
}
