import { describe, expect, it } from 'vitest'
import { historyStart } from '../../../../src/main/brief/calendar'
import { readCustomerHistory } from '../../../../src/main/brief/history-read'
import type { CustomerHistoryRow } from '../../../../src/main/local/customer-histories'
import type { ListParams, Page } from '../../../../src/main/ordering-client/client'
import type { OrderRecord } from '../../../../src/main/ordering-client/schemas'

const DAY = 86_400_000
const now = new Date(2026, 5, 15, 12).getTime()
const start = historyStart(now)
const customer = { guid: 'c-1', id: 1 }

/** `count` orders newest first, one a day from yesterday back, every `mineEvery`th of the customer. */
function orders(count: number, mineEvery = 1): OrderRecord[] {
  return Array.from(
    { length: count },
    (_, index) =>
      ({
        guid: `o-${index}`,
        vendor_id: index % mineEvery === 0 ? 1 : 2,
        order_state_id: 9,
        created_at: new Date(now - (index + 1) * DAY).toISOString(),
        updated_at: new Date(now - (index + 1) * DAY).toISOString(),
      }) as unknown as OrderRecord,
  )
}

function source(all: OrderRecord[], options: { repeat?: boolean; failAt?: number } = {}) {
  const asked: { params: ListParams; vendorGuid?: string }[] = []
  return {
    asked,
    async listOrders(params: ListParams, call: { vendorGuid?: string }): Promise<Page<OrderRecord>> {
      asked.push({ params, ...(call.vendorGuid ? { vendorGuid: call.vendorGuid } : {}) })
      if (options.failAt === params.offset) throw new Error('the connection dropped')
      const offset = options.repeat ? 0 : params.offset
      const rows = all.slice(offset * params.limit, (offset + 1) * params.limit)
      return {
        rows,
        serverTimestamp: `ts-${params.offset}`,
        total: null,
        hasMore: (offset + 1) * params.limit < all.length,
      }
    },
  }
}

function writer() {
  const written: OrderRecord[] = []
  return {
    written,
    applyOrders: async (rows: OrderRecord[]) => (
      written.push(...rows),
      { fetched: rows.length, upserted: rows.length, deleted: 0 }
    ),
  }
}

describe('reading a customer’s history', () => {
  it('stops at the first page that reaches past 24 months, and keeps only what is within them and theirs', async () => {
    const service = source(orders(1500, 2))
    const pages = writer()
    const { read, error } = await readCustomerHistory({ source: service, writer: pages, now }, customer, undefined)
    expect(error).toBeNull()
    expect(read).toMatchObject({ complete: true, coveredFromMs: start, cursor: 'ts-0' })
    const days = Math.floor((now - start) / DAY)
    // Page 7 holds the first order older than the start: paging stops there.
    expect(service.asked.map((ask) => ask.params.offset)).toEqual(
      Array.from({ length: Math.ceil(days / 100) }, (_, i) => i),
    )
    expect(service.asked.every((ask) => ask.vendorGuid === 'c-1')).toBe(true)
    expect(pages.written.every((row) => row.vendor_id === 1 && Date.parse(row.created_at!) >= start)).toBe(true)
    expect(pages.written.length).toBe(Math.ceil(Math.min(days, 1500) / 2))
  })

  it('is incomplete from the oldest order it reached when cut short, and says nothing when it got no page', async () => {
    const cut = await readCustomerHistory(
      { source: source(orders(1500), { failAt: 2 }), writer: writer(), now },
      customer,
      undefined,
    )
    expect(cut.read).toMatchObject({ complete: false, cursor: null, coveredFromMs: now - 200 * DAY })
    expect(String(cut.error)).toMatch(/dropped/)
    const none = await readCustomerHistory(
      { source: source(orders(1500), { failAt: 0 }), writer: writer(), now },
      customer,
      undefined,
    )
    expect(none.read).toBeNull()
  })

  it('notices a proxy that answers the first page again and again', async () => {
    const { read, error } = await readCustomerHistory(
      { source: source(orders(1500), { repeat: true }), writer: writer(), now },
      customer,
      undefined,
    )
    expect(read?.complete).toBe(false)
    expect(String(error)).toMatch(/same page twice/)
  })

  it('reads only what changed since a whole history’s last read, and keeps the last read when that fails', async () => {
    const held: CustomerHistoryRow = {
      customer_guid: 'c-1',
      fetched_at: new Date(now - 2 * DAY).toISOString(),
      covered_from_ms: start,
      complete: 1,
      cursor: 'ts-before',
      visited_at: null,
    }
    const service = source(orders(30))
    const { read } = await readCustomerHistory({ source: service, writer: writer(), now }, customer, held)
    expect(service.asked).toEqual([
      { params: { limit: 100, offset: 0, lastUpdatedAt: 'ts-before' }, vendorGuid: 'c-1' },
    ])
    expect(read).toMatchObject({ complete: true, coveredFromMs: start, cursor: 'ts-0' })
    const failed = await readCustomerHistory(
      { source: source(orders(30), { failAt: 0 }), writer: writer(), now },
      customer,
      held,
    )
    expect(failed.read).toBeNull()
  })
})
