import type { ListParams, Page } from '../../ordering-client/client'
import type { OrderRecord } from '../../ordering-client/schemas'

/** The read the check needs; the service client implements it (GET /v1/orders). */
export interface OrderListReader {
  listOrders(params: ListParams, options: { vendorGuid?: string; signal?: AbortSignal }): Promise<Page<OrderRecord>>
}

/** What the service said about an order Satchel may have sent before: it holds it, it does not, or it could not tell. */
export type ServiceCheck = { kind: 'found'; order: OrderRecord } | { kind: 'absent' } | { kind: 'unknown'; why: string }

export interface ServiceCheckOptions {
  apiGuid: string
  /** The customer the order is for (the list is then that customer's orders only); none for a new customer. */
  vendorGuid?: string
  /** When, on this laptop's clock, the first attempt that may have reached the service was made (epoch ms). */
  since: number
  /** This laptop's clock now (epoch ms). */
  now: number
  signal?: AbortSignal
  pageSize?: number
  /** Past this many pages without reaching orders older than the attempt, the answer is "could not tell". */
  maxPages?: number
}

/**
 * Slack on the bound of the search, for a service that dates an order a little before or after the
 * request, and for a laptop clock that moved between the attempt and the check.
 */
const marginMs = 60 * 60_000

/**
 * Looks for the order with this api_guid in the service's order list (newest first), back to the
 * first attempt that may have reached it. The spec gives GET /v1/orders no api_guid filter, so the
 * list is paged; the bound is taken on the service's clock (its serverTimestamp less the time that
 * passed on this laptop since the attempt), so a laptop clock that is hours off does not cut the
 * search short. Orders are compared by both dates against the bound, which is right whether the list
 * is ordered by creation or by last update. "absent" is said only when the list was read to the
 * bound or to its end; anything less is "unknown", and the entry keeps waiting for a proper answer.
 */
export async function findOrderOnService(reader: OrderListReader, options: ServiceCheckOptions): Promise<ServiceCheck> {
  const key = options.apiGuid.toLowerCase()
  const limit = options.pageSize ?? 100
  const maxPages = options.maxPages ?? 50
  const elapsed = Math.max(0, options.now - options.since)
  let bound: number | null = null
  for (let offset = 0; offset < maxPages; offset++) {
    let page: Page<OrderRecord>
    try {
      page = await reader.listOrders(
        { limit, offset },
        {
          ...(options.vendorGuid ? { vendorGuid: options.vendorGuid } : {}),
          ...(options.signal ? { signal: options.signal } : {}),
        },
      )
    } catch (error) {
      return {
        kind: 'unknown',
        why: `the supplier's order list could not be read (${error instanceof Error ? error.message : String(error)})`,
      }
    }
    if (bound === null) {
      const serverNow = page.serverTimestamp ? Date.parse(page.serverTimestamp) : Number.NaN
      // Without the service's clock, this laptop's stands in, with a day's slack for its error.
      bound = Number.isFinite(serverNow) ? serverNow - elapsed - marginMs : options.since - 24 * 60 * 60_000
    }
    const match = page.rows.find((order) => typeof order.api_guid === 'string' && order.api_guid.toLowerCase() === key)
    if (match) return { kind: 'found', order: match }
    if (page.rows.length === 0 || page.hasMore === false || (page.hasMore === null && page.rows.length < limit))
      return { kind: 'absent' }
    const last = page.rows[page.rows.length - 1]!
    if (olderThan(last.created_at, bound) && olderThan(last.updated_at, bound)) return { kind: 'absent' }
  }
  return {
    kind: 'unknown',
    why: `the supplier's order list was read for ${maxPages * limit} orders without reaching the time of the first attempt`,
  }
}

function olderThan(timestamp: unknown, bound: number): boolean {
  if (typeof timestamp !== 'string') return false
  const at = Date.parse(timestamp)
  return Number.isFinite(at) && at < bound
}
