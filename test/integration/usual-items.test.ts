/**
 * A customer's usual items, from synced order history and orders sent from this laptop, priced today
 * for that customer against the double's data.
 */
import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { call } from '../../src/main/core/handlers'
import type { OrderRecord } from '../../src/main/ordering-client/schemas'
import { startOrdersHarness, type OrdersHarness } from './orders-support'

let harness: OrdersHarness
const day = 86_400_000
const ago = (days: number) => new Date(Date.now() - days * day).toISOString()

beforeAll(async () => {
  harness = await startOrdersHarness()
})
afterAll(async () => {
  await harness.close()
})

function itemRow(sku: string) {
  return harness.core.db
    .prepare<[string], { guid: string; id: number; name: string; catalog_guid: string }>(
      'SELECT guid, id, name, catalog_guid FROM catalog_items WHERE sku = ?',
    )
    .get(sku)!
}

describe('a customer’s usual items', () => {
  it('says a customer not on this laptop is not found, rather than that they order nothing', async () => {
    const result = await call(harness.core.handlers, 'getUsualItems', { customerGuid: randomUUID() })
    expect(result.ok).toBe(false)
    if (!result.ok) expect(result.error.code).toBe('NOT_FOUND')
  })

  it('ranks by order count then recency over 12 months, leaves out deleted items and marks those not offered or out of stock', async () => {
    const target = harness.orderable(5, 1)
    const [often, recent, older, removed, withdrawn] = target.skus.map(itemRow)
    const vendor = { guid: target.customerGuid }
    const catalog = { guid: target.catalogGuid }
    const order = (days: number, lines: Record<string, unknown>[]): OrderRecord =>
      ({
        guid: randomUUID(),
        id: Math.floor(Math.random() * 1e9),
        name: `H-${days}`,
        Vendor: vendor,
        Catalog: catalog,
        created_at: ago(days),
        updated_at: ago(days),
        Order_Items: lines,
      }) as unknown as OrderRecord
    // The list projection names a line's item by id, name and SKU; a full order by guid.
    const byId = (item: typeof often, qty: number) => ({
      qty,
      catalog_item_id: item!.id,
      Catalog_Item: { id: item!.id, sku: 'ignored', name: item!.name },
    })
    const byGuid = (item: typeof often, qty: number) => ({ qty, catalog_item_guid: item!.guid })
    harness.core.sync.copy.applyOrders(
      [
        order(60, [byGuid(often, 3), byGuid(older, 1)]),
        order(30, [byId(often, 5)]),
        order(20, [byGuid(removed, 2), byGuid(withdrawn, 4)]),
        order(400, [byGuid(older, 9), byGuid(older, 9)]),
      ],
      { listingId: null, serverTime: null },
    )
    // The service removes one item and stops offering another to this customer's group.
    const group = harness.core.db
      .prepare<[string], string>(
        'SELECT p.name FROM customers c JOIN price_groups p ON p.id = c.price_group_id WHERE c.guid = ?',
      )
      .pluck()
      .get(target.customerGuid)!
    harness.service.control.softDelete('catalogItem', removed!.guid)
    harness.service.control.setPrice(withdrawn!.guid, group, 'N/A')
    harness.service.control.update('catalogItem', older!.guid, {
      has_inventory: true,
      allow_backorder: false,
      qty_on_hand: 0,
      reserved_qty_on_hand: 0,
    })
    await harness.api('syncNow', {})

    // Sent from this laptop today: counts too, once the service confirmed it.
    const draft = await harness.api('createDraft', {
      customerGuid: target.customerGuid,
      catalogGuid: target.catalogGuid,
    })
    await harness.api('addDraftLines', { id: draft.draft.id, lines: [{ catalogItemGuid: recent!.guid, qty: 7 }] })
    await harness.api('sendDraft', { id: draft.draft.id })
    await harness.settle()

    const { items } = await harness.api('getUsualItems', { customerGuid: target.customerGuid })
    expect(items.map((item) => [item.sku, item.orders, item.lastQty])).toEqual([
      [target.skus[0], 2, 5],
      [target.skus[1], 1, 7],
      [target.skus[4], 1, 4],
      [target.skus[2], 1, 1],
    ])
    const [first, sent, notOffered, last] = items
    expect(first!.lastOrderedAt.slice(0, 10)).toBe(ago(30).slice(0, 10))
    expect(first!.offered && first!.available && first!.price !== null).toBe(true)
    expect(sent!.offered).toBe(true)
    expect(notOffered).toMatchObject({ offered: false, available: false, price: null, note: 'not offered any more' })
    // Out of stock at the last sync: still offered and priced, but not added by "add all".
    expect(last).toMatchObject({ orders: 1, offered: true, available: false })
    expect(last!.price).not.toBeNull()
    // The date as every screen writes one in the rep's locale (en-US here), not ISO beside formatted ones.
    expect(last!.note).toMatch(/^out of stock as of [A-Z][a-z]{2} \d{1,2}, \d{4}$/)

    const limited = await harness.api('getUsualItems', { customerGuid: target.customerGuid, limit: 2 })
    expect(limited.items.map((item) => item.sku)).toEqual([target.skus[0], target.skus[1]])
  })
})
