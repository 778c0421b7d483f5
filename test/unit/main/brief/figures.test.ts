import { describe, expect, it } from 'vitest'
import { dayText, historyStart, monthKeys, shortHistoryNote } from '../../../../src/main/brief/calendar'
import {
  kindOf,
  lapsedItems,
  salesByMonth,
  stillOwed,
  topItems,
  valueOrder,
  type HistoryOrder,
  type RawLine,
} from '../../../../src/main/brief/figures'

const DAY = 86_400_000
/** Noon on 15 June 2026, this laptop's time. */
const now = new Date(2026, 5, 15, 12).getTime()
const at = (year: number, month: number, day = 10) => new Date(year, month - 1, day, 9).getTime()

function line(sku: string, qty: number, fields: Partial<RawLine> = {}): RawLine {
  return {
    key: `c|${sku}`,
    catalogGuid: 'c',
    id: null,
    sku,
    name: `Item ${sku}`,
    qty,
    total: null,
    netPrice: null,
    priceToday: null,
    ...fields,
  }
}

function sale(
  createdMs: number,
  lines: RawLine[],
  subTotal: number | null = null,
  kind: HistoryOrder['kind'] = 'sale',
): HistoryOrder {
  const valued = valueOrder(subTotal, lines)
  return { createdMs, kind, value: valued.value, lines: valued.lines }
}

describe('the brief’s calendar', () => {
  it('shows 24 months in this laptop’s zone, oldest first, starting on the first of the oldest', () => {
    const months = monthKeys(now)
    expect(months).toHaveLength(24)
    expect(months[0]).toBe('2024-07')
    expect(months[23]).toBe('2026-06')
    expect(months[12]).toBe('2025-07')
    expect(dayText(historyStart(now))).toBe('2024-07-01')
  })

  it('says from when a short history holds orders, with the year only when it is not this one', () => {
    expect(shortHistoryNote(new Date(2026, 2, 3).getTime(), now)).toBe(
      'Orders since 3 March only; connect to read the rest',
    )
    expect(shortHistoryNote(new Date(2025, 10, 20).getTime(), now)).toBe(
      'Orders since 20 November 2025 only; connect to read the rest',
    )
    expect(shortHistoryNote(null, now)).toMatch(/connect to read it$/)
  })
})

describe('an order’s value, shared among its lines', () => {
  it('keeps a line’s own total, and shares the rest of the sub-total by quantity times today’s price', () => {
    const valued = valueOrder(100, [
      line('A', 2, { total: 40 }),
      line('B', 1, { priceToday: 10 }),
      line('C', 2, { priceToday: 10 }),
    ])
    expect(valued.value).toBe(100)
    expect(valued.lines.map((l) => l.value)).toEqual([40, 20, 40])
  })

  it('gives a line without a price the mean of the priced ones, and shares by quantity when none is priced', () => {
    expect(valueOrder(90, [line('A', 1, { priceToday: 20 }), line('B', 2)]).lines.map((l) => l.value)).toEqual([30, 60])
    expect(valueOrder(30, [line('A', 1), line('B', 2)]).lines.map((l) => l.value)).toEqual([10, 20])
  })

  it('without a sub-total, adds up the lines at today’s price', () => {
    expect(valueOrder(null, [line('A', 3, { priceToday: 2.5 }), line('B', 1, { netPrice: 4 })]).value).toBe(11.5)
  })
})

describe('what the orders add up to', () => {
  it('counts sales by month with their value, cancelled apart, quotes not at all, a month without orders as zero', () => {
    const months = salesByMonth(
      [
        sale(at(2026, 6, 1), [line('A', 1)], 50),
        sale(at(2026, 6, 2), [line('A', 1)], 25),
        sale(at(2026, 6, 3), [line('A', 1)], 999, 'cancelled'),
        sale(at(2026, 6, 4), [line('A', 1)], 999, 'quote'),
        sale(at(2025, 6, 4), [line('A', 1)], 10),
        sale(at(2024, 6, 30), [line('A', 1)], 10),
      ],
      now,
    )
    expect(months.find((m) => m.month === '2026-06')).toEqual({ month: '2026-06', orders: 2, value: 75, cancelled: 1 })
    expect(months.find((m) => m.month === '2025-06')).toEqual({ month: '2025-06', orders: 1, value: 10, cancelled: 0 })
    expect(months.find((m) => m.month === '2026-05')).toEqual({ month: '2026-05', orders: 0, value: 0, cancelled: 0 })
    expect(months.reduce((sum, m) => sum + m.orders, 0)).toBe(3)
  })

  it('tells cancelled orders and quotes by their flags, and by the cancelled state without them', () => {
    expect(kindOf({ is_quote: true, order_state_id: 1 })).toBe('quote')
    expect(kindOf({ is_cancelled: true })).toBe('cancelled')
    expect(kindOf({ order_state_id: 23 })).toBe('cancelled')
    expect(kindOf({ order_state_id: 9 })).toBe('sale')
  })

  it('ranks the last 12 months’ items by value, with quantity and the last day ordered', () => {
    const orders = [
      sale(at(2026, 5), [line('A', 1, { total: 10 }), line('B', 5, { total: 30 })]),
      sale(at(2026, 1), [line('A', 4, { total: 40 })]),
      sale(at(2025, 3), [line('C', 100, { total: 1000 })]),
      sale(at(2026, 6, 1), [line('C', 1, { total: 1 })], null, 'cancelled'),
    ]
    const top = topItems(orders, now, 10)
    expect(top.map((t) => [t.sku, t.qty, t.value])).toEqual([
      ['A', 5, 50],
      ['B', 5, 30],
    ])
    expect(dayText(top[0]!.lastOrderedMs)).toBe('2026-05-10')
  })

  it('lists as lapsed an item ordered in two or more months and not in the last 90 days', () => {
    const orders = [
      sale(at(2025, 8), [line('OLD', 1), line('ONCE', 1)]),
      sale(at(2025, 11), [line('OLD', 1), line('RECENT', 1)]),
      sale(at(2025, 11, 20), [line('SAME', 1)]),
      sale(at(2025, 11, 25), [line('SAME', 1)]),
      sale(now - 10 * DAY, [line('RECENT', 1)]),
    ]
    const lapsed = lapsedItems(orders, now, 10)
    expect(lapsed.map((t) => [t.sku, t.months.size])).toEqual([['OLD', 2]])
  })

  it('owes a backordered line until its order or its backorder is done', () => {
    const backordered = (fields: Record<string, unknown>) => ({
      id: 7,
      guid: 'g7',
      name: 'HP-7',
      order_state_id: 8,
      Order_Items: [
        { item_no: 1, sku: 'A', name: 'Item A', qty: 2, qty_backordered: 3 },
        { item_no: 2, sku: 'B', name: 'Item B', qty: 1, qty_backordered: 0 },
      ],
      ...fields,
    })
    expect(stillOwed([{ order: backordered({}), related: [] }])).toEqual([
      { orderGuid: 'g7', orderName: 'HP-7', sku: 'A', name: 'Item A', qtyBackordered: 3 },
    ])
    expect(stillOwed([{ order: backordered({ is_cancelled: true }), related: [] }])).toEqual([])
    expect(stillOwed([{ order: backordered({ order_state_id: 9 }), related: [] }])).toEqual([])
    const shippedBackorder = { id: 8, parent_order_id: 7, order_state_id: 8, is_shipped: true }
    expect(stillOwed([{ order: backordered({}), related: [shippedBackorder] }])).toEqual([])
    const openBackorder = { id: 8, parent_order_id: 7, order_state_id: 1 }
    expect(stillOwed([{ order: backordered({}), related: [openBackorder] }])).toHaveLength(1)
  })
})
