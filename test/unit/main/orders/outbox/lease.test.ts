import { orderList } from '../../../../support/order-list'
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { hostname, tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { closeDatabase, openDatabase, type Database } from '../../../../../src/main/db/database'
import { Lease } from '../../../../../src/main/db/lease'
import { createOrders, type Orders } from '../../../../../src/main/orders'
import { OrderDesk } from '../../../../../src/main/orders/desk'
import type { OrderSender } from '../../../../../src/main/orders/outbox/flusher'
import { silentLogger, type Clock } from '../../../../../src/main/ports'
import { catalogGuid, confirmation, item, MemoryLookup } from '../../../../support/orders'
import { until } from '../../../../support/until'
import { openLocalData } from '../../../../../src/main/local/data'

/**
 * Two processes on one database are two connections here: the lease lives in SQLite, so what holds
 * between connections holds between the desktop app and a CLI flush.
 */
class ManualClock implements Clock {
  ms = Date.parse('2026-11-20T12:00:00Z')
  now() {
    return this.ms
  }
}

let counter = 5000

/** A sender whose replies wait until the test lets them go, recording every POST. */
class GatedSender implements OrderSender {
  posted: string[] = []
  listOrders = orderList()
  private gates: (() => void)[] = []
  aborted = 0
  async createOrderWithItems(body: Record<string, unknown>, options: { signal?: AbortSignal }) {
    this.posted.push((body.order as { api_guid: string }).api_guid)
    await new Promise<void>((resolve, reject) => {
      this.gates.push(resolve)
      options.signal?.addEventListener('abort', () => {
        this.aborted++
        reject(Object.assign(new Error('aborted'), { name: 'AbortError' }))
      })
    })
    return confirmation(body, ++counter)
  }
  get waiting() {
    return this.gates.length
  }
  releaseAll() {
    for (const gate of this.gates.splice(0)) gate()
  }
}

const immediate: OrderSender = {
  createOrderWithItems: async (body) => confirmation(body, ++counter),
  listOrders: orderList(),
}

let directory: string
let path: string
let clock: ManualClock
const open: Database[] = []
const product = item({ pricing: { Retail: 10, Dealer: 8 } })

function connection(): Database {
  const db = openDatabase(path)
  open.push(db)
  return db
}

function process_(sender: OrderSender, label: string, options: { db?: Database; leaseTtlMs?: number } = {}): Orders {
  const db = options.db ?? connection()
  return createOrders({
    db,
    local: openLocalData(db),
    clock,
    logger: silentLogger,
    label,
    sender: async () => sender,
    defaults: () => ({ remainInPreliminary: false }),
    ...(options.leaseTtlMs ? { leaseTtlMs: options.leaseTtlMs } : {}),
  })
}

function queueOrders(n: number): string[] {
  const desk = new OrderDesk(connection(), new MemoryLookup([product]), clock, () => ({ remainInPreliminary: false }))
  return Array.from({ length: n }, () => {
    const draft = desk.createDraft({ customerGuid: '33333333-3333-4333-8333-333333333333', catalogGuid })
    desk.addLines(draft.id, [{ sku: product.sku, qty: 2 }])
    return desk.send(draft.id).apiGuid
  })
}

const states = (orders: Orders) => orders.desk.outbox.list().map((entry) => entry.state)

beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), 'satchel-lease-'))
  path = join(directory, 'satchel.db')
  clock = new ManualClock()
})

afterEach(async () => {
  for (const db of open.splice(0)) closeDatabase(db)
  rmSync(directory, { recursive: true, force: true })
})

describe('the outbox lease', () => {
  it('lets one process send at a time; the other is told who holds it and sends nothing, then sends what is left', async () => {
    const apiGuids = queueOrders(3)
    const gated = new GatedSender()
    const app = process_(gated, 'the desktop app')
    const cli = process_(immediate, 'satchel (CLI)')
    const appFlush = app.flusher.flush()
    await until(() => gated.waiting === 1, 'the gated send to start', { everyMs: 5 })

    const refused = await cli.flusher.flush()
    expect(refused).toMatchObject({ sent: 0, heldBy: { label: 'the desktop app', pid: process.pid } })
    // The entry on the wire (and the next, claimed meanwhile) are still the app's: the CLI neither
    // recovered nor resent them.
    expect(states(cli)).toEqual(['sending', 'sending', 'queued'])

    gated.releaseAll()
    await until(() => gated.waiting === 1, 'the gated send to start', { everyMs: 5 })
    gated.releaseAll()
    await until(() => gated.waiting === 1, 'the gated send to start', { everyMs: 5 })
    gated.releaseAll()
    const appReport = await appFlush
    const cliReport = await cli.flusher.flush()
    expect(appReport.sent + cliReport.sent).toBe(3)
    expect(gated.posted).toEqual(apiGuids)
    expect(cliReport.heldBy).toBeUndefined()
  })

  it('does not write when it starts: a CLI status or outbox beside a sending app leaves its entry sending', () => {
    queueOrders(1)
    const app = process_(immediate, 'the desktop app')
    const lease = new Lease(connection(), 'outbox', { label: 'the desktop app', clock })
    expect(lease.tryAcquire().acquired).toBe(true)
    expect(app.desk.outbox.claimNext(clock.now())).not.toBeNull()
    const reader = process_(immediate, 'satchel (CLI)')
    expect(states(reader)).toEqual(['sending'])
  })

  it('recovers a sending entry only once its holder’s lease has run out', async () => {
    const [apiGuid] = queueOrders(1)
    const crashed = process_(immediate, 'the desktop app')
    const lease = new Lease(connection(), 'outbox', { label: 'the desktop app', clock, ttlMs: 10_000 })
    lease.tryAcquire()
    crashed.desk.outbox.claimNext(clock.now())

    const next = process_(immediate, 'satchel (CLI)')
    expect(await next.flusher.flush()).toMatchObject({ sent: 0, heldBy: { label: 'the desktop app' } })
    expect(states(next)).toEqual(['sending'])

    clock.ms += 10_001
    expect(await next.flusher.flush()).toMatchObject({ sent: 1 })
    expect(next.desk.outbox.get(apiGuid!)).toMatchObject({ state: 'sent', attempts: 2 })
  })

  it('takes over at once from a holder on this machine whose process is gone', async () => {
    queueOrders(1)
    const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']).stdout.toString()
    connection()
      .prepare('INSERT INTO leases (name, owner, label, pid, host, expires_at) VALUES (?, ?, ?, ?, ?, ?)')
      .run('outbox', 'dead-owner', 'the desktop app', Number(gone), hostname(), clock.now() + 60_000)
    const next = process_(immediate, 'satchel (CLI)')
    expect(await next.flusher.flush()).toMatchObject({ sent: 1 })
  })

  it('from a holder killed a moment ago, sends the other orders at once and its interrupted one only when its lease would have run out', async () => {
    const [interrupted, waiting] = queueOrders(2)
    const gone = Number(
      spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']).stdout.toString(),
    )
    const db = connection()
    // The killed holder had claimed the first order: its request may still be with the service.
    db.prepare("UPDATE outbox SET state = 'sending', attempts = 1 WHERE api_guid = ?").run(interrupted)
    db.prepare('INSERT INTO leases (name, owner, label, pid, host, expires_at) VALUES (?, ?, ?, ?, ?, ?)').run(
      'outbox',
      `${hostname()}/${gone}/dead`,
      'satchel (CLI)',
      gone,
      hostname(),
      clock.now() + 12_000,
    )
    const sender = new GatedSender()
    const next = process_(sender, 'satchel (CLI)')
    const first = next.flusher.flush()
    await until(() => sender.waiting === 1, 'the send to start', { everyMs: 5 })
    sender.releaseAll()
    expect(await first).toMatchObject({ sent: 1 })
    expect(sender.posted).toEqual([waiting])
    expect(next.desk.outbox.interruptedResendAt()).toBe(clock.now() + 12_000)
    expect(next.desk.outbox.nextRetryAt()).toBe(clock.now() + 12_000)

    // "Retry now" does not hurry it: the wait is for the service, not a back-off.
    next.desk.outbox.retryNow()
    clock.ms += 11_999
    expect(await next.flusher.flush()).toMatchObject({ sent: 0 })
    expect(states(next)).toEqual(['sending', 'sent'])

    clock.ms += 1
    const second = next.flusher.flush()
    await until(() => sender.waiting === 1, 'the send to start', { everyMs: 5 })
    sender.releaseAll()
    expect(await second).toMatchObject({ sent: 1 })
    expect(sender.posted).toEqual([waiting, interrupted])
    expect(next.desk.outbox.get(interrupted!)).toMatchObject({ state: 'sent', attempts: 2 })
    expect(next.desk.outbox.interruptedResendAt()).toBeNull()
  })

  it('stops a request whose lease another process took over, and leaves its entry to the new holder', async () => {
    const [apiGuid] = queueOrders(1)
    const gated = new GatedSender()
    // A short lease, so its keep-alive runs every 250 ms.
    const stalled = process_(gated, 'the desktop app', { leaseTtlMs: 750 })
    const flushing = stalled.flusher.flush()
    await until(() => gated.waiting === 1, 'the gated send to start', { everyMs: 5 })

    // The stalled process stops renewing: another, having watched its lease stay the same for a
    // whole TTL on its own clock, takes it over and recovers the entry.
    const db = connection()
    const next = process_(immediate, 'satchel (CLI)', { db })
    const took = new Lease(db, 'outbox', { label: 'satchel (CLI)', clock, owner: 'new-owner' })
    expect(took.tryAcquire()).toMatchObject({ acquired: false })
    clock.ms += 60_000
    expect(took.tryAcquire(() => next.desk.outbox.recoverInterrupted())).toMatchObject({
      acquired: true,
      tookOverExpired: true,
    })
    // The stalled flusher's keep-alive finds the lease gone and aborts its request without a write.
    await until(() => gated.aborted === 1, 'the stalled send to be aborted', { everyMs: 5 })
    expect(await flushing).toMatchObject({ sent: 0 })
    expect(next.desk.outbox.get(apiGuid!)).toMatchObject({ state: 'queued', attempts: 1 })
  })

  it('records which holder marked each order sent', async () => {
    queueOrders(2)
    const cli = process_(immediate, 'satchel (CLI)')
    await cli.flusher.flush()
    const rows = connection().prepare<[], { sent_by: string }>('SELECT sent_by FROM outbox').all()
    expect(rows.map((row) => row.sent_by)).toEqual([
      expect.stringContaining(`/${process.pid}/`),
      expect.stringContaining(`/${process.pid}/`),
    ])
  })
})
