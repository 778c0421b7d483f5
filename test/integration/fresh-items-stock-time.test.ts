/**
 * A catalog row's stock time after Send: the items a draft holds are read again before it is sent
 * (orders/fresh-items.ts), and what that read wrote is stock as of that read, not "never synced".
 */
import { afterEach, expect, test } from 'vitest'
import { startOrdersHarness, type OrdersHarness } from './orders-support'

let harness: OrdersHarness | undefined
afterEach(async () => {
  await harness?.close()
  harness = undefined
})

test('an item read again before Send keeps a stock time: the read’s, never none', async () => {
  harness = await startOrdersHarness()
  const target = harness.orderable(1)
  const itemGuid = target.itemGuids[0]!
  // The supplier's stock moved since the last sync: the read before Send brings the new figure in.
  const qty = 177
  harness.service.control.update('catalogItem', itemGuid, { qty_on_hand: qty })
  const before = Date.now()
  await harness.queueOrder([{ sku: target.skus[0]!, qty: 1 }], target)

  const { items } = await harness.api('searchCatalogItems', {
    catalogGuid: target.catalogGuid,
    query: target.skus[0]!,
    limit: 5,
  })
  const row = items.find((item) => item.guid === itemGuid)
  expect(row?.qtyOnHand).toBe(qty)
  expect(row?.syncedAt).not.toBeNull()
  expect(Date.parse(row!.syncedAt!)).toBeGreaterThanOrEqual(before - 1_000)
  const detail = await harness.api('getCatalogItem', { catalogGuid: target.catalogGuid, guid: itemGuid })
  expect(detail.syncedAt).toBe(row!.syncedAt)
})
