import { afterEach, describe, expect, it } from 'vitest'
import { orderRoute, startOrdersHarness, type OrdersHarness } from './orders-support'

let harness: OrdersHarness | undefined
afterEach(async () => {
  await harness?.close()
  harness = undefined
})

const postsFor = (h: OrdersHarness, apiGuid: string) =>
  h.service.control.requestLog().filter((entry) => entry.route === orderRoute && JSON.stringify(entry.body ?? {}).includes(apiGuid))

describe('outbox against the ordering-service double', () => {
  it('the server commits and the connection drops before the reply: the order exists once and the entry ends sent', async () => {
    harness = await startOrdersHarness()
    harness.service.control.addFault({ route: orderRoute, type: 'commitThenDrop', times: 1 })
    const apiGuid = await harness.queueOrder()
    await harness.settle()
    expect((await harness.api('listOutbox'))[0]).toMatchObject({ apiGuid, state: 'retrying', attempts: 1 })
    expect(harness.service.control.ordersByApiGuid(apiGuid)).toHaveLength(1)

    const second = await harness.api('flushOutbox')
    expect(second).toMatchObject({ sent: 1, retrying: 0 })
    const [entry] = (await harness.api('listOutbox')).filter((e) => e.apiGuid === apiGuid)
    const [order] = harness.service.control.ordersByApiGuid(apiGuid)
    expect(entry).toMatchObject({ state: 'sent', attempts: 2, orderGuid: order!.guid, orderName: order!.name })
    expect(harness.service.control.ordersByApiGuid(apiGuid)).toHaveLength(1)
    expect(postsFor(harness, apiGuid)).toHaveLength(2)
  })

  it('ReconcileErrors (inactive customer, inactive item, short stock) go to needsAttention on the right line after one attempt; the others are sent', async () => {
    harness = await startOrdersHarness()
    const target = harness.orderable(3)
    const other = harness.orderable(1, 1)
    const { control } = harness.service
    // The service changed after the last sync; the local copy still thinks all is well.
    control.deactivate('catalogItem', target.itemGuids[1]!)
    control.update('catalogItem', target.itemGuids[2]!, { has_inventory: true, allow_backorder: false, qty_on_hand: 2, reserved_qty_on_hand: 0 })
    control.deactivate('customer', other.customerGuid)

    const good = await harness.queueOrder([{ sku: target.skus[0]!, qty: 1 }])
    const forInactiveItem = await harness.queueOrder([{ sku: target.skus[0]!, qty: 1 }, { sku: target.skus[1]!, qty: 2 }])
    const forShortStock = await harness.queueOrder([{ sku: target.skus[2]!, qty: 5 }, { sku: target.skus[0]!, qty: 1 }])
    const forInactiveCustomer = await harness.queueOrder([{ sku: other.skus[0]!, qty: 1 }], other)
    const alsoGood = await harness.queueOrder([{ sku: target.skus[0]!, qty: 2 }])
    await harness.settle()

    const entries = new Map((await harness.api('listOutbox')).map((e) => [e.apiGuid, e]))
    expect(entries.get(good)!.state).toBe('sent')
    expect(entries.get(alsoGood)!.state).toBe('sent')
    expect(entries.get(forInactiveItem)).toMatchObject({
      state: 'needsAttention',
      attempts: 1,
      errors: [{ lineIndex: 1, catalogItemGuid: target.itemGuids[1], message: expect.stringContaining('inactive') }],
    })
    expect(entries.get(forShortStock)).toMatchObject({
      state: 'needsAttention',
      attempts: 1,
      errors: [{ lineIndex: 0, catalogItemGuid: target.itemGuids[2], message: expect.stringContaining('2 available') }],
    })
    expect(entries.get(forInactiveCustomer)).toMatchObject({
      state: 'needsAttention',
      attempts: 1,
      errors: [expect.objectContaining({ lineIndex: null, message: expect.stringMatching(/inactive/i) })],
    })
    // Not retried by itself, however often the outbox is flushed.
    await harness.api('flushOutbox')
    for (const apiGuid of [forInactiveItem, forShortStock, forInactiveCustomer]) {
      expect(postsFor(harness, apiGuid)).toHaveLength(1)
      expect(control.ordersByApiGuid(apiGuid)).toHaveLength(0)
    }
  })

  it('a rejected order is edited back into a draft, fixed, and sent with the same api_guid; another is discarded', async () => {
    harness = await startOrdersHarness()
    const target = harness.orderable(2)
    harness.service.control.deactivate('catalogItem', target.itemGuids[1]!)
    const apiGuid = await harness.queueOrder([{ sku: target.skus[0]!, qty: 1 }, { sku: target.skus[1]!, qty: 3 }])
    await harness.settle()
    expect(await harness.api('getOutboxSummary')).toMatchObject({ needsAttention: 1 })
    expect(harness.service.control.ordersByApiGuid(apiGuid)).toHaveLength(0)

    const reopened = await harness.api('editOutboxEntry', { apiGuid })
    expect(reopened.draft.apiGuid).toBe(apiGuid)
    const badLine = reopened.draft.lines.find((line) => line.catalogItemGuid === target.itemGuids[1])!
    await harness.api('removeDraftLine', { id: reopened.draft.id, lineId: badLine.lineId })
    expect((await harness.api('sendDraft', { id: reopened.draft.id })).apiGuid).toBe(apiGuid)
    await harness.settle()
    await harness.api('flushOutbox')
    const [order] = harness.service.control.ordersByApiGuid(apiGuid)
    expect(harness.service.control.ordersByApiGuid(apiGuid)).toHaveLength(1)
    expect((order!.Order_Items as unknown[]).length).toBe(1)

    const other = await harness.queueOrder([{ sku: target.skus[1]!, qty: 1 }])
    await harness.settle()
    expect((await harness.api('listOutbox')).find((e) => e.apiGuid === other)!.state).toBe('needsAttention')
    await harness.api('discardOutboxEntry', { apiGuid: other })
    expect((await harness.api('listOutbox')).some((e) => e.apiGuid === other)).toBe(false)
  })

  it('offline: queueing works with the service down, flush leaves the entries retrying, and they go when it returns', async () => {
    harness = await startOrdersHarness()
    await harness.stopService()
    const a = await harness.queueOrder()
    const b = await harness.queueOrder()
    await harness.settle()
    const report = await harness.api('flushOutbox')
    expect(report).toMatchObject({ sent: 0, retrying: 2 })
    const waiting = await harness.api('listOutbox')
    expect(waiting.map((e) => e.state)).toEqual(['retrying', 'retrying'])
    expect(waiting.every((e) => e.nextAttemptAt !== null && e.lastError !== null)).toBe(true)

    await harness.restartService()
    expect(await harness.api('flushOutbox')).toMatchObject({ sent: 2, retrying: 0 })
    expect(harness.service.control.ordersByApiGuid(a)).toHaveLength(1)
    expect(harness.service.control.ordersByApiGuid(b)).toHaveLength(1)
    // Oldest first.
    const posts = harness.service.control.requestLog().filter((entry) => entry.route === orderRoute)
    expect(JSON.stringify(posts[0]!.body)).toContain(a)
  })

  it('a new customer created in the field arrives as one customer and one order, even when retried', async () => {
    harness = await startOrdersHarness()
    const target = harness.orderable(1)
    const email = `buyer+${Date.now()}@field-store.example`
    const check = await harness.api('createDraft', {
      newCustomer: {
        name: 'Fieldside Garden Supply',
        email,
        phone: '555-0142',
        billTo: { address_line_one: '12 Orchard Rd', city: 'Hood River', state: 'OR', postal_code: '97031' },
        shipTo: { address_line_one: '14 Orchard Rd', city: 'Hood River', state: 'OR', postal_code: '97031' },
        contact: { name: 'Dana Ruiz', email },
        note: 'Met at the county fair; wants catalog twice a year.',
      },
      catalogGuid: target.catalogGuid,
    })
    await harness.api('addDraftLines', { id: check.draft.id, lines: [{ sku: target.skus[0]!, qty: 2 }] })
    harness.service.control.addFault({ route: orderRoute, type: 'commitThenDrop', times: 1 })
    const { apiGuid } = await harness.api('sendDraft', { id: check.draft.id })
    await harness.settle()
    expect(await harness.api('getOutboxSummary')).toMatchObject({ retrying: 1 })
    expect(await harness.api('flushOutbox')).toMatchObject({ sent: 1 })

    const customers = harness.service.control.customers().filter((c) => c.email === email)
    expect(customers).toHaveLength(1)
    expect(harness.service.control.ordersByApiGuid(apiGuid)).toHaveLength(1)
    const [entry] = (await harness.api('listOutbox')).filter((e) => e.apiGuid === apiGuid)
    expect(entry).toMatchObject({ state: 'sent', customerGuid: customers[0]!.guid })
    // The new customer and the order are in the local copy at once, before any sync.
    expect((await harness.api('getCustomer', { guid: String(customers[0]!.guid) })).name).toBe('Fieldside Garden Supply')
  })

  it('refused credentials pause the queue; saving new credentials resumes it', async () => {
    harness = await startOrdersHarness()
    const { credentials, url } = harness.service
    await harness.api('saveConnection', { baseUrl: url, auth: { kind: 'apiKey', apiKey: credentials.apiKey, apiSecret: 'wrong-secret' } })
    await harness.settle()
    const apiGuid = await harness.queueOrder()
    await harness.settle()
    expect(await harness.api('getOutboxSummary')).toMatchObject({ queued: 1, pausedReason: expect.stringContaining('refused') })
    await harness.api('saveConnection', { baseUrl: url, auth: { kind: 'apiKey', apiKey: credentials.apiKey, apiSecret: credentials.apiSecret } })
    await harness.core.orders.flusher.waitUntilIdle(5_000)
    await harness.api('flushOutbox')
    expect((await harness.api('listOutbox')).find((e) => e.apiGuid === apiGuid)).toMatchObject({ state: 'sent' })
    expect((await harness.api('getOutboxSummary')).pausedReason).toBeNull()
  })
})
