import type { CustomerFacts, OrderLookup, PriceGroupFacts } from './lookup'

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
