/**
 * The contract's customer writes through the core's handler table, as the window calls them: a
 * customer made while the service is away is listed at once as made on this laptop, an order drafted
 * for it waits for it, and once the service answers the customer is made once and the order goes
 * with its new guid. A change to a synced customer is queued and sent as the rep made it.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { call } from '../../src/main/core/handlers'
import { startOrdersHarness, type OrdersHarness } from './orders-support'

let harness: OrdersHarness | undefined
afterEach(async () => {
  await harness?.close()
  harness = undefined
})

async function signInAsUser(h: OrdersHarness): Promise<void> {
  const { userGuid, userToken, supplierGuid } = h.service.credentials
  await h.api('saveConnection', {
    baseUrl: h.service.url,
    auth: { kind: 'session', userGuid, userToken, supplierGuid },
  })
}

describe('addCustomer', () => {
  it('made offline, ordered for at once, and sent once with its order after it', async () => {
    const h = (harness = await startOrdersHarness())
    const target = h.orderable()
    await h.stopService()
    const made = await h.api('addCustomer', { name: 'Laptop Made Deli', email: 'orders@laptopmade.example' })
    expect(made).toMatchObject({ kind: 'newCustomer', state: 'queued', customerName: 'Laptop Made Deli' })
    const listed = await h.api('listOutbox')
    expect(listed.find((entry) => entry.apiGuid === made.apiGuid)?.kind).toBe('newCustomer')

    const draft = await h.api('createDraft', { customerLocalId: made.apiGuid, catalogGuid: target.catalogGuid })
    expect(draft.draft).toMatchObject({ customerLocalId: made.apiGuid, newCustomer: { name: 'Laptop Made Deli' } })
    await h.api('addDraftLines', { id: draft.draft.id, lines: [{ sku: target.skus[0]!, qty: 1 }] })
    const order = await h.api('sendDraft', { id: draft.draft.id })
    expect((await h.api('listOutbox')).find((entry) => entry.apiGuid === order.apiGuid)?.waitsFor).toBe(made.apiGuid)

    await h.restartService()
    await signInAsUser(h)
    await h.api('retryOutbox', {})
    await h.api('flushOutbox')
    await h.api('flushOutbox')
    const created = h.service.control.customers().filter((customer) => customer.name === 'Laptop Made Deli')
    expect(created).toHaveLength(1)
    const after = await h.api('listOutbox')
    expect(after.find((entry) => entry.apiGuid === made.apiGuid)).toMatchObject({
      state: 'sent',
      customerGuid: created[0]!.guid,
    })
    const log = h.service.control.requestLog()
    const ordered = log.find((each) => each.route === 'POST /v1/orderWithItems')
    expect(ordered?.headers['vendorguid']).toBe(created[0]!.guid)
    expect(h.service.control.ordersByApiGuid(order.apiGuid)[0]?.vendor_id).toBe(created[0]!.id)

    // Sent, yet not on the laptop until a sync: its key still finds it, and the order goes with its guid.
    const later = await h.api('createDraft', { customerLocalId: made.apiGuid, catalogGuid: target.catalogGuid })
    await h.api('addDraftLines', { id: later.draft.id, lines: [{ sku: target.skus[0]!, qty: 2 }] })
    const second = await h.api('sendDraft', { id: later.draft.id })
    await h.api('flushOutbox')
    expect(h.service.control.ordersByApiGuid(second.apiGuid)[0]?.vendor_id).toBe(created[0]!.id)
    expect(h.service.control.customers().filter((customer) => customer.name === 'Laptop Made Deli')).toHaveLength(1)
  })

  it('refuses what the new-customer form refuses, before anything is queued', async () => {
    const h = (harness = await startOrdersHarness())
    const bad = await call(h.core.handlers, 'addCustomer', { name: '  ', email: 'not-an-email' })
    expect(bad).toMatchObject({ ok: false, error: { code: 'INVALID_ARGUMENT' } })
    expect((await h.api('listOutbox')).filter((entry) => entry.kind === 'newCustomer')).toHaveLength(0)
  })
})

describe('changeCustomer', () => {
  it('queues only what differs and sends it as the rep made it', async () => {
    const h = (harness = await startOrdersHarness())
    const { customerGuid } = h.orderable()
    await signInAsUser(h)
    const entry = await h.api('changeCustomer', { guid: customerGuid, changes: { name: 'Renamed At The Counter' } })
    expect(entry).toMatchObject({
      kind: 'customerChange',
      state: 'queued',
      title: expect.stringMatching(/^Change name/),
    })
    await h.api('flushOutbox')
    const put = h.service.control.requestLog().filter((each) => each.route === 'PUT /v1/vendors/:vendorGuid')
    expect(put).toHaveLength(1)
    expect(put[0]!.body).toMatchObject({ name: 'Renamed At The Counter' })
    const same = await call(h.core.handlers, 'changeCustomer', {
      guid: customerGuid,
      changes: { requirePo: false },
    })
    expect(same).toMatchObject({ ok: false, error: { code: 'INVALID_ARGUMENT' } })
  })

  it('a phone edit is what the customer page and the Edit field show after the next sync', async () => {
    const h = (harness = await startOrdersHarness())
    const { customerGuid } = h.orderable()
    await signInAsUser(h)
    // A customer whose own phone and bill-to phone differ, as the supplier's records often do.
    h.service.control.update('customer', customerGuid, { phone: '(503) 555-0100' })
    expect((await h.api('syncNow', {})).ok).toBe(true)
    const before = await h.api('getCustomer', { guid: customerGuid })
    const edited = before.phone === '(503) 555-0199' ? '(503) 555-0198' : '(503) 555-0199'
    await h.api('changeCustomer', { guid: customerGuid, changes: { phone: edited } })
    await h.api('flushOutbox')
    await h.settle()
    expect((await h.api('syncNow', {})).ok).toBe(true)
    expect((await h.api('getCustomer', { guid: customerGuid })).phone).toBe(edited)
  })
})
