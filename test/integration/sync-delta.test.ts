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

function snapshot(h: Harness): unknown[] {
  return h.db
    .prepare('SELECT * FROM catalog_items ORDER BY guid')
    .all()
    .concat(h.db.prepare('SELECT * FROM customers ORDER BY guid').all())
}

describe('delta sync against the double', () => {
  it('applies updates and soft deletes, and drops deleted rows never seen before', async () => {
    harness = await startHarness()
    await harness.sync()
    const control = harness.service.control
    const catalogGuid = liveCatalogGuids(harness)[0]!
    // Items of no family: a search lists a family's member as its family's row.
    const inNoFamily = new Set(
      control
        .catalogItems(catalogGuid)
        .filter((item) => !item.is_product_group && !(Number(item.group_parent_catalog_item_id) > 0))
        .map((item) => String(item.guid)),
    )
    const [renamed, deleted, deactivated] = serverItemGuids(harness, catalogGuid).filter((guid) => inNoFamily.has(guid))
    control.update('catalogItem', renamed!, { name: 'Zebra-striped Mop Bucket' })
    control.softDelete('catalogItem', deleted!)
    control.deactivate('catalogItem', deactivated!)
    const added = String(control.insertCatalogItem(catalogGuid, { name: 'Brand new Squeegee' }).guid)
    const ghost = String(control.insertCatalogItem(catalogGuid, { name: 'Here and gone Sponge' }).guid)
    control.softDelete('catalogItem', ghost)
    const [goneCustomer, changedCustomer] = serverCustomerGuids(harness)
    control.softDelete('customer', goneCustomer!)
    control.update('customer', changedCustomer!, { name: 'Quokka Quarry Supplies' })

    const report = await harness.sync()
    expect(report.ok).toBe(true)
    expect(report.scopes.every((scope) => scope.mode === 'delta')).toBe(true)
    expect(localItemGuids(harness, catalogGuid)).toEqual(serverItemGuids(harness, catalogGuid))
    expect(localCustomerGuids(harness)).toEqual(serverCustomerGuids(harness))
    const search = (query: string) =>
      harness!.queries.catalogs
        .searchCatalogItems({ catalogGuid, query, includeInactive: true })
        .items.map((item) => item.guid)
    expect(search('zebra mop')).toEqual([renamed])
    expect(search('squeegee')).toEqual([added])
    expect(search('here gone sponge')).toEqual([])
    expect(harness.queries.catalogs.getCatalogItem({ guid: ghost })?.status).toBe('deleted')
    expect(harness.queries.catalogs.getCatalogItem({ guid: deleted! })?.status).toBe('deleted')
    // Inactive items stay live (and counted); searches that leave inactive ones out skip it.
    expect(harness.queries.catalogs.getCatalogItem({ guid: deactivated! })).toMatchObject({
      status: 'live',
      active: false,
    })
    expect(
      harness.queries.catalogs.searchCatalogItems({ catalogGuid, limit: 500 }).items.map((item) => item.guid),
    ).not.toContain(deactivated)
    expect(
      harness.queries.customers.searchCustomers({ query: 'quokka' }).customers.map((customer) => customer.guid),
    ).toEqual([changedCustomer])
    expect(
      harness.queries.customers.searchCustomers({ limit: 500 }).customers.map((customer) => customer.guid),
    ).not.toContain(goneCustomer)
    expect(report.resources.catalogItems.deleted).toBe(2)
  })

  it('replays the 60-second overlap without changing anything', async () => {
    harness = await startHarness()
    await harness.sync()
    const catalogGuid = liveCatalogGuids(harness)[0]!
    harness.service.control.update('catalogItem', serverItemGuids(harness, catalogGuid)[0]!, { qty_on_hand: 7 })
    harness.service.control.softDelete('customer', serverCustomerGuids(harness)[0]!)
    await harness.sync()
    const before = snapshot(harness)
    const replay = await harness.sync()
    // The rows changed in the last minute come again...
    expect(replay.resources.catalogItems.fetched + replay.resources.customers.fetched).toBeGreaterThanOrEqual(2)
    // ...and change nothing.
    for (const counts of Object.values(replay.resources))
      expect({ upserted: counts.upserted, deleted: counts.deleted }).toEqual({ upserted: 0, deleted: 0 })
    expect(snapshot(harness)).toEqual(before)
  })

  it('accepts both lastUpdatedAt formats: ISO 8601 and YYYY-MM-DD HH:mm:ss', async () => {
    harness = await startHarness()
    await harness.sync()
    const catalogGuid = liveCatalogGuids(harness)[0]!
    const scope = `catalogItems:${catalogGuid}`
    const iso = harness.store.scope(scope).cursor!
    expect(iso).toMatch(/^\d{4}-\d{2}-\d{2}T/)
    // As a service answering in the other format would have left it.
    const plain = iso
      .replace('T', ' ')
      .replace(/\.\d+Z$/, '')
      .replace(/Z$/, '')
    harness.db.prepare('UPDATE sync_scopes SET cursor = ? WHERE scope = ?').run(plain, scope)
    const changed = serverItemGuids(harness, catalogGuid)[1]!
    harness.service.control.update('catalogItem', changed, { name: 'Changed after a plain cursor' })
    harness.service.control.clearRequestLog()
    const report = await harness.sync()
    expect(report.ok).toBe(true)
    const sent = requestsTo(harness, itemsRoute).find((request) => String(request.url).includes(catalogGuid))!
    expect(sent.query.lastUpdatedAt).toBe(plain)
    expect(sent.status).toBe(200)
    expect(harness.queries.catalogs.getCatalogItem({ guid: changed })?.name).toBe('Changed after a plain cursor')
    // The next cursor is whatever the service sent back, ISO here, and works as well.
    expect(harness.store.scope(scope).cursor).toMatch(/^\d{4}-\d{2}-\d{2}T/)
  })

  it('answers INVALID_DELTA_CURSOR with a full listing in the same run, keeping rows a draft needs', async () => {
    harness = await startHarness()
    await harness.sync()
    const control = harness.service.control
    const catalogGuid = liveCatalogGuids(harness)[0]!
    const scope = `catalogItems:${catalogGuid}`
    const [needed, unneeded] = serverItemGuids(harness, catalogGuid)
    harness.retention.register((kind, guids) => (kind === 'catalogItem' ? guids.filter((guid) => guid === needed) : []))
    control.softDelete('catalogItem', needed!)
    control.softDelete('catalogItem', unneeded!)
    // The deletions fall outside the listing's catch-up window, so only the listing can notice them.
    control.shiftClock(10 * 60_000)
    harness.db.prepare('UPDATE sync_scopes SET cursor = ? WHERE scope = ?').run('not a timestamp', scope)
    harness.service.control.clearRequestLog()

    const report = await harness.sync()
    expect(report.ok).toBe(true)
    expect(report.scopes.find((s) => s.scope === scope)).toMatchObject({ cursorReset: true, mode: 'full' })
    const statuses = requestsTo(harness, itemsRoute)
      .filter((request) => String(request.url).includes(catalogGuid))
      .map((request) => request.status)
    expect(statuses[0]).toBe(400)
    expect(localItemGuids(harness, catalogGuid)).toEqual(serverItemGuids(harness, catalogGuid))
    expect(harness.queries.catalogs.getCatalogItem({ guid: needed! })?.status).toBe('unlisted')
    expect(harness.queries.catalogs.getCatalogItem({ guid: unneeded! })).toBeNull()

    // The next run is a delta again, from the cursor the full listing committed.
    const committed = harness.store.scope(scope).cursor
    expect(committed).toMatch(/^\d{4}-\d{2}-\d{2}T/)
    harness.service.control.clearRequestLog()
    await harness.sync()
    const next = requestsTo(harness, itemsRoute).filter((request) => String(request.url).includes(catalogGuid))
    expect(next[0]?.query.lastUpdatedAt).toBe(committed)
    expect(next.every((request) => request.status === 200)).toBe(true)
  })
})
