/**
 * With the service stopped and nobody touching the app, the status bar once said "Online" for 75 s; after it came back, "You're offline" stayed up while an order went through. These pin the
 * watched schedule (window visible or orders waiting), replies counting as online, transport failures
 * triggering a check, and the rep's words apart from the technical cause.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import {
  createConnectivityMonitor,
  describeStatus,
  outcomeOf,
  watchReplies,
  watchSyncEvents,
  type ProbeResult,
} from '../../../../src/main/connectivity'
import { ServiceError } from '../../../../src/main/ordering-client/errors'

beforeEach(() => {
  vi.useFakeTimers()
})
afterEach(() => {
  vi.useRealTimers()
})

function watchedMonitor(options: { visible?: boolean; waiting?: () => boolean } = {}) {
  let answer: ProbeResult = { status: 'online', detail: 'The service answered (401).' }
  const probe = vi.fn(async () => answer)
  const monitor = createConnectivityMonitor({
    isNetworkUp: () => true,
    baseUrl: async () => 'https://orders.example.com',
    probe,
    fingerprint: () => 'net-a',
    clock: { now: () => Date.now() },
    ...(options.visible === undefined ? {} : { windowVisible: options.visible }),
    ...(options.waiting ? { hasWaitingWork: options.waiting } : {}),
  })
  return {
    monitor,
    probe,
    set: (next: ProbeResult) => {
      answer = next
    },
  }
}

describe('the watched schedule', () => {
  it('goes on checking when whether work waits cannot be read (the database gone under the core): no throw from its timer', async () => {
    const { monitor, probe } = watchedMonitor({
      visible: false,
      waiting: () => {
        throw new TypeError('The database connection is not open')
      },
    })
    monitor.start()
    await vi.advanceTimersByTimeAsync(2 * 60 * 60_000)
    expect(probe.mock.calls.length).toBeGreaterThan(1)
    monitor.stop()
  })

  it('turns offline and back online within 10 s while the window is visible, with no input', async () => {
    const { monitor, set } = watchedMonitor()
    monitor.start()
    await vi.advanceTimersByTimeAsync(0)
    expect(monitor.current().online).toBe(true)
    await vi.advanceTimersByTimeAsync(30_000)

    // The 10 s are the fake clock's: the schedule's promise, whatever the machine's load.
    set({ status: 'unreachable', detail: 'Could not connect (ECONNREFUSED).' })
    await vi.advanceTimersByTimeAsync(10_000)
    expect(monitor.current().online).toBe(false)
    set({ status: 'online', detail: 'The service answered (401).' })
    await vi.advanceTimersByTimeAsync(10_000)
    expect(monitor.current().online).toBe(true)
    monitor.stop()
  })

  it('keeps watching a hidden window while orders wait, and slows down when nothing does', async () => {
    let waiting = true
    const { monitor, probe } = watchedMonitor({ visible: false, waiting: () => waiting })
    monitor.start()
    await vi.advanceTimersByTimeAsync(20_000)
    const watchedProbes = probe.mock.calls.length
    expect(watchedProbes).toBeGreaterThanOrEqual(4)
    waiting = false
    await vi.advanceTimersByTimeAsync(60_000)
    expect(probe.mock.calls.length - watchedProbes).toBeLessThanOrEqual(1)
    monitor.stop()
  })

  it('checks at once when a hidden window is shown again', async () => {
    const { monitor, probe } = watchedMonitor({ visible: false })
    monitor.start()
    await vi.advanceTimersByTimeAsync(10_000)
    const before = probe.mock.calls.length
    monitor.setWindowVisible(true)
    await vi.advanceTimersByTimeAsync(0)
    expect(probe.mock.calls.length).toBe(before + 1)
    monitor.stop()
  })
})

describe('replies and failures between probes', () => {
  it('counts any answer as online at once, without a probe', async () => {
    const { monitor, probe, set } = watchedMonitor()
    set({ status: 'unreachable', detail: 'Could not connect (ECONNREFUSED).' })
    await monitor.refresh('requested')
    expect(monitor.current()).toMatchObject({ online: false, status: 'unreachable' })
    const calls = probe.mock.calls.length
    monitor.replied()
    expect(monitor.current()).toMatchObject({ online: true, status: 'online', cause: null })
    expect(probe.mock.calls.length).toBe(calls)
  })

  it('checks now when a request fails in transport', async () => {
    const { monitor, probe, set } = watchedMonitor()
    await monitor.refresh('startup')
    set({ status: 'unreachable', detail: 'Could not connect (UND_ERR_SOCKET).' })
    monitor.transportFailed('other side closed')
    await vi.advanceTimersByTimeAsync(0)
    expect(probe).toHaveBeenCalledTimes(2)
    expect(monitor.current()).toMatchObject({
      online: false,
      status: 'unreachable',
      cause: 'Could not connect (UND_ERR_SOCKET).',
    })
  })

  it('a watched client reports each outcome: answers (refusals too) as online, transport failures as a check', async () => {
    const replied = vi.fn()
    const transportFailed = vi.fn()
    let fail: unknown = undefined
    const client = watchReplies(
      {
        base: 'https://orders.example.com',
        async createOrderWithItems() {
          if (fail !== undefined) throw fail
          return { order: {} }
        },
      },
      { replied, transportFailed },
    )
    expect(client.base).toBe('https://orders.example.com')
    await client.createOrderWithItems()
    expect(replied).toHaveBeenCalledTimes(1)
    fail = new ServiceError('rejected', 'DPR-10001 is not offered to price group Retail')
    await expect(client.createOrderWithItems()).rejects.toBe(fail)
    expect(replied).toHaveBeenCalledTimes(2)
    fail = new ServiceError('unreachable', 'The ordering service cannot be reached: other side closed')
    await expect(client.createOrderWithItems()).rejects.toBe(fail)
    expect(transportFailed).toHaveBeenCalledWith('The ordering service cannot be reached: other side closed')
    fail = new ServiceError('cancelled', 'cancelled')
    await expect(client.createOrderWithItems()).rejects.toBe(fail)
    expect(replied).toHaveBeenCalledTimes(2)
    expect(transportFailed).toHaveBeenCalledTimes(1)
    expect(outcomeOf(new ServiceError('invalidResponse', 'an HTML page'))).toBe('check')
  })

  it('sync pages count as answers; a run that could not reach the service triggers a check', () => {
    const replied = vi.fn()
    const transportFailed = vi.fn()
    const listener = watchSyncEvents({ replied, transportFailed })
    const report = { ok: false, full: false, resources: {} as never, scopes: [], durationMs: 1 }
    listener({ name: 'syncFinished', payload: { ...report, error: { code: 'UNAVAILABLE', message: 'unreachable' } } })
    expect(transportFailed).toHaveBeenCalledTimes(1)
    listener({ name: 'syncFinished', payload: { ...report, ok: true, error: null } })
    expect(replied).toHaveBeenCalledTimes(1)
  })
})

describe('the rep’s words', () => {
  it('speaks of orders being safe, never of socket errors; the cause is kept apart', async () => {
    expect(describeStatus('unreachable')).toBe(
      'Can’t reach the ordering service — your orders are safe on this laptop.',
    )
    for (const status of ['offline', 'unreachable', 'captive-portal'] as const)
      expect(describeStatus(status)).not.toMatch(/UND_ERR|ECONN|\(\d{3}\)/)
    const { monitor, set } = watchedMonitor()
    set({ status: 'unreachable', detail: 'Could not connect (UND_ERR_SOCKET).' })
    const state = await monitor.refresh('requested')
    expect(state.detail).not.toContain('UND_ERR')
    expect(state.cause).toContain('UND_ERR_SOCKET')
  })
})

describe('a wall clock set back while watching', () => {
  it('keeps checking on schedule after the clock is set back a day, instead of waiting for the last check’s time to come round', async () => {
    let offset = 86_400_000
    let answer: ProbeResult = { status: 'online', detail: 'The service answered (401).' }
    const probe = vi.fn(async () => answer)
    const monitor = createConnectivityMonitor({
      isNetworkUp: () => true,
      baseUrl: async () => 'https://orders.example.com',
      probe,
      fingerprint: () => 'net-a',
      clock: { now: () => Date.now() + offset },
    })
    monitor.start()
    await vi.advanceTimersByTimeAsync(0)
    expect(monitor.current().status).toBe('online')
    // The clock was a day fast when that check was stamped, and is put right.
    offset = 0
    answer = { status: 'unreachable', detail: 'No answer.' }
    // The watched schedule's 10 s, on the fake clock.
    await vi.advanceTimersByTimeAsync(10_000)
    expect(monitor.current().status).toBe('unreachable')
    monitor.stop()
  })
})
