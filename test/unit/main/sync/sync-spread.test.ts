/**
 * The sync scheduler in a fleet: background runs spread by a per-install seed (steady for one
 * laptop, spread across laptops), a return after an outage spread over a window that grows with it,
 * a Retry-After holding every background run, and 503s in a row widening the interval up to 4x.
 * All on a hand-driven clock and timer port.
 */
import { describe, expect, it } from 'vitest'
import type { SyncReport } from '../../../../src/shared/synced'
import { SyncScheduler, watchBusy } from '../../../../src/main/sync/scheduler'
import { installShare, type TimerPort } from '../../../../src/main/timers'
import { silentLogger } from '../../../../src/main/ports'
import { ServiceError } from '../../../../src/main/ordering-client/errors'

const minute = 60_000

function manualTime() {
  let now = 0
  const pending: { at: number; fire: () => void; cancelled: boolean }[] = []
  const timers: TimerPort = {
    start(fire, delayMs) {
      const timer = { at: now + Math.max(0, delayMs), fire, cancelled: false }
      pending.push(timer)
      return { cancel: () => void (timer.cancelled = true) }
    },
  }
  return {
    clock: { now: () => now },
    timers,
    async advance(ms: number) {
      const end = now + ms
      for (;;) {
        const due = pending.filter((timer) => !timer.cancelled && timer.at <= end).sort((a, b) => a.at - b.at)[0]
        if (!due) break
        now = due.at
        due.cancelled = true
        due.fire()
        await settle()
      }
      now = end
      await settle()
    },
  }
}

async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve))
}

function report(ok: boolean): SyncReport {
  const zero = { fetched: 0, upserted: 0, deleted: 0 }
  return {
    ok,
    full: false,
    resources: { catalogs: zero, priceGroups: zero, customers: zero, catalogItems: zero, orders: zero },
    scopes: [],
    durationMs: 1,
    error: ok ? null : { code: 'UNAVAILABLE', message: '503' },
  }
}

// A laptop that has synced before: one that never has syncs at once (main/sync/first-sync-at-once.test.ts).
const store = { allScopes: () => [], lastSyncAt: () => -60_000, lastReport: () => null }

/** A scheduler whose engine records when each run started and answers as `answer` says. */
function fleetScheduler(
  seed: string | null,
  answer: (scheduler: SyncScheduler) => boolean = () => true,
  options: { quietForMs?: () => number } = {},
) {
  const time = manualTime()
  const runs: number[] = []
  const scheduler: SyncScheduler = new SyncScheduler({
    createEngine: async () => ({
      run: async () => {
        runs.push(time.clock.now())
        return report(answer(scheduler))
      },
    }),
    copy: store,
    intervalMinutes: () => 15,
    clock: time.clock,
    timers: time.timers,
    logger: silentLogger,
    ...(seed === null ? {} : { spread: { seed } }),
    ...options,
  })
  return { scheduler, runs, time }
}

describe('the spread of background syncs', () => {
  it('gives each install its own share, the same every time, spread evenly across installs', () => {
    expect(installShare('laptop-1', 'start-up')).toBe(installShare('laptop-1', 'start-up'))
    expect(installShare('laptop-1', 'start-up')).not.toBe(installShare('laptop-2', 'start-up'))
    const bins = new Array<number>(10).fill(0)
    for (let i = 0; i < 10_000; i++) bins[Math.floor(installShare(`laptop-${i}`, 'start-up') * 10)]!++
    // 1,000 expected per tenth; a generous band for chance, far from clumping.
    for (const count of bins) {
      expect(count).toBeGreaterThan(850)
      expect(count).toBeLessThan(1150)
    }
  })

  it('starts each laptop’s first sync at its own point of a share of the interval, and keeps its rhythm after', async () => {
    const starts: number[] = []
    for (let i = 0; i < 200; i++) {
      const { scheduler, runs, time } = fleetScheduler(`laptop-${i}`)
      scheduler.start()
      await time.advance(3 * minute)
      expect(runs).toHaveLength(1)
      starts.push(runs[0]!)
      await time.advance(40 * minute)
      // A steady rhythm: the same gap each time for one laptop.
      expect(runs[2]! - runs[1]!).toBe(runs[1]! - runs[0]!)
      await scheduler.stop()
    }
    // Within 20 % of the 15-minute interval, and spread over it rather than bunched at 0.
    expect(Math.max(...starts)).toBeLessThanOrEqual(3 * minute)
    expect(starts.filter((start) => start < 90_000).length).toBeGreaterThan(60)
    expect(starts.filter((start) => start >= 90_000).length).toBeGreaterThan(60)
    expect(new Set(starts).size).toBeGreaterThan(190)

    // The same install starts at the same point every time Satchel opens.
    const again = fleetScheduler('laptop-7')
    again.scheduler.start()
    await again.time.advance(3 * minute)
    expect(again.runs[0]).toBe(starts[7])
    await again.scheduler.stop()
  })

  it('starts at once without a seed (the CLI), as before', async () => {
    const { scheduler, runs, time } = fleetScheduler(null)
    scheduler.start()
    await time.advance(0)
    expect(runs).toEqual([0])
    await time.advance(15 * minute)
    expect(runs).toEqual([0, 15 * minute])
    await scheduler.stop()
  })

  it('spreads the return after an outage over a window that grows with the outage', async () => {
    const delays = async (outageMs: number) => {
      const found: number[] = []
      for (let i = 0; i < 100; i++) {
        const { scheduler, runs, time } = fleetScheduler(`laptop-${i}`)
        scheduler.start()
        await time.advance(4 * minute)
        const from = time.clock.now()
        scheduler.connectivityRestored(outageMs)
        await time.advance(10 * minute)
        found.push(runs.find((run) => run >= from)! - from)
        await scheduler.stop()
      }
      return found
    }
    const short = await delays(minute)
    const long = await delays(10 * minute)
    // At least 30 s for any outage; half the outage for a long one, never more than the interval.
    expect(Math.max(...short)).toBeLessThanOrEqual(30_000)
    expect(Math.max(...long)).toBeLessThanOrEqual(5 * minute)
    expect(Math.max(...long)).toBeGreaterThan(4 * minute)
    expect(long.filter((delay) => delay < 2.5 * minute).length).toBeGreaterThan(30)
    expect(long.filter((delay) => delay >= 2.5 * minute).length).toBeGreaterThan(30)
  })
})

describe('back-pressure', () => {
  it('holds every background run for a Retry-After given to any sync request, then runs once', async () => {
    const { scheduler, runs, time } = fleetScheduler(null)
    scheduler.start()
    await time.advance(0)
    expect(runs).toEqual([0])
    scheduler.serviceBusy({ status: 429, retryAfterMs: 20 * minute })
    // The interval, a return online and a network change all wait for the hold.
    await time.advance(15 * minute)
    scheduler.trigger('network-change')
    scheduler.connectivityRestored(minute)
    await time.advance(4 * minute)
    expect(runs).toEqual([0])
    await time.advance(minute)
    expect(runs).toEqual([0, 20 * minute])
    // The rep's own request is never held.
    scheduler.serviceBusy({ status: 429, retryAfterMs: 10 * minute })
    await scheduler.syncNow()
    expect(runs).toHaveLength(3)
    await scheduler.stop()
  })

  it('holds for a Retry-After another request was given (the probe’s, an order’s)', async () => {
    let quietUntil = 0
    let now = () => 0
    const { scheduler, runs, time } = fleetScheduler(null, () => true, {
      quietForMs: () => Math.max(0, quietUntil - now()),
    })
    now = time.clock.now
    scheduler.start()
    await time.advance(0)
    quietUntil = 25 * minute
    await time.advance(24 * minute)
    expect(runs).toEqual([0])
    await time.advance(6 * minute)
    expect(runs).toEqual([0, 25 * minute])
    await scheduler.stop()
  })

  it('widens the interval after runs that met a 503, up to 4x, and is back to the setting after a success', async () => {
    let failing = 3
    const { scheduler, runs, time } = fleetScheduler(null, (self) => {
      if (failing === 0) return true
      failing--
      self.serviceBusy({ status: 503 })
      return false
    })
    scheduler.start()
    await time.advance(4 * 60 * minute)
    const gaps = runs.slice(1).map((run, i) => (run - runs[i]!) / minute)
    // Three failed runs: 30, 60, then still 60 (the cap); the success after them brings back 15.
    expect(gaps.slice(0, 5)).toEqual([30, 60, 60, 15, 15])
    await scheduler.stop()
  })

  it('a watched client tells 429s and 503s with their Retry-After, and passes everything through', async () => {
    const told: unknown[] = []
    let fail: unknown
    const client = watchBusy(
      {
        async listPage() {
          if (fail) throw fail
          return 'page'
        },
      },
      (busy) => told.push(busy),
    )
    expect(await client.listPage()).toBe('page')
    fail = new ServiceError('rateLimited', 'busy', { status: 429, retryAfterMs: 120_000 })
    await expect(client.listPage()).rejects.toBe(fail)
    fail = new ServiceError('server', 'down', { status: 503 })
    await expect(client.listPage()).rejects.toBe(fail)
    fail = new ServiceError('server', 'broken', { status: 500 })
    await expect(client.listPage()).rejects.toBe(fail)
    expect(told).toEqual([{ status: 429, retryAfterMs: 120_000 }, { status: 503 }])
  })

  it('sends none of a run’s requests while a Retry-After another request was given runs', async () => {
    let quiet = 90_000
    let sent = 0
    const told: unknown[] = []
    const client = watchBusy(
      {
        async listPage() {
          sent++
          return 'page'
        },
      },
      (busy) => told.push(busy),
      () => quiet,
    )
    await expect(client.listPage()).rejects.toMatchObject({ kind: 'rateLimited', status: 429, retryAfterMs: 90_000 })
    expect(sent).toBe(0)
    expect(told).toEqual([{ status: 429, retryAfterMs: 90_000 }])
    quiet = 0
    expect(await client.listPage()).toBe('page')
    expect(sent).toBe(1)
  })
})
