/**
 * The writes-after-Send methods of the contract through the core's handler table, as the window
 * calls them: with an API key alone a change to a sent order is not offered (sign in as a user);
 * signed in as a user it is queued, on disk, and the outbox sends it.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { call } from '../../src/main/core/handlers'
import { startOrdersHarness, type OrdersHarness } from './orders-support'

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

    const { userGuid, userToken, supplierGuid } = h.service.credentials
    await h.api('saveConnection', {
      baseUrl: h.service.url,
      auth: { kind: 'session', userGuid, userToken, supplierGuid },
    })
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
})
