/**
 * After the listings, the full orders: each order of the history's window (and each sent from this
 * laptop) whose copy is missing or older than its history row is fetched once, newest first, at most
 * `limit` per run. One attempt each: an order that fails keeps its last copy and is fetched at the next
 * run; only a failure that every other fetch would meet too (offline, credentials, cancelled) ends the
 * step early, and so do three transient failures in a row (the service or the network is gone). Nothing here fails the sync.
 */
import { ServiceError } from '../ordering-client/errors'
import type { Clock, Logger } from '../ports'
import type { OrderDetailReport, OrderDetailSource } from '../sync/run'
import type { TrackedOrders } from './tracked-orders'

interface OrderDetailPolicy {
  /** Full orders fetched per run at most (the rep's setting). */
  limit: () => number
  /** The api_guids of orders sent from this laptop: fetched whatever their age. */
  sentApiGuids?: () => readonly string[]
  /** Orders placed this many days back are followed (default 90). */
  windowDays?: number
}

export async function fetchOrderDetails(args: {
  details: TrackedOrders
  source: OrderDetailSource
  policy: OrderDetailPolicy
  clock: Clock
  logger: Logger
  signal?: AbortSignal
}): Promise<OrderDetailReport> {
  const { details, source, policy, clock, logger, signal } = args
  const { next } = details.candidates({
    now: clock.now(),
    windowDays: policy.windowDays ?? 90,
    sentApiGuids: policy.sentApiGuids?.() ?? [],
    limit: policy.limit(),
  })
  let fetched = 0
  let failed = 0
  const unreadable: { guid: string; reason: string }[] = []
  let transientInARow = 0
  for (const candidate of next) {
    if (signal?.aborted) break
    try {
      const reply = await source.getOrder(candidate.guid, { once: true, ...(signal ? { signal } : {}) })
      const refused = details.record(reply.order, reply.relatedOrders, new Date(clock.now()).toISOString())
      if (refused !== null) {
        unreadable.push({ guid: candidate.guid, reason: refused })
        logger.warn('a full order was refused; its last good copy stays', { order: candidate.guid, reason: refused })
      } else fetched++
      transientInARow = 0
    } catch (caught) {
      const error = caught instanceof ServiceError ? caught : null
      // The same version would be as large at every run: remembered, so it is said once, not fetched again.
      if (error?.kind === 'tooLarge') {
        const reason = `too large to read: ${error.message}`
        details.refuse(candidate.guid, candidate.updatedAt, new Date(clock.now()).toISOString(), reason)
        unreadable.push({ guid: candidate.guid, reason })
        logger.warn('a full order was too large to read; that version is not fetched again', {
          order: candidate.guid,
          message: error.message,
        })
        continue
      }
      failed++
      logger.warn('fetching a full order failed; it is fetched at the next sync', {
        order: candidate.guid,
        kind: error?.kind,
        status: error?.status,
        message: caught instanceof Error ? caught.message : String(caught),
      })
      if (!error || error.kind === 'cancelled' || error.kind === 'credentials') break
      // One dropped connection or 503 is that order's; three in a row is the service or the network gone.
      transientInARow = error.transient ? transientInARow + 1 : 0
      if (transientInARow >= 3) break
    }
  }
  const waiting = details.candidates({
    now: clock.now(),
    windowDays: policy.windowDays ?? 90,
    sentApiGuids: policy.sentApiGuids?.() ?? [],
    limit: 0,
  }).waiting
  return { fetched, failed, ...(unreadable.length > 0 ? { unreadable } : {}), waiting }
}
