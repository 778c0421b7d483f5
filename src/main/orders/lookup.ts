import type { AddressInput } from '../../shared/orders'

/** What order checks need to know about a customer, read from the local copy. */
export interface CustomerFacts {
  guid: string
  name: string
  active: boolean
  requirePo: boolean
  priceGroupId: number | null
  /** The customer's account with the supplier, as of the last sync (null where the record says nothing). */
  creditLimit: number | null
  openBalance: number | null
  /** A PO the customer orders on by default: a new draft for them starts with it. */
  standingPo: string
  requirePayment: boolean
  taxExempt: boolean
  /** The customer's saved addresses, by guid, as the service's AddressInput fields. */
  addresses: { guid: string; address: AddressInput }[]
}

export interface PriceGroupFacts {
  guid: string
  id: number | null
  /** The key of a catalog item's `pricing` object. */
  name: string
  isMain: boolean
}

export interface CatalogItemFacts {
  guid: string
  sku: string
  /** The barcode number a scanner types, when the supplier gives one. */
  upc: string | null
  name: string
  active: boolean
  deleted: boolean
  pricing: Record<string, unknown>
  minOrderQty: number | null
  qtyBreak: number | null
  qtyBreakPrice: number | null
  hasInventory: boolean
  allowBackorder: boolean
  /** The one available figure (local/stock.ts): qty_on_hand less reserved_qty_on_hand, at the last sync. */
  qtyAvailable: number | null
  /** Stock arriving (qty_incoming). */
  qtyIncoming: number
  /** A family's parent: it names its members and is never ordered itself. */
  isFamily: boolean
}

/**
 * The read side the order rules need, kept narrow so the rules can be tested with plain objects and
 * the local copy behind them can change.
 */
export interface OrderLookup {
  customer(guid: string): CustomerFacts | null
  /** Catalog guids the customer may order from, or null when the local copy cannot tell. */
  catalogsForCustomer(customerGuid: string): string[] | null
  priceGroups(catalogGuid: string): PriceGroupFacts[]
  /** The name of a price group in any catalog (a customer's group may belong to another catalog). */
  priceGroupName(id: number): string | null
  /** Every active catalog, for a customer not yet known to the service (one captured in the field). */
  activeCatalogs(): string[]
  /** The catalog of the customer's newest order in the synced history, or null. */
  lastOrderCatalog(customerGuid: string): string | null
  catalogItem(catalogGuid: string, guid: string): CatalogItemFacts | null
  /**
   * The item a SKU names (local/sku-match.ts): written exactly, or in other capitals when the catalog
   * spells one SKU so; `ambiguous` lists the items of each spelling when it could mean more than one.
   */
  catalogItemBySku(catalogGuid: string, sku: string): CatalogItemFacts | { ambiguous: CatalogItemFacts[] } | null
  /** The live items of the catalog whose UPC is exactly this code, in SKU order (a UPC may be on more than one). */
  catalogItemsByUpc(catalogGuid: string, upc: string): CatalogItemFacts[]
}
