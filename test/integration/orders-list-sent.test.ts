/** The orders list's "sent from this laptop, not yet in the synced history": never an order the history holds, and searched like the history. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startOrdersHarness, type OrdersHarness } from './orders-support'

let harness: OrdersHarness

beforeAll(async () => {
  harness = await startOrdersHarness()
})
afterAll(async () => {
  await harness.close()
})

describe('orders list: sent, not yet synced', () => {
  it('leaves out an order the history holds under any case of its guids, and applies the search, state, dates and customer', async () => {
    const target = harness.orderable(2)
    const draft = await harness.api('createDraft', {
      customerGuid: target.customerGuid,
      catalogGuid: target.catalogGuid,
    })
    await harness.api('addDraftLines', { id: draft.draft.id, lines: target.skus.map((sku) => ({ sku, qty: 2 })) })
    await harness.api('updateDraft', { id: draft.draft.id, changes: { poNo: 'PO-BOX-1' } })
    const { apiGuid } = await harness.api('sendDraft', { id: draft.draft.id })
    await harness.settle()
    const served = harness.service.control.ordersByApiGuid(apiGuid)[0] as Record<string, unknown>
    const db = harness.core.db

    // Stored in capitals, as a service may answer, and in mixed case, as a hand-edited record might.
    db.prepare('UPDATE orders SET guid = upper(guid), api_guid = upper(api_guid) WHERE lower(guid) = lower(?)').run(
      String(served.guid),
    )
    expect((await harness.api('listOrders', {})).sentNotSynced).toEqual([])
    db.prepare(
      'UPDATE orders SET guid = substr(lower(guid), 1, 9) || substr(guid, 10), api_guid = substr(lower(api_guid), 1, 9) || substr(api_guid, 10) WHERE lower(guid) = lower(?)',
    ).run(String(served.guid))
    expect((await harness.api('listOrders', { query: 'PO-BOX-1' })).sentNotSynced).toEqual([])
    expect((await harness.api('listOrders', { query: 'nothing like it' })).sentNotSynced).toEqual([])
    // Held under its api_guid alone (a history row from before the service's guid was known).
    db.prepare("UPDATE orders SET guid = 'ffffffff-0000-4000-8000-000000000001' WHERE lower(api_guid) = lower(?)").run(
      apiGuid,
    )
    expect((await harness.api('listOrders', {})).sentNotSynced).toEqual([])

    db.prepare('DELETE FROM orders WHERE lower(api_guid) = lower(?)').run(apiGuid)
    const shown = (await harness.api('listOrders', { query: 'po-box' })).sentNotSynced
    expect(shown.map((entry) => [entry.apiGuid, entry.orderName, entry.poNo, entry.grandTotal])).toEqual([
      [apiGuid, served.name, 'PO-BOX-1', served.grand_total],
    ])
    const today = new Date()
    const day = (offset: number): string => {
      const d = new Date(today.getFullYear(), today.getMonth(), today.getDate() + offset)
      return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`
    }
    expect(
      (
        await harness.api('listOrders', {
          from: day(0),
          to: day(0),
          customerGuid: target.customerGuid,
          stateId: Number(served.order_state_id),
        })
      ).sentNotSynced,
    ).toHaveLength(1)
    expect((await harness.api('listOrders', { from: day(1) })).sentNotSynced).toEqual([])
    expect((await harness.api('listOrders', { to: day(-1) })).sentNotSynced).toEqual([])
    expect((await harness.api('listOrders', { stateId: Number(served.order_state_id) + 1000 })).sentNotSynced).toEqual(
      [],
    )
    expect(
      (await harness.api('listOrders', { customerGuid: harness.orderable(2, 1).customerGuid })).sentNotSynced,
    ).toEqual([])

    await harness.api('syncNow', {})
    expect((await harness.api('listOrders', { query: 'PO-BOX-1' })).orders).toHaveLength(1)
    expect((await harness.api('listOrders', { query: 'PO-BOX-1' })).sentNotSynced).toEqual([])
  })
})
