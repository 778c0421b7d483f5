/**
 * Figures no order can have, looked for in a full order before it is kept (issue 37): a copy that
 * holds one is not the supplier's order but a fault of the reply, and shown as fact it would tell the
 * rep a customer was sent 2.5 of 2 boxes or owes minus a billion. The bounds are the laptop's own:
 * no line is ordered past the quantity a draft allows, and no order from a field rep reaches a
 * billion in any currency.
 */
type Json = Record<string, unknown>

/** A draft line's largest quantity (shared/orders.ts); a line the supplier holds cannot be larger. */
const maxLineQty = 1_000_000
const maxMoney = 1_000_000_000
/** Quantities are sums of decimals: a shipped figure this far past the ordered one is rounding. */
const slack = 1e-9

const quantityFields = ['qty', 'qty_shipped', 'qty_backordered', 'qty_pending', 'qty_reserved'] as const
const lineMoneyFields = ['net_price', 'total'] as const
const orderMoneyFields = ['sub_total', 'tax', 'shipping', 'discount', 'discount_total', 'grand_total'] as const

/** A field's value as the reply wrote it: a number that JSON read as Infinity was a number too large to hold. */
function figure(value: unknown): number | undefined {
  return typeof value === 'number' ? value : undefined
}

function objectOf(value: unknown): Json {
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : {}
}

/** Each impossible figure of the order, in the service's field names ("line 2: qty_shipped 2.5 of 2"); none for a sound copy. */
export function impossibleFigures(order: Json): string[] {
  const problems: string[] = []
  const lines = Array.isArray(order.Order_Items) ? order.Order_Items.map(objectOf) : []
  const anyCredit = lines.some((line) => line.is_credit === true)
  for (const [index, line] of lines.entries()) {
    const where = `line ${typeof line.item_no === 'number' ? line.item_no : index + 1}`
    for (const field of quantityFields) {
      const value = figure(line[field])
      if (value === undefined) continue
      if (!Number.isFinite(value) || value < 0 || value > maxLineQty) problems.push(`${where}: ${field} ${value}`)
    }
    const ordered = figure(line.qty)
    for (const field of ['qty_shipped', 'qty_pending'] as const) {
      const value = figure(line[field])
      if (
        ordered !== undefined &&
        value !== undefined &&
        Number.isFinite(value) &&
        value >= 0 &&
        value <= maxLineQty &&
        value > ordered + slack
      ) {
        problems.push(`${where}: ${field} ${value} of ${ordered}`)
      }
    }
    for (const field of lineMoneyFields) {
      const value = figure(line[field])
      if (value !== undefined && (!Number.isFinite(value) || Math.abs(value) >= maxMoney))
        problems.push(`${where}: ${field} ${value}`)
    }
  }
  for (const field of orderMoneyFields) {
    const value = figure(order[field])
    if (value !== undefined && (!Number.isFinite(value) || Math.abs(value) >= maxMoney))
      problems.push(`${field} ${value}`)
  }
  // Only credit lines take an order below nothing.
  const grand = figure(order.grand_total)
  if (grand !== undefined && Number.isFinite(grand) && Math.abs(grand) < maxMoney && grand < 0 && !anyCredit)
    problems.push(`grand_total ${grand} with no credit line`)
  return problems
}
