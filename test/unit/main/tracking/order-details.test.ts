import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { closeDatabase, openDatabase, type Database } from '../../../../src/main/db/database'
import { TrackedOrders } from '../../../../src/main/tracking/tracked-orders'
import { openLocalData } from '../../../../src/main/local/data'

/** What the rep is told about an order after Send, from the full order as the service gives it. */
let directory: string
let db: Database
let details: TrackedOrders

beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), 'satchel-order-details-'))
  db = openDatabase(join(directory, 'satchel.db'))
  details = new TrackedOrders(openLocalData(db))
})
afterEach(() => {
  closeDatabase(db)
  rmSync(directory, { recursive: true, force: true })
})

interface LineFigures {
  qty: number
  shipped?: number
  backordered?: number
}

function order(stateId: number, lines: LineFigures[], flags: Record<string, unknown> = {}): Record<string, unknown> {
  const names: Record<number, string> = { 2: 'SUBMITTED', 8: 'SHIPPED', 23: 'CANCELLED' }
  return {
    guid: 'order-1',
    name: 'HP-1',
    order_state_id: stateId,
    Order_State: { id: stateId, name: names[stateId] },
    updated_at: '2026-11-25T10:00:00.000Z',
    Order_Items: lines.map((line, index) => ({
      item_no: index + 1,
      qty: line.qty,
      qty_shipped: line.shipped ?? 0,
      qty_backordered: line.backordered ?? 0,
      qty_pending: 0,
      net_price: 2,
      total: 2 * line.qty,
    })),
    ...flags,
  }
}

const summaryOf = (record: Record<string, unknown>) => {
  details.record(record, [], '2026-11-25T10:00:00.000Z')
  return details.tracking('order-1')?.summary
}

describe('what the rep is told about an order', () => {
  it('names hold, cancel, part shipments and backorders in the rep’s words', () => {
    expect(summaryOf(order(2, [{ qty: 2 }]))).toBe('Submitted')
    expect(summaryOf(order(2, [{ qty: 2 }], { is_on_hold: true }))).toBe('On hold')
    expect(summaryOf(order(23, [{ qty: 2 }], { is_cancelled: true }))).toBe('Cancelled')
    expect(
      summaryOf(
        order(8, [
          { qty: 2, shipped: 2 },
          { qty: 1, shipped: 1 },
          { qty: 4, backordered: 4 },
        ]),
      ),
    ).toBe('Shipped 2 of 3 lines, 1 backordered')
    expect(summaryOf(order(8, [{ qty: 2, shipped: 2 }, { qty: 1 }]))).toBe('Shipped 1 of 2 lines')
    expect(
      summaryOf(
        order(8, [
          { qty: 2, shipped: 2 },
          { qty: 1, shipped: 1, backordered: 3 },
        ]),
      ),
    ).toBe('Shipped, 1 line backordered')
    expect(summaryOf(order(8, [{ qty: 2, shipped: 2 }]))).toBe('Shipped')
    expect(summaryOf(order(2, [{ qty: 2, backordered: 2 }, { qty: 1 }]))).toBe('1 line backordered')
  })

  it('a first copy marks nothing; a copy whose status differs is changed until the order is opened', () => {
    details.record(order(2, [{ qty: 2 }, { qty: 1 }]), [], '2026-11-25T10:00:00.000Z')
    expect(details.tracking('order-1')?.changed).toBe(false)
    // A note changed, nothing the rep is told about: still not changed, and no new sighting.
    details.record({ ...order(2, [{ qty: 2 }, { qty: 1 }]), note: 'Gate code' }, [], '2026-11-25T11:00:00.000Z')
    expect(details.tracking('order-1')).toMatchObject({
      changed: false,
      timeline: [expect.objectContaining({ source: 'seen', summary: 'Submitted' })],
    })
    details.record(order(8, [{ qty: 2, shipped: 2 }, { qty: 1 }]), [], '2026-11-25T12:00:00.000Z')
    expect(details.tracking('order-1')).toMatchObject({ changed: true, summary: 'Shipped 1 of 2 lines' })
    expect(details.tracking('order-1')?.timeline.map((entry) => entry.summary)).toEqual([
      'Submitted',
      'Shipped 1 of 2 lines',
    ])
    details.opened('order-1', '2026-11-25T13:00:00.000Z')
    expect(details.tracking('order-1')).toMatchObject({ changed: false, openedAt: '2026-11-25T13:00:00.000Z' })
  })
})

describe('an order’s related orders', () => {
  it('never list the order itself, and list each other order once, even when the service repeats them', () => {
    const placed = { ...order(8, [{ qty: 2, shipped: 1, backordered: 1 }]), id: 101 }
    const backorder = { guid: 'order-2', id: 102, name: 'HP-1-BO1', parent_order_id: 101, order_state_id: 1 }
    details.record(placed, [placed, backorder, placed, backorder], '2026-11-25T10:00:00.000Z')
    expect(details.tracking('order-1')?.related.map((other) => [other.guid, other.name, other.relation])).toEqual([
      ['order-2', 'HP-1-BO1', 'backorder'],
    ])
  })
})

describe('a copy with impossible figures', () => {
  const good = () => ({ ...order(8, [{ qty: 2, shipped: 1 }, { qty: 3 }]), grand_total: 10, sub_total: 10 })
  const impossible: [string, (copy: Record<string, unknown>) => void, RegExp][] = [
    ['a negative quantity', (copy) => ((copy.Order_Items as Record<string, unknown>[])[1]!.qty = -3), /qty -3/],
    [
      'more shipped than ordered',
      (copy) => ((copy.Order_Items as Record<string, unknown>[])[0]!.qty_shipped = 2.5),
      /qty_shipped 2.5 of 2/,
    ],
    [
      'a pending quantity past any order',
      (copy) => ((copy.Order_Items as Record<string, unknown>[])[1]!.qty_pending = 1e308),
      /qty_pending 1e\+308/,
    ],
    ['a grand total of minus a billion', (copy) => (copy.grand_total = -1_000_000_000), /grand_total -1000000000/],
  ]

  for (const [what, spoil, named] of impossible) {
    it(`is refused for ${what}: the last good copy stays, marked, its summary and lines agreeing`, () => {
      details.record(good(), [], '2026-11-25T10:00:00.000Z')
      const bad = { ...good(), updated_at: '2026-11-26T10:00:00.000Z' }
      spoil(bad)
      details.record(bad, [], '2026-11-26T10:00:00.000Z')
      const shown = details.tracking('order-1')!
      expect(shown.lines.map((line) => [line.qtyOrdered, line.qtyShipped, line.qtyPending])).toEqual([
        [2, 1, 0],
        [3, 0, 0],
      ])
      expect(shown.totals.grandTotal).toBe(10)
      expect(shown.summary).toBe('Shipped 0 of 2 lines')
      expect(shown.fetchedAt).toBe('2026-11-25T10:00:00.000Z')
      expect(shown.latestUnreadable).toEqual({ at: '2026-11-26T10:00:00.000Z', reason: expect.stringMatching(named) })
      // The same version is not fetched again; a newer one is.
      expect(details.refusedVersion('order-1')).toBe('2026-11-26T10:00:00.000Z')
      details.record({ ...good(), updated_at: '2026-11-27T10:00:00.000Z' }, [], '2026-11-27T10:00:00.000Z')
      expect(details.tracking('order-1')!.latestUnreadable).toBeNull()
    })
  }
})

describe('an order sent from this laptop', () => {
  const sent = [
    { catalogItemGuid: 'item-a', sku: 'A-1', qty: 2 },
    { catalogItemGuid: 'item-b', sku: 'B-1', qty: 5 },
    { catalogItemGuid: 'item-c', sku: 'C-1', qty: 4 },
  ]
  const copy = (items: Record<string, unknown>[]) => ({
    ...order(2, []),
    api_guid: 'AG-1',
    Order_Items: items.map((item, index) => ({
      item_no: index + 1,
      qty_shipped: 0,
      qty_backordered: 0,
      qty_pending: 0,
      ...item,
    })),
  })

  it('marks each line that differs from what was sent, and names what was sent but is not there', () => {
    details.record(
      copy([
        { catalog_item_guid: 'item-a', sku: 'A-1', qty: 2 },
        // Line 2 was replaced by an item never ordered; line 3's quantity changed.
        { catalog_item_guid: 'item-z', sku: 'Z-9', qty: 5 },
        { catalog_item_guid: 'item-c', sku: 'C-1', qty: 40 },
      ]),
      [],
      '2026-11-25T10:00:00.000Z',
    )
    const shown = details.tracking('order-1', (apiGuid) => (apiGuid.toLowerCase() === 'ag-1' ? sent : null))!
    expect(shown.lines.map((line) => [line.sku, line.notAsSent])).toEqual([
      ['A-1', null],
      ['Z-9', 'Differs from what was sent: not on the order as sent.'],
      ['C-1', 'Differs from what was sent: sent as 4.'],
    ])
    expect(shown.sentMissing).toEqual([{ sku: 'B-1', qty: 5 }])
  })

  it('takes a backorder split off the line as the quantity sent, and marks nothing on an order not sent from here', () => {
    details.record(
      copy([{ catalog_item_guid: 'item-a', sku: 'A-1', qty: 1, qty_shipped: 1, qty_backordered: 1 }]),
      [],
      '2026-11-25T10:00:00.000Z',
    )
    expect(details.tracking('order-1', () => [sent[0]!])!.lines.map((line) => line.notAsSent)).toEqual([null])
    expect(details.tracking('order-1', () => null)).toMatchObject({ lines: [{ notAsSent: null }], sentMissing: [] })
  })
})
