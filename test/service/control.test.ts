import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startService } from './index'
import type { RunningService } from './types'
import {
  catalogs,
  credentialHeaders,
  get,
  ISO_TIMESTAMP,
  openCustomer,
  orderableItems,
  orderBody,
  post,
  type Json,
} from './helpers'

let service: RunningService
let first: Json
let itemsPath: string

beforeAll(async () => {
  service = await startService({ size: 'tiny', seed: 29 })
  ;({ first } = catalogs(service))
  itemsPath = `/v1/catalog/${first.guid}/catalog_items`
})
afterAll(async () => {
  await service.close()
})

async function cursor(): Promise<string> {
  return (await get(service, `${itemsPath}?limit=1`)).json.serverTimestamp as string
}

async function delta(since: string): Promise<Json[]> {
  return (await get(service, `${itemsPath}?limit=100&lastUpdatedAt=${encodeURIComponent(since)}`)).json
    .catalog_items as Json[]
}

describe('control', () => {
  it('the request log records method, url, route, status, headers, query and body', async () => {
    service.control.clearRequestLog()
    await get(service, `${itemsPath}?limit=3&offset=1`)
    await post(service, '/vendors', { newVendor: { name: 'Logged Lunchroom' } }, { as: 'session' })
    const [listing, create] = service.control.requestLog()
    expect(listing).toMatchObject({
      method: 'GET',
      url: `${itemsPath}?limit=3&offset=1`,
      route: 'GET /v1/catalog/:catalogGuid/catalog_items',
      status: 200,
      query: { limit: '3', offset: '1' },
    })
    expect(listing?.at).toMatch(ISO_TIMESTAMP)
    expect(listing?.headers['x-apikey']).toBe(service.credentials.apiKey)
    expect(listing?.body).toBeUndefined()
    expect(create).toMatchObject({
      method: 'POST',
      route: 'POST /vendors',
      status: 200,
      body: { newVendor: { name: 'Logged Lunchroom' } },
    })
    expect(create?.headers.userguid).toBe(service.credentials.userGuid)
    service.control.clearRequestLog()
    expect(service.control.requestLog()).toEqual([])
  })

  it('logBodies=false keeps bodies out of the request log', async () => {
    const quiet = await startService({ size: 'tiny', logBodies: false })
    try {
      await post(quiet, '/vendors', { newVendor: { name: 'Quiet Cafe' } }, { as: 'session' })
      expect(quiet.control.requestLog()[0]?.body).toBeUndefined()
    } finally {
      await quiet.close()
    }
  })

  it('shiftClock moves serverTimestamp and the updated_at stamps', async () => {
    const before = service.control.now().getTime()
    service.control.shiftClock(2 * 3_600_000)
    expect(service.control.now().getTime() - before).toBeGreaterThanOrEqual(2 * 3_600_000)
    const page = await get(service, `${itemsPath}?limit=1`)
    expect(Date.parse(page.json.serverTimestamp) - Date.now()).toBeGreaterThan(3_599_000)
    const [row] = service.control.catalogItems(first.guid) as Json[]
    const updated = service.control.update('catalogItem', row.guid, { description: 'Shifted' })
    expect(Date.parse(updated.updated_at as string) - Date.now()).toBeGreaterThan(3_599_000)
    service.control.shiftClock(-2 * 3_600_000)
  })

  it('setPrice changes one price group price, stamps updated_at and reaches the delta', async () => {
    const since = await cursor()
    const [row] = orderableItems(service, first.guid)
    service.control.setPrice(row.guid, 'Wholesale', 12.34)
    service.control.setPrice(row.guid, 'Key Account', 'N/A')
    const changed = (await delta(since)).find((candidate) => candidate.guid === row.guid)
    expect(changed.pricing.Wholesale).toBe(12.34)
    expect(changed.pricing['Key Account']).toBe('N/A')
    expect(changed.pricing.Retail).toBe(row.pricing.Retail)
    expect(() => service.control.setPrice(row.guid, 'No Such Group', 1)).toThrow()
  })

  it('update, softDelete and deactivate stamp updated_at and reach the API', async () => {
    const since = await cursor()
    const [a, b, c] = orderableItems(service, first.guid).slice(10) as Json[]
    const updated = service.control.update('catalogItem', a.guid, { name: 'Renamed Widget', brand_new_field: 'kept' })
    expect(updated.name).toBe('Renamed Widget')
    service.control.softDelete('catalogItem', b.guid)
    service.control.deactivate('catalogItem', c.guid)
    const rows = await delta(since)
    expect(rows.find((row) => row.guid === a.guid)?.name).toBe('Renamed Widget')
    expect(rows.find((row) => row.guid === b.guid)?.deleted_at).toMatch(ISO_TIMESTAMP)
    expect(rows.find((row) => row.guid === c.guid)?.active).toBe(false)
    const session = (await get(service, `${itemsPath}/${a.guid}`, { as: 'session' })).json.catalog_item
    expect(session.brand_new_field).toBe('kept')
    expect(() => service.control.update('catalogItem', a.guid, { id: 1 })).toThrow()
  })

  it('customers can be updated, deactivated and soft-deleted through control', async () => {
    const customer = openCustomer(service, 5)
    service.control.deactivate('customer', customer.guid)
    expect((await get(service, `/v1/vendors/${customer.guid}`)).json.active).toBe(false)
    service.control.update('customer', customer.guid, { Ship_To: { city: 'Walla Walla' } })
    expect((await get(service, `/v1/vendors/${customer.guid}`)).json.Ship_To.city).toBe('Walla Walla')
    service.control.softDelete('customer', customer.guid)
    expect((await get(service, `/v1/vendors/${customer.guid}`)).status).toBe(404)
  })

  it('insertCatalogItem and insertCustomer add rows the listings serve', async () => {
    const since = await cursor()
    const inserted = service.control.insertCatalogItem(first.guid, { name: 'Inserted Coffee Filter, 500/Case' })
    expect(inserted.name).toBe('Inserted Coffee Filter, 500/Case')
    expect((await delta(since)).map((row) => row.guid)).toContain(inserted.guid)
    expect((await get(service, `${itemsPath}/${inserted.guid}`)).status).toBe(200)
    const customer = service.control.insertCustomer({ name: 'Inserted Inn', email: 'front@insertedinn.example' })
    const found = await get(service, `/vendors?name=${encodeURIComponent('Inserted Inn')}`)
    expect((found.json.vendors as Json[]).map((row) => row.Vendor.guid)).toEqual([customer.guid])
    expect((await get(service, `/v1/vendors/${customer.guid}`)).json.email).toBe('front@insertedinn.example')
  })

  it('renaming a price group renames the pricing key on its items', async () => {
    const since = await cursor()
    const group = (service.control.priceGroups(first.guid) as Json[]).find(
      (candidate) => candidate.value === 'Distributor',
    )
    service.control.update('priceGroup', group.guid, { value: 'Distributor Plus' })
    const groups = (await get(service, `/v1/catalog/${first.guid}/price_groups`)).json.priceGroups as Json[]
    expect(groups.map((candidate) => candidate.name)).toContain('Distributor Plus')
    const rows = await delta(since)
    expect(rows.length).toBeGreaterThan(50)
    for (const row of rows.filter((candidate) => candidate.deleted_at === null)) {
      expect(row.pricing).toHaveProperty('Distributor Plus')
      expect(row.pricing).not.toHaveProperty('Distributor')
    }
  })

  it('a category change re-stamps the items carrying it, and only those', async () => {
    const categories = service.control.categories(first.guid) as Json[]
    const category = categories.find((candidate) => candidate.parent_category_id === 0)
    const branch = new Set([
      category.id,
      ...categories
        .filter((candidate) => candidate.parent_category_id === category.id)
        .map((candidate) => candidate.id),
    ])
    const before = new Map(
      service.control.catalogItems(first.guid).map((row) => [row.guid as string, row.updated_at as string]),
    )
    service.control.update('category', category.guid, { name: 'Beverages & Coffee Service' })
    const after = service.control.catalogItems(first.guid) as Json[]
    const changed = after.filter((row) => before.get(row.guid) !== row.updated_at)
    expect(changed.length).toBeGreaterThan(0)
    expect(changed.map((row) => row.guid).sort()).toEqual(
      after
        .filter((row) => branch.has(row.category_id))
        .map((row) => row.guid)
        .sort(),
    )
    const live = changed.find((row) => row.deleted_at === null)
    const served = (await get(service, `${itemsPath}/${live.guid}`)).json.catalog_item
    expect(served.CategoryHierarchy[0].name).toBe('Beverages & Coffee Service')
  })

  it('ordersByApiGuid reads back every order created with an api_guid', async () => {
    const [row] = orderableItems(service, first.guid)
    const body = orderBody(first, [{ item: row, qty: 1 }])
    await post(service, '/v1/orderWithItems', body, { headers: { vendorGuid: openCustomer(service).guid } })
    const found = service.control.ordersByApiGuid(body.order.api_guid)
    expect(found).toHaveLength(1)
    expect(found[0]?.api_guid).toBe(body.order.api_guid)
    expect(service.control.ordersByApiGuid('never-used')).toEqual([])
  })

  it('snapshots include deleted rows and use the service field names', () => {
    const groups = service.control.priceGroups(first.guid) as Json[]
    expect(groups.some((group) => group.deleted_at !== null)).toBe(true)
    expect(groups[0]).toHaveProperty('value')
    expect(service.control.categories(first.guid)[0]).toHaveProperty('parent_category_id')
    expect(service.control.customers()[0]).toHaveProperty('Bill_To')
    expect(service.control.orders()[0]).toHaveProperty('Order_Items')
    expect(service.control.catalogs()[0]).toHaveProperty('Price_Groups')
  })
})

describe('reset', () => {
  it('gives back the data, clock, faults and log the double started with, and drops a request held across it', async () => {
    const own = await startService({ size: 'tiny', seed: 31 })
    try {
      const { first: catalog } = catalogs(own)
      const before = { customers: own.control.customers(), orders: own.control.orders(), now: own.control.now() }
      const made = own.control.insertCustomer()
      const [row] = orderableItems(own, catalog.guid)
      const customer = openCustomer(own)
      const order = await post(own, '/v1/orderWithItems', orderBody(catalog, [{ item: row, qty: 1 }]), {
        headers: { vendorGuid: customer.guid },
      })
      expect(order.status).toBe(200)
      own.control.update('customer', customer.guid, { name: 'Renamed Before The Reset' })
      own.control.shiftClock(86_400_000)
      own.control.addFault({ route: 'GET /v1/catalogs', type: 'status', status: 503 })
      // A write held by latency when the reset comes must not land in the fresh data.
      own.control.addFault({ route: 'POST /v1/orderWithItems', type: 'latency', ms: 400 })
      const held = post(own, '/v1/orderWithItems', orderBody(catalog, [{ item: row, qty: 2 }]), {
        headers: { vendorGuid: customer.guid },
      }).catch((error: unknown) => error)
      await new Promise((resolve) => setTimeout(resolve, 100))

      own.control.reset()

      expect(await held).toBeInstanceOf(Error)
      await new Promise((resolve) => setTimeout(resolve, 500))
      expect(own.control.customers()).toEqual(before.customers)
      expect(own.control.orders()).toEqual(before.orders)
      expect(Math.abs(own.control.now().getTime() - before.now.getTime())).toBeLessThan(60_000)
      expect(own.control.requestLog()).toEqual([])
      expect((await get(own, '/v1/catalogs')).status).toBe(200)
      // Its runtime stream and name counts start over too: the first customer made after a reset is
      // the first one made after the start.
      const again = own.control.insertCustomer()
      expect([again.guid, again.name]).toEqual([made.guid, made.name])
    } finally {
      await own.close()
    }
  })
})

describe('HTTP control surface', () => {
  it('is served under /__control only when started with httpControl', async () => {
    expect((await get(service, '/__control/now')).status).toBe(404)
    const controlled = await startService({ size: 'tiny', httpControl: true })
    try {
      const call = async (method: string, body?: unknown): Promise<Json> => {
        const response = await fetch(`${controlled.url}/__control${method ? `/${method}` : ''}`, {
          method: body === undefined ? 'GET' : 'POST',
          headers: body === undefined ? {} : { 'content-type': 'application/json' },
          body: body === undefined ? undefined : JSON.stringify(body),
        })
        return { status: response.status, json: await response.json() }
      }
      const index = await call('')
      expect(Object.keys(index.json.methods)).toContain('addFault')
      const now = await call('now')
      expect(now.json.result).toMatch(ISO_TIMESTAMP)
      await call('shiftClock', { ms: 60_000 })
      // Read before asking, so the check needs no slack for how long the answer takes.
      const asked = Date.now()
      expect(Date.parse((await call('now')).json.result) - asked).toBeGreaterThanOrEqual(60_000)
      const [catalog] = (await call('catalogs')).json.result as Json[]
      const items = (await call(`catalogItems?catalogGuid=${catalog.guid}`)).json.result as Json[]
      await call('setPrice', { catalogItemGuid: items[0].guid, priceGroupName: 'Retail', price: 1.99 })
      const fault = await call('addFault', {
        rule: { route: 'GET /v1/catalogs', type: 'status', status: 503, times: 1 },
      })
      expect(fault.json.result).toMatch(/^fault-/)
      const response = await fetch(`${controlled.url}/v1/catalogs`, {
        headers: credentialHeaders(controlled, 'apiKey'),
      })
      expect(response.status).toBe(503)
      const log = (await call('requestLog')).json.result as Json[]
      expect(log.map((entry) => entry.route)).toEqual(['GET /v1/catalogs'])
      expect((await call('update', { kind: 'catalogItem', guid: 'nope', patch: {} })).status).toBe(400)
      expect((await call('shiftClock')).status).toBe(405)
      expect((await call('noSuchMethod')).status).toBe(404)
    } finally {
      await controlled.close()
    }
  })
})
