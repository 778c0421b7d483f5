/**
 * How a line the rep adds is taken: the price and stock it was seen at, the quantity it starts at,
 * the quantities a draft can hold, and why an item not offered adds none.
 */
import { lineQtyProblem, type DraftLine } from '../../shared/orders'
import { CoreError } from '../errors'
import { unitPriceAt } from '../pricing'
import type { CatalogItemFacts } from './lookup'

/** A line's item, quantity and what the rep was shown for them, as a line stores it. */
export type SeenLine = Omit<DraftLine, 'lineId' | 'note'>

/** Why a scanned or picked item adds no line, and what the rep can do instead. */
export function notOfferedReason(sku: string, priceGroupName: string): string {
  return `${sku} is not offered to price group ${priceGroupName}: it cannot be ordered for this customer; ask the supplier, or choose another item.`
}

/** A line as the rep sees it: the item, the quantity, and the price and stock shown for them. */
export function seenLine(item: CatalogItemFacts, qty: number, priceGroupName: string | null): SeenLine {
  const price = priceGroupName !== null ? unitPriceAt(item, priceGroupName, qty) : null
  return {
    catalogItemGuid: item.guid,
    sku: item.sku,
    name: item.name,
    qty,
    unitPriceSeen: price?.offered ? price.unitPrice : null,
    qtyAvailableSeen: item.hasInventory && !item.allowBackorder ? item.qtyAvailable : null,
  }
}

/**
 * The quantity a new line starts at when the rep gave none: the item's minimum order quantity, as
 * a whole number the quantity rule allows, else one.
 */
export function startingQty(item: CatalogItemFacts): number {
  const minimum = item.minOrderQty === null ? 1 : Math.ceil(item.minOrderQty)
  return minimum > 1 && lineQtyProblem(minimum) === null ? minimum : 1
}

/**
 * A quantity the draft can hold: any finite number (the draft check refuses the ones the rule does
 * not allow, and says why). NaN and the infinities cannot be stored, so they are refused here.
 */
export function storableQty(qty: number, path: string): number {
  if (!Number.isFinite(qty))
    throw new CoreError('INVALID_ARGUMENT', 'Enter the quantity as a number.', [
      { path, message: 'Enter the quantity as a number.' },
    ])
  return qty
}
