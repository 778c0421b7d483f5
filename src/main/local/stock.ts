/**
 * The one stock figure every screen and check shows: what is on hand less what submitted orders
 * already reserved, at the last sync. The catalog, the item panel, the draft check, usual items and
 * documents all ask this function, so one item gives one number everywhere.
 */
export interface StockFields {
  qtyOnHand: number | null
  reservedQtyOnHand: number | null
  qtyIncoming: number | null
  hasInventory: boolean | null
  allowBackorder: boolean | null
}

export interface Stock {
  /** On hand less reserved, never below 0; null when the supplier does not count this item's stock. */
  available: number | null
  /** Stock on its way to the supplier (qty_incoming). */
  incoming: number
  /** A line may not ask for more than `available`: the item is counted and not backorderable. */
  limitsQty: boolean
}

function amount(value: number | null): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null
}

export function stockOf(fields: StockFields): Stock {
  const onHand = amount(fields.qtyOnHand)
  // An item whose stock is not tracked (has_inventory false) has no figure to show; one the record
  // does not say about is counted when it carries an on-hand quantity.
  const counted = fields.hasInventory === false ? false : onHand !== null
  const available = counted && onHand !== null ? Math.max(0, onHand - (amount(fields.reservedQtyOnHand) ?? 0)) : null
  return {
    available,
    incoming: Math.max(0, amount(fields.qtyIncoming) ?? 0),
    limitsQty: available !== null && fields.hasInventory === true && fields.allowBackorder !== true,
  }
}

/** StockFields from an item's record as the service sent it (the catalog_items view's `json`). */
export function stockFieldsOfRecord(record: Record<string, unknown>): StockFields {
  const num = (value: unknown): number | null =>
    typeof value === 'number' && Number.isFinite(value)
      ? value
      : typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value))
        ? Number(value)
        : null
  const flagOf = (value: unknown): boolean | null => (typeof value === 'boolean' ? value : null)
  return {
    qtyOnHand: num(record.qty_on_hand),
    reservedQtyOnHand: num(record.reserved_qty_on_hand),
    qtyIncoming: num(record.qty_incoming),
    hasInventory: flagOf(record.has_inventory),
    allowBackorder: flagOf(record.allow_backorder),
  }
}
