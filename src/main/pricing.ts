/**
 * How a catalog item is priced, in one place for every screen and for the order checks: the catalog
 * row, the item panel and the draft line must never disagree about what the customer pays.
 */

export type LinePrice = { offered: true; unitPrice: number } | { offered: false; unitPrice: null }

/** What pricing needs of an item: its `pricing` map (keyed by price group name) and its quantity break. */
export interface PricedItem {
  pricing: Record<string, unknown>
  qtyBreak: number | null
  qtyBreakPrice: number | null
}

export function roundMoney(value: number): number {
  return Math.round((value + Number.EPSILON) * 100) / 100
}

/**
 * A price group's list price for an item, before any quantity break. "N/A", no entry or no group
 * means the item is not offered to that group. The service sends numbers; a numeric string is read
 * as its number rather than taken as "not offered".
 */
export function listPrice(pricing: Record<string, unknown>, priceGroupName: string | null): number | null {
  if (priceGroupName === null) return null
  const listed = pricing[priceGroupName]
  if (typeof listed === 'number') return Number.isFinite(listed) ? listed : null
  if (typeof listed === 'string' && listed !== 'N/A' && listed.trim() !== '' && Number.isFinite(Number(listed))) return Number(listed)
  return null
}

/**
 * The unit price of an item for a price group at a quantity. At or above `qty_break`, the
 * `qty_break_price` applies when it is lower: a break is a discount, never a surcharge.
 */
export function unitPriceAt(item: PricedItem, priceGroupName: string | null, qty: number): LinePrice {
  const base = listPrice(item.pricing, priceGroupName)
  if (base === null) return { offered: false, unitPrice: null }
  const breakApplies = item.qtyBreak !== null && item.qtyBreak > 0 && item.qtyBreakPrice !== null && item.qtyBreakPrice > 0 && qty >= item.qtyBreak
  return { offered: true, unitPrice: breakApplies ? Math.min(base, item.qtyBreakPrice!) : base }
}
