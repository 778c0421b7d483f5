/**
 * Order history a rep can use: the orders list is searched by order number, PO and customer and
 * filtered by state and day in the core, answers every query with 2,000 orders, and an order's
 * money is shown as the service gave it (lines' unit price and total; sub-total, tax, shipping,
 * discount and grand total).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { call } from '../../../../src/main/core/handlers'
import { createTestCore, type TestCore } from '../../../support/core'
import { historyOrder, seedOrderHistory } from '../../../support/order-history'

let core: TestCore
async function list(argument: Record<string, unknown>) {
  const result = await call(core.handlers, 'listOrders', argument as never)
  if (!result.ok) throw new Error(result.error.message)
  return result.value
}

beforeAll(() => {
  core = createTestCore({ backgroundSync: false })
  seedOrderHistory(core, 2000)
})
afterAll(async () => {
  await core.close()
})

describe('the orders list', () => {
  it('searches order number, PO and customer name, any part, literally', async () => {
    expect((await list({ query: 'SO-11234' })).orders.map((o) => o.name)).toEqual(['SO-11234'])
    expect((await list({ query: '71235' })).orders.map((o) => o.poNo)).toEqual(['PO-71235'])
    const harbor = await list({ query: '100% café_' })
    expect(harbor.total).toBe(50)
    expect(new Set(harbor.orders.map((o) => o.customerName))).toEqual(new Set(['Harbor 100% Café_Supply']))
    // % and _ are the rep's characters, not wildcards.
    expect((await list({ query: '1%' })).total).toBe(0)
  })

  it('filters by state and by the laptop’s days, and names every state for the filter', async () => {
    const all = await list({ limit: 1 })
    expect(all.total).toBe(2000)
    expect(all.states).toEqual([
      { id: 2, name: 'SUBMITTED', count: 667 },
      { id: 8, name: 'SHIPPED', count: 667 },
      { id: 23, name: 'CANCELLED', count: 666 },
    ])
    const shipped = await list({ stateId: 8, limit: 500 })
    expect(shipped.total).toBe(667)
    expect(shipped.orders.every((o) => o.state.name === 'SHIPPED')).toBe(true)
    // One order every 6 h from 1 January 09:30: the 2nd and 3rd (local days) hold orders 3 to 10.
    const days = await list({ from: '2026-01-02', to: '2026-01-03', limit: 50 })
    expect(days.orders.map((o) => o.name).sort()).toEqual(Array.from({ length: 8 }, (_, i) => `SO-${10003 + i}`))
    const combined = await list({ query: 'Customer 1', stateId: 23, from: '2026-01-01', to: '2026-03-31', limit: 500 })
    expect(combined.orders.every((o) => o.state.id === 23 && o.customerName!.startsWith('Customer 1'))).toBe(true)
    expect(combined.total).toBeGreaterThan(0)
    expect((await call(core.handlers, 'listOrders', { from: '2 Jan' } as never)).ok).toBe(false)
  })

  it('answers every query a rep types with 2,000 orders, a page at a time', async () => {
    // How fast it answers is a figure, not a pass mark: npm run bench:orders prints it.
    const asked = [
      { argument: { limit: 200 }, total: 2000 },
      { argument: { query: 'SO-1', limit: 200 }, total: 2000 },
      { argument: { query: 'customer 3', limit: 200 }, total: 550 },
      { argument: { stateId: 2, from: '2026-02-01', limit: 200 }, total: 626 },
      { argument: { query: 'zzz', limit: 200 }, total: 0 },
    ]
    for (const { argument, total } of asked) {
      const answer = await list(argument)
      expect(answer.total, JSON.stringify(argument)).toBe(total)
      expect(answer.orders).toHaveLength(Math.min(total, 200))
    }
  })
})

describe('an order’s money', () => {
  it('shows each line’s unit price and total, and the totals, as the service gave them', async () => {
    const result = await call(core.handlers, 'getOrder', { guid: historyOrder(3).guid })
    if (!result.ok) throw new Error(result.error.message)
    expect(result.value.lines[0]).toMatchObject({ sku: 'DPR-10001', qty: 3, unitPrice: 31.56, lineTotal: 94.68 })
    // The order list's projection carries no prices: none are made up.
    expect(result.value.lines[1]).toMatchObject({ sku: 'NAP-2', unitPrice: null, lineTotal: null })
    expect(result.value.totals).toEqual({
      subTotal: 100,
      tax: 8.25,
      shipping: 15,
      labor: 0,
      other: 0,
      discount: 3.25,
      grandTotal: 120,
    })
  })
})
