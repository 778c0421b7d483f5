/**
 * An item family as the catalog shows it: its title, each member as a cell of the grid (priced for the
 * group, with why it takes no quantity) and the family's price range.
 */
import type { FamilyCell } from '../../shared/synced'
import type { ItemRow } from '../local/catalog-items/reads'
import { stockOf } from '../local/stock'
import { shownPrice, type PricedItem } from '../pricing'
import { flag, numberOrNull, parseObject, text } from './values'

/** What pricing reads of a row: its pricing map, parsed once, and its quantity break. */
export function pricedRow(row: { pricing: string | null; qty_break: unknown; qty_break_price: unknown }): PricedItem {
  return {
    pricing: parseObject(row.pricing),
    qtyBreak: numberOrNull(row.qty_break),
    qtyBreakPrice: numberOrNull(row.qty_break_price),
  }
}

export function stockFieldsOfRow(row: ItemRow) {
  return {
    qtyOnHand: row.qty_on_hand,
    reservedQtyOnHand: numberOrNull(row.reserved_qty_on_hand),
    qtyIncoming: numberOrNull(row.qty_incoming),
    hasInventory: flag(row.has_inventory),
    allowBackorder: flag(row.allow_backorder),
  }
}

/** A family's name: its group_title, else the parent's own name. */
export function familyTitle(parent: ItemRow): string {
  return text(parent.group_title) ?? parent.name
}

/** One member as a cell of its family's grid, priced for the group, with why it takes no quantity. */
export function familyCell(row: ItemRow, priceGroupName: string | null, rowLabel: string, column: string): FamilyCell {
  const price = shownPrice(pricedRow(row), priceGroupName)
  const stock = stockOf(stockFieldsOfRow(row))
  const refused =
    row.active !== 1 ? 'Inactive' : !price.offered ? `Not offered to ${priceGroupName ?? 'this price group'}` : null
  return {
    guid: row.guid,
    sku: row.sku,
    upc: row.upc,
    name: row.name,
    row: rowLabel,
    column,
    price: price.price,
    available: stock.available,
    incoming: stock.incoming,
    minOrderQty: row.min_order_qty,
    refused,
  }
}

/** The lowest and highest price of the cells that take a quantity. */
export function priceRange(cells: FamilyCell[]): { priceMin: number | null; priceMax: number | null } {
  const prices = cells.filter((cell) => cell.refused === null && cell.price !== null).map((cell) => cell.price!)
  return prices.length === 0
    ? { priceMin: null, priceMax: null }
    : { priceMin: Math.min(...prices), priceMax: Math.max(...prices) }
}
