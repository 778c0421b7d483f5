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
 * means the item is not offered to that group. Sync refuses any other price (issue 11: a string, a
 * negative or non-finite number); a copy stored before that rule is read the same way, as "not
 * offered", so nothing is ever priced below zero. Only the map's own entries count: a group named
 * `constructor` must not find Object.prototype's.
 */
export function listPrice(pricing: Record<string, unknown>, priceGroupName: string | null): number | null {
  if (priceGroupName === null || !Object.hasOwn(pricing, priceGroupName)) return null
  const listed = pricing[priceGroupName]
  return typeof listed === 'number' && Number.isFinite(listed) && listed >= 0 ? listed : null
}

/**
 * The unit price of an item for a price group at a quantity. At or above `qty_break`, the
 * `qty_break_price` applies when it is lower: a break is a discount, never a surcharge.
 */
export function unitPriceAt(item: PricedItem, priceGroupName: string | null, qty: number): LinePrice {
  const base = listPrice(item.pricing, priceGroupName)
  if (base === null) return { offered: false, unitPrice: null }
  const breakApplies =
    item.qtyBreak !== null && Number.isFinite(item.qtyBreak) && item.qtyBreak > 0 && item.qtyBreakPrice !== null && Number.isFinite(item.qtyBreakPrice) && item.qtyBreakPrice > 0 && qty >= item.qtyBreak
  return { offered: true, unitPrice: breakApplies ? Math.min(base, item.qtyBreakPrice!) : base }
}
