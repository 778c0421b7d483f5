import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { browseQueries } from '../../src/main/browse'
import { closeDatabase, openDatabase, type Database } from '../../src/main/db/database'
import { Lease } from '../../src/main/db/lease'
import { LocalCopy } from '../../src/main/local/copy'
import { TrackedOrders } from '../../src/main/tracking/tracked-orders'
import { Retention } from '../../src/main/local/retention'
import { ServiceClient } from '../../src/main/ordering-client/client'
import { silentLogger } from '../../src/main/ports'
import { createSyncRun } from '../../src/main/sync/run'
import { createTracking } from '../../src/main/tracking'
import type { SyncReport } from '../../src/shared/synced'
import { startService } from '../service/index'
import type { FaultRule, RunningService, ServiceSize } from '../service/types'
import { openLocalData } from '../../src/main/local/data'

const detailRoute = 'GET /v1/orders/:orderGuid'

interface Laptop {
  service: RunningService
  db: Database
  details: TrackedOrders
  cap: { value: number }
  sync(): Promise<SyncReport>
  /** The order guids fetched in full since the last call, in the order they were asked for. */
  fetched(): string[]
  close(): Promise<void>
}

let laptop: Laptop | undefined

afterEach(async () => {
  await laptop?.close()
  laptop = undefined
})

async function startLaptop(
  options: { size?: ServiceSize; windowDays?: number; cap?: number; sentApiGuids?: string[] } = {},
): Promise<Laptop> {
  const service = await startService({ size: options.size ?? 'tiny', seed: 11 })
  const directory = mkdtempSync(join(tmpdir(), 'satchel-details-'))
  const db = openDatabase(join(directory, 'satchel.db'))
  const store = new LocalCopy(db, new Retention(db))
  const clock = { now: () => Date.now() }
  const lease = new Lease(db, 'sync', { label: 'test', clock })
  const client = new ServiceClient({
    connection: {
      baseUrl: service.url,
      auth: { kind: 'apiKey', apiKey: service.credentials.apiKey, apiSecret: service.credentials.apiSecret },
    },
    retry: { maxAttempts: 3 },
    sleep: async () => {},
  })
  const cap = { value: options.cap ?? 200 }
  const run = createSyncRun({
    db,
    copy: store,
    lease,
    clock,
    logger: silentLogger,
    orderDetails: createTracking({
      db,
      local: openLocalData(db),
      clock,
      logger: silentLogger,
      detailsPerSync: () => cap.value,
      sentApiGuids: () => options.sentApiGuids ?? [],
      ...(options.windowDays !== undefined ? { windowDays: options.windowDays } : {}),
    }),
  })
  let seen = 0
  return {
    service,
    db,
    details: new TrackedOrders(openLocalData(db)),
    cap,
    sync: () => run({ source: client, waitMs: 0 }),
    fetched() {
      const log = service.control.requestLog().filter((entry) => entry.route === detailRoute)
      const fresh = log.slice(seen)
      seen = log.length
      return fresh.map((entry) => decodeURIComponent(entry.url.split('/').at(-1)!.split('?')[0]!))
    },
    async close() {
      await client.close()
      await service.close()
      closeDatabase(db)
      rmSync(directory, { recursive: true, force: true })
    },
  }
}

/** The double's live orders placed in the last `days` days, newest first (as the history lists them). */
function recentOrders(service: RunningService, days = 90): Record<string, unknown>[] {
  const since = service.control.now().getTime() - days * 86_400_000
  return service.control
    .orders()
    .filter((order) => order.deleted_at === null && Date.parse(String(order.created_at)) >= since)
    .sort((a, b) =>
      String(a.created_at) < String(b.created_at)
        ? 1
        : String(a.created_at) > String(b.created_at)
          ? -1
          : Number(b.id) - Number(a.id),
    )
}

const guidsOf = (orders: Record<string, unknown>[]) => orders.map((order) => String(order.guid))

describe('full orders during sync, against the double', () => {
  it('fetches each recent order once, newest first, and nothing at a sync where no order changed', async () => {
    laptop = await startLaptop()
    const first = await laptop.sync()
    expect(first.ok).toBe(true)
    const recent = guidsOf(recentOrders(laptop.service))
    expect(recent.length).toBeGreaterThan(3)
    expect(laptop.fetched()).toEqual(recent)
    expect(first.orderDetails).toEqual({ fetched: recent.length, failed: 0, waiting: 0 })

    const second = await laptop.sync()
    expect(second.ok).toBe(true)
    expect(laptop.fetched()).toEqual([])
    expect(second.orderDetails).toEqual({ fetched: 0, failed: 0, waiting: 0 })
  })

  it('after 3 orders change on the service, fetches exactly those 3 and marks them changed', async () => {
    laptop = await startLaptop()
    await laptop.sync()
    laptop.fetched()
    const [shipped, held, cancelled] = recentOrders(laptop.service).filter(
      (order) => order.order_state_id === 2 && order.is_on_hold !== true,
    )
    const control = laptop.service.control
    // The rest stays pending: a backorder would be a fourth order, new to the history.
    control.fulfilOrder(String(shipped!.guid), { kind: 'ship', lines: [{ itemNo: 1, qty: 1000 }] })
    control.fulfilOrder(String(held!.guid), { kind: 'hold', onHold: true })
    control.fulfilOrder(String(cancelled!.guid), { kind: 'cancel' })
    expect(laptop.details.changedCount()).toBe(0)

    await laptop.sync()
    expect(laptop.fetched().sort()).toEqual(guidsOf([shipped!, held!, cancelled!]).sort())
    const changes = laptop.details.changed()
    expect(changes.map((change) => change.guid).sort()).toEqual(guidsOf([shipped!, held!, cancelled!]).sort())
    expect(changes.find((change) => change.guid === held!.guid)?.summary).toBe('On hold')
    expect(changes.find((change) => change.guid === cancelled!.guid)?.summary).toBe('Cancelled')
    const tracking = laptop.details.tracking(String(shipped!.guid))!
    expect(tracking.lines[0]).toMatchObject({ qtyShipped: tracking.lines[0]!.qtyOrdered, qtyBackordered: 0 })
    if (tracking.lines.length > 1)
      expect(
        tracking.lines.slice(1).every((line) => line.qtyShipped === 0 && line.qtyPending === line.qtyOrdered),
      ).toBe(true)
    expect(
      tracking.timeline
        .filter((entry) => entry.source === 'service')
        .map((entry) => entry.state)
        .at(-1),
    ).toBe('SHIPPED')
    expect(tracking.timeline.filter((entry) => entry.source === 'seen')).toHaveLength(2)

    // Opening clears the mark; the next sync, with nothing changed, fetches nothing and marks nothing.
    expect(laptop.details.opened(String(held!.guid), new Date().toISOString())).toBe(2)
    await laptop.sync()
    expect(laptop.fetched()).toEqual([])
    expect(laptop.details.changed().map((change) => change.guid)).not.toContain(held!.guid)
  })

  for (const [label, fault] of [
    ['a 503', { type: 'status', status: 503 }],
    ['a dropped connection', { type: 'destroySocket' }],
  ] as const) {
    it(`${label} on one detail keeps the sync's other results and the old detail, and that order is fetched next run`, async () => {
      laptop = await startLaptop()
      await laptop.sync()
      laptop.fetched()
      const changed = recentOrders(laptop.service)
        .filter((order) => order.order_state_id === 2 && order.is_on_hold !== true)
        .slice(0, 3)
      const control = laptop.service.control
      for (const order of changed) control.fulfilOrder(String(order.guid), { kind: 'hold', onHold: true })
      const renamed = String(control.customers().find((customer) => customer.deleted_at === null)!.guid)
      control.update('customer', renamed, { name: 'Quokka Quarry Supplies' })
      // The newest of the three is asked for first: it fails.
      control.addFault({ route: detailRoute, times: 1, ...fault } as FaultRule)

      const report = await laptop.sync()
      expect(report.ok).toBe(true)
      expect(report.orderDetails).toEqual({ fetched: 2, failed: 1, waiting: 1 })
      expect(laptop.fetched()).toEqual(guidsOf(changed))
      expect(browseQueries(openLocalData(laptop.db)).customers.getCustomer(renamed)?.name).toBe(
        'Quokka Quarry Supplies',
      )
      const failed = laptop.details.tracking(String(changed[0]!.guid))!
      expect(failed.onHold).toBe(false)
      expect(failed.changed).toBe(false)

      const retry = await laptop.sync()
      expect(retry.orderDetails).toEqual({ fetched: 1, failed: 0, waiting: 0 })
      expect(laptop.fetched()).toEqual([String(changed[0]!.guid)])
      expect(laptop.details.tracking(String(changed[0]!.guid))).toMatchObject({
        onHold: true,
        changed: true,
        summary: 'On hold',
      })
    })
  }

  it('three failures in a row (the service down) end the step after 3 requests, and the next run fetches them all', async () => {
    laptop = await startLaptop()
    await laptop.sync()
    laptop.fetched()
    const changed = recentOrders(laptop.service)
      .filter((order) => order.order_state_id !== 23 && order.order_state_id !== 9)
      .slice(0, 5)
    expect(changed).toHaveLength(5)
    const control = laptop.service.control
    for (const order of changed) control.update('order', String(order.guid), { note: 'Gate code 4411' })
    const fault = control.addFault({ route: detailRoute, type: 'status', status: 503 })

    const down = await laptop.sync()
    expect(down.ok).toBe(true)
    expect(down.orderDetails).toEqual({ fetched: 0, failed: 3, waiting: 5 })
    expect(laptop.fetched()).toEqual(guidsOf(changed.slice(0, 3)))

    control.removeFault(fault)
    const back = await laptop.sync()
    expect(back.orderDetails).toEqual({ fetched: 5, failed: 0, waiting: 0 })
    expect(laptop.fetched()).toEqual(guidsOf(changed))
  })

  it('an order sent from this laptop is followed whatever its age; history outside the window is not', async () => {
    const probe = await startService({ size: 'tiny', seed: 11 })
    const fromApp = probe.control
      .orders()
      .filter((order) => typeof order.api_guid === 'string' && order.deleted_at === null)
    await probe.close()
    const sent = fromApp.at(-1)!
    // A window of no days: only what was sent from here (its api_guid, in other capitals) is fetched.
    laptop = await startLaptop({ windowDays: 0, sentApiGuids: [String(sent.api_guid).toUpperCase()] })
    const report = await laptop.sync()
    expect(laptop.fetched()).toEqual([String(sent.guid)])
    expect(report.orderDetails).toEqual({ fetched: 1, failed: 0, waiting: 0 })
  })

  it('a history order from the list projection has no line prices until its full copy is fetched', async () => {
    laptop = await startLaptop({ cap: 1 })
    await laptop.sync()
    const [newest, older] = guidsOf(recentOrders(laptop.service))
    const queries = browseQueries(openLocalData(laptop.db))
    expect(queries.orders.getOrder(older!)?.lines.every((line) => line.unitPrice === null)).toBe(true)
    expect(laptop.details.tracking(older!)).toBeNull()
    const fetched = laptop.details.tracking(newest!)!
    expect(
      fetched.lines.every((line) => typeof line.unitPrice === 'number' && typeof line.lineTotal === 'number'),
    ).toBe(true)
  })

  it('500 changed orders with the cap at 200 are all fetched over 3 runs, newest first', async () => {
    laptop = await startLaptop({ size: 7500, windowDays: 400, cap: 2000 })
    await laptop.sync()
    const all = guidsOf(recentOrders(laptop.service, 400))
    expect(laptop.fetched()).toHaveLength(all.length)
    const changed = all.slice(0, 500)
    expect(changed).toHaveLength(500)
    for (const guid of changed) laptop.service.control.update('order', guid, { note: 'Call before delivery' })
    laptop.cap.value = 200

    const runs: string[][] = []
    const waiting: number[] = []
    for (let run = 0; run < 4; run++) {
      const report = await laptop.sync()
      expect(report.ok).toBe(true)
      runs.push(laptop.fetched())
      waiting.push(report.orderDetails!.waiting)
    }
    expect(runs.map((fetched) => fetched.length)).toEqual([200, 200, 100, 0])
    expect(waiting).toEqual([300, 100, 0, 0])
    expect(runs.flat()).toEqual(changed)
  }, 120_000)

  it('a reply with impossible figures is refused: the last good copy stays, marked, and that version is not fetched again', async () => {
    laptop = await startLaptop()
    await laptop.sync()
    laptop.fetched()
    const control = laptop.service.control
    const order = recentOrders(laptop.service).find(
      (candidate) =>
        candidate.order_state_id === 2 &&
        candidate.is_on_hold !== true &&
        Array.isArray(candidate.Order_Items) &&
        candidate.Order_Items.length > 0,
    )!
    const guid = String(order.guid)
    control.fulfilOrder(guid, { kind: 'hold', onHold: true })
    const served = structuredClone(control.orders().find((candidate) => candidate.guid === guid)!)
    const line = (served.Order_Items as Record<string, unknown>[])[0]!
    line.qty_shipped = Number(line.qty) + 0.5
    control.addFault({
      route: detailRoute,
      type: 'status',
      status: 200,
      body: { order: served, relatedOrders: [] },
      times: 1,
    })

    const report = await laptop.sync()
    expect(report.orderDetails).toEqual({
      fetched: 0,
      failed: 0,
      unreadable: [
        { guid, reason: expect.stringContaining(`qty_shipped ${Number(line.qty) + 0.5} of ${Number(line.qty)}`) },
      ],
      waiting: 0,
    })
    const shown = laptop.details.tracking(guid)!
    expect(shown.onHold).toBe(false)
    expect(shown.lines.every((tracked) => tracked.qtyShipped <= (tracked.qtyOrdered ?? 0))).toBe(true)
    expect(shown.latestUnreadable).toMatchObject({ reason: expect.stringContaining('qty_shipped') })
    expect(laptop.fetched()).toEqual([guid])

    expect((await laptop.sync()).orderDetails).toEqual({ fetched: 0, failed: 0, waiting: 0 })
    expect(laptop.fetched()).toEqual([])
    // The supplier's next change is a sound copy: kept, and the mark goes.
    control.update('order', guid, { note: 'Gate code 4411' })
    expect((await laptop.sync()).orderDetails).toEqual({ fetched: 1, failed: 0, waiting: 0 })
    expect(laptop.details.tracking(guid)).toMatchObject({ onHold: true, latestUnreadable: null })
  })

  it('a reply too large to read (18.9 MB) is remembered for that version and said so, not fetched again every sync', async () => {
    laptop = await startLaptop()
    await laptop.sync()
    laptop.fetched()
    const control = laptop.service.control
    const order = recentOrders(laptop.service).find(
      (candidate) => candidate.order_state_id === 2 && candidate.is_on_hold !== true,
    )!
    const guid = String(order.guid)
    control.fulfilOrder(guid, { kind: 'hold', onHold: true })
    const fault = control.addFault({ route: detailRoute, type: 'oversized', bytes: 18_900_000 })

    const report = await laptop.sync()
    expect(report.orderDetails).toEqual({
      fetched: 0,
      failed: 0,
      unreadable: [{ guid, reason: expect.stringMatching(/too large/) }],
      waiting: 0,
    })
    expect(laptop.fetched()).toEqual([guid])
    expect(laptop.details.tracking(guid)).toMatchObject({
      onHold: false,
      latestUnreadable: { reason: expect.stringMatching(/too large.*announced 18 MB/) },
    })

    expect((await laptop.sync()).orderDetails).toEqual({ fetched: 0, failed: 0, waiting: 0 })
    expect(laptop.fetched()).toEqual([])
    // A newer version is worth asking for: the supplier may have trimmed it.
    control.removeFault(fault)
    control.update('order', guid, { note: 'Gate code 4411' })
    expect((await laptop.sync()).orderDetails).toEqual({ fetched: 1, failed: 0, waiting: 0 })
    expect(laptop.details.tracking(guid)).toMatchObject({ onHold: true, latestUnreadable: null })
  })
})
