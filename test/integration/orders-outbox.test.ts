import { afterEach, describe, expect, it, vi } from 'vitest'
import { call } from '../../src/main/core/handlers'
import { silentLogger } from '../../src/main/ports'
import { orderRoute, startOrdersHarness, type OrdersHarness } from './orders-support'

let harness: OrdersHarness | undefined
afterEach(async () => {
  await harness?.close()
  harness = undefined
})

const postsFor = (h: OrdersHarness, apiGuid: string) =>
  h.service.control
    .requestLog()
    .filter((entry) => entry.route === orderRoute && JSON.stringify(entry.body ?? {}).includes(apiGuid))

describe('outbox against the ordering-service double', () => {
  it('an order whose sending was refused at the door (the port closed) is not sent yet: still editable and discardable', async () => {
    harness = await startOrdersHarness()
    await harness.stopService()
    const apiGuid = await harness.queueOrder()
    await harness.settle()
    expect((await harness.api('listOutbox')).find((e) => e.apiGuid === apiGuid)).toMatchObject({
      state: 'retrying',
      attempts: 1,
      mayBeWithSupplier: false,
    })
    // The customer calls back: the order is amended and queued again under the same key.
    const reopened = await harness.api('editOutboxEntry', { apiGuid })
    expect(reopened.draft.apiGuid).toBe(apiGuid)
    expect(reopened.draft.rejection ?? null).toBeNull()
    await harness.api('sendDraft', { id: reopened.draft.id })
    await harness.settle()
    await harness.api('discardOutboxEntry', { apiGuid })
    expect(await harness.api('listOutbox')).toEqual([])
  })

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
    const { control, credentials, url } = harness.service
    // Queued while the service refused the rep's credentials (nothing was sent); by the time new
    // credentials are saved, the service has changed.
    await harness.api('saveConnection', {
      baseUrl: url,
      auth: { kind: 'apiKey', apiKey: credentials.apiKey, apiSecret: 'expired' },
    })
    const good = await harness.queueOrder([{ sku: target.skus[0]!, qty: 1 }])
    const forInactiveItem = await harness.queueOrder([
      { sku: target.skus[0]!, qty: 1 },
      { sku: target.skus[1]!, qty: 2 },
    ])
    const forShortStock = await harness.queueOrder([
      { sku: target.skus[2]!, qty: 5 },
      { sku: target.skus[0]!, qty: 1 },
    ])
    const forInactiveCustomer = await harness.queueOrder([{ sku: other.skus[0]!, qty: 1 }], other)
    const alsoGood = await harness.queueOrder([{ sku: target.skus[0]!, qty: 2 }])
    await harness.settle()
    control.deactivate('catalogItem', target.itemGuids[1]!)
    control.update('catalogItem', target.itemGuids[2]!, {
      has_inventory: true,
      allow_backorder: false,
      qty_on_hand: 2,
      reserved_qty_on_hand: 0,
    })
    control.deactivate('customer', other.customerGuid)
    control.clearRequestLog()
    expect(await harness.api('getOutboxSummary')).toMatchObject({ queued: 5, pausedReason: expect.any(String) })
    await harness.api('saveConnection', {
      baseUrl: url,
      auth: { kind: 'apiKey', apiKey: credentials.apiKey, apiSecret: credentials.apiSecret },
    })
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
    const busy = harness.service.control.addFault({ route: orderRoute, type: 'status', status: 503 })
    const apiGuid = await harness.queueOrder([
      { sku: target.skus[0]!, qty: 1 },
      { sku: target.skus[1]!, qty: 3 },
    ])
    await harness.settle()
    harness.service.control.deactivate('catalogItem', target.itemGuids[1]!)
    harness.service.control.removeFault(busy)
    await harness.api('flushOutbox')
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

    const stillBad = await harness.api('createDraft', {
      customerGuid: target.customerGuid,
      catalogGuid: target.catalogGuid,
    })
    await harness.api('addDraftLines', { id: stillBad.draft.id, lines: [{ sku: target.skus[0]!, qty: 1 }] })
    harness.service.control.addFault({
      route: orderRoute,
      type: 'status',
      status: 400,
      times: 1,
      body: {
        message: 'Order could not be reconciled',
        code: 'RECONCILE_ERRORS',
        errors: [{ type: 'ITEM_INACTIVE', line: 0, message: 'Item is inactive' }],
      },
    })
    const other = (await harness.api('sendDraft', { id: stillBad.draft.id })).apiGuid
    await harness.settle()
    expect((await harness.api('listOutbox')).find((e) => e.apiGuid === other)).toMatchObject({
      state: 'needsAttention',
      errors: [{ lineIndex: 0, message: 'Item is inactive' }],
    })
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
    expect((await harness.api('getCustomer', { guid: String(customers[0]!.guid) })).name).toBe(
      'Fieldside Garden Supply',
    )
  })

  it('refused credentials pause the queue; saving new credentials resumes it', async () => {
    harness = await startOrdersHarness()
    const { credentials, url } = harness.service
    await harness.api('saveConnection', {
      baseUrl: url,
      auth: { kind: 'apiKey', apiKey: credentials.apiKey, apiSecret: 'wrong-secret' },
    })
    await harness.settle()
    const apiGuid = await harness.queueOrder()
    await harness.settle()
    expect(await harness.api('getOutboxSummary')).toMatchObject({
      queued: 1,
      pausedReason: expect.stringContaining('refused'),
    })
    await harness.api('saveConnection', {
      baseUrl: url,
      auth: { kind: 'apiKey', apiKey: credentials.apiKey, apiSecret: credentials.apiSecret },
    })
    await harness.core.orders.flusher.waitUntilIdle(5_000)
    await harness.api('flushOutbox')
    expect((await harness.api('listOutbox')).find((e) => e.apiGuid === apiGuid)).toMatchObject({ state: 'sent' })
    expect((await harness.api('getOutboxSummary')).pausedReason).toBeNull()
  })

  it('before sending, online: a price or stock change since drafting is flagged and the order waits for the rep', async () => {
    harness = await startOrdersHarness()
    const target = harness.orderable(2)
    const check = await harness.api('createDraft', {
      customerGuid: target.customerGuid,
      catalogGuid: target.catalogGuid,
    })
    const added = await harness.api('addDraftLines', {
      id: check.draft.id,
      lines: [
        { sku: target.skus[0]!, qty: 2 },
        { sku: target.skus[1]!, qty: 4 },
      ],
    })
    const [first, second] = added.check.lines
    const { control } = harness.service
    const group = harness.core.db
      .prepare<[string, string], string>(
        'SELECT p.name FROM price_groups p JOIN customers c ON c.price_group_id = p.id WHERE c.guid = ? AND p.catalog_guid = ?',
      )
      .pluck()
      .get(target.customerGuid, target.catalogGuid)!
    control.setPrice(target.itemGuids[0]!, group, first!.unitPrice! + 1.25)
    control.update('catalogItem', target.itemGuids[1]!, {
      has_inventory: true,
      allow_backorder: false,
      qty_on_hand: 1,
      reserved_qty_on_hand: 0,
    })

    const refused = await call(harness.core.handlers, 'sendDraft', { id: check.draft.id })
    expect(refused.ok).toBe(false)
    if (refused.ok) return
    expect(refused.error).toMatchObject({ code: 'CONFLICT', message: expect.stringContaining('Prices changed') })
    const flagged = await harness.api('getDraft', { id: check.draft.id })
    expect(flagged.lines.find((l) => l.lineId === first!.lineId)).toMatchObject({
      priceChanged: true,
      unitPrice: first!.unitPrice! + 1.25,
    })
    expect(flagged.lines.find((l) => l.lineId === second!.lineId)).toMatchObject({ availabilityChanged: true })
    // Nothing was changed behind the rep's back: the draft still holds the price the rep saw.
    expect(flagged.draft.lines[0]!.unitPriceSeen).toBe(first!.unitPrice)
    expect(control.requestLog().some((e) => e.route === orderRoute)).toBe(false)

    await harness.api('acceptDraftPrices', { id: check.draft.id })
    await harness.api('updateDraftLine', { id: check.draft.id, lineId: second!.lineId, qty: 1 })
    const entry = await harness.api('sendDraft', { id: check.draft.id })
    expect(entry.subTotal).toBe(Math.round(((first!.unitPrice! + 1.25) * 2 + second!.unitPrice!) * 100) / 100)
    await harness.settle()
    expect((await harness.api('listOutbox'))[0]).toMatchObject({
      apiGuid: entry.apiGuid,
      state: 'sent',
      totalsDiffer: null,
    })
  })

  it('before sending, offline: the check uses the local copy and the order is queued at once', async () => {
    harness = await startOrdersHarness()
    await harness.stopService()
    const target = harness.orderable(1)
    const check = await harness.api('createDraft', {
      customerGuid: target.customerGuid,
      catalogGuid: target.catalogGuid,
    })
    await harness.api('addDraftLines', { id: check.draft.id, lines: [{ sku: target.skus[0]!, qty: 1 }] })
    // The harness's core logs to silentLogger: what it says shows how the refresh before sending ended.
    const info = vi.spyOn(silentLogger, 'info')
    const warn = vi.spyOn(silentLogger, 'warn')
    try {
      const entry = await harness.api('sendDraft', { id: check.draft.id })
      expect(entry.state).toBe('queued')
      // One refused connection, no retries: the rep is told at once, and the local copy decided.
      expect(warn.mock.calls.filter(([message]) => message === 'service call failed, retrying')).toEqual([])
      expect(
        info.mock.calls.filter(([message]) => message.startsWith('could not refresh items before sending')),
      ).toEqual([[expect.any(String), { error: expect.stringContaining('cannot be reached') }]])
    } finally {
      info.mockRestore()
      warn.mockRestore()
    }
  })
})
