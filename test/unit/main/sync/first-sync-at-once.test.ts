/**
 * A profile with no data syncs at once when its core opens (start-up, or switched to): the fleet's
 * spread is for laptops that have something to show meanwhile, not for an empty Customers list.
 */
import { describe, expect, it } from 'vitest'
import type { SyncReport } from '../../../../src/shared/synced'
import { SyncScheduler } from '../../../../src/main/sync/scheduler'
import { installShare, type TimerPort } from '../../../../src/main/timers'
import { silentLogger } from '../../../../src/main/ports'

const minute = 60_000

function scheduler(lastSyncAt: number | null, seed: string) {
  let now = 0
  const pending: { at: number; fire: () => void; cancelled: boolean }[] = []
  const timers: TimerPort = {
    start(fire, delayMs) {
      const timer = { at: now + Math.max(0, delayMs), fire, cancelled: false }
      pending.push(timer)
      return { cancel: () => void (timer.cancelled = true) }
    },
  }
  const runs: number[] = []
  const zero = { fetched: 0, upserted: 0, deleted: 0 }
  const report: SyncReport = {
    ok: true,
    full: false,
    resources: { catalogs: zero, priceGroups: zero, customers: zero, catalogItems: zero, orders: zero },
    scopes: [],
    durationMs: 1,
    error: null,
  }
  const sync = new SyncScheduler({
    createEngine: async () => ({
      run: async () => {
        runs.push(now)
        return report
      },
    }),
    copy: { allScopes: () => [], lastSyncAt: () => lastSyncAt, lastReport: () => null },
    intervalMinutes: () => 15,
    clock: { now: () => now },
    timers,
    logger: silentLogger,
    spread: { seed },
  })
  async function advance(ms: number): Promise<void> {
    const end = now + ms
    for (;;) {
      const due = pending.filter((t) => !t.cancelled && t.at <= end).sort((a, b) => a.at - b.at)[0]
      if (!due) break
      now = due.at
      due.cancelled = true
      due.fire()
      for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve))
    }
    now = end
    for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve))
  }
  return { sync, runs, advance }
}

// A seed whose share of the start-up spread is well past 0, so "at once" cannot be chance.
const seed = Array.from({ length: 50 }, (_, i) => `laptop-${i}`).find((s) => installShare(s, 'start-up') > 0.5)!

describe('the first sync of a profile with no data', () => {
  it('starts at once, not at the install’s point of the spread', async () => {
    const { sync, runs, advance } = scheduler(null, seed)
    sync.start()
    await advance(0)
    expect(runs).toEqual([0])
    await sync.stop()
  })

  it('leaves a profile that has synced before on its spread start-up', async () => {
    const { sync, runs, advance } = scheduler(-5 * minute, seed)
    sync.start()
    await advance(0)
    expect(runs).toEqual([])
    await advance(3 * minute)
    expect(runs).toHaveLength(1)
    expect(runs[0]).toBeGreaterThan(minute)
    await sync.stop()
  })
})
