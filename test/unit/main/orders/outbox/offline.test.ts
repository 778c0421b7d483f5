/**
 * The outbox and the connectivity monitor, wired as the core wires them (core/reactions.ts), on
 * vitest's fake clock: while the app says Offline no order is attempted at all, and once the
 * service answers again a waiting order leaves at once, not when the fleet-spread sync ends. After
 * the service's own outage (it answered 503, so every laptop of the fleet waited with it), the
 * order leaves at this laptop's place in a 30-second window instead, so the fleet's do not arrive
 * together.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import {
  createConnectivityMonitor,
  type ConnectivityMonitor,
  type ProbeResult,
} from '../../../../../src/main/connectivity'
import { wireReactions } from '../../../../../src/main/core/reactions'
import { closeDatabase, openDatabase, type Database } from '../../../../../src/main/db/database'
import { EventHub } from '../../../../../src/main/events'
import { ServiceError } from '../../../../../src/main/ordering-client/errors'
import { createOrders, type Orders } from '../../../../../src/main/orders'
import { OrderDesk } from '../../../../../src/main/orders/desk'
import { silentLogger } from '../../../../../src/main/ports'
import { installShare } from '../../../../../src/main/timers'
import type { Sync } from '../../../../../src/main/sync'
import { orderList } from '../../../../support/order-list'
import { catalogGuid, confirmation, customerGuid, item, MemoryLookup } from '../../../../support/orders'
import { openLocalData } from '../../../../../src/main/local/data'

const second = 1_000
const minute = 60_000
let directory: string
let db: Database
let orders: Orders | undefined
let monitor: ConnectivityMonitor | undefined
let unwire: (() => void)[] = []

beforeEach(() => {
  vi.useFakeTimers()
  directory = mkdtempSync(join(tmpdir(), 'satchel-outbox-offline-'))
  db = openDatabase(join(directory, 'satchel.db'))
})
afterEach(async () => {
  for (const off of unwire) off()
  unwire = []
  monitor?.stop()
  orders?.driver.stop()
  await orders?.close()
  orders = undefined
  vi.useRealTimers()
  closeDatabase(db)
  rmSync(directory, { recursive: true, force: true })
})

function laptop(options: { down?: 'network' | 'service'; spreadSeed?: string } = {}) {
  let answers = false
  const attempts: number[] = []
  const serviceDown = options.down === 'service'
  const probe = vi.fn(async (): Promise<ProbeResult> =>
    answers
      ? { status: 'online', detail: 'The service answered (401).' }
      : serviceDown
        ? { status: 'unreachable', detail: 'The service answered 503.', serviceAnswered: true }
        : { status: 'unreachable', detail: 'Could not connect (ECONNREFUSED).' },
  )
  const hub = new EventHub()
  const product = item()
  const lookup = new MemoryLookup([product])
  const clock = { now: () => Date.now() }
  const desk = new OrderDesk(db, lookup, clock, () => ({ remainInPreliminary: false }))
  const made = createOrders({
    db,
    local: openLocalData(db),
    clock,
    logger: silentLogger,
    sender: async () => ({
      listOrders: orderList(),
      createOrderWithItems: async (body) => {
        attempts.push(Date.now())
        if (!answers && serviceDown)
          throw new ServiceError('server', 'The ordering service failed (503)', { status: 503 })
        if (!answers)
          throw new ServiceError('unreachable', 'The ordering service cannot be reached: connect ECONNREFUSED')
        return confirmation(body)
      },
    }),
    defaults: () => ({ remainInPreliminary: false }),
    onOutboxChanged: (summary) => hub.emit('outboxChanged', summary),
    changeDelayMs: 0,
    offline: () => {
      const state = watched.current()
      return !state.online && state.status !== 'unknown'
    },
    ...(options.spreadSeed === undefined
      ? {}
      : { afterOutageShare: installShare(options.spreadSeed, 'orders-after-outage') }),
  })
  const watched = createConnectivityMonitor({
    isNetworkUp: () => true,
    baseUrl: async () => 'https://orders.example.com',
    probe,
    fingerprint: () => 'net-a',
    clock,
    windowVisible: true,
    hasWaitingWork: () => made.waitingCount() > 0,
  })
  orders = made
  monitor = watched
  // The sync whose end would send the outbox starts over a fleet's window (30 s at least): never here.
  const scheduler = {
    trigger: vi.fn(),
    connectivityRestored: vi.fn(),
    settingsChanged: vi.fn(),
    isRunning: () => false,
  }
  unwire = wireReactions({ hub, sync: { scheduler } as unknown as Sync, orders: made, connectivity: watched })
  return {
    attempts,
    back() {
      answers = true
    },
    queue(): string {
      const draft = desk.createDraft({ customerGuid, catalogGuid })
      desk.addLines(draft.id, [{ sku: product.sku, qty: 1 }])
      const apiGuid = desk.send(draft.id).apiGuid
      // What sendDraft does after the entry is on disk.
      made.driver.nudge()
      return apiGuid
    },
  }
}

describe('the outbox while the app says Offline', () => {
  it('attempts no order while Offline, and sends the waiting one within 5 s of the service answering again', async () => {
    const { attempts, back, queue } = laptop()
    monitor!.start()
    await vi.advanceTimersByTimeAsync(second)
    expect(monitor!.current()).toMatchObject({ online: false, status: 'unreachable' })

    const apiGuid = queue()
    await vi.advanceTimersByTimeAsync(30 * minute)
    expect(attempts).toEqual([])
    expect(orders!.desk.outbox.get(apiGuid).state).toBe('queued')

    back()
    const answeredBy = Date.now() + 5 * second
    await vi.advanceTimersByTimeAsync(5 * second)
    expect(monitor!.current().online).toBe(true)
    expect(orders!.desk.outbox.get(apiGuid).state).toBe('sent')
    expect(attempts).toHaveLength(1)
    expect(attempts[0]).toBeLessThanOrEqual(answeredBy)
  })

  it('after the service’s own outage, sends the waiting order at this laptop’s place in a 30 s window, not at once', async () => {
    const seed = 'laptop-2'
    const placeMs = Math.round(installShare(seed, 'orders-after-outage') * 30 * second)
    // The seed is chosen so the order's place is well past the 5 s a laptop's own outage allows.
    expect(placeMs).toBeGreaterThan(10 * second)
    const { attempts, back, queue } = laptop({ down: 'service', spreadSeed: seed })
    monitor!.start()
    await vi.advanceTimersByTimeAsync(second)
    const apiGuid = queue()
    await vi.advanceTimersByTimeAsync(30 * minute)
    expect(attempts).toEqual([])

    back()
    await vi.advanceTimersByTimeAsync(5 * second)
    expect(monitor!.current().online).toBe(true)
    expect(orders!.desk.outbox.get(apiGuid).state).toBe('queued')
    const cameBackBy = Date.now()
    await vi.advanceTimersByTimeAsync(placeMs)
    expect(orders!.desk.outbox.get(apiGuid).state).toBe('sent')
    expect(attempts).toHaveLength(1)
    expect(attempts[0]! - cameBackBy).toBeLessThanOrEqual(placeMs)
  })
})
