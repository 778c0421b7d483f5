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
    const draft = await harness.api('createDraft', {
      customerGuid: target.customerGuid,
      catalogGuid: target.catalogGuid,
    })
    const { check } = await harness.api('addDraftLines', {
      id: draft.draft.id,
      lines: target.skus.map((sku) => ({ sku, qty: 3 })),
    })
    await harness.api('updateDraft', { id: draft.draft.id, changes: { poNo: 'PO-77' } })

    const printedDraft = await harness.api('getDocument', { kind: 'draft', ref: String(draft.draft.id) })
    expect(printedDraft).toMatchObject({
      kind: 'draft',
      title: 'Draft order',
      number: `Draft ${draft.draft.id}`,
      poNo: 'PO-77',
      hidePricing: false,
      subTotal: check.subTotal,
    })
    expect(printedDraft.customer.name).toBe(target.customerName)
    expect(printedDraft.lines.map((line) => [line.sku, line.qty, line.unitPrice])).toEqual(
      check.draft.lines.map((line) => [line.sku, 3, line.unitPriceSeen]),
    )
    expect(printedDraft.pricesAsOf).not.toBeNull()

    // Offline: the order waits in the outbox, and its document says so.
    await harness.stopService()
    const apiGuid = (await harness.api('sendDraft', { id: draft.draft.id })).apiGuid
    const waiting = await harness.api('getDocument', { kind: 'queued', ref: apiGuid.toUpperCase() })
    expect(waiting).toMatchObject({
      kind: 'queued',
      title: 'Order (waiting to be sent)',
      number: null,
      subTotal: check.subTotal,
      grandTotal: null,
    })
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
  it('prints a sent order, once synced back, with the prices the rep sent and the ship-to contact; an older synced order says where its prices come from', async () => {
    const target = harness.orderable(2, 1)
    const draft = await harness.api('createDraft', {
      customerGuid: target.customerGuid,
      catalogGuid: target.catalogGuid,
    })
    const { check } = await harness.api('addDraftLines', {
      id: draft.draft.id,
      lines: target.skus.map((sku, index) => ({ sku, qty: index + 2 })),
    })
    await harness.api('updateDraft', { id: draft.draft.id, changes: { poNo: 'PO-DOC-SENT' } })
    await harness.api('sendDraft', { id: draft.draft.id })
    await harness.settle()
    await harness.api('syncNow', {})

    const { orders } = await harness.api('listOrders', { query: 'PO-DOC-SENT' })
    expect(orders).toHaveLength(1)
    const printed = await harness.api('getDocument', { kind: 'order', ref: orders[0]!.guid })
    const seen = check.draft.lines.map((line) => [
      line.sku,
      line.qty,
      line.unitPriceSeen,
      Math.round((line.unitPriceSeen ?? 0) * line.qty * 100) / 100,
    ])
    expect(seen.every(([, , price]) => typeof price === 'number')).toBe(true)
    expect(printed.lines.map((line) => [line.sku, line.qty, line.unitPrice, line.lineTotal])).toEqual(seen)
    expect(printed.pricesNote).toBeNull()
    // Its state in words, as the customer reads it, not the interface's capitals.
    expect(['Submitted', 'In review']).toContain(printed.state)

    // The ship-to names the person it goes to, not only the company.
    const customer = await harness.api('getCustomer', { guid: target.customerGuid })
    const shipTo =
      customer.addresses.find((address) => address.kind === 'shipTo' && address.isMainShipTo) ??
      customer.addresses.find((address) => address.kind === 'shipTo')
    expect(shipTo?.name).toBeTruthy()
    expect(shipTo?.name).not.toBe(shipTo?.companyName)
    expect(printed.shipTo).toContain(shipTo!.name)
    expect(printed.shipTo).toContain(shipTo!.companyName)

    // An order placed elsewhere: the synced history has no line prices, and the document says where they come from.
    const shown = new Set(
      harness.core.db.prepare<[], string>('SELECT guid FROM customers WHERE hide_pricing = 0').pluck().all(),
    )
    const older = (await harness.api('listOrders', { limit: 200 })).orders.findLast(
      (order) => order.lineCount > 0 && order.customerGuid !== null && shown.has(order.customerGuid),
    )
    const olderDoc = await harness.api('getDocument', { kind: 'order', ref: older!.guid })
    expect(olderDoc.lines.length).toBeGreaterThan(0)
    expect(olderDoc.lines.every((line) => line.unitPrice === null && line.lineTotal === null)).toBe(true)
    expect(olderDoc.pricesNote).toBe('Line prices come with the order’s details at the next sync.')
    expect(olderDoc.grandTotal).toBe(older!.grandTotal)
  })
})
