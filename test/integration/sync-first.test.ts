import { afterEach, describe, expect, it } from 'vitest'
import type { CatalogItemRecord } from '../../src/main/ordering-client/schemas'
import type { Page } from '../../src/main/ordering-client/client'
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

describe('first sync against the double', () => {
  it('copies every catalog, price group, customer, catalog item and order, with categories', async () => {
    harness = await startHarness()
    const report = await harness.sync()
    expect(report.ok).toBe(true)
    const control = harness.service.control
    for (const catalogGuid of liveCatalogGuids(harness)) {
      expect(localItemGuids(harness, catalogGuid)).toEqual(serverItemGuids(harness, catalogGuid))
      const categoryIds = new Set(
        control
          .categories(catalogGuid)
          .filter((c) => c.deleted_at === null)
          .map((c) => c.id),
      )
      for (const category of harness.queries.catalogs.listCategories(catalogGuid))
        expect(categoryIds.has(category.id)).toBe(true)
    }
    expect(localCustomerGuids(harness)).toEqual(serverCustomerGuids(harness))
    const counts = harness.local.counts()
    expect(counts.catalogs).toBe(liveCatalogGuids(harness).length)
    expect(counts.priceGroups).toBe(
      liveCatalogGuids(harness)
        .flatMap((guid) => control.priceGroups(guid))
        .filter((group) => group.deleted_at === null).length,
    )
    expect(counts.orders).toBe(control.orders().filter((order) => order.deleted_at === null).length)
    // An order from history shows under its customer.
    const order = control.orders().find((o) => o.deleted_at === null && o.vendor_id !== null)!
    const customer = control.customers().find((c) => c.id === order.vendor_id)!
    expect(
      harness.queries.orders.listOrders({ customerGuid: String(customer.guid) }).orders.map((o) => o.guid),
    ).toContain(order.guid)
  })

  it('commits the serverTimestamp of the first page as the cursor, even when later pages carry later times', async () => {
    const firstPageTimes = new Map<string, string>()
    harness = await startHarness({
      source: (client) => ({
        listCatalogs: (options) => client.listCatalogs(options),
        listCustomers: (params, options) => client.listCustomers(params, options),
        listOrders: (params, options) => client.listOrders(params, options),
        listCatalogItems: async (catalogGuid, params, options): Promise<Page<CatalogItemRecord>> => {
          const page = await client.listCatalogItems(catalogGuid, params, options)
          if (params.offset === 0 && !params.lastUpdatedAt && page.serverTimestamp && !firstPageTimes.has(catalogGuid))
            firstPageTimes.set(catalogGuid, page.serverTimestamp)
          // The service's clock runs on ten minutes per page.
          harness!.service.control.shiftClock(10 * 60_000)
          return page
        },
      }),
    })
    await harness.sync()
    for (const catalogGuid of liveCatalogGuids(harness)) {
      const cursor = harness.store.scope(`catalogItems:${catalogGuid}`).cursor
      expect(cursor).toBe(firstPageTimes.get(catalogGuid))
    }
    harness.service.control.clearRequestLog()
    await harness.sync()
    const sent = requestsTo(harness, itemsRoute).map((request) => request.query.lastUpdatedAt)
    for (const catalogGuid of liveCatalogGuids(harness)) expect(sent).toContain(firstPageTimes.get(catalogGuid))
  })

  it('prices items for the customer price group by name, "N/A" as not offered', async () => {
    harness = await startHarness()
    const control = harness.service.control
    const catalogGuid = liveCatalogGuids(harness)[0]!
    const groups = control.priceGroups(catalogGuid).filter((group) => group.deleted_at === null)
    const other = groups.find((group) => !group.is_main)!
    const customer =
      control.customers().find((c) => c.deleted_at === null && c.price_group_id === other.id) ?? control.customers()[0]!
    if (customer.price_group_id !== other.id)
      control.update('customer', String(customer.guid), { price_group_id: other.id })
    // Items of no family: a family is listed as its parent's one row.
    const inNoFamily = new Set(
      control
        .catalogItems(catalogGuid)
        .filter((item) => !item.is_product_group && !(Number(item.group_parent_catalog_item_id) > 0))
        .map((item) => String(item.guid)),
    )
    const [notOffered, offered] = serverItemGuids(harness, catalogGuid).filter((guid) => inNoFamily.has(guid))
    control.setPrice(notOffered!, String(other.value), 'N/A')
    control.setPrice(offered!, String(other.value), 41.5)
    await harness.sync()
    const notOfferedItem = harness.queries.catalogs.getCatalogItem({
      guid: notOffered!,
      customerGuid: String(customer.guid),
    })
    expect(notOfferedItem).toMatchObject({ priceGroupName: other.value, price: null, offered: false })
    expect(
      harness.queries.catalogs.getCatalogItem({ guid: offered!, customerGuid: String(customer.guid) }),
    ).toMatchObject({
      price: 41.5,
      offered: true,
    })
    const listed = harness.queries.catalogs.searchCatalogItems({
      catalogGuid,
      customerGuid: String(customer.guid),
      limit: 500,
      includeInactive: true,
    })
    expect(listed.items.find((item) => item.guid === notOffered)).toMatchObject({ price: null, offered: false })
  })

  it('keeps fields the spec does not show, on items and customers', async () => {
    // The full item model (with fields beyond the spec's list) is served to user sessions.
    harness = await startHarness({ auth: 'session' })
    const control = harness.service.control
    const catalogGuid = liveCatalogGuids(harness)[0]!
    const itemGuid = serverItemGuids(harness, catalogGuid)[0]!
    control.update('catalogItem', itemGuid, { warehouse_bins: ['A-12', 'C-03'], carbon: { kg: 1.25 } })
    const customerGuid = serverCustomerGuids(harness)[0]!
    control.update('customer', customerGuid, { loyalty_tier: 'gold' })
    await harness.sync()
    const record = harness.queries.catalogs.getCatalogItem({ guid: itemGuid })?.record
    expect(record).toMatchObject({ warehouse_bins: ['A-12', 'C-03'], carbon: { kg: 1.25 } })
    expect(harness.queries.customers.getCustomer(customerGuid)?.record.loyalty_tier).toBe('gold')
  })

  it('is correct with the laptop clock a day ahead, and a day behind', async () => {
    for (const offset of [86_400_000, -86_400_000]) {
      harness = await startHarness({ clockOffsetMs: offset })
      await harness.sync()
      const catalogGuid = liveCatalogGuids(harness)[0]!
      const [renamed, removed] = serverItemGuids(harness, catalogGuid)
      harness.service.control.update('catalogItem', renamed!, { name: 'Renamed while the laptop clock was wrong' })
      harness.service.control.softDelete('catalogItem', removed!)
      harness.service.control.clearRequestLog()
      const report = await harness.sync()
      expect(report.ok).toBe(true)
      expect(report.scopes.every((scope) => scope.mode === 'delta')).toBe(true)
      expect(harness.queries.catalogs.getCatalogItem({ guid: renamed! })?.name).toBe(
        'Renamed while the laptop clock was wrong',
      )
      expect(localItemGuids(harness, catalogGuid)).toEqual(serverItemGuids(harness, catalogGuid))
      // The cursor sent is the service's own time, whatever the laptop thinks.
      const sent = requestsTo(harness, itemsRoute).map((request) => Date.parse(String(request.query.lastUpdatedAt)))
      expect(Math.abs(sent[0]! - harness.service.control.now().getTime())).toBeLessThan(60_000)
      await harness.close()
      harness = undefined
    }
  })
})
