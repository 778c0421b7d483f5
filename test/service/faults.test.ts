import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { request } from 'undici'
import { startService } from './index'
import type { RunningService } from './types'
import { catalogs, credentialHeaders, get, openCustomer, orderableItems, orderBody, post, type Json } from './helpers'

let service: RunningService
let catalogGuid: string
let itemsPath: string
const ITEMS_ROUTE = 'GET /v1/catalog/:catalogGuid/catalog_items'

beforeAll(async () => {
  service = await startService({ size: 'tiny', seed: 23 })
  catalogGuid = catalogs(service).first.guid
  itemsPath = `/v1/catalog/${catalogGuid}/catalog_items`
})
afterEach(() => {
  service.control.clearFaults()
})
afterAll(async () => {
  await service.close()
})

/** Polls every few ms until `condition` holds; the 10 s are a hang guard, not a figure. */
async function until(condition: () => boolean): Promise<void> {
  await expect.poll(condition, { timeout: 10_000, interval: 5 }).toBe(true)
}

/** undici.request surfaces a dropped connection as a rejected promise, without fetch's retries. */
async function raw(
  path: string,
  init: { method?: 'GET' | 'POST'; body?: unknown; headers?: Record<string, string> } = {},
): Promise<{ status: number; body: string; headers: Record<string, unknown> }> {
  const response = await request(service.url + path, {
    method: init.method ?? 'GET',
    headers: {
      ...credentialHeaders(service, 'apiKey'),
      ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...init.headers,
    },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
    reset: true,
  })
  return { status: response.statusCode, body: await response.body.text(), headers: response.headers }
}

describe('faults', () => {
  it('latency delays the matching route only', async () => {
    // A latency well above what a busy CI machine adds to an unfaulted request, so the two answer in order.
    service.control.addFault({ route: ITEMS_ROUTE, type: 'latency', ms: 1_500 })
    const answered: string[] = []
    const delayed = get(service, itemsPath).then((reply) => (answered.push('items'), reply))
    // Asked second, answered first: only the faulted route waits.
    await until(() => service.control.requestLog().some((entry) => entry.route === ITEMS_ROUTE))
    const plain = get(service, '/v1/catalogs').then((reply) => (answered.push('catalogs'), reply))
    expect((await delayed).status).toBe(200)
    expect((await plain).status).toBe(200)
    expect(answered).toEqual(['catalogs', 'items'])
  })

  it("latency with phase 'reply' holds the answer after the handler has committed", async () => {
    service.control.addFault({ route: 'POST /v1/orderWithItems', type: 'latency', ms: 1_500, phase: 'reply', times: 1 })
    const { first } = catalogs(service)
    const [row] = orderableItems(service, first.guid)
    const body = orderBody(first, [{ item: row, qty: 1 }])
    let answered = false
    const pending = post(service, '/v1/orderWithItems', body, {
      headers: { vendorGuid: openCustomer(service).guid },
    }).finally(() => (answered = true))
    // Committed first, answered later: the order is there while the reply is still held back.
    await until(() => service.control.ordersByApiGuid(body.order.api_guid).length > 0)
    expect(answered).toBe(false)
    expect(service.control.ordersByApiGuid(body.order.api_guid)).toHaveLength(1)
    const reply = await pending
    expect(reply.status).toBe(200)
    expect(() => service.control.addFault({ route: '*', type: 'latency', ms: 1, phase: 'later' as 'reply' })).toThrow(
      /phase/,
    )
  })

  it('status faults answer with any code, body, content type and headers', async () => {
    service.control.addFault({ route: ITEMS_ROUTE, type: 'status', status: 503, times: 1 })
    const plain = await get(service, itemsPath)
    expect(plain.status).toBe(503)
    expect(plain.json).toEqual({ message: 'Injected fault: HTTP 503', code: 'INJECTED_FAULT' })
    service.control.addFault({
      route: ITEMS_ROUTE,
      type: 'status',
      status: 502,
      body: '<html>Bad Gateway</html>',
      contentType: 'text/html',
      headers: { 'x-proxy': 'edge-1' },
      times: 1,
    })
    const html = await get(service, itemsPath)
    expect(html.status).toBe(502)
    expect(html.headers.get('content-type')).toMatch(/^text\/html/)
    expect(html.headers.get('x-proxy')).toBe('edge-1')
    expect(html.text).toBe('<html>Bad Gateway</html>')
    service.control.addFault({
      route: ITEMS_ROUTE,
      type: 'status',
      status: 500,
      body: { message: 'boom', error: 'db down' },
      times: 1,
    })
    expect((await get(service, itemsPath)).json).toEqual({ message: 'boom', error: 'db down' })
    expect((await get(service, itemsPath)).status).toBe(200)
  })

  it('status with echoHeaders quotes the request headers as sent, in the spelling asked for', async () => {
    const { apiKey, apiSecret } = service.credentials
    service.control.addFault({ route: ITEMS_ROUTE, type: 'status', status: 502, echoHeaders: 'space', times: 1 })
    const spaced = await raw(itemsPath)
    expect(spaced.status).toBe(502)
    expect(spaced.headers['content-type']).toMatch(/^text\/plain/)
    expect(spaced.body).toContain(`x-apiKey ${apiKey} x-apiSecret ${apiSecret}`)
    service.control.addFault({
      route: ITEMS_ROUTE,
      type: 'status',
      status: 502,
      echoHeaders: 'colon',
      body: 'Bad Gateway',
      times: 1,
    })
    const colon = await raw(itemsPath)
    expect(colon.body.split('\n')).toEqual(expect.arrayContaining(['Bad Gateway', `x-apiSecret: ${apiSecret}`]))
    service.control.addFault({ route: ITEMS_ROUTE, type: 'status', status: 502, echoHeaders: 'equals', times: 1 })
    expect((await raw(itemsPath)).body).toContain(`x-apiSecret=${apiSecret}`)
    expect(() =>
      service.control.addFault({ route: ITEMS_ROUTE, type: 'status', status: 502, echoHeaders: 'tabs' as 'space' }),
    ).toThrow(/echoHeaders/)
    expect(() =>
      service.control.addFault({
        route: ITEMS_ROUTE,
        type: 'status',
        status: 502,
        echoHeaders: 'space',
        body: { message: 'x' },
      }),
    ).toThrow(/text body/)
  })

  it('rateLimit answers 429 with Retry-After', async () => {
    service.control.addFault({ route: '*', type: 'rateLimit', retryAfterSeconds: 7, times: 1 })
    const reply = await get(service, '/vendors')
    expect(reply.status).toBe(429)
    expect(reply.headers.get('retry-after')).toBe('7')
    expect(reply.json.code).toBe('RATE_LIMITED')
    expect((await get(service, '/vendors')).status).toBe(200)
  })

  it('destroySocket drops the connection before any response, and nothing is committed', async () => {
    service.control.addFault({ route: 'POST /v1/orderWithItems', type: 'destroySocket', times: 1 })
    const { first } = catalogs(service)
    const [row] = orderableItems(service, first.guid)
    const body = orderBody(first, [{ item: row, qty: 1 }])
    await expect(
      raw('/v1/orderWithItems', { method: 'POST', body, headers: { vendorGuid: openCustomer(service).guid } }),
    ).rejects.toThrow()
    expect(service.control.ordersByApiGuid(body.order.api_guid)).toHaveLength(0)
    const [entry] = service.control
      .requestLog()
      .filter((logged) => logged.route === 'POST /v1/orderWithItems')
      .slice(-1)
    expect(entry?.status).toBe(0)
  })

  it('commitThenDrop commits the order, drops the socket, and the retry returns the same order', async () => {
    service.control.addFault({ route: 'POST /v1/orderWithItems', type: 'commitThenDrop', times: 1 })
    const { first } = catalogs(service)
    const [row] = orderableItems(service, first.guid)
    const customer = openCustomer(service)
    const body = orderBody(first, [{ item: row, qty: 1 }])
    await expect(
      raw('/v1/orderWithItems', { method: 'POST', body, headers: { vendorGuid: customer.guid } }),
    ).rejects.toThrow()
    const committed = service.control.ordersByApiGuid(body.order.api_guid)
    expect(committed).toHaveLength(1)
    const retry = await raw('/v1/orderWithItems', { method: 'POST', body, headers: { vendorGuid: customer.guid } })
    expect(retry.status).toBe(200)
    expect((JSON.parse(retry.body) as Json).order.guid).toBe(committed[0]?.guid)
    expect(service.control.ordersByApiGuid(body.order.api_guid)).toHaveLength(1)
  })

  it('skip and times choose which matching requests get the fault', async () => {
    service.control.addFault({ route: ITEMS_ROUTE, type: 'status', status: 500, skip: 2, times: 2 })
    const statuses: number[] = []
    for (let i = 0; i < 6; i++) statuses.push((await get(service, `${itemsPath}?limit=1`)).status)
    expect(statuses).toEqual([200, 200, 500, 500, 200, 200])
  })

  it("'*' matches every route, and removeFault / clearFaults retire rules", async () => {
    const id = service.control.addFault({ route: '*', type: 'status', status: 418 })
    expect((await get(service, '/v1/catalogs')).status).toBe(418)
    expect((await get(service, '/v1/orders')).status).toBe(418)
    service.control.removeFault(id)
    expect((await get(service, '/v1/catalogs')).status).toBe(200)
    service.control.addFault({ route: '*', type: 'status', status: 418 })
    service.control.clearFaults()
    expect((await get(service, '/v1/catalogs')).status).toBe(200)
  })

  it('a fault rule naming an unknown route is rejected', () => {
    expect(() => service.control.addFault({ route: 'GET /v1/catalog/:guid/items', type: 'latency', ms: 1 })).toThrow(
      /unknown route/,
    )
  })

  it('drift inserts rows into the listed set between page requests', async () => {
    service.control.addFault({ route: ITEMS_ROUTE, type: 'drift', insert: 3, times: 1 })
    const firstPage = await get(service, `${itemsPath}?limit=50&offset=0`)
    const secondPage = await get(service, `${itemsPath}?limit=50&offset=1`)
    expect(secondPage.json.totalCatalogItems).toBe(firstPage.json.totalCatalogItems + 3)
    const again = await get(service, `${itemsPath}?limit=50&offset=1`)
    expect(again.json.totalCatalogItems).toBe(secondPage.json.totalCatalogItems)
  })

  it('drift soft-deletes rows already served, so a naive pager misses rows; the delta shows the deletions', async () => {
    const cursor = (await get(service, `${itemsPath}?limit=1`)).json.serverTimestamp as string
    const before: string[] = []
    for (let offset = 0; ; offset++) {
      const page = await get(service, `${itemsPath}?limit=40&offset=${offset}`)
      before.push(...(page.json.catalog_items as Json[]).map((row) => row.guid))
      if (!page.json.hasMoreItems) break
    }
    service.control.addFault({ route: ITEMS_ROUTE, type: 'drift', remove: 2, times: 1 })
    const seen: string[] = []
    for (let offset = 0; ; offset++) {
      const page = await get(service, `${itemsPath}?limit=40&offset=${offset}`)
      seen.push(...(page.json.catalog_items as Json[]).map((row) => row.guid))
      if (!page.json.hasMoreItems) break
    }
    const removed = before.slice(38, 40)
    expect(seen.slice(0, 40)).toEqual(before.slice(0, 40))
    const missed = before.filter((guid) => !seen.includes(guid) && !removed.includes(guid))
    expect(missed).toEqual(before.slice(40, 42))
    const delta = await get(service, `${itemsPath}?limit=100&lastUpdatedAt=${encodeURIComponent(cursor)}`)
    const deleted = (delta.json.catalog_items as Json[]).filter((row) => row.deleted_at !== null).map((row) => row.guid)
    expect(deleted.sort()).toEqual([...removed].sort())
  })

  it('drift also applies to the customer and order listings', async () => {
    service.control.addFault({ route: 'GET /vendors', type: 'drift', insert: 2, times: 1 })
    const vendorsBefore = (await get(service, '/vendors?limit=10')).json.total as number
    expect((await get(service, '/vendors?limit=10&offset=1')).json.total).toBe(vendorsBefore + 2)
    service.control.addFault({ route: 'GET /v1/orders', type: 'drift', insert: 1, times: 1 })
    const ordersBefore = (await get(service, '/v1/orders?limit=5')).json.total as number
    const afterDrift = await get(service, '/v1/orders?limit=5&offset=1')
    expect(afterDrift.json.total).toBe(ordersBefore + 1)
  })

  it('ignoreOffset answers every page request as the first page, and the log keeps the offset sent', async () => {
    const first = await get(service, `${itemsPath}?limit=20&offset=0`)
    service.control.clearRequestLog()
    service.control.addFault({ route: ITEMS_ROUTE, type: 'ignoreOffset', times: 2 })
    const third = await get(service, `${itemsPath}?limit=20&offset=2`)
    expect(third.json.catalog_items.map((row: Json) => row.guid)).toEqual(
      first.json.catalog_items.map((row: Json) => row.guid),
    )
    expect(third.json.hasMoreItems).toBe(true)
    expect(third.json.totalCatalogItems).toBe(first.json.totalCatalogItems)
    expect((await get(service, `${itemsPath}?limit=20&offset=1`)).json.catalog_items[0].guid).toBe(
      first.json.catalog_items[0].guid,
    )
    expect(service.control.requestLog().map((entry) => entry.query.offset)).toEqual(['2', '1'])
    // Retired after two: the next page is the real one.
    expect((await get(service, `${itemsPath}?limit=20&offset=1`)).json.catalog_items[0].guid).not.toBe(
      first.json.catalog_items[0].guid,
    )
  })

  it('otherCatalog answers a catalog’s listing with the same page of another catalog’s, and the log keeps the one asked for', async () => {
    const { first, second } = catalogs(service)
    const theirs = await get(service, `/v1/catalog/${second.guid}/catalog_items?limit=20&offset=0`)
    service.control.clearRequestLog()
    service.control.addFault({ route: ITEMS_ROUTE, type: 'otherCatalog', catalogGuid: second.guid, times: 1 })
    const misrouted = await get(service, `/v1/catalog/${first.guid}/catalog_items?limit=20&offset=0`)
    expect(misrouted.json.catalog_items.map((row: Json) => row.guid)).toEqual(
      theirs.json.catalog_items.map((row: Json) => row.guid),
    )
    expect(new Set(misrouted.json.catalog_items.map((row: Json) => row.catalog_id))).toEqual(new Set([second.id]))
    expect(service.control.requestLog()[0]?.url).toContain(first.guid)
    const honest = await get(service, `/v1/catalog/${first.guid}/catalog_items?limit=20&offset=0`)
    expect(new Set(honest.json.catalog_items.map((row: Json) => row.catalog_id))).toEqual(new Set([first.id]))
    expect(() => service.control.addFault({ route: ITEMS_ROUTE, type: 'otherCatalog' } as never)).toThrow(/catalogGuid/)
  })

  it('falseTotal replaces the listing count only: rows, hasMoreItems and the records stay true', async () => {
    const honest = await get(service, `${itemsPath}?limit=20&offset=0`)
    service.control.addFault({ route: ITEMS_ROUTE, type: 'falseTotal', total: 5, times: 1 })
    const lying = await get(service, `${itemsPath}?limit=20&offset=0`)
    expect(lying.json.totalCatalogItems).toBe(5)
    expect(lying.json.hasMoreItems).toBe(true)
    expect(lying.json.catalog_items).toEqual(honest.json.catalog_items)
    service.control.addFault({ route: 'GET /v1/orders', type: 'falseTotal', total: 1, times: 1 })
    const orders = await get(service, '/v1/orders?limit=5')
    expect(orders.json.total).toBe(1)
    expect(orders.json.orders).toHaveLength(5)
    // An order's own total is a field of the record, not the listing's count: left alone.
    expect(orders.json.orders.some((order: Json) => order.total !== 1)).toBe(true)
    expect(() => service.control.addFault({ route: ITEMS_ROUTE, type: 'falseTotal', total: -1 })).toThrow(/falseTotal/)
  })

  it('faults given to startService apply from the first request', async () => {
    const faulty = await startService({
      size: 'tiny',
      faults: [{ route: 'GET /v1/catalogs', type: 'status', status: 503, times: 1 }],
    })
    try {
      expect((await get(faulty, '/v1/catalogs')).status).toBe(503)
      expect((await get(faulty, '/v1/catalogs')).status).toBe(200)
    } finally {
      await faulty.close()
    }
  })

  it('faults apply before authentication, like a proxy in front of the service', async () => {
    service.control.addFault({ route: 'GET /v1/catalogs', type: 'status', status: 502, times: 1 })
    expect((await get(service, '/v1/catalogs', { as: 'none' })).status).toBe(502)
  })

  it('a post body to an endpoint with a fault is logged with status 0 when the socket is dropped', async () => {
    service.control.clearRequestLog()
    service.control.addFault({ route: 'POST /vendors', type: 'destroySocket', times: 1 })
    await expect(raw('/vendors', { method: 'POST', body: { newVendor: { name: 'Dropped Diner' } } })).rejects.toThrow()
    const [entry] = service.control.requestLog()
    expect(entry).toMatchObject({ method: 'POST', route: 'POST /vendors', status: 0 })
    expect((await post(service, '/vendors', { newVendor: { name: 'Kept Diner' } }, { as: 'session' })).status).toBe(200)
  })
})

describe('in-flight overlaps of one api_guid', () => {
  function order() {
    const { first } = catalogs(service)
    const [row] = orderableItems(service, first.guid)
    return orderBody(first, [{ item: row, qty: 1 }])
  }
  const headers = () => ({ headers: { vendorGuid: openCustomer(service).guid } })

  it('a second POST of a key while the first is still handled is recorded, with both times', async () => {
    service.control.clearRequestLog()
    service.control.addFault({ route: 'POST /v1/orderWithItems', type: 'latency', ms: 300, times: 1 })
    const body = order()
    const first = post(service, '/v1/orderWithItems', body, headers())
    await new Promise((resolve) => setTimeout(resolve, 100))
    await post(service, '/v1/orderWithItems', body, headers())
    await first
    const overlaps = service.control.inFlightOverlaps()
    expect(overlaps).toHaveLength(1)
    expect(overlaps[0]).toMatchObject({ key: body.order.api_guid })
    expect(overlaps[0]!.second.startedMs).toBeLessThan(overlaps[0]!.first.endedMs!)
  })

  it('the same key sent again after the first was answered is no overlap, and the log has start and end', async () => {
    service.control.clearRequestLog()
    const body = order()
    await post(service, '/v1/orderWithItems', body, headers())
    await post(service, '/v1/orderWithItems', body, headers())
    expect(service.control.inFlightOverlaps()).toEqual([])
    const [a, b] = service.control.requestLog()
    expect(a!.endedMs).toBeGreaterThanOrEqual(a!.startedMs)
    expect(b!.startedMs).toBeGreaterThanOrEqual(a!.endedMs!)
  })
})
