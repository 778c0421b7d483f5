/**
 * A customer's brief against the double's 24 months of history: the history read in the customer's
 * context beyond the sync's newest 20 pages, the same brief offline, a refresh that reads only what
 * is newer, a service that ignores vendorGuid, and a history cut short that says so.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { call } from '../../src/main/core/handlers'
import { customerBriefSchema, type CustomerBrief } from '../../src/shared/brief'
import type { Json } from '../service/helpers'
import { startOrdersHarness, type OrdersHarness } from './orders-support'

let harness: OrdersHarness
const route = 'GET /v1/orders'

beforeAll(async () => {
  // 2,100 recent orders of other customers: the sync's newest 20 pages end within the last 60 days.
  harness = await startOrdersHarness({ history: { busyOrders: 2100 } })
}, 120_000)
afterAll(async () => {
  await harness.close()
})

/** The customers the double gave a history, by how many orders they have: the seasonal one first. */
function historyCustomers(): { guid: string; id: number }[] {
  const counts = new Map<number, number>()
  for (const order of harness.service.control.orders() as Json[])
    counts.set(order.vendor_id, (counts.get(order.vendor_id) ?? 0) + 1)
  const customers = harness.service.control.customers() as Json[]
  return [...counts]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 3)
    .map(([id]) => ({ id, guid: customers.find((customer) => customer.id === id).guid }))
}

/** The first day of the month 23 months back, in this laptop's time zone: where the brief's months start. */
function windowStart(): number {
  const now = new Date()
  return new Date(now.getFullYear(), now.getMonth() - 23, 1).getTime()
}

/** What the double holds for the customer over the brief's 24 months: its sales and cancelled orders. */
function expected(customerId: number) {
  const orders = (harness.service.control.orders() as Json[]).filter(
    (order) =>
      order.vendor_id === customerId &&
      order.deleted_at === null &&
      !order.is_quote &&
      Date.parse(order.created_at) >= windowStart(),
  )
  const sales = orders.filter((order) => !order.is_cancelled)
  return {
    orders: sales.length,
    cancelled: orders.length - sales.length,
    value: sales.reduce((sum, order) => sum + order.sub_total, 0),
  }
}

function totals(brief: CustomerBrief) {
  return {
    orders: brief.months.reduce((sum, month) => sum + month.orders, 0),
    cancelled: brief.months.reduce((sum, month) => sum + month.cancelled, 0),
    value: brief.months.reduce((sum, month) => sum + month.value, 0),
  }
}

function ordersRequests() {
  return harness.service.control.requestLog().filter((entry) => entry.route === route)
}

describe('a customer’s brief', () => {
  it('reads the customer’s 24 months beyond the newest 20 pages, and answers the same offline', async () => {
    const [seasonal] = historyCustomers()
    const before = await harness.api('getCustomerBrief', { customerGuid: seasonal!.guid })
    expect(before.history.complete).toBe(false)
    expect(before.history.note).toMatch(/^Orders since \d{1,2} \w+( \d{4})? only; connect to read the rest$/)
    expect(totals(before).orders).toBeLessThan(expected(seasonal!.id).orders)

    harness.service.control.clearRequestLog()
    const online = await harness.api('refreshCustomerHistory', { customerGuid: seasonal!.guid })
    expect(customerBriefSchema.parse(online)).toEqual(online)
    expect(online.history.complete).toBe(true)
    expect(online.history.note).toBeNull()
    expect(online.months).toHaveLength(24)
    const want = expected(seasonal!.id)
    const got = totals(online)
    expect(got.orders).toBe(want.orders)
    expect(got.cancelled).toBe(want.cancelled)
    expect(got.value).toBeCloseTo(want.value, 2)
    // In the customer's context, newest first, and no further than 24 months.
    const requests = ordersRequests()
    expect(requests.length).toBeGreaterThan(1)
    expect(requests.every((entry) => entry.headers.vendorguid === seasonal!.guid)).toBe(true)
    const older = (harness.service.control.orders() as Json[]).filter(
      (order) => order.vendor_id === seasonal!.id && Date.parse(order.created_at) < windowStart(),
    )
    expect(older.length).toBeGreaterThan(0)
    const held = harness.core.db
      .prepare<[], number>(`SELECT count(*) FROM orders WHERE guid IN (${older.map(() => '?').join(',')})`)
      .pluck()
      .get(...(older.map((order) => order.guid) as []))
    expect(held).toBe(0)
    // The summer shows: June to August sell more than December to February.
    const season = (months: string[]) =>
      online.months.filter((month) => months.includes(month.month.slice(5))).reduce((sum, m) => sum + m.orders, 0)
    expect(season(['06', '07', '08'])).toBeGreaterThan(season(['12', '01', '02']))
    expect(online.topItems.length).toBeGreaterThan(0)
    expect(online.topItems.every((item) => item.itemGuid !== null)).toBe(true)
    expect(online.lapsed.length).toBeGreaterThan(0)
    expect(online.lapsed.every((item) => item.monthsOrdered >= 2)).toBe(true)

    await harness.stopService()
    try {
      const offline = await harness.api('getCustomerBrief', { customerGuid: seasonal!.guid })
      expect(offline).toEqual(online)
    } finally {
      await harness.restartService()
    }
  })

  it('reads only what is newer on a later refresh', async () => {
    const [seasonal] = historyCustomers()
    const first = await harness.api('refreshCustomerHistory', { customerGuid: seasonal!.guid })
    const open = (harness.service.control.orders() as Json[]).find(
      (order) => order.vendor_id === seasonal!.id && order.order_state_id === 2 && !order.is_quote,
    )
    expect(open).toBeDefined()
    harness.service.control.fulfilOrder(open.guid, { kind: 'cancel' })
    harness.service.control.clearRequestLog()
    const second = await harness.api('refreshCustomerHistory', { customerGuid: seasonal!.guid })
    const requests = ordersRequests()
    expect(requests).toHaveLength(1)
    expect(requests[0]!.query.lastUpdatedAt).toBeTruthy()
    expect(totals(second).cancelled).toBe(totals(first).cancelled + 1)
    expect(totals(second).orders).toBe(totals(first).orders - 1)
  })

  it('keeps only the customer’s orders when the service ignores vendorGuid', async () => {
    const [, steady] = historyCustomers()
    harness.service.control.addFault({ route, type: 'ignoreVendorGuid' })
    try {
      const countOthers = () =>
        harness.core.db
          .prepare<[string], number>('SELECT count(*) FROM orders WHERE customer_guid IS NOT ? ')
          .pluck()
          .get(steady!.guid)
      const othersBefore = countOthers()
      const brief = await harness.api('refreshCustomerHistory', { customerGuid: steady!.guid })
      expect(brief.history.complete).toBe(true)
      const want = expected(steady!.id)
      expect(totals(brief).orders).toBe(want.orders)
      expect(totals(brief).value).toBeCloseTo(want.value, 2)
      expect(countOthers()).toBe(othersBefore)
    } finally {
      harness.service.control.clearFaults()
    }
  })

  it('says a history cut short is incomplete, and from when it holds orders', async () => {
    const [, , steady] = historyCustomers()
    // The service lists everyone's orders, and refuses the third page.
    harness.service.control.addFault({ route, type: 'ignoreVendorGuid' })
    harness.service.control.addFault({ route, type: 'status', status: 400, skip: 2 })
    try {
      const brief = await harness.api('refreshCustomerHistory', { customerGuid: steady!.guid })
      expect(brief.history.complete).toBe(false)
      expect(brief.history.from).toMatch(/^\d{4}-\d{2}-\d{2}$/)
      expect(brief.history.note).toMatch(/^Orders since .+ only; connect to read the rest$/)
      const again = await call(harness.core.handlers, 'getCustomerBrief', { customerGuid: steady!.guid })
      expect(again.ok && again.value.history).toEqual(brief.history)
      // Opening the page read again in the background, and the refused page is refused again; a read
      // that gets nothing fails rather than answer as if it had read.
      const refused = await call(harness.core.handlers, 'refreshCustomerHistory', { customerGuid: steady!.guid })
      expect(refused.ok).toBe(false)
    } finally {
      harness.service.control.clearFaults()
    }
  })

  it('keeps the histories of customers the rep worked with fresh after a sync, a day’s changes from the sync’s own', async () => {
    const [seasonal, , steady] = historyCustomers()
    // Worked with: a draft for one (whose history was cut short above), a visit to the other's page.
    const catalogGuid = (harness.service.control.catalogs() as Json[])[0].guid
    await harness.api('createDraft', { customerGuid: steady!.guid, catalogGuid })
    harness.service.control.clearRequestLog()
    await harness.api('syncNow', {})
    const read = ordersRequests().filter((entry) => entry.headers.vendorguid === steady!.guid)
    expect(read.length).toBeGreaterThan(0)
    expect((await harness.api('getCustomerBrief', { customerGuid: steady!.guid })).history.complete).toBe(true)

    // A day on, both whole histories are up to date from the sync's own delta of the orders, which
    // listed every order changed since they were read: no request of their own.
    const open = (harness.service.control.orders() as Json[]).find(
      (order) => order.vendor_id === steady!.id && order.order_state_id === 2 && !order.is_quote,
    )
    if (open) harness.service.control.fulfilOrder(open.guid, { kind: 'cancel' })
    const cancelledBefore = totals(await harness.api('getCustomerBrief', { customerGuid: steady!.guid })).cancelled
    // (After that look: opening a customer whose history is a day old reads it at once.)
    harness.core.db
      .prepare("UPDATE customer_histories SET fetched_at = '2000-01-01T00:00:00.000Z' WHERE customer_guid IN (?, ?)")
      .run(seasonal!.guid, steady!.guid)
    harness.service.control.clearRequestLog()
    await harness.api('syncNow', {})
    const requests = ordersRequests()
    expect(requests.filter((entry) => entry.headers.vendorguid !== undefined)).toEqual([])
    expect(requests).toHaveLength(1)
    expect(requests[0]!.query.lastUpdatedAt).toBeTruthy()
    const cancelledAfter = totals(await harness.api('getCustomerBrief', { customerGuid: steady!.guid })).cancelled
    expect(cancelledAfter).toBe(cancelledBefore + (open ? 1 : 0))
    for (const customer of [seasonal!, steady!]) {
      const brief = await harness.api('getCustomerBrief', { customerGuid: customer.guid })
      expect(brief.history.complete).toBe(true)
      expect(Date.parse(brief.history.fetchedAt!)).toBeGreaterThan(Date.now() - 60_000)
    }
  })

  it('counts the items of their catalog newer than their last order, again after a sync brings more', async () => {
    const [seasonal] = historyCustomers()
    const before = await harness.api('getCustomerBrief', { customerGuid: seasonal!.guid })
    expect(before.newItemsCatalogGuid).not.toBeNull()
    expect(before.lastOrderedAt).not.toBeNull()
    const created = [
      harness.service.control.insertCatalogItem(before.newItemsCatalogGuid!),
      harness.service.control.insertCatalogItem(before.newItemsCatalogGuid!),
    ]
    expect(created.every((item) => String(item.created_at) > before.lastOrderedAt!)).toBe(true)
    await harness.api('syncNow', {})
    const after = await harness.api('getCustomerBrief', { customerGuid: seasonal!.guid })
    expect(after.newItems).toBe(before.newItems + 2)
  })
})
