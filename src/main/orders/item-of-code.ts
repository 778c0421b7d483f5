/**
 * The item a code typed, scanned or pasted into a draft names in its catalog. A rep's scanner sends
 * whatever the label carries, so a code is tried as written first (an exact UPC, then a SKU) and only
 * then as the GTIN it carries in the other spellings a supplier may have stored.
 */
import type { AmbiguousCode } from '../../shared/orders'
import { scannedGtin, storedGtinForms } from '../../shared/gtin'
import type { CatalogItemFacts, OrderLookup } from './lookup'

/**
 * Its exact UPC first, then its SKU, then the GTIN it carries (a scanner's EAN-13, GTIN-14 or GS1
 * element string for a stored UPC-A). A stored code matched as written wins, valid check digit or
 * not. Two items for a code, or a SKU in other capitals than two items', are named, not chosen from.
 */
export function itemOfCode(
  lookup: OrderLookup,
  catalogGuid: string,
  code: string,
): CatalogItemFacts | AmbiguousCode | null {
  const byUpc = lookup.catalogItemsByUpc(catalogGuid, code).filter((item) => !item.deleted)
  if (byUpc.length > 1) return { code, skus: byUpc.map((item) => item.sku) }
  const found = byUpc[0] ?? lookup.catalogItemBySku(catalogGuid, code)
  if (found) return 'ambiguous' in found ? { code, skus: found.ambiguous.map((item) => item.sku) } : found
  const byGtin = itemsOfGtin(lookup, catalogGuid, code)
  if (byGtin.length > 1) return { code, skus: byGtin.map((item) => item.sku).sort() }
  return byGtin[0] ?? null
}

/** The live items whose stored UPC is the GTIN `code` carries, spelled any way but `code` itself. */
function itemsOfGtin(lookup: OrderLookup, catalogGuid: string, code: string): CatalogItemFacts[] {
  const gtin = scannedGtin(code)
  if (gtin === null) return []
  const items = new Map<string, CatalogItemFacts>()
  for (const form of storedGtinForms(gtin)) {
    if (form === code.trim()) continue
    for (const item of lookup.catalogItemsByUpc(catalogGuid, form)) if (!item.deleted) items.set(item.guid, item)
  }
  return [...items.values()]
}
