/**
 * What the rep is told about SKUs the core did not find in the draft's catalog. While the catalog is
 * still in its first sync, a SKU may simply not have arrived yet: "not in this catalog" would send
 * the rep looking for a mistake that is not there.
 */
import { misScanText } from '../../../../shared/gtin'
import type { CatalogLoading } from '../../../../shared/synced'
import { formatNumber } from '../../format'

/** How far the catalog has come: "100 of 836 items". */
export function soFar(loading: CatalogLoading): string {
  return `${formatNumber(loading.itemsDone)}${loading.itemsTotal !== null ? ` of ${formatNumber(loading.itemsTotal)}` : ''} items`
}

export function unknownSkuText(sku: string, loading: CatalogLoading | null): string {
  // A barcode that cannot be right is a mis-scan, not an item to go looking for.
  const misScan = misScanText(sku)
  if (misScan) return misScan
  if (!loading) return `${sku} is not in this catalog.`
  return `${sku} is not here yet: this catalog is still loading (${soFar(loading)}). Try again when the sync is done.`
}

export function unknownSkusText(skus: string[], loading: CatalogLoading | null): string {
  if (!loading) return `Not in this catalog: ${skus.join(', ')}.`
  return `Not here yet, this catalog is still loading (${soFar(loading)}): ${skus.join(', ')}.`
}
