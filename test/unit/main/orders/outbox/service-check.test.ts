import { describe, expect, it } from 'vitest'
import type { ListParams, Page } from '../../../../../src/main/ordering-client/client'
import type { OrderRecord } from '../../../../../src/main/ordering-client/schemas'
import { findOrderOnService, type OrderListReader } from '../../../../../src/main/orders/outbox/service-check'

const hour = 60 * 60_000
const serviceNow = Date.parse('2026-11-25T12:00:00Z')

/** A service's order list, newest first by created_at, `perPage` a page, stamped with its own clock. */
function service(
  orders: { apiGuid: string | null; createdAt: number; updatedAt?: number }[],
  perPage = 100,
  failAt: number | null = null,
) {
  const sorted = [...orders].sort((a, b) => b.createdAt - a.createdAt)
  const asked: ListParams[] = []
  const reader: OrderListReader = {
    async listOrders(params): Promise<Page<OrderRecord>> {
      asked.push(params)
      if (failAt !== null && params.offset >= failAt) throw new Error('The ordering service failed (503)')
      const limit = Math.min(params.limit, perPage)
      const rows = sorted.slice(params.offset * limit, (params.offset + 1) * limit).map((order, index) => ({
        id: index + 1,
        guid: `order-${order.createdAt}-${index}`,
        api_guid: order.apiGuid,
        created_at: new Date(order.createdAt).toISOString(),
        updated_at: new Date(order.updatedAt ?? order.createdAt).toISOString(),
      })) as unknown as OrderRecord[]
      return {
        rows,
        serverTimestamp: new Date(serviceNow).toISOString(),
        total: sorted.length,
        hasMore: (params.offset + 1) * limit < sorted.length,
      }
    },
  }
  return { reader, asked }
}

/** Orders placed every minute over the last `hours`, none with our key. */
const others = (hours: number) =>
  Array.from({ length: hours * 60 }, (_, i) => ({ apiGuid: `other-${i}`, createdAt: serviceNow - i * 60_000 }))

describe('finding an order whose answer was lost in the service’s order list', () => {
  it('finds it a few pages back, whatever the capitals of its key', async () => {
    const { reader } = service([...others(6), { apiGuid: 'ABC-1', createdAt: serviceNow - 5 * hour }])
    const check = await findOrderOnService(reader, { apiGuid: 'abc-1', since: serviceNow - 5 * hour, now: serviceNow })
    expect(check).toMatchObject({ kind: 'found', order: { api_guid: 'ABC-1' } })
  })

  it('says absent once the list reaches orders older than the first attempt, without reading the rest', async () => {
    const { reader, asked } = service(others(48))
    const check = await findOrderOnService(reader, { apiGuid: 'abc-1', since: serviceNow - 2 * hour, now: serviceNow })
    expect(check).toEqual({ kind: 'absent' })
    // Two hours of orders plus the hour's slack is three pages of a minute's orders; 48 hours is 29 pages.
    expect(asked.length).toBeLessThanOrEqual(3)
  })

  it('measures the bound on the service’s clock: a laptop clock three days fast still finds an order placed two hours ago', async () => {
    const laptopAhead = 3 * 24 * hour
    const { reader } = service([...others(6), { apiGuid: 'abc-1', createdAt: serviceNow - 2 * hour }])
    const check = await findOrderOnService(reader, {
      apiGuid: 'abc-1',
      since: serviceNow + laptopAhead - 2 * hour,
      now: serviceNow + laptopAhead,
    })
    expect(check.kind).toBe('found')
  })

  it('keeps looking past an old order updated since the attempt, for a list ordered by last update', async () => {
    const row = (apiGuid: string, createdAt: number, updatedAt: number) =>
      ({
        id: 1,
        guid: apiGuid,
        api_guid: apiGuid,
        created_at: new Date(createdAt).toISOString(),
        updated_at: new Date(updatedAt).toISOString(),
      }) as unknown as OrderRecord
    // Newest update first: an order from yesterday, shipped a minute ago, comes before ours.
    const byUpdate = [
      row('yesterday', serviceNow - 30 * hour, serviceNow - 60_000),
      row('abc-1', serviceNow - hour, serviceNow - hour),
    ]
    const reader: OrderListReader = {
      listOrders: async ({ offset }) => ({
        rows: byUpdate.slice(offset, offset + 1),
        serverTimestamp: new Date(serviceNow).toISOString(),
        total: 2,
        hasMore: offset < 1,
      }),
    }
    expect(
      (await findOrderOnService(reader, { apiGuid: 'abc-1', since: serviceNow - hour, now: serviceNow, pageSize: 1 }))
        .kind,
    ).toBe('found')
  })

  it('cannot tell when the list fails or runs past its page cap, and says why', async () => {
    const failing = service(others(6), 100, 1)
    expect(
      await findOrderOnService(failing.reader, { apiGuid: 'abc-1', since: serviceNow - 5 * hour, now: serviceNow }),
    ).toMatchObject({
      kind: 'unknown',
      why: expect.stringContaining('503'),
    })
    const long = service(others(48))
    expect(
      await findOrderOnService(long.reader, {
        apiGuid: 'abc-1',
        since: serviceNow - 40 * hour,
        now: serviceNow,
        maxPages: 3,
      }),
    ).toMatchObject({
      kind: 'unknown',
      why: expect.stringContaining('300 orders'),
    })
  })

  it('asks in the customer’s context when the order has one', async () => {
    const seen: (string | undefined)[] = []
    const reader: OrderListReader = {
      async listOrders(_params, options) {
        seen.push(options.vendorGuid)
        return { rows: [], serverTimestamp: null, total: 0, hasMore: false }
      },
    }
    expect(
      await findOrderOnService(reader, {
        apiGuid: 'abc-1',
        vendorGuid: 'vendor-1',
        since: serviceNow,
        now: serviceNow,
      }),
    ).toEqual({ kind: 'absent' })
    expect(seen).toEqual(['vendor-1'])
  })
})
