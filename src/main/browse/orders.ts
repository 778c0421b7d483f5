/**
 * The order history as the screens and the CLI read it: the orders list, with the orders sent from
 * this laptop that no sync has brought yet, and one order's page.
 */
import type { OrderDetail, OrderSummary, SentOrderSummary } from '../../shared/synced'
import { orderStateName } from '../../shared/order-states'
import { orderLines, orderSummary, orderTotals, sentMatches } from './order-reads'
import { clampLimit, clampOffset, parseObject } from './values'
import type { OrderListOptions } from '../local/order-history'
import type { LocalData } from '../local/data'

export class OrderBrowse {
  constructor(private readonly local: LocalData) {}

  /** Orders newest first, across customers or for one customer; searched by number, PO or customer, filtered by state and day. */
  listOrders(
    options: OrderListOptions = {},
    sent: SentOrderSummary[] = [],
  ): {
    orders: OrderSummary[]
    total: number
    sentNotSynced: SentOrderSummary[]
    states: { id: number | null; name: string; count: number }[]
  } {
    const limit = clampLimit(options.limit, 50)
    const offset = clampOffset(options.offset)
    const customerId = options.customerGuid ? (this.local.customers.byGuid(options.customerGuid)?.id ?? null) : null
    const { rows, total, states: counted } = this.local.orderHistory.list(options, limit, offset, customerId)
    const states = counted.map((state) => ({
      id: state.id,
      name: orderStateName(state.id, state.name),
      count: state.count,
    }))
    return {
      orders: rows.map((row) => orderSummary(row, parseObject(row.json))),
      total,
      sentNotSynced: this.notYetSynced(sent.filter((entry) => sentMatches(entry, options))),
      states,
    }
  }

  /**
   * The sent orders the history does not hold, whatever it holds them under: its api_guid or the
   * service's guid, in any case (the service's answer and its order list need not agree on case).
   */
  private notYetSynced(sent: SentOrderSummary[]): SentOrderSummary[] {
    if (sent.length === 0) return []
    const keysOf = (entry: SentOrderSummary): string[] =>
      [entry.apiGuid, entry.orderGuid].filter((key): key is string => key !== null).map((key) => key.toLowerCase())
    const wanted = [...new Set(sent.flatMap(keysOf))]
    const held = this.local.orderHistory.held(wanted)
    return sent.filter((entry) => !keysOf(entry).some((key) => held.has(key)))
  }

  getOrder(guid: string): OrderDetail | null {
    const row = this.local.orderHistory.byGuid(guid)
    if (!row) return null
    const record = parseObject(row.json)
    return { ...orderSummary(row, record), lines: orderLines(record), totals: orderTotals(record), record }
  }
}
