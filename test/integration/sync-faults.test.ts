import { afterEach, describe, expect, it } from 'vitest'
import {
  itemsRoute,
  liveCatalogGuids,
  localCustomerGuids,
  localItemGuids,
  requestsTo,
  serverCustomerGuids,
  serverItemGuids,
  startHarness,
  type Harness,
} from './sync-support'

let harness: Harness | undefined

afterEach(async () => {
  await harness?.close()
  harness = undefined
})

/** The first catalog the engine syncs (they go by name). */
function firstSyncedCatalog(h: Harness): string {
  const catalogs = h.service.control.catalogs().filter((catalog) => catalog.deleted_at === null)
  catalogs.sort((a, b) =>
    String(a.name) < String(b.name)
      ? -1
      : String(a.name) > String(b.name)
        ? 1
        : String(a.guid) < String(b.guid)
          ? -1
          : 1,
  )
  return String(catalogs[0]!.guid)
}

interface PageCall {
  catalogGuid: string
  offset: number
  limit: number
  lastUpdatedAt: string | null | undefined
}

describe('sync under faults, against the double', () => {
  it('resumes a first sync interrupted mid-catalog, refetching only the pages it lacks', async () => {
    const pageSize = 5
    // Counted on the client side: the double may still be reading requests the interrupted run
    // abandoned, so its log cannot tell the two runs apart.
    const calls: PageCall[] = []
    harness = await startHarness({
      pageSize,
      source: (client) => ({
        listCatalogs: (options) => client.listCatalogs(options),
        listCustomers: (params, options) => client.listCustomers(params, options),
        listOrders: (params, options) => client.listOrders(params, options),
        listCatalogItems: async (catalogGuid, params, options) => {
          const page = await client.listCatalogItems(catalogGuid, params, options)
          calls.push({ catalogGuid, offset: params.offset, limit: params.limit, lastUpdatedAt: params.lastUpdatedAt })
          return page
        },
      }),
    })
    const catalogGuid = firstSyncedCatalog(harness)
    const pages = Math.ceil(serverItemGuids(harness, catalogGuid).length / pageSize)
    expect(pages).toBeGreaterThan(8)
    // Five item pages get through, then the connection drops on every request.
    harness.service.control.addFault({ route: itemsRoute, type: 'destroySocket', skip: 5 })
    const interrupted = await harness.sync()
    expect(interrupted.ok).toBe(false)
    expect(interrupted.error?.code).toBe('UNAVAILABLE')
    const done = harness.store.pagesDone(`catalogItems:${catalogGuid}`)
    expect(done.size).toBe(5)
    // Page k (1-based) is the first one the interrupted run lacks.
    let k = 1
    while (done.has(k - 1)) k++

    harness.service.control.clearFaults()
    calls.length = 0
    const resumed = await harness.sync()
    expect(resumed.ok).toBe(true)
    expect(resumed.scopes.find((scope) => scope.scope === `catalogItems:${catalogGuid}`)?.resumed).toBe(true)
    const refetched = calls
      .filter((call) => call.catalogGuid === catalogGuid && !call.lastUpdatedAt && call.limit === pageSize)
      .map((call) => call.offset)
    expect(refetched.length).toBeLessThanOrEqual(pages - k + 1)
    expect(refetched.some((page) => done.has(page))).toBe(false)
    expect(localItemGuids(harness, catalogGuid)).toEqual(serverItemGuids(harness, catalogGuid))
  })

  it('repairs pagination drift: rows deleted and inserted between pages are neither lost nor kept alive', async () => {
    harness = await startHarness({ pageSize: 10 })
    harness.service.control.addFault({ route: itemsRoute, type: 'drift', insert: 3, remove: 4, skip: 2, times: 1 })
    harness.service.control.addFault({ route: 'GET /vendors', type: 'drift', insert: 2, remove: 3, skip: 1, times: 1 })
    const report = await harness.sync()
    expect(report.ok).toBe(true)
    const catalogGuid = firstSyncedCatalog(harness)
    expect(report.scopes.find((scope) => scope.scope === `catalogItems:${catalogGuid}`)?.driftRepaired).toBe(true)
    expect(report.scopes.find((scope) => scope.scope === 'customers')?.driftRepaired).toBe(true)
    for (const guid of liveCatalogGuids(harness))
      expect(localItemGuids(harness, guid)).toEqual(serverItemGuids(harness, guid))
    expect(localCustomerGuids(harness)).toEqual(serverCustomerGuids(harness))
    expect(harness.db.prepare('SELECT count(*) FROM sync_scopes WHERE verify_needed = 1').pluck().get()).toBe(0)
  })

  it('rides out 429 (honouring Retry-After), 503 and dropped connections', async () => {
    harness = await startHarness()
    const control = harness.service.control
    control.addFault({ route: itemsRoute, type: 'rateLimit', retryAfterSeconds: 2, skip: 1, times: 1 })
    control.addFault({ route: 'GET /vendors', type: 'status', status: 503, times: 2 })
    control.addFault({ route: 'GET /v1/catalogs', type: 'destroySocket', times: 1 })
    control.addFault({ route: 'GET /v1/orders', type: 'destroySocket', times: 2 })
    const report = await harness.sync()
    expect(report.ok).toBe(true)
    expect(harness.sleeps).toContain(2000)
    expect(requestsTo(harness, itemsRoute).some((request) => request.status === 429)).toBe(true)
    expect(requestsTo(harness, 'GET /vendors').filter((request) => request.status === 503)).toHaveLength(2)
    for (const guid of liveCatalogGuids(harness))
      expect(localItemGuids(harness, guid)).toEqual(serverItemGuids(harness, guid))
    expect(localCustomerGuids(harness)).toEqual(serverCustomerGuids(harness))
    expect(harness.local.counts().orders).toBe(control.orders().filter((order) => order.deleted_at === null).length)
  })

  it('stops at the first 401 and says the credentials were refused', async () => {
    harness = await startHarness()
    const credentials = harness.service.credentials
    const wrong = harness.clientWith({ kind: 'apiKey', apiKey: credentials.apiKey, apiSecret: 'not-the-secret' })
    const { SyncEngine } = await import('../../src/main/sync/engine')
    const engine = new SyncEngine({ copy: harness.store, source: wrong, clock: { now: () => Date.now() } })
    harness.service.control.clearRequestLog()
    const report = await engine.run()
    expect(report.ok).toBe(false)
    expect(report.error).toMatchObject({ code: 'UNAUTHORIZED', message: expect.stringContaining('401') })
    // One request: not retried, and no other scope tried.
    expect(harness.service.control.requestLog().map((entry) => entry.status)).toEqual([401])
    expect(harness.local.counts()).toEqual({ catalogs: 0, priceGroups: 0, customers: 0, catalogItems: 0, orders: 0 })
  })
})
