/**
 * Item pictures on the laptop before the rep needs them: a pass takes the items in the order the
 * rep needs them (PictureDemand), fetches each one's primary picture where the cache has none or its
 * item moved on, and keeps the cache within its budget. Nothing here runs at render time: the
 * screens read the cache only (the shell's satchel-picture:// protocol).
 */
import type { Logger } from '../ports'
import type { ItemPictureSources, PictureSourceRow } from '../local/catalog-items/pictures'
import { maxItemPictures } from '../../shared/pictures'
import { AttachmentReads, ReadHeld, type AttachmentReader } from './attachments'
import type { PictureCache, PictureEntry } from './cache'
import type { ImageCodec } from './codec'
import { FetchFailed, type PictureFetcher } from './fetcher'
import { ImageRefused, pictureAddress } from './safety'
import { pictureAddresses } from './sources'

/** The order the rep needs pictures in; none of them is evicted while wanted (the budget gives way). */
export type PictureTier = 'orders' | 'customers' | 'families' | 'viewed'

export interface PictureDemand {
  /** The wanted items, tier by tier, most needed first (a guid may appear in several). */
  wanted(): { tier: PictureTier; guids: string[] }[]
}

/** An item's pictures as the panel's gallery shows them: how many, and which are in the cache. */
export interface GalleryState {
  /** 0 where nothing is known of the item's pictures yet. */
  count: number
  /** One per picture, primary first: whether the cache holds it. */
  fetched: boolean[]
}

export interface PassReport {
  /** New pictures stored (a first fetch or a changed picture). */
  fetched: number
  /** Checked and unchanged (a 304): no picture bytes. */
  unchanged: number
  /** Already current: no request at all. */
  current: number
  /** Refused or failed this pass (tried again after a back-off). */
  failed: number
  /** Still backing off from an earlier failure: not asked this pass. */
  backingOff: number
  /** Items with no picture to fetch. */
  none: number
  /** Deleted items whose pictures were let go. */
  freed: number
  evicted: number
  /** Single-item reads made to find attachments: each is a request to the ordering service. */
  serviceReads: number
  /** Needed a single-item read the service (Retry-After) or the background's hourly reads do not allow now. */
  deferred: number
  /** The service asked to wait until then (ms since the epoch): the pass stopped there. Null when it did not. */
  serviceHeldUntil: number | null
}

export interface PictureStatus {
  cached: number
  bytes: number
  budget: number
  waiting: number
  failed: number
}

interface ItemPicturesOptions {
  cache: PictureCache
  fetcher: PictureFetcher
  codec: ImageCodec
  sources: ItemPictureSources
  /** Null where there is no connection to read attachments with (then only listing URLs are fetched). */
  service: AttachmentReader | null
  /** The service's origin, which relative picture addresses are resolved against; null without a connection. */
  serviceOrigin: () => string | null
  demand: PictureDemand
  budgetBytes: () => number
  now: () => number
  logger: Logger
  /** Pictures fetched at once across hosts (each host has its own, lower, cap in the fetcher). */
  parallel?: number
  /** The background pass's single-item reads an hour at most (attachments.ts). */
  backgroundReadsPerHour?: number
}

const protectedTiers = new Set<PictureTier>(['orders', 'customers', 'families', 'viewed'])
/**
 * Whose single-item reads the background pass counts against its hourly cap: the rest of the catalog
 * only. The open orders' items, the day's customers' usual items, the families on screen and what the
 * rep opened are read when needed (once per item version): the rep is about to want those.
 */
/** An item's pictures (thumbnail and panel) before any is cached to measure: about 40 KB (docs/pictures.md). */
const assumedItemBytes = 40 * 1024
/** Room the rest of the catalog leaves under the budget, in items: what keeps a full cache from churning. */
const restMarginItems = 2

const cappedTiers = new Set<PictureTier | 'rest'>(['rest'])
const backoffBaseMs = 60_000
const backoffMaxMs = 6 * 3600_000

/** How long an item waits after its n-th failure in a row: a minute, doubling, at most six hours. */
function backoffMs(failures: number, retryAfter: number | null): number {
  const doubling = Math.min(backoffMaxMs, backoffBaseMs * 2 ** Math.max(0, failures - 1))
  return Math.max(doubling, retryAfter ?? 0)
}

function emptyReport(): PassReport {
  return {
    fetched: 0,
    unchanged: 0,
    current: 0,
    failed: 0,
    backingOff: 0,
    none: 0,
    freed: 0,
    evicted: 0,
    serviceReads: 0,
    deferred: 0,
    serviceHeldUntil: null,
  }
}

type Outcome = 'fetched' | 'unchanged' | 'current' | 'failed' | 'backingOff' | 'none' | 'freed' | 'deferred'

/** An address as the log shows it: its scheme and host, never its path or query, where a signed address keeps its key. */
function shownAddress(raw: string, origin: string): string {
  try {
    const url = new URL(raw.trim(), origin)
    return `${url.protocol}//${url.host}`
  } catch {
    return '(not an address)'
  }
}

export class ItemPictures {
  /** Where the idle pass's walk of the whole catalog stands (a local_id). */
  private restCursor = 0
  private readonly options: ItemPicturesOptions
  private readonly reads: AttachmentReads | null

  constructor(options: ItemPicturesOptions) {
    this.options = options
    this.reads = options.service
      ? new AttachmentReads(options.service, options.now, options.backgroundReadsPerHour)
      : null
  }

  /** Items the cache must keep whatever the budget says (their tiers' guids, asked now). */
  private protectedGuids(): Set<string> {
    const guids = new Set<string>()
    for (const { tier, guids: each } of this.options.demand.wanted())
      if (protectedTiers.has(tier)) for (const guid of each) guids.add(guid)
    return guids
  }

  /**
   * One pass. `guids` names the items (the CLI's --customer); otherwise the demand's tiers in order,
   * and, when `idle`, the rest of the catalog while the cache has room, then deleted items' pictures
   * freed. `limit` caps the items asked about (current ones included). `background`: the app's own
   * pass, which nobody asked for: its single-item reads for the rest of the catalog are capped, and a
   * cached item of it that moved on is checked at its known address (the CLI's fetch reads them all).
   */
  async pass(
    request: { guids?: string[]; limit?: number; idle?: boolean; background?: boolean; signal?: AbortSignal } = {},
  ): Promise<PassReport> {
    const report = emptyReport()
    const limit = request.limit ?? Number.POSITIVE_INFINITY
    const tiers: { tier: PictureTier | 'asked'; guids: string[] }[] = request.guids
      ? [{ tier: 'asked', guids: request.guids }]
      : this.options.demand.wanted()
    const seen = new Set<string>()
    let asked = 0
    // Tier by tier, so the hourly cap knows whose reads it counts; an item wanted twice goes with the first.
    for (const { tier, guids } of tiers) {
      const queue = guids.filter((guid) => !seen.has(guid) && seen.add(guid)).slice(0, limit - asked)
      asked += queue.length
      const background = request.background === true && cappedTiers.has(tier as PictureTier)
      await this.run(queue, report, request.signal, background)
      if (report.serviceHeldUntil !== null) break
    }
    if (request.idle && request.guids === undefined && report.serviceHeldUntil === null) {
      // The rest of the catalog only as far as it fits: filling past the budget would evict what was
      // fetched a moment ago, and fetch it again on the next pass. Before each item, the cache's bytes
      // with the items in flight, each counted as the largest cached so far, must leave room for it
      // and a margin of two more: a cache filled once stays still, pass after pass.
      const budget = this.options.budgetBytes()
      const fits = (inFlight: number) => {
        const { bytes, largest } = this.options.cache.totals()
        return bytes + (inFlight + 1 + restMarginItems) * (largest || assumedItemBytes) <= budget
      }
      while (asked < limit && !request.signal?.aborted && fits(0) && report.serviceHeldUntil === null) {
        const page = this.options.sources.livePage(this.restCursor, Math.min(200, limit - asked))
        if (page.length === 0) {
          this.restCursor = 0
          break
        }
        this.restCursor = page[page.length - 1]!.localId
        asked += page.length
        const stopped = await this.run(
          page.map((item) => item.guid),
          report,
          request.signal,
          request.background === true && cappedTiers.has('rest'),
          fits,
        )
        // Not asked about: the next pass starts from the first of them.
        if (stopped !== null) this.restCursor = stopped === 0 ? this.restCursor : page[stopped - 1]!.localId
        if (stopped !== null) break
      }
      report.freed += this.freeDeleted()
    }
    const protectedGuids = this.protectedGuids()
    report.evicted = this.options.cache.evict(this.options.budgetBytes(), (guid) => protectedGuids.has(guid)).evicted
    return report
  }

  /**
   * The item's pictures for the panel's gallery: with `fetch`, its single read (once per version) names
   * them, and the primary and up to eleven more are fetched into the cache and kept with it; without,
   * what the cache holds now. Never fails: a picture that cannot be had stays a placeholder.
   */
  async gallery(guid: string, fetch: boolean): Promise<GalleryState> {
    const { cache, logger } = this.options
    const item = this.options.sources.byGuid(guid)
    if (fetch && item?.live && this.options.serviceOrigin() !== null) {
      const report = emptyReport()
      let addresses = this.galleryAddresses(item, true)
      if (addresses === null) {
        try {
          const read = await this.readAddresses(item, report, false)
          if (read !== null) {
            addresses = this.withListingFirst(item, read)
            cache.saveGallery(guid, item.version, addresses)
          }
        } catch (error) {
          logger.warn('item pictures not read', { item: guid, reason: (error as Error).message })
        }
      }
      // A read that failed just now is not made again for the primary: it keeps what it has.
      if (addresses !== null || item.listingUrl !== null)
        await this.refresh(guid, report, false, addresses ?? undefined)
      const stored = new Map(cache.galleryPictures(guid).map((each) => [each.position, each]))
      for (const [index, address] of (addresses ?? []).entries()) {
        const position = index + 1
        const kept = stored.get(position)
        const same = kept?.sourceUrl === address
        if (position === 1 || (same && kept.itemVersion === item.version)) continue
        // The item moved on since this picture came: asked again, conditionally (a 304 costs no bytes),
        // since a host may give a new picture at the same address.
        const validators = same
          ? { etag: kept.etag, lastModified: kept.lastModified }
          : { etag: null, lastModified: null }
        try {
          const outcome = await this.options.fetcher.fetch(new URL(address), validators)
          if (outcome.kind === 'not-modified') {
            cache.galleryPictureChecked(guid, position, item.version)
            continue
          }
          const sizes = await this.options.codec.downscale(outcome.bytes, outcome.imageKind)
          cache.storeGalleryPicture(guid, position, address, sizes, {
            etag: outcome.etag,
            lastModified: outcome.lastModified,
            itemVersion: item.version,
          })
        } catch (error) {
          if (!(error instanceof ImageRefused) && !(error instanceof FetchFailed)) throw error
          logger.warn('item picture not fetched', { item: guid, position, reason: error.message })
        }
      }
    }
    const addresses = item ? (this.galleryAddresses(item, false) ?? []) : []
    const primary = cache.get(guid)
    const stored = new Map(cache.galleryPictures(guid).map((each) => [each.position, each.sourceUrl]))
    const count = Math.max(addresses.length, primary?.thumb ? 1 : 0)
    return {
      count,
      fetched: Array.from({ length: count }, (_, index) =>
        index === 0 ? Boolean(primary?.thumb) : stored.get(index + 1) === addresses[index],
      ),
    }
  }

  /** The gallery's addresses as last read (`current`: only if read at the item's version), or null. */
  private galleryAddresses(item: PictureSourceRow, current: boolean): string[] | null {
    const gallery = this.options.cache.gallery(item.guid)
    if (!gallery || (current && gallery.itemVersion !== item.version)) return null
    return gallery.addresses
  }

  /** The listing's picture is the primary where it names one: the rows show it, so the panel starts with it. */
  private withListingFirst(item: PictureSourceRow, read: string[]): string[] {
    if (item.listingUrl === null) return read
    const listing = pictureAddress(item.listingUrl, this.options.serviceOrigin() ?? '').href
    return [listing, ...read.filter((address) => address !== listing)].slice(0, maxItemPictures)
  }

  /** What the cache holds and what is left to fetch, for the CLI's `pictures status` and the Settings screen. */
  status(): PictureStatus {
    const totals = this.options.cache.totals()
    return {
      cached: totals.cached,
      bytes: totals.bytes,
      budget: this.options.budgetBytes(),
      // Live items the index has not settled (no picture yet, none known, not failed): an estimate, as
      // the index may still name a deleted item until the next idle pass frees it.
      waiting: Math.max(0, this.options.sources.countLive() - totals.entries),
      failed: totals.failed,
    }
  }

  /**
   * Refreshes `guids`, a few at a time. `fits`, when given, is asked before each item with how many
   * are in flight; a no stops the run. Answers the index of the first item not asked about when it
   * stopped so, else null.
   */
  private async run(
    guids: string[],
    report: PassReport,
    signal: AbortSignal | undefined,
    background: boolean,
    fits?: (inFlight: number) => boolean,
  ): Promise<number | null> {
    let next = 0
    let inFlight = 0
    let stoppedAt: number | null = null
    const worker = async () => {
      // A 429 (or 503) with Retry-After ends the pass: the service is not asked again before that time.
      while (next < guids.length && !signal?.aborted && report.serviceHeldUntil === null && stoppedAt === null) {
        if (fits && !fits(inFlight)) {
          stoppedAt = next
          break
        }
        const guid = guids[next++]!
        inFlight++
        try {
          const outcome = await this.refresh(guid, report, background)
          report[outcome]++
        } finally {
          inFlight--
        }
      }
    }
    await Promise.all(Array.from({ length: this.options.parallel ?? 4 }, worker))
    return stoppedAt
  }

  /**
   * The item's primary picture made current. `known` is its addresses where the caller read them just
   * now (the gallery), so they are not read twice.
   */
  private async refresh(guid: string, report: PassReport, background: boolean, known?: string[]): Promise<Outcome> {
    const { cache, sources, logger, now } = this.options
    const item = sources.byGuid(guid)
    const entry = cache.get(guid)
    if (!item || !item.live) {
      if (!entry) return 'none'
      cache.forget(guid)
      return 'freed'
    }
    if (entry && entry.itemVersion === item.version && entry.failures === 0) {
      if (entry.thumb) return 'current'
      if (entry.sourceUrl === null) return 'none'
    }
    if (entry && entry.failures > 0 && entry.retryAt > now()) return 'backingOff'
    // Without a connection nothing is known of the item's picture, and nothing is written down.
    if (this.options.serviceOrigin() === null) return 'none'
    let source: string | null = null
    try {
      source = await this.sourceOf(item, entry, report, background, known)
      if (source === null) {
        if (entry?.thumb) cache.evictPictures(entry)
        cache.save({ ...this.blank(item), ...(entry ? { usedAt: entry.usedAt } : {}) })
        return 'none'
      }
      return await this.fetchInto(item, entry, source)
    } catch (error) {
      if (error instanceof ReadHeld) {
        if (error.reason === 'retry-after') report.serviceHeldUntil = error.until
        return 'deferred'
      }
      if (!(error instanceof ImageRefused) && !(error instanceof FetchFailed)) throw error
      const failures = (entry?.failures ?? 0) + 1
      const retryAfter = error instanceof FetchFailed ? error.retryAfterMs : null
      // Gone from its host: the address is forgotten, so the next try reads the item's attachments again.
      const gone = error instanceof FetchFailed && error.gone && entry !== undefined && source === entry.sourceUrl
      const base = gone ? { ...entry, sourceUrl: null } : (entry ?? this.blank(item))
      // A picture of another address is of another image: it goes rather than showing the wrong one.
      const stale = base.thumb !== null && source !== null && base.sourceUrl !== source
      if (stale) cache.evictPictures(base)
      cache.save({
        ...(stale ? cache.get(guid)! : base),
        catalogGuid: item.catalogGuid,
        failures,
        retryAt: now() + backoffMs(failures, retryAfter),
        lastError: error.message,
      })
      logger.warn('item picture not fetched', { item: guid, failures, reason: error.message })
      return 'failed'
    }
  }

  private blank(item: PictureSourceRow): PictureEntry {
    return {
      itemGuid: item.guid,
      catalogGuid: item.catalogGuid,
      sourceUrl: null,
      itemVersion: item.version,
      etag: null,
      lastModified: null,
      thumb: null,
      panel: null,
      bytes: 0,
      usedAt: 0,
      failures: 0,
      retryAt: 0,
      lastError: null,
    }
  }

  /** The picture's absolute address: the listing's, or the attachments' read at this version, or read now. */
  private async sourceOf(
    item: PictureSourceRow,
    entry: PictureEntry | undefined,
    report: PassReport,
    background: boolean,
    known?: string[],
  ): Promise<string | null> {
    const origin = this.options.serviceOrigin() ?? ''
    if (item.listingUrl !== null) return pictureAddress(item.listingUrl, origin).href
    if (known) return known[0] ?? null
    if (entry && entry.itemVersion === item.version && entry.sourceUrl !== null) return entry.sourceUrl
    // The rest of the catalog, moved on since its read: its known address is asked again
    // (conditionally, a 304 when the picture is the same), not the service. Its attachments are read
    // again when it is needed (an order, a customer's, on screen) or opened, or its picture is gone.
    if (background && entry && entry.sourceUrl !== null) return entry.sourceUrl
    const addresses = await this.readAddresses(item, report, background)
    return addresses === null ? null : (addresses[0] ?? null)
  }

  /**
   * The item's picture addresses from its single read, absolute, primary first, at most twelve; null
   * without a connection to read with. Each read is a request to the ordering service (attachments.ts).
   */
  private async readAddresses(
    item: PictureSourceRow,
    report: PassReport,
    background: boolean,
  ): Promise<string[] | null> {
    if (this.reads === null) return null
    const origin = this.options.serviceOrigin() ?? ''
    let record: unknown
    try {
      record = await this.reads.read(item.catalogGuid, item.guid, background)
      report.serviceReads++
    } catch (error) {
      if (!(error instanceof ReadHeld) || error.made) report.serviceReads++
      if (error instanceof ReadHeld) throw error
      throw new FetchFailed(`the item's attachments could not be read: ${(error as Error).message}`)
    }
    const addresses: string[] = []
    const refused: string[] = []
    for (const address of pictureAddresses(record)) {
      try {
        addresses.push(pictureAddress(address, origin).href)
      } catch {
        // An address Satchel would refuse (plain http elsewhere, another scheme) is no picture of it.
        refused.push(shownAddress(address, origin))
      }
    }
    // Else an item whose every picture is refused looks like one with none: the log says which and why.
    if (refused.length > 0)
      this.options.logger.warn('item picture addresses refused', {
        item: item.guid,
        refused: [...new Set(refused)].join(' '),
        reason: 'pictures are fetched over https only (plain http on this machine alone)',
      })
    return addresses.slice(0, maxItemPictures)
  }

  private async fetchInto(item: PictureSourceRow, entry: PictureEntry | undefined, source: string): Promise<Outcome> {
    const { cache, fetcher, codec, now } = this.options
    const same = entry !== undefined && entry.thumb !== null && entry.sourceUrl === source
    const outcome = await fetcher.fetch(new URL(source), {
      etag: same ? entry.etag : null,
      lastModified: same ? entry.lastModified : null,
    })
    if (outcome.kind === 'not-modified') {
      if (!same) throw new FetchFailed(`the image host answered 304 to a request that had no copy to compare`)
      cache.save({ ...entry, itemVersion: item.version, failures: 0, retryAt: 0, lastError: null })
      return 'unchanged'
    }
    const sizes = await codec.downscale(outcome.bytes, outcome.imageKind)
    cache.store(
      {
        itemGuid: item.guid,
        catalogGuid: item.catalogGuid,
        sourceUrl: source,
        itemVersion: item.version,
        etag: outcome.etag,
        lastModified: outcome.lastModified,
        usedAt: now(),
        failures: 0,
        retryAt: 0,
        lastError: null,
      },
      sizes,
    )
    return 'fetched'
  }

  /** Lets go of the pictures of items the catalog no longer lists: the idle pass's sweep. */
  private freeDeleted(): number {
    const { cache, sources } = this.options
    let freed = 0
    let after = ''
    for (;;) {
      const guids = cache.guidsAfter(after, 500)
      if (guids.length === 0) return freed
      for (const guid of guids) {
        const item = sources.byGuid(guid)
        if (!item || !item.live) {
          cache.forget(guid)
          freed++
        }
      }
      after = guids[guids.length - 1]!
    }
  }
}
