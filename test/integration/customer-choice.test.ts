/**
 * A new customer without an email whose attempt went unanswered, and the supplier's customers of the
 * same name: never a guess. When more than one fits what the rep entered, or only customers that do
 * not fit are there once the first attempt can no longer be in flight, the entry waits for the rep
 * with the candidates, and no order for it goes anywhere until the rep chooses one of them or says
 * none is this customer. A same-named customer that fits another entry exactly is that entry's.
 * Through the contract, as the window calls it, on a laptop clock the test moves.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { call } from '../../src/main/core/handlers'
import { writeInFlightMs } from '../../src/main/orders/outbox/write-kinds'
import { startOrdersHarness, type OrdersHarness } from './orders-support'

const createRoute = 'POST /vendors'
const orderRoute = 'POST /v1/orderWithItems'

let harness: OrdersHarness | undefined
afterEach(async () => {
  await harness?.close()
  harness = undefined
})

/** The laptop's clock, moved on by the test: the service's own clock stays where it is. */
function movableClock() {
  let offset = 0
  return {
    clock: { now: () => Date.now() + offset },
    /** Past the time an unanswered request may still be at the service. */
    passInFlightWindow() {
      offset += writeInFlightMs + 60_000
    },
  }
}

async function start(): Promise<{ h: OrdersHarness; later: () => void }> {
  const { clock, passInFlightWindow } = movableClock()
  const h = (harness = await startOrdersHarness({}, { clock }))
  const { userGuid, userToken, supplierGuid } = h.service.credentials
  await h.api('saveConnection', {
    baseUrl: h.service.url,
    auth: { kind: 'session', userGuid, userToken, supplierGuid },
  })
  return { h, later: passInFlightWindow }
}

/** A customer made on this laptop with an order for it, both queued; answers the two keys. */
async function customerWithOrder(
  h: OrdersHarness,
  customer: { name: string; phone: string },
): Promise<{ customerKey: string; orderKey: string }> {
  const target = h.orderable()
  const made = await h.api('addCustomer', customer)
  const draft = await h.api('createDraft', { customerLocalId: made.apiGuid, catalogGuid: target.catalogGuid })
  await h.api('addDraftLines', { id: draft.draft.id, lines: [{ sku: target.skus[0]!, qty: 1 }] })
  const order = await h.api('sendDraft', { id: draft.draft.id })
  await h.settle()
  return { customerKey: made.apiGuid, orderKey: order.apiGuid }
}

async function flush(h: OrdersHarness): Promise<void> {
  await h.api('retryOutbox', {})
  await h.api('flushOutbox')
}

const entryOf = async (h: OrdersHarness, key: string) => (await h.api('listOutbox')).find((e) => e.apiGuid === key)
const named = (h: OrdersHarness, name: string) =>
  h.service.control.customers().filter((customer) => customer.name === name && customer.deleted_at === null)
const requests = (h: OrdersHarness, route: string) => h.service.control.requestLog().filter((e) => e.route === route)

describe('a new customer the supplier may already have, more than one way', () => {
  it('two customers fit what the rep entered: the rep is asked, the order waits, and goes to the one chosen', async () => {
    const { h } = await start()
    h.service.control.addFault({ route: createRoute, type: 'commitThenDrop', times: 1 })
    const { customerKey, orderKey } = await customerWithOrder(h, { name: 'Twin Counter Cafe', phone: '(503) 555-0303' })
    expect(named(h, 'Twin Counter Cafe')).toHaveLength(1)
    // The supplier's office makes the same customer meanwhile, with the same phone.
    const office = h.service.control.insertCustomer({ name: 'Twin Counter Cafe', phone: '(503) 555-0303' })

    await flush(h)
    const asked = await entryOf(h, customerKey)
    expect(asked).toMatchObject({ state: 'conflict' })
    expect(asked?.candidates?.map((candidate) => candidate.guid).sort()).toEqual(
      named(h, 'Twin Counter Cafe')
        .map((customer) => customer.guid)
        .sort(),
    )
    expect(asked?.candidates?.[0]).toMatchObject({ name: 'Twin Counter Cafe', phone: '(503) 555-0303' })
    expect(requests(h, orderRoute)).toHaveLength(0)
    const waiting = await entryOf(h, orderKey)
    expect(waiting).toMatchObject({ waitsFor: customerKey })
    expect(waiting?.state).not.toBe('sent')

    await h.api('chooseCustomerMatch', { apiGuid: customerKey, customerGuid: String(office.guid) })
    await flush(h)
    await flush(h)
    expect(await entryOf(h, customerKey)).toMatchObject({ state: 'sent', customerGuid: office.guid })
    expect(requests(h, createRoute)).toHaveLength(1)
    expect(h.service.control.ordersByApiGuid(orderKey)[0]?.vendor_id).toBe(office.id)
  })

  it('only a customer that does not fit, once the first attempt cannot be in flight: asked; "none of these" makes it', async () => {
    const { h, later } = await start()
    // The first attempt never reaches the service's handler.
    h.service.control.addFault({ route: createRoute, type: 'destroySocket', times: 1 })
    const { customerKey, orderKey } = await customerWithOrder(h, { name: 'Corner Bakery', phone: '(503) 555-0404' })
    expect(named(h, 'Corner Bakery')).toHaveLength(0)
    const other = h.service.control.insertCustomer({ name: 'Corner Bakery', phone: '(971) 555-0999' })

    await flush(h)
    expect(await entryOf(h, customerKey)).toMatchObject({ state: 'retrying', mayBeWithSupplier: true })
    later()
    await flush(h)
    const asked = await entryOf(h, customerKey)
    expect(asked).toMatchObject({ state: 'conflict', candidates: [{ guid: other.guid, phone: '(971) 555-0999' }] })
    expect(requests(h, orderRoute)).toHaveLength(0)

    // A guid that is not one of the candidates is refused, and nothing changes.
    const wrong = await call(h.core.handlers, 'chooseCustomerMatch', {
      apiGuid: customerKey,
      customerGuid: h.orderable().customerGuid,
    })
    expect(wrong).toMatchObject({ ok: false, error: { code: 'INVALID_ARGUMENT' } })
    expect((await entryOf(h, customerKey))?.state).toBe('conflict')

    await h.api('chooseCustomerMatch', { apiGuid: customerKey, customerGuid: null })
    await flush(h)
    await flush(h)
    const made = named(h, 'Corner Bakery').find((customer) => customer.guid !== other.guid)
    expect(made?.phone).toBe('(503) 555-0404')
    expect(await entryOf(h, customerKey)).toMatchObject({ state: 'sent', customerGuid: made?.guid })
    expect(h.service.control.ordersByApiGuid(orderKey)[0]?.vendor_id).toBe(made?.id)
  })

  it('a same-named customer that fits another waiting entry exactly is that entry’s: each goes to its own, nobody asked', async () => {
    const { h, later } = await start()
    h.service.control.addFault({ route: createRoute, type: 'destroySocket', times: 1 })
    const first = await customerWithOrder(h, { name: 'Pair Street Deli', phone: '(503) 555-0505' })
    h.service.control.addFault({ route: createRoute, type: 'commitThenDrop', times: 1 })
    // Made from the second attempt only; its answer lost too, so the entry is not settled yet either.
    const second = await customerWithOrder(h, { name: 'Pair Street Deli', phone: '(503) 555-0606' })
    expect(named(h, 'Pair Street Deli')).toHaveLength(1)

    later()
    await flush(h)
    await flush(h)
    const customers = named(h, 'Pair Street Deli')
    expect(customers).toHaveLength(2)
    const byPhone = new Map(customers.map((customer) => [String(customer.phone), customer]))
    expect(await entryOf(h, first.customerKey)).toMatchObject({
      state: 'sent',
      customerGuid: byPhone.get('(503) 555-0505')?.guid,
    })
    expect(await entryOf(h, second.customerKey)).toMatchObject({
      state: 'sent',
      customerGuid: byPhone.get('(503) 555-0606')?.guid,
    })
    expect(h.service.control.ordersByApiGuid(first.orderKey)[0]?.vendor_id).toBe(byPhone.get('(503) 555-0505')?.id)
    expect(h.service.control.ordersByApiGuid(second.orderKey)[0]?.vendor_id).toBe(byPhone.get('(503) 555-0606')?.id)
  })
})
