/**
 * What the rep looks at is fetched first and kept: the families on screen and the items viewed come
 * before the rest of the catalog in the pass, through the demand the core builds, and the budget never
 * evicts them. And the single-item reads for attachments are polite: one at a time, and none after a
 * 429 until its Retry-After has passed.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { createPictureDemand } from '../../src/main/core/picture-demand'
import { backgroundReadsPerHour } from '../../src/main/pictures/attachments'
import { closeDatabase, openDatabase, type Database } from '../../src/main/db/database'
import { openItemPictures, type OpenedPictures } from '../../src/main/pictures'
import { LocalCopy } from '../../src/main/local/copy'
import { Retention } from '../../src/main/local/retention'
import { ServiceClient } from '../../src/main/ordering-client/client'
import { silentLogger, type LogFields, type Logger } from '../../src/main/ports'
import { startService } from '../service/index'
import { imagePath } from '../service/images'
import type { RunningService } from '../service/types'
import { catalogItem } from '../support/builders'
import { openLocalData } from '../../src/main/local/data'

let service: RunningService
const folders: string[] = []
const opened: { db: Database; pictures: OpenedPictures; client?: ServiceClient }[] = []

beforeAll(async () => {
  service = await startService({ size: 'tiny', seed: 7 })
})
afterAll(async () => {
  await service.close()
})
afterEach(async () => {
  service.control.clearFaults()
  for (const each of opened.splice(0)) {
    await each.pictures.close()
    await each.client?.close()
    closeDatabase(each.db)
  }
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true })
})

interface WorldOptions {
  onScreen?: string[]
  viewed?: string[]
  budgetBytes?: number
  reads?: boolean
  /** The single-item read in place of the double's, for a record the double would not give. */
  readItem?: () => Promise<Record<string, unknown>>
  logger?: Logger
}

function world(options: WorldOptions = {}) {
  const folder = mkdtempSync(join(tmpdir(), 'satchel-pictures-order-'))
  folders.push(folder)
  const databasePath = join(folder, 'main.db')
  const db = openDatabase(databasePath)
  const copy = new LocalCopy(db, new Retention(db))
  let tick = 1_000_000
  const clock = { now: () => tick }
  const budget = { bytes: options.budgetBytes ?? 1 << 30 }
  const { apiKey, apiSecret } = service.credentials
  const client = options.reads
    ? new ServiceClient({ connection: { baseUrl: service.url, auth: { kind: 'apiKey', apiKey, apiSecret } } })
    : undefined
  const inFlight = { now: 0, most: 0, reads: 0 }
  const pictures = openItemPictures({
    sources: openLocalData(db).pictureSources,
    databasePath,
    serviceOrigin: () => service.url,
    service: options.readItem
      ? { getCatalogItem: options.readItem }
      : client
        ? {
            async getCatalogItem(catalogGuid, guid) {
              inFlight.reads++
              inFlight.most = Math.max(inFlight.most, ++inFlight.now)
              try {
                return await client.getCatalogItem(catalogGuid, guid, { retry: false })
              } finally {
                inFlight.now--
              }
            },
          }
        : null,
    demand: createPictureDemand(openLocalData(db), clock, {
      familiesOnScreen: () => options.onScreen ?? [],
      viewed: () => options.viewed ?? [],
    }),
    budgetMB: () => 1024,
    budgetBytes: () => budget.bytes,
    logger: options.logger ?? silentLogger,
    now: () => ++tick,
    parallel: 4,
  })
  opened.push({ db, pictures, ...(client ? { client } : {}) })
  return {
    ...pictures,
    copy,
    budget,
    inFlight,
    advance: (ms: number) => (tick += ms),
    has: (guid: string) => pictures.cache.get(guid)?.thumb != null,
  }
}

describe('the pictures the rep looks at', () => {
  it('come before the rest of the catalog, and the budget does not evict them', async () => {
    const w = world({ onScreen: ['item-30', 'item-31'], viewed: ['item-40'] })
    w.copy.applyCatalogItems(
      'cat-a',
      Array.from({ length: 40 }, (_, n) => catalogItem(n + 1, { image_url: imagePath(`SKU-${n + 1}`) })),
      { listingId: null, serverTime: null },
    )
    // Room for three items' worth of asking: the family's two and the viewed one, none of the rest.
    const first = await w.pictures.pass({ idle: true, limit: 3 })
    expect(first).toMatchObject({ fetched: 3 })
    expect(['item-30', 'item-31', 'item-40'].every(w.has)).toBe(true)
    expect(w.has('item-1')).toBe(false)

    // The whole catalog, then a budget of one picture: only what is on screen or viewed stays.
    await w.pictures.pass({ idle: true })
    expect(w.has('item-1')).toBe(true)
    w.budget.bytes = w.cache.get('item-1')!.bytes
    await w.pictures.pass({ guids: [] })
    const kept = Array.from({ length: 40 }, (_, n) => `item-${n + 1}`).filter(w.has)
    expect(kept.sort()).toEqual(['item-30', 'item-31', 'item-40'])
  })
})

describe('the single-item reads for attachments', () => {
  /** The double's own items, written to the local copy as an API key's listing has them: no image URL. */
  function itemsWithoutUrls(w: ReturnType<typeof world>, count: number) {
    const catalog = String(service.control.catalogs()[0]!.guid)
    const items = (service.control.catalogItems(catalog) as Record<string, unknown>[])
      .filter((item) => !item.is_product_group && typeof item.image_url === 'string')
      .slice(0, count)
    w.copy.applyCatalogItems(
      catalog,
      items.map((item, n) => catalogItem(n + 1, { guid: item.guid, sku: item.sku })),
      { listingId: null, serverTime: null },
    )
    return items.map((item) => String(item.guid))
  }

  it('are not made again for the rest of the catalog when an item moves on: its known address is asked, conditionally', async () => {
    const w = world({ reads: true })
    const [guid] = itemsWithoutUrls(w, 2)
    expect(await w.pictures.pass({ idle: true, background: true })).toMatchObject({ fetched: 2, serviceReads: 2 })
    const catalog = String(service.control.catalogs()[0]!.guid)
    const sku = (service.control.catalogItems(catalog) as Record<string, unknown>[]).find(
      (each) => each.guid === guid,
    )!.sku
    w.copy.applyCatalogItems(catalog, [catalogItem(1, { guid, sku, updated_at: '2026-03-01T00:00:00.000Z' })], {
      listingId: null,
      serverTime: null,
    })
    const moved = await w.pictures.pass({ idle: true, background: true })
    expect(moved).toMatchObject({ unchanged: 1, current: 1, serviceReads: 0 })
    // Opened in the panel, it is read again at its new version.
    const reads = w.inFlight.reads
    expect(await w.pictures.gallery(guid!, true)).toMatchObject({ count: 1, fetched: [true] })
    expect(w.inFlight.reads).toBe(reads + 1)
  })

  it('bring the gallery again when the item moves on: a picture changed at the same address is replaced, an unchanged one costs a 304', async () => {
    const w = world({ reads: true })
    const [guid] = itemsWithoutUrls(w, 1)
    service.control.imageGallery(guid!, 3)
    expect(await w.pictures.gallery(guid!, true)).toMatchObject({ count: 3, fetched: [true, true, true] })
    const first = w.cache.galleryPictures(guid!).map((each) => each.thumb)
    expect(first).toHaveLength(2)

    const catalog = String(service.control.catalogs()[0]!.guid)
    const sku = (service.control.catalogItems(catalog) as Record<string, unknown>[]).find(
      (each) => each.guid === guid,
    )!.sku
    const moveOn = (at: string) =>
      w.copy.applyCatalogItems(catalog, [catalogItem(1, { guid, sku, updated_at: at })], {
        listingId: null,
        serverTime: null,
      })

    // A new version with the same pictures: every one asked conditionally, no picture's bytes sent.
    moveOn('2026-03-01T00:00:00.000Z')
    service.control.clearImageFigures()
    expect(await w.pictures.gallery(guid!, true)).toMatchObject({ count: 3, fetched: [true, true, true] })
    expect(service.control.imageFigures()).toMatchObject({ requests: 3, notModified: 3, bytesSent: 0 })
    expect(w.cache.galleryPictures(guid!).map((each) => each.thumb)).toEqual(first)
    // Opened again at that version: nothing asked at all.
    service.control.clearImageFigures()
    await w.pictures.gallery(guid!, true)
    expect(service.control.imageFigures().requests).toBe(0)

    // New pictures at the same addresses: the gallery's are replaced, not kept as they were.
    service.control.changeImage(guid!)
    moveOn('2026-03-02T00:00:00.000Z')
    expect(await w.pictures.gallery(guid!, true)).toMatchObject({ count: 3, fetched: [true, true, true] })
    const after = w.cache.galleryPictures(guid!).map((each) => each.thumb)
    expect(after).toHaveLength(2)
    expect(after.filter((thumb) => first.includes(thumb))).toEqual([])
  })

  it('say in the log which addresses were refused and why, by scheme and host alone', async () => {
    const logged: { message: string; fields?: LogFields }[] = []
    const logger: Logger = {
      ...silentLogger,
      warn: (message, fields) => void logged.push({ message, ...(fields ? { fields } : {}) }),
    }
    const w = world({
      logger,
      readItem: async () => ({
        attachments: ['http://images.example.com/a.jpg?signature=SECRET-1', 'ftp://files.example.com/b.jpg'],
      }),
    })
    w.copy.applyCatalogItems('cat-a', [catalogItem(1)], { listingId: null, serverTime: null })
    expect(await w.pictures.pass({ guids: ['item-1'] })).toMatchObject({ fetched: 0, serviceReads: 1 })
    const refused = logged.filter((each) => each.message === 'item picture addresses refused')
    expect(refused).toEqual([
      {
        message: 'item picture addresses refused',
        fields: {
          item: 'item-1',
          refused: 'http://images.example.com ftp://files.example.com',
          reason: expect.stringContaining('https only'),
        },
      },
    ])
    expect(JSON.stringify(logged)).not.toContain('SECRET')
  })

  it('are made one at a time, however many pictures are fetched at once', async () => {
    const w = world({ reads: true })
    const guids = itemsWithoutUrls(w, 8)
    service.control.addFault({
      route: 'GET /v1/catalog/:catalogGuid/catalog_items/:catalogItemGuid',
      type: 'latency',
      ms: 40,
    })
    const report = await w.pictures.pass({ guids })
    expect(report).toMatchObject({ fetched: 8, serviceReads: 8 })
    expect(w.inFlight.most).toBe(1)
  })

  it('stop the pass at a 429, and are not made again before its Retry-After', async () => {
    const w = world({ reads: true })
    const guids = itemsWithoutUrls(w, 8)
    service.control.addFault({
      route: 'GET /v1/catalog/:catalogGuid/catalog_items/:catalogItemGuid',
      type: 'rateLimit',
      retryAfterSeconds: 120,
      skip: 2,
      times: 1,
    })
    const report = await w.pictures.pass({ guids })
    // Two read, the third told to wait: nothing more was asked of the service in that pass.
    expect(w.inFlight.reads).toBe(3)
    expect(report.fetched).toBe(2)
    expect(report.serviceHeldUntil).toBeGreaterThan(0)
    expect(w.cache.totals().failed).toBe(0)

    // A minute on: still held, so the next pass asks nothing of the service.
    w.advance(60_000)
    const held = await w.pictures.pass({ guids })
    expect(w.inFlight.reads).toBe(3)
    expect(held).toMatchObject({ fetched: 0, serviceReads: 0 })
    expect(held.deferred).toBeGreaterThan(0)

    // Past the two minutes it asked for, the rest are read and fetched.
    w.advance(61_000)
    const after = await w.pictures.pass({ guids })
    expect(after).toMatchObject({ fetched: 6, serviceReads: 6 })
  })

  it('in the background, for the rest of the catalog, no more than the hourly cap', async () => {
    const w = world({ reads: true })
    itemsWithoutUrls(w, 10)
    const report = await w.pictures.pass({ idle: true, background: true })
    expect(report.serviceReads).toBe(backgroundReadsPerHour)
    expect(report.deferred).toBe(10 - backgroundReadsPerHour)
    w.advance(3600_000)
    expect((await w.pictures.pass({ idle: true, background: true })).serviceReads).toBe(backgroundReadsPerHour)
  })
})
