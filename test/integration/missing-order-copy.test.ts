/**
 * An order whose full copy the supplier no longer gives (GET /v1/orders/{guid} answers 404): a
 * change asked for it after Send is refused and stays in the outbox with no draft of
 * its own. Every reader that walks the outbox's orders, or the order's copy, goes on past it: the
 * picture pass after each sync, the customer's usual items, the order page.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { createPictureDemand } from '../../src/main/core/picture-demand'
import { openLocalData } from '../../src/main/local/data'
import { startOrdersHarness, type OrdersHarness } from './orders-support'

const detailRoute = 'GET /v1/orders/:orderGuid'

let harness: OrdersHarness | undefined
afterEach(async () => {
  await harness?.close()
  harness = undefined
})

describe('an order whose full copy is missing', () => {
  it('leaves a change refused, and the sync, the picture pass and the usual items go on', async () => {
    const h = (harness = await startOrdersHarness())
    const target = h.orderable()
    const apiGuid = await h.queueOrder(undefined, target)
    await h.api('flushOutbox')
    await h.settle()
    const orderGuid = String(h.service.control.ordersByApiGuid(apiGuid)[0]!.guid)
    const { userGuid, userToken, supplierGuid } = h.service.credentials
    await h.api('saveConnection', {
      baseUrl: h.service.url,
      auth: { kind: 'session', userGuid, userToken, supplierGuid },
    })
    // From here on the supplier answers 404 for the order's full copy: the sync lists the order, but
    // its copy is never kept.
    h.service.control.addFault({ route: detailRoute, type: 'status', status: 404, body: { message: 'Not found' } })
    const first = await h.api('syncNow', {})
    expect(first.ok).toBe(true)
    expect(first.orderDetails?.failed).toBeGreaterThan(0)

    const hold = await h.api('changeSentOrder', { order: orderGuid, changes: { onHold: true } })
    await h.api('flushOutbox')
    await h.settle()
    const entry = (await h.api('listOutbox')).find((each) => each.apiGuid === hold.apiGuid)
    expect(entry?.state).toBe('refused')
    expect((await h.api('syncNow', {})).ok).toBe(true)

    // What the pass asks first: the items of open orders and the usual items of their customers.
    const demand = createPictureDemand(openLocalData(h.core.db), { now: () => Date.now() })
    expect(() => demand.wanted()).not.toThrow()
    const pass = await h.core.pictures!.pass()
    expect(pass).not.toBeNull()
    const usual = await h.api('getUsualItems', { customerGuid: target.customerGuid })
    expect(usual.items.map((item) => item.sku)).toEqual(expect.arrayContaining(target.skus))
    // The order page: the synced order, and no tracking until a copy comes.
    expect((await h.api('getOrder', { guid: orderGuid })).guid).toBe(orderGuid)
    expect(await h.api('getOrderTracking', { guid: orderGuid })).toBeNull()
    expect((await h.api('getSentOrderHeader', { order: orderGuid })).record).toMatchObject({ is_on_hold: false })
  })
})
