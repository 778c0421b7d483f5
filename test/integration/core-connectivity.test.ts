import { afterEach, describe, expect, it } from 'vitest'
import type { SatchelEvent } from '../../src/shared/contract'
import { startOrdersHarness, type OrdersHarness } from './orders-support'
import { until } from '../support/until'

let harness: OrdersHarness | undefined
afterEach(async () => {
  await harness?.close()
  harness = undefined
})

describe('connectivity through the contract', () => {
  it('reports the service unreachable while it is down, online when it answers, and sends what waited when it returns', async () => {
    harness = await startOrdersHarness()
    const events: SatchelEvent[] = []
    harness.core.events.subscribe((event) => events.push(event))
    expect(await harness.api('checkConnectivity')).toMatchObject({ online: true, status: 'online' })

    await harness.stopService()
    const down = await harness.api('checkConnectivity')
    expect(down).toMatchObject({ online: false, status: 'unreachable' })
    expect(events.some((e) => e.name === 'connectivityChanged' && !e.payload.online)).toBe(true)
    const apiGuid = await harness.queueOrder()
    await harness.settle()
    // The app says Offline: the order waits without an attempt.
    expect((await harness.api('listOutbox'))[0]).toMatchObject({ apiGuid, state: 'queued', attempts: 0 })

    await harness.restartService()
    expect(await harness.api('checkConnectivity')).toMatchObject({ online: true })
    // Coming back online syncs and flushes by itself; the retry wait does not hold it back.
    await until(async () => (await harness!.api('listOutbox'))[0]!.state === 'sent', 'the waiting order to be sent')
    expect(harness.service.control.ordersByApiGuid(apiGuid)).toHaveLength(1)
  })

  it('without the desktop app, updates and the log folder say they are not available here', async () => {
    harness = await startOrdersHarness()
    expect(await harness.api('getUpdateState')).toMatchObject({
      status: 'disabled',
      reason: expect.stringContaining('desktop app'),
    })
    const { call } = await import('../../src/main/core/handlers')
    const logs = await call(harness.core.handlers, 'openLogsFolder')
    expect(!logs.ok && logs.error.code).toBe('CONFLICT')
  })
})

describe('reorder', () => {
  it('copies a previous order’s lines into a new draft for the same customer and names the lines no longer offered', async () => {
    harness = await startOrdersHarness()
    const db = harness.core.db
    const order = db
      .prepare<[], { guid: string; customer_guid: string; json: string }>(
        `SELECT o.guid, o.customer_guid, o.json FROM orders o JOIN customers c ON c.guid = o.customer_guid
         WHERE c.active = 1 AND json_array_length(o.json, '$.Order_Items') >= 2 ORDER BY o.id LIMIT 1`,
      )
      .get()!
    const lines = (JSON.parse(order.json) as { Order_Items: { sku: string }[] }).Order_Items
    // The supplier has since stopped offering the first item (a later sync brought that).
    db.prepare(
      "UPDATE catalog_items SET active = 0, json = json_set(json, '$.active', json('false')) WHERE sku = ?",
    ).run(lines[0]!.sku)

    const { check, notOffered } = await harness.api('reorder', { orderGuid: order.guid })
    expect(check.draft.customerGuid).toBe(order.customer_guid)
    expect(notOffered).toEqual([
      expect.objectContaining({ sku: lines[0]!.sku, reason: expect.stringContaining('inactive') }),
    ])
    expect(check.draft.lines.map((l) => l.sku)).not.toContain(lines[0]!.sku)
    expect(check.draft.lines.length).toBeGreaterThan(0)
  })
})
