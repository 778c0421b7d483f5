/**
 * Reading customers' order histories from the service: `GET /v1/orders` in the customer's context
 * (`vendorGuid`), newest first, back to the first of the month 23 months ago; later, only what changed
 * since the last read (`lastUpdatedAt`). The interface does not show what the list does with
 * `vendorGuid`, so nothing here relies on it: only the customer's own orders are kept, and the read
 * stops at 24 months by creation date, whatever the pages hold (docs/interface.md, choice 28).
 *
 * Pages are written as sync writes order pages (LocalCopy.applyOrders, through the run's writer
 * thread or, outside a run, the window's connection): found by guid, older never over newer.
 */
import type { ApplyContext, ApplyCounts } from '../local/copy'
import type { CustomerHistoryRow, HistoryRead } from '../local/customer-histories'
import { parseServerTime } from '../local/time'
import type { OrderRecord } from '../ordering-client/schemas'
import type { CustomerHistorySource } from '../sync/run'
import { historyStart } from './calendar'

export interface HistoryWriter {
  applyOrders(rows: OrderRecord[], context: ApplyContext): Promise<ApplyCounts>
}

export interface HistoryCustomer {
  guid: string
  /** The service's id: a row that names its customer only by `vendor_id` is still theirs. */
  id: number | null
}

interface ReadParts {
  source: CustomerHistorySource
  writer: HistoryWriter
  now: number
  signal?: AbortSignal | undefined
}

const pageSize = 100
/**
 * Pages one read goes through at most: 20,000 orders, a customer's 24 months many times over; only
 * a service that ignores vendorGuid lists that many, and a history cut there says it is incomplete.
 */
const maxPages = 200

class RepeatedPage extends Error {}

/** Whether the row is one of `customers`', by guid or, when it carries only that, by id. */
function ownerOf(row: OrderRecord, customers: readonly HistoryCustomer[]): HistoryCustomer | undefined {
  const guid = row.Vendor?.guid
  const id = row.vendor_id ?? row.Vendor?.id
  return customers.find((customer) => customer.guid === guid || (customer.id !== null && customer.id === id))
}

/**
 * Pages through the list newest first, writing the rows of `customers` created from `start` on, until
 * the list ends or (`stopAtStart`) its rows are older than `start`. Resolves with the first page's
 * serverTimestamp, the oldest creation time it saw and whether it got to the end; a failure after some
 * pages is kept, with what was reached before it.
 */
async function pageThrough(
  parts: ReadParts,
  customers: readonly HistoryCustomer[],
  options: { vendorGuid?: string; since?: string; stopAtStart: boolean },
): Promise<{ cursor: string | null; oldestMs: number | null; ended: boolean; error: unknown }> {
  const start = historyStart(parts.now)
  let cursor: string | null = null
  let oldestMs: number | null = null
  let previousFirst: string | undefined
  try {
    for (let offset = 0; offset < maxPages; offset++) {
      const page = await parts.source.listOrders(
        { limit: pageSize, offset, ...(options.since ? { lastUpdatedAt: options.since } : {}) },
        {
          ...(options.vendorGuid ? { vendorGuid: options.vendorGuid } : {}),
          ...(parts.signal ? { signal: parts.signal } : {}),
        },
      )
      if (offset === 0) cursor = page.serverTimestamp
      // A proxy that drops `offset` answers the first page again and again.
      const first = page.rows[0]?.guid
      if (offset > 0 && first !== undefined && first === previousFirst)
        throw new RepeatedPage('The order list answered the same page twice.')
      previousFirst = first
      const kept: OrderRecord[] = []
      let lastCreated: number | null = null
      for (const row of page.rows) {
        const created = parseServerTime(row.created_at)
        if (created !== null) {
          lastCreated = created
          oldestMs = oldestMs === null ? created : Math.min(oldestMs, created)
        }
        if (created !== null && created >= start && ownerOf(row, customers)) kept.push(row)
      }
      if (kept.length > 0) await parts.writer.applyOrders(kept, { listingId: null, serverTime: page.serverTimestamp })
      const ended = page.hasMore === false || (page.hasMore !== true && page.rows.length < pageSize)
      if (ended || (options.stopAtStart && lastCreated !== null && lastCreated < start))
        return { cursor, oldestMs, ended: true, error: null }
    }
    return { cursor, oldestMs, ended: false, error: new Error(`The order list ran past ${maxPages} pages.`) }
  } catch (error) {
    return { cursor, oldestMs, ended: false, error }
  }
}

/**
 * One customer's history: only what changed since `held`'s read when that one was whole, else all
 * 24 months. `read` is what to record (null: nothing to change, the last read stands).
 */
export async function readCustomerHistory(
  parts: ReadParts,
  customer: HistoryCustomer,
  held: CustomerHistoryRow | undefined,
): Promise<{ read: HistoryRead | null; error: unknown }> {
  const fetchedAt = new Date(parts.now).toISOString()
  const since = held?.complete === 1 && held.cursor ? held.cursor : null
  const paged = await pageThrough(parts, [customer], {
    vendorGuid: customer.guid,
    ...(since ? { since } : {}),
    stopAtStart: since === null,
  })
  if (since !== null)
    return {
      read: paged.ended
        ? { fetchedAt, coveredFromMs: held?.covered_from_ms ?? null, complete: true, cursor: paged.cursor }
        : null,
      error: paged.error,
    }
  if (paged.ended)
    return {
      read: { fetchedAt, coveredFromMs: historyStart(parts.now), complete: true, cursor: paged.cursor },
      error: null,
    }
  // Cut short: what it reached is held, and says so.
  return {
    read: paged.oldestMs === null ? null : { fetchedAt, coveredFromMs: paged.oldestMs, complete: false, cursor: null },
    error: paged.error,
  }
}
