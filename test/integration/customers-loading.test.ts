/**
 * Customer search while the customers are still coming in says so: "still loading (3,806 of 20,000)"
 * rather than "no customers match", which invites a duplicate customer. Before any sync, it says
 * none have come yet; once the customers are in, nothing is loading.
 */
import { afterEach, describe, expect, it } from 'vitest'
import type { CustomerSearchResult } from '../../src/shared/synced'
import { startHarness, type Harness } from './sync-support'

let harness: Harness | undefined

afterEach(async () => {
  await harness?.close()
  harness = undefined
})

describe('customer search during the first sync', () => {
  it('says how many customers have come of how many, until they are all in', async () => {
    let mid: CustomerSearchResult | null = null
    harness = await startHarness({
      // Pages of 10 in a demo-size list of hundreds: several pages, looked at with some in.
      size: 'demo',
      pageSize: 10,
      source: (client) => ({
        listCatalogs: (options) => client.listCatalogs(options),
        listCustomers: async (params, options) => {
          if (params.offset === 5 && !params.lastUpdatedAt && mid === null)
            mid = harness!.queries.customers.searchCustomers({ query: 'Bayfront Bistro #5' })
          return client.listCustomers(params, options)
        },
        listOrders: (params, options) => client.listOrders(params, options),
        listCatalogItems: (catalogGuid, params, options) => client.listCatalogItems(catalogGuid, params, options),
      }),
    })
    expect(harness.queries.customers.searchCustomers({}).loading).toEqual({ customersDone: 0, customersTotal: null })

    const report = await harness.sync()
    expect(report.ok).toBe(true)
    const seen = mid as CustomerSearchResult | null
    expect(seen).not.toBeNull()
    const total = harness.queries.customers.searchCustomers({ includeInactive: true }).total
    expect(seen!.loading).toEqual({ customersDone: expect.any(Number) as number, customersTotal: total })
    expect(seen!.loading!.customersDone).toBeGreaterThan(0)
    expect(seen!.loading!.customersDone).toBeLessThan(total)

    expect(harness.queries.customers.searchCustomers({ query: 'Bayfront Bistro #5' }).loading).toBeNull()
  })
})
