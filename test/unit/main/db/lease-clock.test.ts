import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { hostname, tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { closeDatabase, openDatabase, type Database } from '../../../../src/main/db/database'
import { Lease } from '../../../../src/main/db/lease'
import type { Clock } from '../../../../src/main/ports'

/**
 * Each Lease is a process here (its own connection and clocks); the row lives in SQLite, so what
 * holds between them holds between the desktop app and a CLI flush. A wall clock can be off by any
 * amount; each process's monotonic clock only measures its own waiting.
 */
class ProcessClock implements Clock {
  elapsed = 0
  constructor(private readonly offsetMs: number) {}
  now() {
    return Date.parse('2026-11-20T12:00:00Z') + this.offsetMs + this.elapsed
  }
  monotonic() {
    return this.elapsed
  }
}

let directory: string
const open: Database[] = []
const children: ChildProcess[] = []
const connection = () => {
  const db = openDatabase(join(directory, 'satchel.db'))
  open.push(db)
  return db
}
const lease = (clock: Clock, label: string, ttlMs = 15_000) =>
  new Lease(connection(), 'outbox', { label, clock, ttlMs })
const row = (db: Database) =>
  db
    .prepare<[], { pid: number; started: string | null; renewals: number; ttl_ms: number }>(
      "SELECT pid, started, renewals, ttl_ms FROM leases WHERE name = 'outbox'",
    )
    .get()

beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), 'satchel-lease-clock-'))
})
afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL')
  for (const db of open.splice(0)) closeDatabase(db)
  rmSync(directory, { recursive: true, force: true })
})

describe('a lease between processes whose wall clocks disagree', () => {
  it.each([
    ['a minute slow', -60_000, 0],
    ['a minute fast', 0, 60_000],
    ['a day apart', -86_400_000, 86_400_000],
  ])('is not taken from a live holder that keeps renewing (holder and taker %s)', (_, holderOffset, takerOffset) => {
    const holderClock = new ProcessClock(holderOffset)
    const takerClock = new ProcessClock(takerOffset)
    const holder = lease(holderClock, 'the desktop app')
    const taker = lease(takerClock, 'satchel flush')
    expect(holder.tryAcquire().acquired).toBe(true)
    // Ten TTLs pass on both machines' clocks; the holder renews every third of its TTL.
    for (let step = 0; step < 30; step++) {
      holderClock.elapsed += 5_000
      takerClock.elapsed += 5_000
      expect(holder.stillHeld()).toBe(true)
      expect(taker.tryAcquire()).toMatchObject({ acquired: false, holder: { label: 'the desktop app' } })
      expect(taker.holder()).toMatchObject({ label: 'the desktop app' })
    }
  })

  it('is taken over once the taker has watched it go unrenewed for the holder’s TTL on its own clock, whatever either wall clock says', () => {
    const holderClock = new ProcessClock(10 * 60_000)
    const takerClock = new ProcessClock(-10 * 60_000)
    const holder = lease(holderClock, 'the desktop app', 3_000)
    const taker = lease(takerClock, 'satchel flush', 15_000)
    holder.tryAcquire()
    expect(taker.tryAcquire().acquired).toBe(false)
    takerClock.elapsed += 2_999
    expect(taker.tryAcquire().acquired).toBe(false)
    // The holder (its process alive, say hung) stopped renewing 3 s ago by the taker's own measure.
    takerClock.elapsed += 1
    let recovered: unknown = 'not called'
    expect(taker.tryAcquire((takeover) => (recovered = takeover))).toEqual({ acquired: true, tookOverExpired: true })
    // It stopped renewing a whole TTL ago: nothing it sent can still be waiting on the service.
    expect(recovered).toEqual({ unexpiredUntil: null })
    expect(holder.stillHeld()).toBe(false)
  })

  it('starts watching afresh at every renewal, so a holder that renews late but within its TTL keeps the lease', () => {
    const holderClock = new ProcessClock(0)
    const takerClock = new ProcessClock(0)
    const holder = lease(holderClock, 'the desktop app', 3_000)
    const taker = lease(takerClock, 'satchel flush')
    holder.tryAcquire()
    for (let step = 0; step < 5; step++) {
      expect(taker.tryAcquire().acquired).toBe(false)
      takerClock.elapsed += 2_900
      expect(taker.tryAcquire().acquired).toBe(false)
      holder.renew()
    }
  })

  it('from a dead holder whose clock was fast, holds its interrupted order for no more than one TTL', () => {
    const gone = Number(
      spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']).stdout.toString(),
    )
    const takerClock = new ProcessClock(0)
    connection()
      .prepare('INSERT INTO leases (name, owner, label, pid, host, expires_at, ttl_ms) VALUES (?, ?, ?, ?, ?, ?, ?)')
      .run('outbox', 'dead', 'the desktop app', gone, hostname(), takerClock.now() + 40 * 86_400_000, 2_000)
    let unexpiredUntil: number | null = -1
    expect(
      lease(takerClock, 'satchel flush').tryAcquire((takeover) => (unexpiredUntil = takeover.unexpiredUntil)).acquired,
    ).toBe(true)
    expect(unexpiredUntil).toBe(takerClock.now() + 2_000)
  })
})

describe.runIf(process.platform === 'linux')('a holder’s liveness on this machine', () => {
  it('records when the holder’s process started, and takes over at once when its pid now belongs to a process started at another moment', () => {
    const clock = new ProcessClock(0)
    const holder = lease(clock, 'the desktop app')
    holder.tryAcquire()
    const db = connection()
    const stat = readFileSync('/proc/self/stat', 'utf8')
    expect(row(db)?.started).toMatch(new RegExp(`:${stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]}$`))

    // A live process with the holder's pid but another start: the holder died and its pid was reused.
    const other = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60_000)'])
    children.push(other)
    db.prepare("UPDATE leases SET pid = ?, owner = 'earlier-process' WHERE name = 'outbox'").run(other.pid!)
    expect(lease(clock, 'satchel flush').tryAcquire()).toMatchObject({ acquired: true, tookOverExpired: true })
  })

  it('does not take over from a live holder on this machine whose start matches', () => {
    const clock = new ProcessClock(0)
    const other = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60_000)'])
    children.push(other)
    const stat = () => readFileSync(`/proc/${other.pid}/stat`, 'utf8')
    const started = `${readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim()}:${
      stat()
        .slice(stat().lastIndexOf(')') + 2)
        .split(' ')[19]
    }`
    connection()
      .prepare('INSERT INTO leases (name, owner, label, pid, host, expires_at, started) VALUES (?, ?, ?, ?, ?, ?, ?)')
      .run('outbox', 'live', 'satchel flush', other.pid!, hostname(), clock.now() - 86_400_000, started)
    expect(lease(clock, 'the desktop app').tryAcquire()).toMatchObject({ acquired: false, holder: { pid: other.pid } })
  })
})

describe('renewing while another connection holds the write lock', () => {
  it('neither waits for the lock nor throws: a sync writer building an index holds it for seconds, and the keep-alive runs on a timer', () => {
    const clock = new ProcessClock(0)
    const holder = lease(clock, 'the desktop app')
    expect(holder.tryAcquire().acquired).toBe(true)
    // The writer thread's connection, mid-transaction (a commit, or CREATE INDEX over a million items).
    const writer = connection()
    writer.exec('BEGIN IMMEDIATE')
    try {
      clock.elapsed += 5_000
      expect(holder.stillHeld()).toBe(true)
    } finally {
      writer.exec('COMMIT')
    }
    // Once the lock is free the renewal goes through as before, and a taker still finds it held.
    expect(holder.stillHeld()).toBe(true)
    expect(lease(new ProcessClock(0), 'satchel flush').tryAcquire().acquired).toBe(false)
  })
})
