/**
 * The picture pass against the double's image host, on a local copy written by hand: listing
 * addresses resolved against the service, the budget held with protected pictures kept, a changed
 * address replacing the picture, a deleted item's pictures freed, refusals backing off.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { closeDatabase, openDatabase, type Database } from '../../src/main/db/database'
import { openItemPictures, type OpenedPictures, type PictureTier } from '../../src/main/pictures'
import { LocalCopy } from '../../src/main/local/copy'
import { Retention } from '../../src/main/local/retention'
import { silentLogger } from '../../src/main/ports'
import { startService } from '../service/index'
import { imagePath } from '../service/images'
import type { RunningService } from '../service/types'
import { catalogItem } from '../support/builders'
import { openLocalData } from '../../src/main/local/data'

let service: RunningService
const folders: string[] = []
const opened: { db: Database; pictures: OpenedPictures }[] = []

beforeAll(async () => {
  service = await startService({ size: 'tiny', seed: 5 })
})
afterAll(async () => {
  await service.close()
})
afterEach(async () => {
  for (const each of opened.splice(0)) {
    await each.pictures.close()
    closeDatabase(each.db)
  }
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true })
})

interface Setup {
  items: number
  budgetBytes?: number
  wanted?: { tier: PictureTier; guids: string[] }[]
}

function setup({ items, budgetBytes = 1 << 30, wanted = [] }: Setup) {
  const budget = { bytes: budgetBytes }
  const folder = mkdtempSync(join(tmpdir(), 'satchel-pictures-'))
  folders.push(folder)
  const databasePath = join(folder, 'main.db')
  const db = openDatabase(databasePath)
  const copy = new LocalCopy(db, new Retention(db))
  const write = (records: ReturnType<typeof catalogItem>[]) =>
    copy.applyCatalogItems('cat-a', records, { listingId: null, serverTime: null })
  write(Array.from({ length: items }, (_, n) => catalogItem(n + 1, { image_url: imagePath(`SKU-${n + 1}`) })))
  let tick = 1_000_000
  const pictures = openItemPictures({
    sources: openLocalData(db).pictureSources,
    databasePath,
    serviceOrigin: () => service.url,
    service: null,
    demand: { wanted: () => wanted },
    budgetMB: () => 1024,
    budgetBytes: () => budget.bytes,
    logger: silentLogger,
    now: () => ++tick,
    parallel: 1,
  })
  opened.push({ db, pictures })
  return {
    ...pictures,
    write,
    folder,
    budget,
    advance: (ms: number) => (tick += ms),
    has: (n: number) => pictures.cache.get(`item-${n}`)?.thumb != null,
  }
}

describe('the picture pass', () => {
  it('fetches the listing’s relative addresses from the service’s origin, thumbnail and panel for each', async () => {
    const world = setup({ items: 5 })
    service.control.clearImageFigures()
    const report = await world.pictures.pass({ idle: true })
    expect(report).toMatchObject({ fetched: 5, failed: 0, serviceReads: 0 })
    expect([1, 2, 3, 4, 5].every(world.has)).toBe(true)
    expect(world.cache.read('item-1', 'thumb', 0)?.subarray(8, 12).toString('latin1')).toBe('WEBP')
    expect(service.control.imageFigures().requests).toBe(5)
    // A second pass finds them current: no request at all.
    expect(await world.pictures.pass({ idle: true })).toMatchObject({ fetched: 0, current: 5 })
    expect(service.control.imageFigures().requests).toBe(5)
  })

  it('holds the budget: the oldest unprotected pictures go, the protected stay', async () => {
    const world = setup({ items: 10, wanted: [{ tier: 'orders', guids: ['item-1', 'item-2'] }] })
    const all = Array.from({ length: 10 }, (_, n) => n + 1)
    await world.pictures.pass({ guids: all.map((n) => `item-${n}`) })
    expect(all.filter(world.has)).toEqual(all)
    const bytesOf = (ns: number[]) => ns.reduce((sum, n) => sum + world.cache.get(`item-${n}`)!.bytes, 0)
    // Room for four: 1 and 2 were fetched first (the oldest) but are protected; of the rest, the newest two stay.
    world.budget.bytes = bytesOf([1, 2, 9, 10])
    expect(await world.pictures.pass({ guids: [] })).toMatchObject({ evicted: 6 })
    expect(all.filter(world.has)).toEqual([1, 2, 9, 10])
    expect(world.cache.totals().bytes).toBeLessThanOrEqual(world.budget.bytes)
    // A budget below what the protected need: they stay, over budget; everything else goes.
    world.budget.bytes = 1
    await world.pictures.pass({ guids: [] })
    expect(all.filter(world.has)).toEqual([1, 2])
  })

  it('at its budget, an idle pass fetches only what fits: nothing is fetched to be evicted at once, pass after pass', async () => {
    const world = setup({ items: 60 })
    // One picture's bytes, to size a budget that holds about twenty of them.
    await world.pictures.pass({ guids: ['item-1'] })
    const one = world.cache.totals().bytes
    world.budget.bytes = Math.round(one * 20.5)
    service.control.clearImageFigures()
    const first = await world.pictures.pass({ idle: true })
    expect(world.cache.totals().bytes).toBeLessThanOrEqual(world.budget.bytes)
    // The first pass fills the cache to its budget, less a margin of a few pictures, and evicts none.
    expect(first.evicted).toBe(0)
    const { bytes, largest } = world.cache.totals()
    expect(bytes).toBeGreaterThan(world.budget.bytes - 4 * largest)
    const requests = service.control.imageFigures().requests
    for (let pass = 0; pass < 3; pass++) {
      const later = await world.pictures.pass({ idle: true })
      expect({ pass, fetched: later.fetched, evicted: later.evicted }).toEqual({ pass, fetched: 0, evicted: 0 })
    }
    expect(service.control.imageFigures().requests).toBe(requests)
  })

  it('replaces the picture when the address changes, and frees a deleted item’s at the idle pass', async () => {
    const world = setup({ items: 3 })
    await world.pictures.pass({ idle: true })
    const before = world.cache.get('item-1')!
    world.write([
      catalogItem(1, { image_url: imagePath('SKU-2'), updated_at: '2026-02-01T00:00:00.000Z' }),
      catalogItem(3, { image_url: imagePath('SKU-3'), deleted_at: '2026-02-01T00:00:00.000Z' }),
    ])
    const report = await world.pictures.pass({ idle: true })
    expect(report).toMatchObject({ fetched: 1, freed: 1 })
    const after = world.cache.get('item-1')!
    expect(after.sourceUrl).toBe(`${service.url}${imagePath('SKU-2')}`)
    // The same picture as item 2's: content-addressed, so one file serves both.
    expect(after.thumb).toBe(world.cache.get('item-2')!.thumb)
    expect(after.thumb).not.toBe(before.thumb)
    expect(world.cache.get('item-3')).toBeUndefined()
  })

  it('refuses a web page, a non-image and a 50 MB body, caches none, and backs off before asking again', async () => {
    const world = setup({ items: 0 })
    const catalog = String(service.control.catalogs()[0]!.guid)
    const [html, text, huge] = service.control.catalogItems(catalog).slice(0, 3) as { guid: string; sku: string }[]
    service.control.imageFault(html!.guid, 'html')
    service.control.imageFault(text!.guid, 'not-an-image')
    service.control.imageFault(huge!.guid, 'huge')
    try {
      world.write([html!, text!, huge!].map((item, n) => catalogItem(n + 1, { image_url: imagePath(item.sku) })))
      service.control.clearImageFigures()
      const report = await world.pictures.pass({ guids: ['item-1', 'item-2', 'item-3'] })
      expect(report).toMatchObject({ fetched: 0, failed: 3 })
      expect(world.cache.totals()).toMatchObject({ cached: 0, bytes: 0, failed: 3 })
      expect(world.fetcher.figures.bytes).toBeLessThan(11 * 1024 * 1024)
      expect(world.cache.get('item-1')?.lastError).toMatch(/web page/)
      expect(world.cache.get('item-3')?.lastError).toMatch(/ceiling/)

      // Asked again at once: each waits out its back-off, and the host hears nothing.
      const requests = service.control.imageFigures().requests
      expect(await world.pictures.pass({ guids: ['item-1', 'item-2', 'item-3'] })).toMatchObject({ backingOff: 3 })
      expect(service.control.imageFigures().requests).toBe(requests)

      // After the back-off (a minute after the first failure), asked again; refused again, twice as long.
      world.advance(61_000)
      expect(await world.pictures.pass({ guids: ['item-1', 'item-2', 'item-3'] })).toMatchObject({ failed: 3 })
      expect(world.cache.get('item-2')).toMatchObject({ failures: 2 })
      world.advance(61_000)
      expect(await world.pictures.pass({ guids: ['item-2'] })).toMatchObject({ backingOff: 1 })
    } finally {
      for (const item of [html!, text!, huge!]) service.control.imageFault(item.guid, null)
    }
    expect(existsSync(join(world.folder, 'main.images', 'index.db'))).toBe(true)
  })
})
