/**
 * `satchel orders list` and `orders show` as a user runs them, against a database two real syncs
 * filled: one before and one after the supplier shipped part of an order and backordered the rest.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { closeDatabase, openDatabase } from '../../src/main/db/database'
import { TrackedOrders } from '../../src/main/tracking/tracked-orders'
import { startService } from '../service/index'
import type { RunningService } from '../service/types'
import { cli, json } from '../support/cli'
import { openLocalData } from '../../src/main/local/data'

type Json = Record<string, unknown> & { [key: string]: any } // eslint-disable-line @typescript-eslint/no-explicit-any

let service: RunningService
let directory: string
let db: string
let env: Record<string, string>
let order: Json

beforeAll(async () => {
  service = await startService({ size: 'tiny', seed: 5 })
  directory = mkdtempSync(join(tmpdir(), 'satchel-cli-tracking-'))
  db = join(directory, 'satchel.db')
  env = {
    SATCHEL_DB: db,
    SATCHEL_BASE_URL: service.url,
    SATCHEL_API_KEY: service.credentials.apiKey,
    SATCHEL_API_SECRET: service.credentials.apiSecret,
  }
  expect((await cli(['sync', '--json'], env)).code).toBe(0)
  const since = service.control.now().getTime() - 90 * 86_400_000
  order = service.control
    .orders()
    .find(
      (candidate) =>
        candidate.order_state_id === 2 &&
        candidate.is_on_hold !== true &&
        (candidate.Order_Items as unknown[]).length >= 2 &&
        Date.parse(String(candidate.created_at)) >= since,
    ) as Json
  expect(order).toBeDefined()
  // The first line ships in full; the rest is backordered into a related order.
  service.control.fulfilOrder(order.guid, {
    kind: 'ship',
    lines: [{ itemNo: 1, qty: order.Order_Items[0].qty }],
    backorderRest: true,
  })
  const second = await cli(['sync', '--json'], env)
  expect(second.code).toBe(0)
  // The shipped order, and its backorder, new to the history.
  expect((json(second) as Json).orderDetails).toEqual({ fetched: 2, failed: 0, waiting: 0 })
}, 120_000)

afterAll(async () => {
  await service.close()
  rmSync(directory, { recursive: true, force: true })
})

describe('satchel orders', () => {
  it('orders show prints the lines with shipped, backordered and pending, the timeline and the backorder, by number and by guid', async () => {
    const byNumber = json(await cli(['orders', 'show', order.name, '--json'], env)) as Json
    const served = (service.control.orders().find((candidate) => candidate.guid === order.guid) as Json)
      .Order_Items as Json[]
    expect(
      byNumber.lines.map((line: Json) => [
        line.qtyOrdered,
        line.qtyShipped,
        line.qtyBackordered,
        line.qtyPending,
        line.unitPrice,
        line.lineTotal,
      ]),
    ).toEqual(
      served.map((line) => [
        line.qty,
        line.qty_shipped,
        line.qty_backordered,
        line.qty_pending,
        line.net_price,
        line.total,
      ]),
    )
    expect(byNumber.order).toMatchObject({
      guid: order.guid,
      state: { id: 8, name: 'SHIPPED' },
      partiallyShipped: true,
      changed: true,
    })
    expect(
      byNumber.timeline.filter((entry: Json) => entry.source === 'service').map((entry: Json) => entry.state),
    ).toEqual(['PRELIMINARY', 'SUBMITTED', 'SHIPPED'])
    expect(byNumber.related).toEqual([
      expect.objectContaining({ name: `${order.name}-BO1`, relation: 'backorder', held: true }),
    ])
    expect(typeof byNumber.fetchedAt).toBe('string')
    expect(json(await cli(['orders', 'show', order.guid, '--json'], env))).toEqual(byNumber)
  })

  it('orders list --changed lists the order until the rep opens it', async () => {
    const changed = json(await cli(['orders', 'list', '--changed', '--json'], env)) as Json
    expect(changed.orders.map((row: Json) => row.guid)).toEqual([order.guid])
    expect(changed.orders[0].summary).toBe(
      'Shipped 1 of ' + order.Order_Items.length + ' lines, ' + (order.Order_Items.length - 1) + ' backordered',
    )
    const local = openDatabase(db)
    new TrackedOrders(openLocalData(local)).opened(order.guid, new Date().toISOString())
    closeDatabase(local)
    expect((json(await cli(['orders', 'list', '--changed', '--json'], env)) as Json).orders).toEqual([])
  })

  it('orders list filters by state name and customer', async () => {
    const shipped = json(await cli(['orders', 'list', '--state', 'shipped', '--json'], env)) as Json
    expect(shipped.orders.length).toBeGreaterThan(0)
    expect(shipped.orders.every((row: Json) => row.state.id === 8)).toBe(true)
    const mine = json(await cli(['orders', 'list', '--customer', order.Vendor.guid, '--json'], env)) as Json
    expect(mine.orders.map((row: Json) => row.guid)).toContain(order.guid)
    expect(mine.orders.every((row: Json) => row.customerGuid === order.Vendor.guid)).toBe(true)
  })

  it('an unknown order is invalid input: exit 2', async () => {
    const run = await cli(['orders', 'show', 'HP-0000000', '--json'], env)
    expect(run.code).toBe(2)
    expect((json(run) as Json).error.message).toMatch(/No order HP-0000000/)
  })
})
