/**
 * The writes-after-Send methods of the contract through the core's handler table, as the window
 * calls them: with an API key alone a change to a sent order is not offered (sign in as a user);
 * signed in as a user it is queued, on disk, and the outbox sends it. While a change waits, the
 * order's header says it, and asking for it again queues nothing.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { call } from '../../src/main/core/handlers'
import { startOrdersHarness, type OrdersHarness } from './orders-support'

async function signInAsUser(h: OrdersHarness): Promise<void> {
  const { userGuid, userToken, supplierGuid } = h.service.credentials
  await h.api('saveConnection', {
    baseUrl: h.service.url,
    auth: { kind: 'session', userGuid, userToken, supplierGuid },
  })
}

let harness: OrdersHarness | undefined
afterEach(async () => {
  await harness?.close()
  harness = undefined
})

describe('changeSentOrder and submitSentOrder', () => {
  it('with an API key say to sign in as a user; signed in as one, a hold is queued and sent', async () => {
    const h = (harness = await startOrdersHarness())
    const apiGuid = await h.queueOrder()
    await h.api('flushOutbox')
    const keyOnly = await call(h.core.handlers, 'changeSentOrder', { order: apiGuid, changes: { onHold: true } })
    expect(keyOnly).toMatchObject({ ok: false, error: { code: 'UNAUTHORIZED' } })
    expect(keyOnly.ok ? '' : keyOnly.error.message).toMatch(/signed in as a user/)
    const submit = await call(h.core.handlers, 'submitSentOrder', { order: apiGuid, fulfilment: 'partial' })
    expect(submit).toMatchObject({ ok: false, error: { code: 'UNAUTHORIZED' } })

    await signInAsUser(h)
    const entry = await h.api('changeSentOrder', { order: apiGuid, changes: { onHold: true } })
    expect(entry).toMatchObject({
      kind: 'orderChange',
      state: 'queued',
      title: expect.stringMatching(/^Hold requested/),
      // What the order page says is waiting for this order, found by its guid before the change is sent.
      asks: ['Hold requested'],
      orderGuid: h.service.control.ordersByApiGuid(apiGuid)[0]!.guid,
    })
    await h.api('flushOutbox')
    const [order] = h.service.control.ordersByApiGuid(apiGuid)
    expect(h.service.control.orders().find((each) => each.guid === order!.guid)?.is_on_hold).toBe(true)
    const listed = await h.api('listOutbox')
    expect(listed.find((each) => each.apiGuid === entry.apiGuid)?.state).toBe('sent')
    const notConflicted = await call(h.core.handlers, 'applyMyChange', { apiGuid: entry.apiGuid })
    expect(notConflicted).toMatchObject({ ok: false, error: { code: 'CONFLICT' } })
  })

  it('a change made while another waits starts from it, and asking again for what waits queues nothing', async () => {
    const h = (harness = await startOrdersHarness())
    const apiGuid = await h.queueOrder()
    await h.api('flushOutbox')
    await signInAsUser(h)
    const orderGuid = String(h.service.control.ordersByApiGuid(apiGuid)[0]!.guid)
    // Offline: what is queued waits.
    h.service.control.addFault({ route: '*', type: 'destroySocket' })
    const hold = await h.api('changeSentOrder', { order: orderGuid, changes: { onHold: true } })
    expect((await h.api('getSentOrderHeader', { order: orderGuid })).record).toMatchObject({ is_on_hold: true })

    // The rep ticks "On hold" again, and changes the PO: only the PO is queued.
    const again = await h.api('changeSentOrder', { order: orderGuid, changes: { onHold: true } })
    expect(again.apiGuid).toBe(hold.apiGuid)
    const po = await h.api('changeSentOrder', { order: orderGuid, changes: { onHold: true, poNo: 'SECOND-PO' } })
    expect(po).toMatchObject({ asks: ['PO change'], title: expect.stringMatching(/^PO changed for /) })
    const changes = (await h.api('listOutbox')).filter((entry) => entry.kind === 'orderChange')
    // Newest first, as the Outbox lists them.
    expect(changes.map((entry) => entry.asks)).toEqual([['PO change'], ['Hold requested']])
    expect((await h.api('getSentOrderHeader', { order: orderGuid })).record).toMatchObject({
      is_on_hold: true,
      po_no: 'SECOND-PO',
    })

    // Back online: each is sent once, and the PO change finds the hold already there.
    h.service.control.clearFaults()
    await h.api('retryOutbox', {})
    await h.api('flushOutbox')
    await h.settle()
    const updates = h.service.control.requestLog().filter((each) => each.route === 'PUT /v1/orders/:orderGuid')
    expect(updates.map((each) => each.body)).toEqual([{ is_on_hold: true }, { po_no: 'SECOND-PO' }])
  })

  it('a change sent but not yet synced back is what the next change starts from', async () => {
    const h = (harness = await startOrdersHarness())
    const apiGuid = await h.queueOrder()
    await h.api('flushOutbox')
    await h.api('syncNow', {})
    await signInAsUser(h)
    const orderGuid = String(h.service.control.ordersByApiGuid(apiGuid)[0]!.guid)
    const supplierCopy = () => h.service.control.orders().find((each) => each.guid === orderGuid)!

    await h.api('changeSentOrder', { order: orderGuid, changes: { onHold: true, poNo: 'FIRST-PO' } })
    await h.api('flushOutbox')
    expect(supplierCopy()).toMatchObject({ is_on_hold: true, po_no: 'FIRST-PO' })
    // No sync since: the Change dialog still shows what was sent, not the copy from before it.
    expect((await h.api('getSentOrderHeader', { order: orderGuid })).record).toMatchObject({
      is_on_hold: true,
      po_no: 'FIRST-PO',
    })

    // The PO changed again: from FIRST-PO, as the supplier has it, so no conflict with the rep's own change.
    const second = await h.api('changeSentOrder', { order: orderGuid, changes: { poNo: 'SECOND-PO' } })
    await h.api('flushOutbox')
    await h.settle()
    const listed = (await h.api('listOutbox')).find((entry) => entry.apiGuid === second.apiGuid)
    expect(listed?.state).toBe('sent')
    expect(supplierCopy()).toMatchObject({ is_on_hold: true, po_no: 'SECOND-PO' })
    // Releasing the hold is a change too, not "the order already says so".
    const release = await call(h.core.handlers, 'changeSentOrder', { order: orderGuid, changes: { onHold: false } })
    expect(release).toMatchObject({ ok: true, value: { asks: ['Release requested'] } })

    // Once synced, the copy says it all itself; and what the supplier changes after the rep's answer wins.
    await h.api('flushOutbox')
    await h.api('syncNow', {})
    expect((await h.api('getSentOrderHeader', { order: orderGuid })).record).toMatchObject({
      is_on_hold: false,
      po_no: 'SECOND-PO',
    })
    h.service.control.update('order', orderGuid, { po_no: 'SUPPLIER-PO' })
    await h.api('syncNow', {})
    expect((await h.api('getSentOrderHeader', { order: orderGuid })).record).toMatchObject({ po_no: 'SUPPLIER-PO' })
  })

  it('a field the supplier changed meanwhile waits for the rep; the others in the same change go at once', async () => {
    const h = (harness = await startOrdersHarness())
    const apiGuid = await h.queueOrder()
    await h.api('flushOutbox')
    await signInAsUser(h)
    expect((await h.api('syncNow', {})).ok).toBe(true)
    const [order] = h.service.control.ordersByApiGuid(apiGuid)
    const guid = String(order!.guid)
    const serviceOrder = () => h.service.control.orders().find((each) => each.guid === guid)!

    // Offline, the rep asks for a new PO and a hold in one change; meanwhile the supplier changes the PO.
    const entry = await h.api('changeSentOrder', { order: apiGuid, changes: { poNo: 'REP-PO', onHold: true } })
    h.service.control.editOrderHeader(guid, { po_no: 'SUPPLIER-PO' })
    await h.api('flushOutbox')

    // The hold is with the supplier now, so nothing ships while the rep decides about the PO.
    expect(serviceOrder().is_on_hold).toBe(true)
    expect(serviceOrder().po_no).toBe('SUPPLIER-PO')
    const waiting = (await h.api('listOutbox')).find((each) => each.apiGuid === entry.apiGuid)!
    expect(waiting.state).toBe('conflict')
    expect(waiting.conflict).toEqual([
      expect.objectContaining({ field: 'po_no', theirs: 'SUPPLIER-PO', mine: 'REP-PO' }),
    ])
    expect(waiting.outcome).toMatch(/^Sent meanwhile: On hold\./)

    // Apply mine sends the PO alone: the hold is not sent twice.
    await h.api('applyMyChange', { apiGuid: entry.apiGuid })
    await h.api('flushOutbox')
    expect(serviceOrder().po_no).toBe('REP-PO')
    const puts = h.service.control.requestLog().filter((each) => each.route === 'PUT /v1/orders/:orderGuid')
    expect(puts.map((put) => Object.keys(put.body as object).sort())).toEqual([['is_on_hold'], ['po_no']])
    expect((await h.api('listOutbox')).find((each) => each.apiGuid === entry.apiGuid)?.state).toBe('sent')
  })
})
