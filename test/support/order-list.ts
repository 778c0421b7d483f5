import type { Page } from '../../src/main/ordering-client/client'
import type { OrderRecord } from '../../src/main/ordering-client/schemas'

/** The service's order list for fake senders: these orders, newest first, one page, dated by `now`. */
export function orderList(orders: () => readonly Record<string, unknown>[] = () => [], now: () => number = Date.now) {
  return async (): Promise<Page<OrderRecord>> => ({
    rows: orders() as OrderRecord[],
    serverTimestamp: new Date(now()).toISOString(),
    total: orders().length,
    hasMore: false,
  })
}
