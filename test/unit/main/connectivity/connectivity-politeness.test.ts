/**
 * The connectivity monitor on a laptop left open: the service is probed closely only while someone
 * waits on the answer (orders waiting, a sync running, the rep having just acted), rarely otherwise,
 * never while a Retry-After runs; real requests' outcomes and the network's events answer between
 * probes. All on vitest's fake clock.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { createConnectivityMonitor, type ConnectivityCheck, type ProbeResult } from '../../../../src/main/connectivity'
import { createOutboxDriver } from '../../../../src/main/orders/outbox/driver'
import { silentLogger } from '../../../../src/main/ports'

const minute = 60_000

beforeEach(() => {
  vi.useFakeTimers()
})
afterEach(() => {
  vi.useRealTimers()
})

function openLaptop(options: { waiting?: () => boolean; watchNetwork?: (listener: () => void) => () => void } = {}) {
  let answer: ProbeResult = { status: 'online', detail: 'The service answered (401).' }
  const probe = vi.fn(async () => answer)
  const monitor = createConnectivityMonitor({
    isNetworkUp: () => true,
    baseUrl: async () => 'https://orders.example.com',
    probe,
    fingerprint: () => 'net-a',
    clock: { now: () => Date.now() },
    windowVisible: true,
    ...(options.waiting ? { hasWaitingWork: options.waiting } : {}),
    ...(options.watchNetwork ? { watchNetwork: options.watchNetwork } : {}),
  })
  return {
    monitor,
    probe,
    set(next: ProbeResult) {
      answer = next
    },
  }
}

describe('a window left open with nothing waiting', () => {
  it('probes a few times an hour, not every few seconds', async () => {
    const { monitor, probe } = openLaptop()
    monitor.start()
    // Opening the window is the rep acting: watched closely (every 4 s) for a minute.
    await vi.advanceTimersByTimeAsync(minute)
    const afterOpening = probe.mock.calls.length
    expect(afterOpening).toBeGreaterThan(10)
    await vi.advanceTimersByTimeAsync(60 * minute)
    // The hour after: one probe per 20 minutes at most, where it was 900.
    expect(probe.mock.calls.length - afterOpening).toBeLessThanOrEqual(3)
    monitor.stop()
  })

  it('counts every reply of a real request as a check, so a syncing laptop is not probed at all', async () => {
    const { monitor, probe } = openLaptop()
    monitor.start()
    await vi.advanceTimersByTimeAsync(2 * minute)
    const before = probe.mock.calls.length
    for (let i = 0; i < 4; i++) {
      await vi.advanceTimersByTimeAsync(15 * minute)
      monitor.replied()
    }
    expect(probe.mock.calls.length).toBe(before)
    monitor.stop()
  })

  it('is back to the close watch when the rep acts, and tells the truth within 10 s', async () => {
    const { monitor, probe, set } = openLaptop()
    monitor.start()
    await vi.advanceTimersByTimeAsync(30 * minute)
    set({ status: 'unreachable', detail: 'Could not connect (ECONNREFUSED).' })
    const before = probe.mock.calls.length
    monitor.repActed()
    await vi.advanceTimersByTimeAsync(0)
    expect(probe.mock.calls.length).toBe(before + 1)
    expect(monitor.current().online).toBe(false)
    // While the rep is still there, the service coming back shows within 10 s.
    set({ status: 'online', detail: 'The service answered (401).' })
    await vi.advanceTimersByTimeAsync(10_000)
    expect(monitor.current().online).toBe(true)
    monitor.stop()
  })

  it('watches closely while orders wait, from one interval after they start (their own request answers first)', async () => {
    let waiting = false
    const { monitor, probe, set } = openLaptop({ waiting: () => waiting })
    monitor.start()
    await vi.advanceTimersByTimeAsync(10 * minute)
    const before = probe.mock.calls.length
    waiting = true
    monitor.attentionChanged()
    await vi.advanceTimersByTimeAsync(0)
    expect(probe.mock.calls.length).toBe(before)
    await vi.advanceTimersByTimeAsync(5_000)
    expect(probe.mock.calls.length).toBe(before + 1)
    set({ status: 'unreachable', detail: 'No answer within 4 s.' })
    await vi.advanceTimersByTimeAsync(10_000)
    expect(monitor.current().online).toBe(false)
    monitor.stop()
  })

  it('looks at once on the operating system’s network-change event, and polls nothing', async () => {
    let listener: (() => void) | undefined
    const { monitor } = openLaptop({ watchNetwork: (l) => ((listener = l), () => (listener = undefined)) })
    const reasons: string[] = []
    monitor.onCheck((check) => reasons.push(check.reason))
    monitor.start()
    await vi.advanceTimersByTimeAsync(5 * minute)
    listener?.()
    await vi.advanceTimersByTimeAsync(0)
    expect(reasons.at(-1)).toBe('network-change')
    monitor.stop()
    expect(listener).toBeUndefined()
  })
})

describe('a service that asked for quiet', () => {
  it('is not probed until the Retry-After runs out, even while orders wait or the rep acts', async () => {
    const { monitor, probe } = openLaptop({ waiting: () => true })
    monitor.start()
    await vi.advanceTimersByTimeAsync(0)
    const before = probe.mock.calls.length
    monitor.replied(120_000)
    expect(monitor.quietForMs()).toBe(120_000)
    monitor.repActed()
    monitor.transportFailed('503', 120_000)
    await vi.advanceTimersByTimeAsync(119_000)
    expect(probe.mock.calls.length).toBe(before)
    await vi.advanceTimersByTimeAsync(2_000)
    expect(probe.mock.calls.length).toBe(before + 1)
    expect(monitor.quietForMs()).toBe(0)
    monitor.stop()
  })

  it('keeps a probe’s own Retry-After', async () => {
    const { monitor, set } = openLaptop()
    set({ status: 'online', detail: 'The service answered (429).', retryAfterMs: 60_000 })
    await monitor.refresh('requested')
    expect(monitor.quietForMs()).toBe(60_000)
  })

  it('holds the outbox driver’s sending until it runs out; nothing waiting is dropped', async () => {
    let quiet = 90_000
    const flush = vi.fn(async () => ({
      sent: 1,
      needsAttention: 0,
      retrying: 0,
      summary: { queued: 0, sending: 0, retrying: 0, needsAttention: 0, sent: 1, pausedReason: null },
    }))
    const driver = createOutboxDriver({
      outbox: {
        nextRetryAt: () => null,
        dueFarAhead: () => 0,
        summary: () => ({ queued: 1, sending: 0, retrying: 0, needsAttention: 0, sent: 0, pausedReason: null }),
      },
      flusher: { flush },
      clock: { now: () => Date.now() },
      logger: silentLogger,
      quietForMs: () => quiet,
    })
    driver.nudge()
    await vi.advanceTimersByTimeAsync(60_000)
    expect(flush).not.toHaveBeenCalled()
    quiet = 0
    await vi.advanceTimersByTimeAsync(30_000)
    expect(flush).toHaveBeenCalledTimes(1)
    driver.stop()
  })
})

describe('the return after an outage', () => {
  it('says how long the service did not answer', async () => {
    const { monitor, set } = openLaptop()
    const checks: ConnectivityCheck[] = []
    monitor.onCheck((check) => checks.push(check))
    await monitor.refresh('startup')
    set({ status: 'unreachable', detail: 'The service answered 503.' })
    await vi.advanceTimersByTimeAsync(minute)
    await monitor.refresh('requested')
    await vi.advanceTimersByTimeAsync(9 * minute)
    set({ status: 'online', detail: 'The service answered (401).' })
    await monitor.refresh('requested')
    expect(checks.at(-1)).toMatchObject({ previous: { online: false }, state: { online: true }, outageMs: 10 * minute })
    expect(checks.filter((check) => check.outageMs !== undefined)).toHaveLength(1)
  })
})
