import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { clampDelay, clampPeriod, longestTimerDelayMs, startTimer } from '../../../src/main/timers'

const day = 86_400_000
const warnings: Error[] = []
const onWarning = (warning: Error) => warnings.push(warning)

beforeEach(() => {
  warnings.length = 0
  process.on('warning', onWarning)
})
afterEach(() => {
  vi.useRealTimers()
  process.off('warning', onWarning)
})

describe('timers with computed delays', () => {
  it('clamps a delay to what Node takes: NaN and negatives are 0, nothing above 2^31-1', () => {
    expect([
      clampDelay(Number.NaN),
      clampDelay(-5),
      clampDelay(0),
      clampDelay(1_500),
      clampDelay(40 * day),
      clampDelay(Infinity),
    ]).toEqual([0, 0, 0, 1_500, longestTimerDelayMs, longestTimerDelayMs])
    expect([clampPeriod(0), clampPeriod(Number.NaN), clampPeriod(40 * day)]).toEqual([1, 1, longestTimerDelayMs])
  })

  it('fires a 40-day timer once, after 40 days, and not before', () => {
    vi.useFakeTimers()
    const fired: number[] = []
    startTimer(() => fired.push(Date.now()), 40 * day)
    const start = Date.now()
    vi.advanceTimersByTime(40 * day - 1)
    expect(fired).toEqual([])
    vi.advanceTimersByTime(1)
    expect(fired).toEqual([start + 40 * day])
    vi.advanceTimersByTime(40 * day)
    expect(fired).toHaveLength(1)
  })

  it('never fires before its caller returns, even with no delay, and not at all once cancelled', async () => {
    const fired: string[] = []
    startTimer(() => fired.push('now'), 0)
    startTimer(() => fired.push('negative'), -1_000)
    const cancelled = startTimer(() => fired.push('cancelled'), 0)
    cancelled.cancel()
    fired.push('returned')
    await new Promise((resolve) => setTimeout(resolve, 20))
    expect(fired).toEqual(['returned', 'now', 'negative'])
  })

  it('leaves no TimeoutOverflowWarning for a delay beyond 24.8 days, on Node’s real timers', async () => {
    const fired: string[] = []
    const timer = startTimer(() => fired.push('fired'), 40 * day, { unref: true })
    await new Promise((resolve) => setTimeout(resolve, 50))
    timer.cancel()
    expect(fired).toEqual([])
    expect(warnings.map((warning) => warning.name)).not.toContain('TimeoutOverflowWarning')
  })
})
