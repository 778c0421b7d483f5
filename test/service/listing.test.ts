import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startService } from './index'
import type { RunningService } from './types'
import { catalogs, get, ISO_TIMESTAMP, type Json } from './helpers'

let service: RunningService
let catalogGuid: string
let itemsPath: string

beforeAll(async () => {
  service = await startService({ size: 'tiny', seed: 11 })
  catalogGuid = catalogs(service).first.guid
  itemsPath = `/v1/catalog/${catalogGuid}/catalog_items`
})
afterAll(async () => {
  await service.close()
})

function sqlTimestamp(date: Date): string {
  return date.toISOString().replace('T', ' ').slice(0, 19)
}

function guids(reply: Json, key = 'catalog_items'): string[] {
  return (reply.json[key] as Json[]).map((row) => row.guid)
}

describe('paging', () => {
  it('limit defaults to 25 and is capped at 100', async () => {
    expect((await get(service, itemsPath)).json.catalog_items).toHaveLength(25)
    expect((await get(service, `${itemsPath}?limit=500`)).json.catalog_items).toHaveLength(100)
    expect((await get(service, '/vendors')).json.vendors).toHaveLength(25)
    expect((await get(service, '/vendors?limit=101')).json.vendors.length).toBeLessThanOrEqual(100)
  })

  it('offset is a page number: rows skipped = offset * limit', async () => {
    const wide = await get(service, `${itemsPath}?limit=30&offset=0`)
    const second = await get(service, `${itemsPath}?limit=10&offset=1`)
    const third = await get(service, `${itemsPath}?limit=10&offset=2`)
    expect(guids(second)).toEqual(guids(wide).slice(10, 20))
    expect(guids(third)).toEqual(guids(wide).slice(20, 30))
  })

  it('a malformed limit or offset gives 400', async () => {
    for (const query of ['limit=abc', 'limit=0', 'limit=-5', 'offset=-1', 'offset=1.5']) {
      const reply = await get(service, `${itemsPath}?${query}`)
      expect(reply.status, query).toBe(400)
      expect(reply.json.code).toBe('INVALID_PARAMETER')
    }
  })

  it('hasMoreItems is true until the last page and totalCatalogItems counts the listing', async () => {
    const first = await get(service, `${itemsPath}?limit=100&offset=0`)
    const total = first.json.totalCatalogItems as number
    expect(total).toBeGreaterThan(100)
    expect(first.json.hasMoreItems).toBe(true)
    const lastPage = Math.ceil(total / 100) - 1
    const last = await get(service, `${itemsPath}?limit=100&offset=${lastPage}`)
    expect(last.json.hasMoreItems).toBe(false)
    expect(last.json.catalog_items).toHaveLength(total - lastPage * 100)
    const beyond = await get(service, `${itemsPath}?limit=100&offset=${lastPage + 1}`)
    expect(beyond.json.catalog_items).toEqual([])
    expect(beyond.json.hasMoreItems).toBe(false)
  })

  it('skipTotalCount=true makes totalCatalogItems 0', async () => {
    const reply = await get(service, `${itemsPath}?skipTotalCount=true&limit=10`)
    expect(reply.json.totalCatalogItems).toBe(0)
    expect(reply.json.hasMoreItems).toBe(true)
    expect(reply.json.catalog_items).toHaveLength(10)
  })

  it('boolean-like query parameters accept only true or false', async () => {
    expect((await get(service, `${itemsPath}?skipTotalCount=yes`)).status).toBe(400)
    expect((await get(service, `${itemsPath}?skipTotalCount=false`)).status).toBe(200)
  })
})

describe('delta sync', () => {
  it('every list page carries serverTimestamp, the double clock at the time of the request', async () => {
    const before = service.control.now().getTime()
    const replies = [
      await get(service, itemsPath),
      await get(service, '/vendors'),
      await get(service, '/v1/orders'),
      await get(service, '/v1/orders/list'),
    ]
    const after = service.control.now().getTime()
    for (const reply of replies) {
      expect(reply.json.serverTimestamp).toMatch(ISO_TIMESTAMP)
      const at = Date.parse(reply.json.serverTimestamp)
      expect(at).toBeGreaterThanOrEqual(before)
      expect(at).toBeLessThanOrEqual(after)
    }
  })

  it('lastUpdatedAt returns rows updated since the cursor minus a 60-second overlap', async () => {
    const cursor = Date.parse((await get(service, `${itemsPath}?limit=1`)).json.serverTimestamp)
    const items = service.control.catalogItems(catalogGuid).filter((item) => item.deleted_at === null)
    const [inOverlap, beforeOverlap, after] = [items[3], items[4], items[5]] as Json[]
    service.control.update('catalogItem', inOverlap.guid, { updated_at: new Date(cursor - 30_000).toISOString() })
    service.control.update('catalogItem', beforeOverlap.guid, { updated_at: new Date(cursor - 90_000).toISOString() })
    service.control.update('catalogItem', after.guid, { updated_at: new Date(cursor + 1_000).toISOString() })
    const delta = await get(
      service,
      `${itemsPath}?limit=100&lastUpdatedAt=${encodeURIComponent(new Date(cursor).toISOString())}`,
    )
    expect(delta.status).toBe(200)
    const seen = guids(delta)
    expect(seen).toContain(inOverlap.guid)
    expect(seen).toContain(after.guid)
    expect(seen).not.toContain(beforeOverlap.guid)
    expect(delta.json.totalCatalogItems).toBe(seen.length)
  })

  it('lastUpdatedAt accepts ISO 8601 with an offset', async () => {
    const cursor = new Date((await get(service, `${itemsPath}?limit=1`)).json.serverTimestamp)
    const [item] = service.control
      .catalogItems(catalogGuid)
      .filter((row) => row.deleted_at === null)
      .slice(10) as Json[]
    service.control.update('catalogItem', item.guid, { updated_at: new Date(cursor.getTime() + 5_000).toISOString() })
    // The same instant, written as 02:00 ahead of UTC.
    const shifted = new Date(cursor.getTime() + 2 * 3_600_000).toISOString().slice(0, 19) + '+02:00'
    const delta = await get(service, `${itemsPath}?lastUpdatedAt=${encodeURIComponent(shifted)}`)
    expect(delta.status).toBe(200)
    expect(guids(delta)).toContain(item.guid)
  })

  it('lastUpdatedAt accepts YYYY-MM-DD HH:mm:ss as UTC', async () => {
    const now = service.control.now()
    const [item] = service.control
      .catalogItems(catalogGuid)
      .filter((row) => row.deleted_at === null)
      .slice(20) as Json[]
    service.control.update('catalogItem', item.guid, {})
    const sameInstant = await get(
      service,
      `${itemsPath}?limit=100&lastUpdatedAt=${encodeURIComponent(sqlTimestamp(now))}`,
    )
    expect(sameInstant.status).toBe(200)
    expect(guids(sameInstant)).toContain(item.guid)
    // Read as local time in any zone west of UTC, a cursor one hour ahead would still include it; as UTC it must not.
    const hourAhead = await get(
      service,
      `${itemsPath}?limit=100&lastUpdatedAt=${encodeURIComponent(sqlTimestamp(new Date(now.getTime() + 3_600_000)))}`,
    )
    expect(guids(hourAhead)).not.toContain(item.guid)
  })

  it('an unparsable lastUpdatedAt gives 400 with code INVALID_DELTA_CURSOR', async () => {
    for (const path of [itemsPath, `/v1/${catalogGuid}/catalogItems`, '/vendors', '/v1/orders']) {
      for (const bad of ['yesterday', '2026-13-01T00:00:00Z', '2026-02-30 10:00:00', '1700000000']) {
        const reply = await get(service, `${path}?lastUpdatedAt=${encodeURIComponent(bad)}`)
        expect(reply.status, `${path} ${bad}`).toBe(400)
        expect(reply.json.code).toBe('INVALID_DELTA_CURSOR')
      }
    }
  })

  it('soft-deleted rows carry deleted_at in delta listings and are left out of full listings', async () => {
    const cursor = (await get(service, `${itemsPath}?limit=1`)).json.serverTimestamp as string
    const [victim] = service.control
      .catalogItems(catalogGuid)
      .filter((row) => row.deleted_at === null)
      .slice(30) as Json[]
    service.control.softDelete('catalogItem', victim.guid)
    const delta = await get(service, `${itemsPath}?limit=100&lastUpdatedAt=${encodeURIComponent(cursor)}`)
    const row = (delta.json.catalog_items as Json[]).find((candidate) => candidate.guid === victim.guid)
    expect(row?.deleted_at).toMatch(ISO_TIMESTAMP)
    const all: string[] = []
    for (let offset = 0; ; offset++) {
      const reply = await get(service, `${itemsPath}?limit=100&offset=${offset}`)
      all.push(...guids(reply))
      if (!reply.json.hasMoreItems) break
    }
    expect(all).not.toContain(victim.guid)
  })

  it('serverTimestamp is a valid cursor and a quiet delta is empty', async () => {
    const first = await get(service, '/vendors?limit=5')
    service.control.shiftClock(5 * 60_000)
    const delta = await get(service, `/vendors?lastUpdatedAt=${encodeURIComponent(first.json.serverTimestamp)}`)
    expect(delta.status).toBe(200)
    expect(delta.json.vendors).toEqual([])
    expect(delta.json.total).toBe(0)
  })

  it('customer changes reach the /vendors delta with deleted_at on deleted customers', async () => {
    const cursor = (await get(service, '/vendors?limit=1')).json.serverTimestamp as string
    const [renamed, removed] = service.control
      .customers()
      .filter((row) => row.deleted_at === null)
      .slice(2) as Json[]
    service.control.update('customer', renamed.guid, { name: 'Renamed Diner' })
    service.control.softDelete('customer', removed.guid)
    const delta = await get(service, `/vendors?lastUpdatedAt=${encodeURIComponent(cursor)}`)
    const rows = delta.json.vendors as Json[]
    expect(rows.find((row) => row.Vendor.guid === renamed.guid)?.Vendor.name).toBe('Renamed Diner')
    const deleted = rows.find((row) => row.Vendor.guid === removed.guid)
    expect(deleted?.deleted_at).toMatch(ISO_TIMESTAMP)
    expect(deleted?.Vendor.deleted_at).toMatch(ISO_TIMESTAMP)
  })
})
