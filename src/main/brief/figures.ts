/**
 * What a customer's orders add up to, for their brief: sales by month, top and lapsed items, what is
 * still owed. Pure: the orders come in read and valued (briefs.ts reads them from the local copy).
 */
import type { BriefMonth } from '../../shared/brief'
import { arrayOf, isOpen, linesOf, numberOrNull, objectOf, type Json } from '../tracking/status'
import { monthKey, monthKeys, monthStart } from './calendar'

const DAY_MS = 86_400_000
/** "Not in the last 90 days": an item lapses after this long without an order. */
const lapsedAfterMs = 90 * DAY_MS

/** What a line says of its item and quantity. */
interface LineItem {
  /** The item within the customer's history: its catalog and SKU (or id, without one). */
  key: string
  catalogGuid: string | null
  id: number | null
  sku: string
  name: string
  qty: number
}

/** An order's line as the history holds it: the list projection carries no price, a full order does. */
export interface RawLine extends LineItem {
  /** The line's own total (a full order), or its net price: exact where the service sent them. */
  total: number | null
  netPrice: number | null
  /** The customer's price for it today, from the local catalog: only to share out the order's sub-total. */
  priceToday: number | null
}

/** A line valued: its own total where the service sent one, else its share of the order's sub-total. */
export interface HistoryLine extends LineItem {
  value: number
}

export type OrderKind = 'sale' | 'cancelled' | 'quote'

export interface HistoryOrder {
  createdMs: number
  kind: OrderKind
  /** The lines' total before tax and shipping. */
  value: number
  lines: HistoryLine[]
}

/** Cancelled orders and quotes are not sales; the flags say so, the state only when they are absent. */
export function kindOf(order: Json): OrderKind {
  if (order.is_quote === true) return 'quote'
  if (order.is_cancelled === true || numberOrNull(order.order_state_id) === 23) return 'cancelled'
  return 'sale'
}

const round2 = (value: number) => Math.round(value * 100) / 100

/**
 * Each line's value. The order list carries no line prices, only the order's sub-total: a line with
 * its own total (or net price) keeps it, and what is left of the sub-total is shared among the others
 * by quantity times the customer's price today (the mean of the priced ones for a line with none, the
 * quantity alone when none is priced). So the items add up to the orders, and a one-line order is exact.
 */
export function valueOrder(subTotal: number | null, lines: RawLine[]): { value: number; lines: HistoryLine[] } {
  const known = lines.map((line) => line.total ?? (line.netPrice !== null ? line.netPrice * line.qty : null))
  const priced = lines.filter((line, index) => known[index] === null && line.priceToday !== null)
  const meanPrice =
    priced.length > 0 ? priced.reduce((sum, line) => sum + (line.priceToday ?? 0), 0) / priced.length : null
  const weights = lines.map((line, index) =>
    known[index] !== null ? 0 : line.qty * (line.priceToday ?? meanPrice ?? 1),
  )
  const weightSum = weights.reduce((sum, weight) => sum + weight, 0)
  const knownSum = known.reduce<number>((sum, value) => sum + (value ?? 0), 0)
  const rest = subTotal === null ? null : subTotal - knownSum
  const valued = lines.map((line, index) => {
    const exact = known[index]
    const value =
      exact !== null && exact !== undefined
        ? exact
        : rest !== null && weightSum > 0
          ? (rest * (weights[index] ?? 0)) / weightSum
          : line.qty * (line.priceToday ?? 0)
    const { key, catalogGuid, id, sku, name, qty } = line
    return { key, catalogGuid, id, sku, name, qty, value: round2(value) }
  })
  return { value: subTotal ?? round2(valued.reduce((sum, line) => sum + line.value, 0)), lines: valued }
}

/** The 24 months shown, oldest first, a month without orders as zero. */
export function salesByMonth(orders: readonly HistoryOrder[], now: number): BriefMonth[] {
  const months = new Map(monthKeys(now).map((month) => [month, { month, orders: 0, value: 0, cancelled: 0 }]))
  for (const order of orders) {
    const month = months.get(monthKey(order.createdMs))
    if (!month || order.kind === 'quote') continue
    if (order.kind === 'cancelled') month.cancelled += 1
    else {
      month.orders += 1
      month.value += order.value
    }
  }
  return [...months.values()].map((month) => ({ ...month, value: round2(month.value) }))
}

/** An item's lines added up over the history: its quantity and value, when it was last ordered and in which months. */
export interface ItemTally extends HistoryLine {
  lastOrderedMs: number
  months: Set<string>
}

/** Each item's quantity, value, last order and months ordered, over the sales created from `sinceMs` on. */
function tallyItems(orders: readonly HistoryOrder[], sinceMs: number): Map<string, ItemTally> {
  const tallies = new Map<string, ItemTally>()
  for (const order of orders) {
    if (order.kind !== 'sale' || order.createdMs < sinceMs) continue
    const month = monthKey(order.createdMs)
    for (const line of order.lines) {
      let tally = tallies.get(line.key)
      if (!tally) {
        tally = { ...line, qty: 0, value: 0, lastOrderedMs: 0, months: new Set() }
        tallies.set(line.key, tally)
      }
      tally.qty += line.qty
      tally.value += line.value
      tally.months.add(month)
      // The name and SKU of its newest order: what the rep knows it as now.
      if (order.createdMs >= tally.lastOrderedMs) {
        tally.lastOrderedMs = order.createdMs
        tally.sku = line.sku
        tally.name = line.name
        tally.id = line.id
      }
    }
  }
  for (const tally of tallies.values()) {
    tally.qty = round2(tally.qty)
    tally.value = round2(tally.value)
  }
  return tallies
}

/** The last 12 months' items by value (then quantity), at most `limit`. */
export function topItems(orders: readonly HistoryOrder[], now: number, limit: number): ItemTally[] {
  return [...tallyItems(orders, monthStart(now, 11)).values()]
    .sort((a, b) => b.value - a.value || b.qty - a.qty || a.sku.localeCompare(b.sku))
    .slice(0, limit)
}

/** Items ordered in 2 or more different months, none in the last 90 days; the longest-lapsed last. */
export function lapsedItems(orders: readonly HistoryOrder[], now: number, limit: number): ItemTally[] {
  return [...tallyItems(orders, 0).values()]
    .filter((tally) => tally.months.size >= 2 && tally.lastOrderedMs < now - lapsedAfterMs)
    .sort((a, b) => b.lastOrderedMs - a.lastOrderedMs || a.sku.localeCompare(b.sku))
    .slice(0, limit)
}

export interface OwedLine {
  orderGuid: string
  orderName: string
  sku: string
  name: string
  qtyBackordered: number
}

/**
 * Backordered lines still owed, from the orders' full copies: the order is not cancelled or completed
 * and, where its backorder is known (a related order it is the parent of), that backorder is still open.
 */
export function stillOwed(fullOrders: readonly { order: Json; related: Json[] }[]): OwedLine[] {
  const owed: OwedLine[] = []
  for (const { order, related } of fullOrders) {
    const state = numberOrNull(order.order_state_id)
    if (order.is_cancelled === true || state === 23 || state === 9) continue
    const id = numberOrNull(order.id)
    const backorders = related.filter((other) => id !== null && numberOrNull(other.parent_order_id) === id)
    if (backorders.length > 0 && !backorders.some(isOpen)) continue
    for (const line of linesOf(order)) {
      if (line.qtyBackordered <= 0) continue
      owed.push({
        orderGuid: typeof order.guid === 'string' ? order.guid : '',
        orderName: typeof order.name === 'string' ? order.name : '',
        sku: line.sku ?? '',
        name: line.name ?? '',
        qtyBackordered: line.qtyBackordered,
      })
    }
  }
  return owed
}

/** The lines of an order as the history holds it, keyed by its catalog and SKU. */
export function rawLines(order: Json, catalogGuid: string | null): Omit<RawLine, 'priceToday'>[] {
  return arrayOf(order.Order_Items).map((line) => {
    const item = objectOf(line.Catalog_Item)
    const sku =
      typeof line.sku === 'string' && line.sku !== '' ? line.sku : typeof item.sku === 'string' ? item.sku : ''
    const id = numberOrNull(line.catalog_item_id) ?? numberOrNull(item.id)
    return {
      key: sku !== '' ? `${catalogGuid ?? ''}|${sku.toLowerCase()}` : `${catalogGuid ?? ''}#${id ?? ''}`,
      catalogGuid,
      id,
      sku,
      name:
        typeof line.name === 'string' && line.name !== '' ? line.name : typeof item.name === 'string' ? item.name : sku,
      qty: numberOrNull(line.qty) ?? 0,
      total: numberOrNull(line.total),
      netPrice: numberOrNull(line.net_price),
    }
  })
}
