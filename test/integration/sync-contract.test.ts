/**
 * Sync and the synced data through the IPC contract, as the renderer reaches them, against the double.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { call } from '../../src/main/core/handlers'
import type { SatchelEvent } from '../../src/shared/contract'
import { createTestCore, type TestCore } from '../support/core'
import { startService } from '../service/index'
import type { RunningService } from '../service/types'

let core: TestCore | undefined
let service: RunningService | undefined

afterEach(async () => {
  await core?.close()
  await service?.close()
  core = undefined
  service = undefined
})

async function connected(): Promise<{ core: TestCore; service: RunningService; events: SatchelEvent[] }> {
  service = await startService({ size: 'tiny', seed: 5 })
  core = createTestCore({ backgroundSync: false })
  const events: SatchelEvent[] = []
  core.events.subscribe((event) => events.push(event))
  const saved = await call(core.handlers, 'saveConnection', {
    baseUrl: service.url,
    auth: { kind: 'apiKey', apiKey: service.credentials.apiKey, apiSecret: service.credentials.apiSecret },
  })
  expect(saved.ok).toBe(true)
  return { core, service, events }
}

describe('sync through the contract', () => {
  it('tests a connection and names each failure class', async () => {
    const { core, service } = await connected()
    expect(await call(core.handlers, 'testConnection')).toEqual({ ok: true, value: { catalogs: expect.any(Number) } })
    const wrongSecret = await call(core.handlers, 'testConnection', {
      baseUrl: service.url,
      auth: { kind: 'apiKey', apiKey: service.credentials.apiKey, apiSecret: 'wrong' },
    })
    expect(!wrongSecret.ok && wrongSecret.error.code).toBe('UNAUTHORIZED')
    // The secret left out: the saved one is used with the address typed in.
    const unreachable = await call(core.handlers, 'testConnection', {
      baseUrl: 'http://127.0.0.1:9',
      auth: { kind: 'apiKey', apiKey: service.credentials.apiKey },
    })
    expect(!unreachable.ok && unreachable.error.code).toBe('UNAVAILABLE')
  })

  it('syncs on demand with progress and status events, then answers the renderer from the local copy', async () => {
    const { core, events } = await connected()
    const report = await call(core.handlers, 'syncNow', {})
    expect(report.ok && report.value.ok).toBe(true)
    const names = events.map((event) => event.name)
    expect(names).toContain('syncProgress')
    expect(names.filter((name) => name === 'syncStatusChanged')).toHaveLength(2)
    expect(names.at(-1)).toBe('syncStatusChanged')
    expect(names).toContain('syncFinished')
    const progress = events.find((event) => event.name === 'syncProgress')
    expect(progress?.payload).toMatchObject({
      scope: expect.any(String),
      pagesDone: expect.any(Number),
      rowsDone: expect.any(Number),
    })

    const status = await call(core.handlers, 'getSyncStatus')
    expect(status.ok && status.value).toMatchObject({
      running: false,
      lastSyncAt: expect.any(Number),
      lastReport: { ok: true },
    })

    const catalogs = await call(core.handlers, 'listCatalogs')
    if (!catalogs.ok) throw new Error(catalogs.error.message)
    const catalog = catalogs.value[0]!
    expect(catalog).toMatchObject({ itemCount: expect.any(Number), lastSyncAt: expect.any(Number) })
    expect(catalog.priceGroups.some((group) => group.isMain)).toBe(true)
    const found = await call(core.handlers, 'searchCatalogItems', { catalogGuid: catalog.guid, limit: 5 })
    if (!found.ok) throw new Error(found.error.message)
    expect(found.value.items).toHaveLength(5)
    const item = await call(core.handlers, 'getCatalogItem', {
      catalogGuid: catalog.guid,
      sku: found.value.items[0]!.sku,
    })
    expect(item.ok && item.value.guid).toBe(found.value.items[0]!.guid)
    const customers = await call(core.handlers, 'searchCustomers', { limit: 3 })
    if (!customers.ok) throw new Error(customers.error.message)
    const customer = await call(core.handlers, 'getCustomer', { guid: customers.value.customers[0]!.guid })
    expect(customer.ok && customer.value.addresses.length).toBeGreaterThan(0)
    const missing = await call(core.handlers, 'getOrder', { guid: 'no-such-order' })
    expect(!missing.ok && missing.error.code).toBe('NOT_FOUND')
    const badArgument = await call(core.handlers, 'searchCatalogItems', { catalogGuid: catalog.guid, limit: 100_000 })
    expect(!badArgument.ok && badArgument.error.code).toBe('INVALID_ARGUMENT')
  })

  it('refuses to sync before a connection is saved', async () => {
    core = createTestCore({ backgroundSync: false })
    const result = await call(core.handlers, 'syncNow', {})
    expect(!result.ok && result.error.code).toBe('NOT_CONFIGURED')
  })

  it("tells the order screen that a SKU it cannot find may not have arrived yet, while the draft's catalog is in its first sync", async () => {
    service = await startService({ size: 'demo', seed: 5 })
    core = createTestCore({ backgroundSync: false })
    const saved = await call(core.handlers, 'saveConnection', {
      baseUrl: service.url,
      auth: { kind: 'apiKey', apiKey: service.credentials.apiKey, apiSecret: service.credentials.apiSecret },
    })
    expect(saved.ok).toBe(true)
    // The first catalog's first page comes; every later item page is refused: the sync ends with
    // that catalog part-way through its first listing.
    service.control.addFault({
      route: 'GET /v1/catalog/:catalogGuid/catalog_items',
      type: 'status',
      status: 400,
      skip: 1,
    })
    const cut = await call(core.handlers, 'syncNow', { full: true })
    expect(cut.ok && cut.value.ok).toBe(false)
    const catalogs = await call(core.handlers, 'listCatalogs')
    if (!catalogs.ok) throw new Error(catalogs.error.message)
    const first = catalogs.value.find((catalog) => catalog.loading && catalog.loading.itemsDone > 0)!
    expect(first.loading).toEqual({ itemsDone: 100, itemsTotal: expect.any(Number) })

    const draft = await call(core.handlers, 'createDraft', { catalogGuid: first.guid })
    if (!draft.ok) throw new Error(draft.error.message)
    const landed = await call(core.handlers, 'searchCatalogItems', { catalogGuid: first.guid, limit: 1 })
    if (!landed.ok) throw new Error(landed.error.message)
    const added = await call(core.handlers, 'addDraftLines', {
      id: draft.value.draft.id,
      lines: [
        { sku: landed.value.items[0]!.sku, qty: 1 },
        { sku: 'NOT-HERE-YET', qty: 1 },
      ],
    })
    expect(added.ok && added.value.unknown).toEqual(['NOT-HERE-YET'])
    expect(added.ok && added.value.catalogLoading).toEqual(first.loading)

    // The catalog complete: an unknown SKU is just unknown.
    service.control.clearFaults()
    const done = await call(core.handlers, 'syncNow', {})
    expect(done.ok && done.value.ok).toBe(true)
    const again = await call(core.handlers, 'addDraftLines', {
      id: draft.value.draft.id,
      lines: [{ sku: 'NOT-HERE-YET', qty: 1 }],
    })
    expect(again.ok && again.value.unknown).toEqual(['NOT-HERE-YET'])
    expect(again.ok && (again.value.catalogLoading ?? null)).toBeNull()
  })
})
