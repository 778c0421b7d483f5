/**
 * Before Send, when the service answers: the draft's items are read again, so a price or stock change
 * since drafting is shown to the rep rather than found out by the supplier. One attempt, a few seconds
 * at most, since a rep is waiting; offline or slow, the check runs on the local copy as it always can.
 */
import type { LocalData } from '../local/data'
import type { CatalogItemRecord } from '../ordering-client/schemas'
import type { Clock } from '../ports'

/** The part of a service client that reads a catalog's items by guid. */
export interface FreshItemSource {
  getCatalogItemsByGuid(
    catalogGuid: string,
    guids: readonly string[],
    options: { signal?: AbortSignal; vendorGuid?: string },
  ): Promise<CatalogItemRecord[]>
}

export type RefreshItems = (catalogGuid: string, itemGuids: string[], customerGuid: string | null) => Promise<void>

/**
 * `source`: a client that makes one attempt with a short connect timeout, or null when none is set up.
 * `clock`: the batch reply carries no serverTimestamp, so the items' stock is as of the moment they
 * were asked for, by the laptop's clock; without a time the row's stock would read "never synced".
 */
export function freshItems(
  local: LocalData,
  source: () => Promise<FreshItemSource | null>,
  clock: Clock,
): RefreshItems {
  return async (catalogGuid, itemGuids, customerGuid) => {
    const copy = local.copy
    // A catalog update copies the rows these would be written over: the local copy decides until it is
    // done (counting the catalogs after it writes no item rows).
    const job = copy.catalogUpdateJobs().next()
    if (job !== null && job !== 'counts') return
    const client = await source()
    if (!client) return
    const askedAt = new Date(clock.now()).toISOString()
    const items = await client.getCatalogItemsByGuid(catalogGuid, itemGuids, {
      signal: AbortSignal.timeout(4_000),
      ...(customerGuid ? { vendorGuid: customerGuid } : {}),
    })
    copy.applyCatalogItems(catalogGuid, items, { listingId: null, serverTime: askedAt })
  }
}
