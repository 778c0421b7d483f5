/**
 * What the rep is told about SKUs the core did not find in the draft's catalog. While the catalog is
 * still in its first sync, a SKU may simply not have arrived yet: "not in this catalog" would send
 * the rep looking for a mistake that is not there.
 */
import { misScanText } from '../../../../shared/gtin'
import type { CatalogLoading } from '../../../../shared/synced'
import { formatDateTime, formatNumber } from '../../format'

/** With codes not found: when the catalog last synced, and whether the service was asked and had none. */
export interface NotOnLaptop {
  syncedAt: string | null
  serviceAsked: boolean
}

/** How far the catalog has come: "100 of 836 items". */
export function soFar(loading: CatalogLoading): string {
  return `${formatNumber(loading.itemsDone)}${loading.itemsTotal !== null ? ` of ${formatNumber(loading.itemsTotal)}` : ''} items`
}

export function unknownSkuText(sku: string, loading: CatalogLoading | null, asOf: NotOnLaptop | null = null): string {
  // A barcode that cannot be right is a mis-scan, not an item to go looking for.
  const misScan = misScanText(sku)
  if (misScan) return misScan
  if (!loading) return `${sku} is not in this catalog${sinceSync(asOf)}`
  return `${sku} is not here yet: this catalog is still loading (${soFar(loading)}). Try again when the sync is done.`
}

/**
 * "as of the last sync (…)", and what the service said: it had none of them, or it could not be asked,
 * so the supplier may have added the item since.
 */
function sinceSync(asOf: NotOnLaptop | null): string {
  if (!asOf) return '.'
  const when = asOf.syncedAt === null ? '' : ` (${formatDateTime(asOf.syncedAt)})`
  return asOf.serviceAsked
    ? ` as of the last sync${when}, and the supplier’s service does not have it either.`
    : ` on this laptop as of the last sync${when}; the supplier’s service could not be asked. If the supplier added it since, try again when online.`
}

export function unknownSkusText(
  skus: string[],
  loading: CatalogLoading | null,
  asOf: NotOnLaptop | null = null,
): string {
  if (!loading) {
    if (!asOf) return `Not in this catalog: ${skus.join(', ')}.`
    const when = asOf.syncedAt === null ? '' : ` (${formatDateTime(asOf.syncedAt)})`
    return asOf.serviceAsked
      ? `Not in this catalog as of the last sync${when}, nor on the supplier’s service: ${skus.join(', ')}.`
      : `Not on this laptop as of the last sync${when}, and the supplier’s service could not be asked: ${skus.join(', ')}.`
  }
  return `Not here yet, this catalog is still loading (${soFar(loading)}): ${skus.join(', ')}.`
}
