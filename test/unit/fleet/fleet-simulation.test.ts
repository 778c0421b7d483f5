/**
 * The fleet simulation (npm run bench:fleet) on 200 laptops for the hour around the 10:00 outage:
 * every order written is created at the service exactly once, and every figure of the table is
 * computed. Whether the figures meet their targets is the bench's to print, not this test's.
 */
import { describe, expect, it } from 'vitest'
import { backgroundReadsPerHour } from '../../../src/main/pictures/attachments'
import { defaultPictureModel } from '../../fleet/pictures'
import { formatPhases, simulateFleet } from '../../fleet/simulation'

describe('the fleet simulation', () => {
  it('sends every order exactly once and computes every figure of the table', async () => {
    const day = Date.UTC(2026, 10, 26)
    const results = await simulateFleet({ laptops: 200, from: day + 9.5 * 3_600_000, until: day + 10.5 * 3_600_000 })

    // In an hour's run, what would have happened before 9:30 (the laptops opening, the orders
    // written) happens at its start: a harder opening than the day's.
    expect(results.orders.written).toBeGreaterThan(0)
    expect(results.orders.sentTwice).toBe(0)
    expect(results.orders.lost).toBe(0)
    expect(results.orders.sent + results.orders.leftWaitingAtClose).toBe(results.orders.written)

    expect(results.phases.map((phase) => phase.phase)).toEqual([
      '08:20 morning',
      '10:00 503 outage',
      '10:10 after the 503',
      '10:20 late morning',
    ])
    for (const phase of results.phases) {
      for (const kind of ['probe', 'sync', 'order', 'all'] as const) {
        const { mean, p99, peak } = phase.rates[kind]
        expect(Number.isFinite(mean)).toBe(true)
        expect(p99).toBeLessThanOrEqual(peak)
        expect(mean).toBeLessThanOrEqual(peak)
      }
    }
    expect(results.phases.find((phase) => phase.phase === '10:00 503 outage')!.rates.all.peak).toBeGreaterThan(0)
    expect(results.idle.laptopHours).toBeGreaterThan(0)
    expect(Number.isFinite(results.idle.perLaptopHour)).toBe(true)
    expect(results.after503.peakOverMean).not.toBeNull()
    const recovery = results.waitingAtRecovery
    expect(recovery.orders).toBeGreaterThan(recovery.unsentAtClose)
    expect(recovery.p50Ms).toBeGreaterThanOrEqual(0)
    expect(recovery.p99Ms).toBeGreaterThanOrEqual(recovery.p50Ms!)
    expect(formatPhases(results).split('\n')).toHaveLength(2 + results.phases.length)
  })

  it('counts the pictures’ requests, and a laptop filling its cache reads no faster than the hourly cap', async () => {
    const day = Date.UTC(2026, 10, 26)
    const window = { laptops: 100, from: day + 12.5 * 3_600_000, until: day + 14 * 3_600_000 }
    const filling = await simulateFleet({ ...window, pictures: { ...defaultPictureModel, unread: 1_000 } })
    expect(filling.pictures.serviceReads).toBeGreaterThan(backgroundReadsPerHour / 2)
    // The cap, and the few needed items that moved on (read whatever the cap), per laptop-hour open.
    expect(filling.pictures.serviceReads).toBeLessThanOrEqual(backgroundReadsPerHour + 1.5)
    expect(filling.pictures.hostRequests).toBeGreaterThan(0)
    expect(filling.phases.every((phase) => Number.isFinite(phase.rates.picture.mean))).toBe(true)
    const none = await simulateFleet({ ...window, pictures: false })
    expect(none.pictures).toMatchObject({ serviceReads: 0, hostRequests: 0 })
  })
})
