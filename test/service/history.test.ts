import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startService } from './index'
import type { RunningService } from './types'
import { get, type Json } from './helpers'
import { seasonalOrders } from './history'

const DAY = 86_400_000
let plain: RunningService
let service: RunningService

beforeAll(async () => {
  plain = await startService({ size: 'tiny', seed: 5 })
  service = await startService({ size: 'tiny', seed: 5, history: { busyOrders: 300 } })
})
afterAll(async () => {
  await plain.close()
  await service.close()
})

/** The customer with the most orders: the seasonal one. */
function seasonalCustomer(of: RunningService): string {
  const counts = new Map<string, number>()
  for (const order of of.control.orders() as Json[]) {
    const guid = (of.control.customers() as Json[]).find((customer) => customer.id === order.vendor_id)?.guid
    if (guid) counts.set(guid, (counts.get(guid) ?? 0) + 1)
  }
  return [...counts].sort((a, b) => b[1] - a[1])[0]![0]
}

async function listAll(of: RunningService, headers: Record<string, string>): Promise<Json[]> {
  const rows: Json[] = []
  for (let offset = 0; ; offset++) {
    const page = await get(of, `/v1/orders?limit=100&offset=${offset}`, { headers })
    rows.push(...page.json.orders)
    if (!page.json.hasMoreItems) return rows
  }
}

describe('the opt-in order history', () => {
  it('leaves the default data as it was: the same orders, in the same order, with the same numbers', () => {
    const before = (plain.control.orders() as Json[]).map((order) => [order.guid, order.name, order.id])
    const after = (service.control.orders() as Json[]).slice(0, before.length)
    expect(after.map((order) => [order.guid, order.name, order.id])).toEqual(before)
    expect(service.control.orders().length).toBeGreaterThan(before.length + seasonalOrders)
  })

  it('gives one customer 24 months of orders, ten lines each, busiest in the summer', async () => {
    const customer = seasonalCustomer(service)
    const rows = await listAll(service, { vendorGuid: customer })
    const epoch = new Date(service.control.now()).getTime()
    const created = rows.map((row) => Date.parse(row.created_at))
    expect(created).toEqual([...created].sort((a, b) => b - a))
    const inTwoYears = rows.filter((row) => Date.parse(row.created_at) > epoch - 700 * DAY)
    expect(inTwoYears.length).toBeGreaterThanOrEqual(seasonalOrders)
    expect(rows.length).toBeGreaterThan(inTwoYears.length)
    // Besides any of the default data's orders it was given.
    expect(inTwoYears.filter((row) => row.Order_Items.length === 10).length).toBeGreaterThanOrEqual(seasonalOrders)
    const inMonths = (months: number[]) =>
      inTwoYears.filter((row) => months.includes(new Date(row.created_at).getUTCMonth())).length
    expect(inMonths([5, 6, 7])).toBeGreaterThan(2 * inMonths([0, 1, 11]))
  })

  it('is the same from the same seed', async () => {
    const again = await startService({ size: 'tiny', seed: 5, history: { busyOrders: 300 } })
    try {
      expect(again.control.orders().map((order) => order.guid)).toEqual(
        service.control.orders().map((order) => order.guid),
      )
    } finally {
      await again.close()
    }
  })

  it('with ignoreVendorGuid, lists the supplier’s orders whatever customer is asked for', async () => {
    const customer = seasonalCustomer(service)
    const fault = service.control.addFault({ route: 'GET /v1/orders', type: 'ignoreVendorGuid' })
    try {
      const page = await get(service, '/v1/orders?limit=100', { headers: { vendorGuid: customer } })
      expect(page.json.total).toBe(service.control.orders().filter((order) => order.deleted_at === null).length)
    } finally {
      service.control.removeFault(fault)
    }
  })
})
