import type { CatalogItemFacts, CustomerFacts, OrderLookup, PriceGroupFacts } from './lookup'

export type LinePrice = { offered: true; unitPrice: number } | { offered: false; unitPrice: null }

export function roundMoney(value: number): number {
  return Math.round((value + Number.EPSILON) * 100) / 100
}

/**
 * The price of an item for a price group at a quantity. `pricing` is keyed by the group's name and
 * "N/A" (or no entry) means the item is not offered to that group. At or above `qty_break`, the
 * `qty_break_price` applies when it is lower: a break is a discount, never a surcharge.
 */
export function priceFor(item: CatalogItemFacts, priceGroupName: string, qty: number): LinePrice {
  const listed = item.pricing[priceGroupName]
  const base = typeof listed === 'number' ? listed : typeof listed === 'string' && listed !== 'N/A' && listed.trim() !== '' && Number.isFinite(Number(listed)) ? Number(listed) : null
  if (base === null) return { offered: false, unitPrice: null }
  const breakApplies = item.qtyBreak !== null && item.qtyBreak > 0 && item.qtyBreakPrice !== null && item.qtyBreakPrice > 0 && qty >= item.qtyBreak
  return { offered: true, unitPrice: breakApplies ? Math.min(base, item.qtyBreakPrice!) : base }
}

/**
 * The draft's price group, or the customer's, or (for a new customer) the catalog's main group. A
 * customer is assigned one group, which belongs to one catalog; in another catalog the group of the
 * same name applies, since `pricing` is keyed by the name. The catalog browser prices the same way,
 * so the rep sees in the draft what the catalog showed.
 */
export function resolvePriceGroup(
  lookup: OrderLookup,
  catalogGuid: string,
  priceGroupGuid: string | null,
  customer: CustomerFacts | null,
): PriceGroupFacts | null {
  const groups = lookup.priceGroups(catalogGuid)
  if (priceGroupGuid) return groups.find((g) => g.guid === priceGroupGuid) ?? null
  if (customer?.priceGroupId != null) {
    const assigned = groups.find((g) => g.id === customer.priceGroupId)
    if (assigned) return assigned
    const name = lookup.priceGroupName(customer.priceGroupId)
    const sameName = name === null ? undefined : groups.find((g) => g.name === name)
    if (sameName) return sameName
  }
  return groups.find((g) => g.isMain) ?? (groups.length === 1 ? groups[0]! : null)
}
