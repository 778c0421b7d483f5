/**
 * What a sync asks of the service, parameter by parameter, against what the local copy keeps: the
 * count after a delta asks for no more than its total (bare customers, items without categories),
 * and no listing asks for what nothing reads (attributes; a total past a listing's first page).
 */
import { afterEach, describe, expect, it } from 'vitest'
import { itemsRoute, requestsTo, startHarness, type Harness } from './sync-support'

let harness: Harness | undefined
afterEach(async () => {
  await harness?.close()
  harness = undefined
})

describe('a sync asks only for what the local copy keeps', () => {
  it('counts with bare rows, and never asks for attributes or a total it does not read', async () => {
    harness = await startHarness({ seed: 31 })
    expect((await harness.sync()).ok).toBe(true)
    harness.service.control.clearRequestLog()
    expect((await harness.sync()).ok).toBe(true)
    const customerCounts = requestsTo(harness, 'GET /vendors').filter((request) => request.query.limit === '1')
    expect(customerCounts.length).toBeGreaterThan(0)
    for (const request of customerCounts) expect(request.query.nameGuidOnly).toBe('true')
    const itemRequests = requestsTo(harness, itemsRoute)
    const itemCounts = itemRequests.filter((request) => request.query.limit === '1')
    expect(itemCounts.length).toBeGreaterThan(0)
    for (const request of itemCounts) {
      expect(request.query.skipCategoryRetrieval).toBe('true')
      expect(request.query.skipTotalCount).toBeUndefined()
    }
    for (const request of itemRequests) expect(request.query.includeAttributes).toBeUndefined()
    for (const request of itemRequests.filter((r) => r.query.limit !== '1' && r.query.offset !== '0'))
      expect(request.query.skipTotalCount).toBe('true')
  })
})
