import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { closeDatabase, openDatabase, type Database } from '../../../../../src/main/db/database'
import { createOrders, type Orders } from '../../../../../src/main/orders'
import { OrderDesk } from '../../../../../src/main/orders/desk'
import type { OrderSender } from '../../../../../src/main/orders/outbox/flusher'
import { silentLogger, type Clock } from '../../../../../src/main/ports'
import { orderList } from '../../../../support/order-list'
import { catalogGuid, confirmation, customerGuid, item, MemoryLookup } from '../../../../support/orders'
import { until } from '../../../../support/until'
import { openLocalData } from '../../../../../src/main/local/data'

/**
 * The laptop's clock was 40 days fast when a send failed, and has been put right since: the entry's
 * next attempt is stored 40 days ahead. A timer for that long overflows Node's 32-bit delay and fires
 * at once, and the driver rescheduled it for ever, flushing thousands of times a second.
 */
class ManualClock implements Clock {
  ms = Date.parse('2026-11-20T12:00:00Z')
  now() {
    return this.ms
  }
}

const day = 86_400_000
let directory: string
let db: Database
let clock: ManualClock
let orders: Orders | undefined
const warnings: Error[] = []
const onWarning = (warning: Error) => warnings.push(warning)

beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), 'satchel-driver-clock-'))
  db = openDatabase(join(directory, 'satchel.db'))
  clock = new ManualClock()
  warnings.length = 0
  process.on('warning', onWarning)
})
afterEach(async () => {
  orders?.driver.stop()
  await orders?.close()
  orders = undefined
  process.off('warning', onWarning)
  closeDatabase(db)
  rmSync(directory, { recursive: true, force: true })
})

function setUp(send: Pick<OrderSender, 'createOrderWithItems'>): { flushes: () => number; apiGuid: string } {
  const sender: OrderSender = { ...send, listOrders: orderList() }
  const product = item()
  const desk = new OrderDesk(db, new MemoryLookup([product]), clock, () => ({ remainInPreliminary: false }))
  const draft = desk.createDraft({ customerGuid, catalogGuid })
  desk.addLines(draft.id, [{ sku: product.sku, qty: 1 }])
  const apiGuid = desk.send(draft.id).apiGuid
  db.prepare("UPDATE outbox SET state = 'retrying', attempts = 1, last_error = 'unreachable', next_attempt_at = ?").run(
    clock.now() + 40 * day,
  )
  orders = createOrders({
    db,
    local: openLocalData(db),
    clock,
    logger: silentLogger,
    sender: async () => sender,
    defaults: () => ({ remainInPreliminary: false }),
  })
  let flushes = 0
  const flush = orders.flusher.flush.bind(orders.flusher)
  orders.flusher.flush = () => (flushes++, flush())
  return { flushes: () => flushes, apiGuid }
}

describe('the outbox driver with a retry stored far ahead by a clock that was wrong', () => {
  it('sends the entry in one flush at start-up, with no timer overflow and no spin', async () => {
    const posted: string[] = []
    const { flushes, apiGuid } = setUp({
      createOrderWithItems: async (body) => (
        posted.push((body.order as { api_guid: string }).api_guid),
        confirmation(body)
      ),
    })
    orders!.driver.start()
    // Time for a spinning timer to show itself (it fired every millisecond).
    await new Promise((resolve) => setTimeout(resolve, 300))
    expect(warnings.map((warning) => warning.name)).not.toContain('TimeoutOverflowWarning')
    expect(flushes()).toBe(1)
    await until(() => orders!.desk.outbox.get(apiGuid).state === 'sent', 'the order to be sent')
    expect(posted).toEqual([apiGuid])
    expect(flushes()).toBe(1)
  })

  it('when nudged, hurries an entry another process stored far ahead, and does not spin while the send fails', async () => {
    const posted: string[] = []
    let fail = true
    const { flushes, apiGuid } = setUp({
      createOrderWithItems: async (body) => {
        posted.push((body.order as { api_guid: string }).api_guid)
        if (fail) throw Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' })
        return confirmation(body)
      },
    })
    orders!.driver.start()
    // The failure is retried after the back-off (seconds), not at once and not 40 days from now.
    await until(
      () => posted.length === 1 && orders!.desk.outbox.get(apiGuid).state === 'retrying',
      'one attempt, then a retry',
    )
    await new Promise((resolve) => setTimeout(resolve, 200))
    expect(flushes()).toBe(1)
    const next = orders!.desk.outbox.nextRetryAt()!
    expect(next - clock.now()).toBeGreaterThan(0)
    expect(next - clock.now()).toBeLessThanOrEqual(5 * 60_000)
    // Meanwhile another process with a fast clock pushed it 30 days out, then nudged this one.
    db.prepare('UPDATE outbox SET next_attempt_at = ?').run(clock.now() + 30 * day)
    fail = false
    orders!.driver.nudge()
    await until(() => orders!.desk.outbox.get(apiGuid).state === 'sent', 'the order to be sent')
    expect(posted).toEqual([apiGuid, apiGuid])
    expect(flushes()).toBe(2)
    expect(warnings.map((warning) => warning.name)).not.toContain('TimeoutOverflowWarning')
  })

  it('sends an order a killed sender left `sending` with its resend time two days ahead, once, a lease TTL from now (not two days)', async () => {
    const posted: string[] = []
    const { apiGuid } = setUp({
      createOrderWithItems: async (body) => (
        posted.push((body.order as { api_guid: string }).api_guid),
        confirmation(body)
      ),
    })
    // A flush under a clock two days fast was killed mid-POST; the one that took its lease over, on
    // the same clock, held the entry until the dead one's last request could have ended, by that clock.
    db.prepare(
      "UPDATE outbox SET state = 'sending', attempts = 1, last_error = NULL, next_attempt_at = ?, delivery_unknown_since = ?",
    ).run(clock.now() + 2 * day, new Date(clock.now() + 2 * day).toISOString())
    orders!.driver.start()
    // Its last request may still be on the wire: held one lease TTL from now, not two days, and not resent at once.
    await until(
      () =>
        (db.prepare<[], { at: number }>('SELECT next_attempt_at AS at FROM outbox').get()?.at ?? 0) <=
        clock.now() + 15_000,
      'the held resend to be due within one lease TTL',
    )
    expect(posted).toEqual([])
    clock.ms += 15_000
    orders!.driver.nudge()
    await until(() => orders!.desk.outbox.get(apiGuid).state === 'sent', 'the order to be sent')
    expect(posted).toEqual([apiGuid])
  })
})
