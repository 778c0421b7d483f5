/**
 * Which price group prices a draft, found through the order lookup. The rule itself, and every sum,
 * is src/main/pricing.ts's; this file only gathers what the rule needs from orders/lookup.ts, which
 * pricing.ts, below every part, may not import.
 */
import { choosePriceGroup } from '../pricing'
import type { CustomerFacts, OrderLookup, PriceGroupFacts } from './lookup'

/**
 * The draft's price group, or the customer's, or the catalog's main group: the rule of
 * `choosePriceGroup` (src/main/pricing.ts), which the catalog browser applies too, so the rep sees in
 * the draft what the catalog showed.
 */
export function resolvePriceGroup(
  lookup: OrderLookup,
  catalogGuid: string,
  priceGroupGuid: string | null,
  customer: CustomerFacts | null,
): PriceGroupFacts | null {
  const customerGroup =
    customer?.priceGroupId != null
      ? { id: customer.priceGroupId, name: lookup.priceGroupName(customer.priceGroupId) }
      : null
  return choosePriceGroup(lookup.priceGroups(catalogGuid), priceGroupGuid, customerGroup).group
}
