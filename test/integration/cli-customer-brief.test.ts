/** `satchel customers brief` as a user runs it: offline from the local copy, and `--refresh` online. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Json } from '../service/helpers'
import { cli, json } from '../support/cli'
import { startOrdersHarness, type OrdersHarness } from './orders-support'

let harness: OrdersHarness

beforeAll(async () => {
  harness = await startOrdersHarness({ history: true })
})
afterAll(async () => {
  await harness.close()
})

/** The customer with the most orders: the double's seasonal one. */
function seasonalCustomer(): string {
  const counts = new Map<number, number>()
  for (const order of harness.service.control.orders() as Json[])
    counts.set(order.vendor_id, (counts.get(order.vendor_id) ?? 0) + 1)
  const [id] = [...counts].sort((a, b) => b[1] - a[1])[0]!
  return (harness.service.control.customers() as Json[]).find((customer) => customer.id === id).guid
}

describe('satchel customers brief', () => {
  it('reads the brief offline, says when the history is short, and --refresh reads the rest', async () => {
    const customer = seasonalCustomer()
    const offline = await cli(['customers', 'brief', customer, '--db', harness.databasePath])
    expect(offline.code).toBe(0)
    expect(offline.stdout).toMatch(/Order history: Orders since .+ only; connect to read the rest/)
    expect(offline.stdout).toMatch(/Month +Orders +Value +Cancelled +Last year/)

    const c = harness.service.credentials
    const online = await cli([
      ...['customers', 'brief', customer, '--refresh', '--json', '--db', harness.databasePath],
      ...['--base-url', harness.service.url, '--api-key', c.apiKey, '--api-secret', c.apiSecret],
    ])
    expect(online.code).toBe(0)
    const brief = json(online) as Json
    expect(brief.history.complete).toBe(true)
    expect(brief.months).toHaveLength(24)
    expect(Object.keys(brief).sort()).toEqual(
      [
        'backordered',
        'credit',
        'currency',
        'customer',
        'history',
        'lapsed',
        'lastOrderedAt',
        'months',
        'newItems',
        'newItemsCatalogGuid',
        'topItems',
      ].sort(),
    )
    // The app's page reads the same brief from the same copy.
    expect(await harness.api('getCustomerBrief', { customerGuid: customer })).toEqual(brief)

    const unknown = await cli([
      'customers',
      'brief',
      '00000000-0000-4000-8000-000000000000',
      '--db',
      harness.databasePath,
    ])
    expect(unknown.code).not.toBe(0)
    expect(unknown.stderr).toMatch(/No customer/)
  })
})
