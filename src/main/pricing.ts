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
 * means the item is not offered to that group. Sync refuses any other price (a string, a negative
 * or non-finite number); a copy stored before that rule is read the same way, as "not
 * offered", so nothing is ever priced below zero. Only the map's own entries count: a group named
 * `constructor` must not find Object.prototype's.
 */
function listPrice(pricing: Record<string, unknown>, priceGroupName: string | null): number | null {
  if (priceGroupName === null || !Object.hasOwn(pricing, priceGroupName)) return null
  const listed = pricing[priceGroupName]
  return typeof listed === 'number' && Number.isFinite(listed) && listed >= 0 ? listed : null
}

/** A quantity break as the rep sees it: from `qty` units on, each costs `unitPrice`. */
export interface QuantityBreak {
  qty: number
  unitPrice: number
}

/**
 * The item's quantity break for a price group, or null when there is none that lowers that group's
 * price: a break is a discount, never a surcharge, and an item not offered to the group has none.
 */
export function quantityBreak(item: PricedItem, priceGroupName: string | null): QuantityBreak | null {
  const base = listPrice(item.pricing, priceGroupName)
  const { qtyBreak, qtyBreakPrice } = item
  if (base === null || qtyBreak === null || qtyBreakPrice === null) return null
  if (
    !Number.isFinite(qtyBreak) ||
    qtyBreak <= 0 ||
    !Number.isFinite(qtyBreakPrice) ||
    qtyBreakPrice <= 0 ||
    qtyBreakPrice >= base
  )
    return null
  return { qty: qtyBreak, unitPrice: qtyBreakPrice }
}

/**
 * How far below the break a line may be and still be told about it: from half the break on, "5 more
 * for $31.56 each" is worth saying; at 2 of a 50 break it is noise on every line.
 */
const breakNearShare = 0.5

/** Where a line's quantity stands against the item's break: on it, near it (with how many more), or neither (null). */
export interface LineBreak extends QuantityBreak {
  applies: boolean
  /** Units more to reach the break when near it; null when the break applies. */
  toGo: number | null
}

export function lineBreak(item: PricedItem, priceGroupName: string | null, qty: number): LineBreak | null {
  const found = quantityBreak(item, priceGroupName)
  if (!found || !Number.isFinite(qty) || qty <= 0) return null
  if (qty >= found.qty) return { ...found, applies: true, toGo: null }
  if (qty >= found.qty * breakNearShare) return { ...found, applies: false, toGo: Math.ceil(found.qty - qty) }
  return null
}

/** The unit price of an item for a price group at a quantity: the break price at or above the break. */
export function unitPriceAt(item: PricedItem, priceGroupName: string | null, qty: number): LinePrice {
  const base = listPrice(item.pricing, priceGroupName)
  if (base === null) return { offered: false, unitPrice: null }
  const found = quantityBreak(item, priceGroupName)
  return { offered: true, unitPrice: found && qty >= found.qty ? found.unitPrice : base }
}

/** A live price group of a catalog, as the choice of group needs it. */
export interface PriceGroupOption {
  guid: string
  id: number | null
  /** The key of a catalog item's `pricing` object. */
  name: string
  isMain: boolean
}

/**
 * Why a group applies: the draft names it; it is the customer's (by id, or the group of the same name
 * in this catalog, since `pricing` is keyed by name); the customer's group is not one of this
 * catalog's, so its main group applies; the catalog has only one; or none can be chosen.
 */
type PriceGroupReason = 'draft' | 'customer' | 'sameName' | 'notInCatalog' | 'main' | 'only' | 'none'

export interface PriceGroupChoice<G extends PriceGroupOption> {
  group: G | null
  reason: PriceGroupReason
  /** The customer's own group's name, when they have one (it may belong to another catalog). */
  customerGroupName: string | null
}

/**
 * The one rule for which price group prices a customer's items in a catalog, used by the catalog
 * screen, the draft checks, usual items, quotes and documents alike. A customer is assigned one group,
 * which belongs to one catalog. In another catalog the group of the same name applies (`pricing` is
 * keyed by name); when the catalog has none of that name, the catalog's main group applies, which is
 * what the service itself does for an order that names no group (POST /v1/order: the customer's
 * group, the same-named group of the catalog, or the main group). So the rep never sees an item as
 * "not offered" under a group the order would not be priced by.
 */
export function choosePriceGroup<G extends PriceGroupOption>(
  groups: readonly G[],
  draftGroupGuid: string | null,
  customerGroup: { id: number; name: string | null } | null,
): PriceGroupChoice<G> {
  const customerGroupName = customerGroup?.name ?? null
  if (draftGroupGuid) {
    const chosen = groups.find((g) => g.guid === draftGroupGuid) ?? null
    return { group: chosen, reason: chosen ? 'draft' : 'none', customerGroupName }
  }
  if (customerGroup) {
    const assigned = groups.find((g) => g.id !== null && g.id === customerGroup.id)
    if (assigned) return { group: assigned, reason: 'customer', customerGroupName }
    const sameName = customerGroupName === null ? undefined : groups.find((g) => g.name === customerGroupName)
    if (sameName) return { group: sameName, reason: 'sameName', customerGroupName }
  }
  const main = groups.find((g) => g.isMain) ?? (groups.length === 1 ? groups[0]! : null)
  if (!main) return { group: null, reason: 'none', customerGroupName }
  return { group: main, reason: customerGroup ? 'notInCatalog' : main.isMain ? 'main' : 'only', customerGroupName }
}

/** Why the group applies, in the rep's words, when it is not simply the customer's own. */
export function describePriceGroupChoice(choice: PriceGroupChoice<PriceGroupOption>): string | null {
  const name = choice.group?.name ?? null
  switch (choice.reason) {
    case 'notInCatalog':
      return choice.customerGroupName
        ? `${name} prices: ${choice.customerGroupName} is not a price group of this catalog`
        : `${name} prices: the customer's price group is not one of this catalog's`
    case 'sameName':
      return null
    case 'none':
      return 'No price group of this catalog applies'
    default:
      return null
  }
}

/** What the catalog row, the item panel and the family grid show of an item's price for a group. */
export interface ShownPrice {
  price: number | null
  offered: boolean
  /** The break as the screens show it: from `qty` units on, each costs `price`. */
  priceBreak: { qty: number; price: number } | null
}

/** The price a screen shows for one of an item, and its break: the same rules that price the draft line. */
export function shownPrice(item: PricedItem, priceGroupName: string | null): ShownPrice {
  const price = listPrice(item.pricing, priceGroupName)
  const found = quantityBreak(item, priceGroupName)
  return {
    price,
    offered: price !== null,
    priceBreak: found ? { qty: found.qty, price: found.unitPrice } : null,
  }
}
