import BetterSqlite3 from 'better-sqlite3'
import { afterEach, describe, expect, it } from 'vitest'
import { call } from '../../src/main/core/handlers'
import { orderRoute, startOrdersHarness, type OrdersHarness } from './orders-support'
import { undoCatalogItemFilters, undoItemIndexesByCatalogKey } from '../support/schema-rollback'

/**
 * An order the service accepted must never look refused: after a reply lost to a dropped connection,
 * whatever answers next (a hotel login page's redirect, a refusal) is not proof that the service
 * holds nothing, and the entry is neither edited nor discarded until the service has been asked.
 */
let harness: OrdersHarness | undefined
afterEach(async () => {
  await harness?.close()
  harness = undefined
})

const portal = {
  route: orderRoute,
  type: 'status',
  status: 302,
  contentType: 'text/html; charset=utf-8',
  headers: { location: 'https://login.hotel-wifi.example/portal?continue=1' },
  body: '<!DOCTYPE html><html><body>Sign in to Hotel Wi-Fi</body></html>',
} as const

const outOfStock = {
  route: orderRoute,
  type: 'status',
  status: 400,
  body: {
    message: 'Order could not be reconciled',
    code: 'RECONCILE_ERRORS',
    errors: [{ type: 'INSUFFICIENT_INVENTORY', message: 'Only 0 available', line: 0 }],
  },
} as const

async function entryOf(h: OrdersHarness, apiGuid: string) {
  return (await h.api('listOutbox')).find((entry) => entry.apiGuid === apiGuid)!
}

async function refused(h: OrdersHarness, method: 'discardOutboxEntry' | 'editOutboxEntry', apiGuid: string) {
  const result = await call(h.core.handlers, method, { apiGuid })
  expect(result.ok, `${method} must refuse`).toBe(false)
  return result.ok ? '' : `${result.error.code} ${result.error.message}`
}

const ordersListed = (h: OrdersHarness) =>
  h.service.control.requestLog().filter((entry) => entry.route === 'GET /v1/orders').length

describe('an order the service accepted is never shown as refused', () => {
  it('the service commits, the connection drops, and the retry meets a login page’s 302: retried, never refused, and it ends sent once', async () => {
    harness = await startOrdersHarness()
    const { control } = harness.service
    control.addFault({ route: orderRoute, type: 'commitThenDrop', times: 1 })
    const apiGuid = await harness.queueOrder()
    await harness.settle()
    expect(await entryOf(harness, apiGuid)).toMatchObject({ state: 'retrying', mayBeWithSupplier: true })
    expect(control.ordersByApiGuid(apiGuid)).toHaveLength(1)

    control.addFault({ ...portal, times: 1 })
    await harness.api('flushOutbox')
    const afterPortal = await entryOf(harness, apiGuid)
    expect(afterPortal.state).toBe('retrying')
    expect(afterPortal.mayBeWithSupplier).toBe(true)
    expect(afterPortal.lastError).toMatch(/login page or proxy/)
    expect(await refused(harness, 'discardOutboxEntry', apiGuid)).toMatch(
      /^CONFLICT .*may already be with the supplier/,
    )
    expect(await refused(harness, 'editOutboxEntry', apiGuid)).toMatch(/^CONFLICT /)

    await harness.api('retryOutbox', { apiGuid })
    await harness.api('flushOutbox')
    const [order] = control.ordersByApiGuid(apiGuid)
    expect(await entryOf(harness, apiGuid)).toMatchObject({
      state: 'sent',
      orderGuid: order!.guid,
      mayBeWithSupplier: false,
    })
    expect(control.ordersByApiGuid(apiGuid)).toHaveLength(1)
  })

  it('a login page’s 302 on the first attempt is retried by itself, not parked as refused', async () => {
    harness = await startOrdersHarness()
    const { control } = harness.service
    control.addFault({ ...portal, times: 1 })
    const apiGuid = await harness.queueOrder()
    await harness.settle()
    const entry = await entryOf(harness, apiGuid)
    expect(entry.state).toBe('retrying')
    expect(entry.nextAttemptAt).not.toBeNull()
    // The portal never passed the request on: nothing can be on the service.
    expect(entry.mayBeWithSupplier).toBe(false)
    expect(control.ordersByApiGuid(apiGuid)).toHaveLength(0)

    await harness.api('retryOutbox', { apiGuid })
    await harness.api('flushOutbox')
    expect(await entryOf(harness, apiGuid)).toMatchObject({ state: 'sent' })
    expect(control.ordersByApiGuid(apiGuid)).toHaveLength(1)
  })

  it('a refusal after a lost reply is checked against the service’s order list: the committed order is found and recorded as sent', async () => {
    harness = await startOrdersHarness()
    const { control } = harness.service
    control.addFault({ route: orderRoute, type: 'commitThenDrop', times: 1 })
    const apiGuid = await harness.queueOrder()
    await harness.settle()
    expect(control.ordersByApiGuid(apiGuid)).toHaveLength(1)

    // The first attempt took the stock, so the retry is refused for want of it.
    control.addFault({ ...outOfStock, times: 1 })
    await harness.api('retryOutbox', { apiGuid })
    await harness.api('flushOutbox')
    const [order] = control.ordersByApiGuid(apiGuid)
    expect(await entryOf(harness, apiGuid)).toMatchObject({
      state: 'sent',
      orderGuid: order!.guid,
      orderName: order!.name,
      mayBeWithSupplier: false,
    })
    expect(control.ordersByApiGuid(apiGuid)).toHaveLength(1)
    expect(ordersListed(harness)).toBeGreaterThan(0)
  })

  it('while the order list cannot be read, the refused entry says the supplier may have it and can be neither edited nor discarded; then it is found', async () => {
    harness = await startOrdersHarness()
    const { control } = harness.service
    control.addFault({ route: orderRoute, type: 'commitThenDrop', times: 1 })
    const apiGuid = await harness.queueOrder()
    await harness.settle()

    control.addFault({ ...outOfStock, times: 1 })
    const listDown = control.addFault({ route: 'GET /v1/orders', type: 'status', status: 503 })
    await harness.api('retryOutbox', { apiGuid })
    await harness.api('flushOutbox')
    const checking = await entryOf(harness, apiGuid)
    expect(checking).toMatchObject({ state: 'needsAttention', mayBeWithSupplier: true })
    // The refusal is the service's words; that it may not hold is what mayBeWithSupplier says.
    expect(checking.lastError).toMatch(/could not be reconciled/)
    expect(await refused(harness, 'discardOutboxEntry', apiGuid)).toMatch(/^CONFLICT .*may already have this order/)
    expect(await refused(harness, 'editOutboxEntry', apiGuid)).toMatch(/^CONFLICT .*may already have this order/)

    control.removeFault(listDown)
    // Its next check is due later; a restart (or that time) brings it. The check alone sends nothing.
    await harness.reopenCore()
    await harness.api('flushOutbox')
    const posts = control.requestLog().filter((entry) => entry.route === orderRoute).length
    await harness.settle()
    expect(await entryOf(harness, apiGuid)).toMatchObject({ state: 'sent', mayBeWithSupplier: false })
    expect(control.ordersByApiGuid(apiGuid)).toHaveLength(1)
    expect(posts).toBe(2)
  })

  it('a refusal after a lost reply, for an order the service never took: the list says so, and the rep may then edit it', async () => {
    harness = await startOrdersHarness()
    const { control } = harness.service
    // The connection drops before the service handles the request.
    control.addFault({ route: orderRoute, type: 'destroySocket', times: 1 })
    const apiGuid = await harness.queueOrder()
    await harness.settle()
    expect(await entryOf(harness, apiGuid)).toMatchObject({ state: 'retrying', mayBeWithSupplier: true })

    control.addFault({ ...outOfStock, times: 1 })
    await harness.api('retryOutbox', { apiGuid })
    await harness.api('flushOutbox')
    const entry = await entryOf(harness, apiGuid)
    expect(entry).toMatchObject({
      state: 'needsAttention',
      mayBeWithSupplier: false,
      errors: [expect.objectContaining({ lineIndex: 0 })],
    })
    expect(entry.lastError).not.toMatch(/may already have/)
    expect(control.ordersByApiGuid(apiGuid)).toHaveLength(0)
    expect((await harness.api('editOutboxEntry', { apiGuid })).draft.apiGuid).toBe(apiGuid)
  })
})

describe('entries written before the outbox knew which attempts lost their answer', () => {
  /** Takes the database back to schema 13, as the Satchel before it left the outbox. */
  function backToSchema13(path: string, update: string) {
    const db = new BetterSqlite3(path)
    db.exec(update)
    db.exec('ALTER TABLE outbox DROP COLUMN delivery_unknown_since')
    // What later migrations added goes too, so that each runs again as on a laptop still at 13.
    for (const column of ['renewals', 'ttl_ms', 'started']) db.exec(`ALTER TABLE leases DROP COLUMN ${column}`)
    db.exec(
      'DROP TABLE order_detail_sightings; DROP TABLE order_details; DROP INDEX IF EXISTS catalog_items_by_family; DROP TABLE IF EXISTS catalog_item_counts',
    )
    // Migrations 21 and 20 first: their triggers name the family column dropped below.
    undoItemIndexesByCatalogKey(db)
    undoCatalogItemFilters(db)
    for (const column of ['group_parent_id', 'is_product_group'])
      db.exec(`ALTER TABLE catalog_item_rows DROP COLUMN ${column}`)
    db.pragma('user_version = 13')
    db.close()
  }

  it('a refused entry tried more than once is checked before it can be edited or discarded, and found on the service it ends sent', async () => {
    harness = await startOrdersHarness()
    const { control } = harness.service
    control.addFault({ route: orderRoute, type: 'commitThenDrop', times: 1 })
    const apiGuid = await harness.queueOrder()
    await harness.settle()
    await harness.core.close()
    // What the earlier code made of a login page's 302 on the retry: refused, after two attempts.
    backToSchema13(
      harness.databasePath,
      `UPDATE outbox SET state = 'needsAttention', attempts = 2, next_attempt_at = NULL, last_error = 'The ordering service refused the request (302)'`,
    )

    await harness.reopenCore()
    expect(await entryOf(harness, apiGuid)).toMatchObject({ state: 'needsAttention', mayBeWithSupplier: true })
    expect(await refused(harness, 'editOutboxEntry', apiGuid)).toMatch(/may already have this order/)
    await harness.api('flushOutbox')
    const [order] = control.ordersByApiGuid(apiGuid)
    expect(await entryOf(harness, apiGuid)).toMatchObject({
      state: 'sent',
      orderGuid: order!.guid,
      mayBeWithSupplier: false,
    })
    expect(control.ordersByApiGuid(apiGuid)).toHaveLength(1)
  })

  it('while the service cannot be asked, Discard is refused; once its list shows the order is not there, Discard works', async () => {
    harness = await startOrdersHarness()
    const { control } = harness.service
    control.addFault({ route: orderRoute, type: 'destroySocket', times: 1 })
    const apiGuid = await harness.queueOrder()
    await harness.settle()
    await harness.core.close()
    backToSchema13(
      harness.databasePath,
      `UPDATE outbox SET state = 'needsAttention', attempts = 2, next_attempt_at = NULL, last_error = 'The ordering service refused the request (302)'`,
    )

    // The order list cannot be read: the entry stays uncertain.
    const listDown = control.addFault({ route: 'GET /v1/orders', type: 'status', status: 503 })
    await harness.reopenCore()
    await harness.api('flushOutbox')
    expect(await entryOf(harness, apiGuid)).toMatchObject({ state: 'needsAttention', mayBeWithSupplier: true })
    expect(await refused(harness, 'discardOutboxEntry', apiGuid)).toMatch(/may already have this order/)

    control.removeFault(listDown)
    await harness.reopenCore()
    await harness.api('flushOutbox')
    expect(await entryOf(harness, apiGuid)).toMatchObject({ state: 'needsAttention', mayBeWithSupplier: false })
    expect(control.ordersByApiGuid(apiGuid)).toHaveLength(0)
    await harness.api('discardOutboxEntry', { apiGuid })
    expect(await harness.api('listOutbox')).toEqual([])
  })
})
