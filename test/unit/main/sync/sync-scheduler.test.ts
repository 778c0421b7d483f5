import { describe, expect, it } from 'vitest'
import type { SyncEngine, SyncRunOptions } from '../../../../src/main/sync/engine'
import type { SyncReport } from '../../../../src/shared/synced'
import { SyncScheduler } from '../../../../src/main/sync/scheduler'
import type { LocalCopy } from '../../../../src/main/local/copy'
import { silentLogger } from '../../../../src/main/ports'
import { CoreError } from '../../../../src/main/errors'

function report(full: boolean): SyncReport {
  const zero = { fetched: 0, upserted: 0, deleted: 0 }
  return {
    ok: true,
    full,
    resources: { catalogs: zero, priceGroups: zero, customers: zero, catalogItems: zero, orders: zero },
    scopes: [],
    durationMs: 1,
    error: null,
  }
}

/** An engine whose runs finish only when the test says so. */
function controllableEngine() {
  const runs: { options: SyncRunOptions; finish: () => void }[] = []
  const engine = {
    run: (options: SyncRunOptions) =>
      new Promise<SyncReport>((resolve, reject) => {
        options.signal?.addEventListener('abort', () => reject(new CoreError('CANCELLED', 'cancelled')))
        runs.push({ options, finish: () => resolve(report(options.full === true)) })
      }),
  } as unknown as SyncEngine
  return { engine, runs }
}

const store = { allScopes: () => [], lastSyncAt: () => null, lastReport: () => null } as unknown as LocalCopy

function scheduler(createEngine: () => Promise<SyncEngine | null>, statuses: boolean[] = []) {
  return new SyncScheduler({
    createEngine,
    copy: store,
    intervalMinutes: () => 15,
    clock: { now: () => 0 },
    logger: silentLogger,
    onStatus: (status) => statuses.push(status.running),
  })
}

async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve))
}

describe('SyncScheduler', () => {
  it('never runs two syncs at once: a request during a run joins it', async () => {
    const { engine, runs } = controllableEngine()
    const statuses: boolean[] = []
    const subject = scheduler(async () => engine, statuses)
    const first = subject.syncNow()
    const second = subject.syncNow()
    subject.trigger('back-online')
    await settle()
    expect(runs).toHaveLength(1)
    expect(subject.isRunning()).toBe(true)
    runs[0]!.finish()
    expect(await first).toBe(await second)
    expect(statuses).toEqual([true, false])
  })

  it('runs a full sync asked for during a delta once the delta is done', async () => {
    const { engine, runs } = controllableEngine()
    const subject = scheduler(async () => engine)
    const delta = subject.syncNow()
    const full = subject.syncNow({ full: true })
    await settle()
    expect(runs.map((run) => run.options.full)).toEqual([false])
    runs[0]!.finish()
    await delta
    await settle()
    expect(runs.map((run) => run.options.full)).toEqual([false, true])
    runs[1]!.finish()
    expect((await full).full).toBe(true)
  })

  it('refuses with NOT_CONFIGURED and announces nothing when no connection is saved', async () => {
    const statuses: boolean[] = []
    const subject = scheduler(async () => null, statuses)
    await expect(subject.syncNow()).rejects.toMatchObject({ code: 'NOT_CONFIGURED' })
    expect(statuses).toEqual([])
    expect(subject.isRunning()).toBe(false)
  })

  it('cancels the running sync on stop', async () => {
    const { engine } = controllableEngine()
    const subject = scheduler(async () => engine)
    const running = subject.syncNow()
    await settle()
    await subject.stop()
    await expect(running).rejects.toMatchObject({ code: 'CANCELLED' })
    await expect(subject.syncNow()).rejects.toMatchObject({ code: 'CANCELLED' })
  })

  it('waits out an interval longer than Node’s timers take, instead of syncing again at once', async () => {
    const warnings: Error[] = []
    const onWarning = (warning: Error) => warnings.push(warning)
    process.on('warning', onWarning)
    let runs = 0
    const engine = {
      run: async (options: SyncRunOptions) => (runs++, report(options.full === true)),
    } as unknown as SyncEngine
    const subject = new SyncScheduler({
      createEngine: async () => engine,
      copy: store,
      intervalMinutes: () => 40 * 24 * 60,
      clock: { now: () => 0 },
      logger: silentLogger,
    })
    try {
      subject.start()
      for (let i = 0; i < 100 && runs === 0; i++) await new Promise((resolve) => setTimeout(resolve, 5))
      // Long enough for a timer that overflowed (it fired after 1 ms) to have run the sync many times.
      await new Promise((resolve) => setTimeout(resolve, 200))
      expect(runs).toBe(1)
      expect(subject.status().nextSyncAt).toBe(40 * 86_400_000)
      expect(warnings.map((warning) => warning.name)).not.toContain('TimeoutOverflowWarning')
    } finally {
      await subject.stop()
      process.off('warning', onWarning)
    }
  })
})
