/**
 * An order's status as the rep is told it, worked out from the service's full order (GET
 * /v1/orders/{guid}): its state in words, each line's shipped and backordered quantities, hold and
 * cancel, the key whose change marks an order "changed since I looked", and whether it is still open.
 * Pure: the rows it is read from and written to are local/order-details.ts's.
 */
import { orderStateName } from '../../shared/order-states'
import type { TrackedLine } from '../../shared/order-tracking'

export type Json = Record<string, unknown>

export function objectOf(value: unknown): Json {
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : {}
}

export function arrayOf(value: unknown): Json[] {
  return Array.isArray(value) ? value.map(objectOf) : []
}

export function numberOrNull(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null
}

export function textOrNull(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value : null
}

export function stateOf(order: Json): { id: number | null; name: string } {
  const id = numberOrNull(order.order_state_id)
  const name = textOrNull(objectOf(order.Order_State).name)
  return { id, name: orderStateName(id, name) }
}

export function linesOf(order: Json): Omit<TrackedLine, 'notAsSent'>[] {
  return arrayOf(order.Order_Items).map((line) => {
    const item = objectOf(line.Catalog_Item)
    return {
      itemNo: numberOrNull(line.item_no),
      sku: textOrNull(line.sku) ?? textOrNull(item.sku),
      name: textOrNull(line.name) ?? textOrNull(item.name),
      unitPrice: numberOrNull(line.net_price),
      qtyOrdered: numberOrNull(line.qty),
      qtyShipped: numberOrNull(line.qty_shipped) ?? 0,
      qtyBackordered: numberOrNull(line.qty_backordered) ?? 0,
      qtyPending: numberOrNull(line.qty_pending) ?? 0,
      lineTotal: numberOrNull(line.total),
    }
  })
}

/** What the rep is told about: the state, each line's shipped and backordered quantities, hold and cancel. */
export function statusKey(order: Json): string {
  return JSON.stringify({
    state: numberOrNull(order.order_state_id),
    hold: order.is_on_hold === true,
    cancelled: order.is_cancelled === true,
    lines: linesOf(order).map((line) => [line.itemNo, line.qtyShipped, line.qtyBackordered]),
  })
}

/** One line for the rep: "Cancelled", "On hold", "Shipped 2 of 3 lines, 1 backordered", or the state. */
export function statusSummary(order: Json): string {
  if (order.is_cancelled === true || numberOrNull(order.order_state_id) === 23) return 'Cancelled'
  if (order.is_on_hold === true) return 'On hold'
  const lines = linesOf(order)
  const shipped = lines.filter((line) => line.qtyShipped > 0 && line.qtyShipped >= (line.qtyOrdered ?? 0)).length
  const backordered = lines.filter((line) => line.qtyBackordered > 0).length
  const anyShipped = lines.some((line) => line.qtyShipped > 0)
  if (anyShipped && shipped < lines.length) {
    return `Shipped ${shipped} of ${lines.length} ${lines.length === 1 ? 'line' : 'lines'}${backordered > 0 ? `, ${backordered} backordered` : ''}`
  }
  // A backorder split off at submission leaves the line's own quantity shipped in full.
  const backorderedLines = `${backordered} ${backordered === 1 ? 'line' : 'lines'} backordered`
  if (anyShipped) return backordered > 0 ? `Shipped, ${backorderedLines}` : 'Shipped'
  if (backordered > 0) return backorderedLines
  const name = stateOf(order).name
  return name.charAt(0) + name.slice(1).toLowerCase()
}

/** Neither shipped, completed nor cancelled: an order the customer's page lists as open. */
export function isOpen(order: Json): boolean {
  const state = numberOrNull(order.order_state_id)
  return order.is_cancelled !== true && order.is_shipped !== true && state !== 23 && state !== 8 && state !== 9
}
