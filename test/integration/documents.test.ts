/** The printable document of a draft and of an order still waiting in the outbox, from the core. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startOrdersHarness, type OrdersHarness } from './orders-support'

let harness: OrdersHarness

beforeAll(async () => {
  harness = await startOrdersHarness()
})
afterAll(async () => {
  await harness.close()
})

describe('documents', () => {
  it('prints a draft and an order waiting to be sent with the prices the rep saw, and a hide_pricing customer’s with none', async () => {
    const target = harness.orderable(2)
    const draft = await harness.api('createDraft', { customerGuid: target.customerGuid, catalogGuid: target.catalogGuid })
    const { check } = await harness.api('addDraftLines', { id: draft.draft.id, lines: target.skus.map((sku) => ({ sku, qty: 3 })) })
    await harness.api('updateDraft', { id: draft.draft.id, changes: { poNo: 'PO-77' } })

    const printedDraft = await harness.api('getDocument', { kind: 'draft', ref: String(draft.draft.id) })
    expect(printedDraft).toMatchObject({ kind: 'draft', title: 'Draft order', number: `Draft ${draft.draft.id}`, poNo: 'PO-77', hidePricing: false, subTotal: check.subTotal })
    expect(printedDraft.customer.name).toBe(target.customerName)
    expect(printedDraft.lines.map((line) => [line.sku, line.qty, line.unitPrice])).toEqual(check.draft.lines.map((line) => [line.sku, 3, line.unitPriceSeen]))
    expect(printedDraft.pricesAsOf).not.toBeNull()

    // Offline: the order waits in the outbox, and its document says so.
    await harness.stopService()
    const apiGuid = (await harness.api('sendDraft', { id: draft.draft.id })).apiGuid
    const waiting = await harness.api('getDocument', { kind: 'queued', ref: apiGuid.toUpperCase() })
    expect(waiting).toMatchObject({ kind: 'queued', title: 'Order (waiting to be sent)', number: null, subTotal: check.subTotal, grandTotal: null })
    expect(waiting.lines.map((line) => line.sku)).toEqual(target.skus)
    await harness.restartService()

    // A customer who must not see prices: none in the document, not even a total.
    harness.service.control.update('customer', target.customerGuid, { hide_pricing: true })
    await harness.api('syncNow', {})
    const hidden = await harness.api('getDocument', { kind: 'queued', ref: apiGuid })
    expect(hidden.hidePricing).toBe(true)
    expect(hidden.lines.every((line) => line.unitPrice === null && line.lineTotal === null)).toBe(true)
    expect([hidden.subTotal, hidden.grandTotal, hidden.charges]).toEqual([null, null, null])
  })
})
