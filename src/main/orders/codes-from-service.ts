/**
 * A code the local copy does not know, asked of the service while it answers: the supplier may have
 * added the item since the last sync, and a rep with the box in hand should not be told "not in this
 * catalog" when the service has it. What the service names is read in full and written into the local
 * copy through its one writer (LocalData.copy), exactly as a sync would write it, so the line is
 * checked and priced by the same rules as any other.
 */
import { scannedGtin, storedGtinForms } from '../../shared/gtin'
import type { LocalData } from '../local/data'
import type { ItemReference } from '../ordering-client/client'
import type { FreshItemSource } from './fresh-items'

/** The part of a service client that finds items by code. */
export interface CodeSource extends FreshItemSource {
  lookupSku(catalogGuid: string, sku: string, options: { signal?: AbortSignal }): Promise<ItemReference[]>
  typeahead(
    catalogGuid: string,
    query: string,
    limit: number,
    options: { signal?: AbortSignal },
  ): Promise<ItemReference[]>
}

/** What asking the service came to. */
export interface CodesAsked {
  /** The codes whose items the service had and the local copy now holds. */
  fetched: string[]
  /** Whether the service answered: false offline, with no connection, or when it failed or was slow. */
  asked: boolean
}

/** A paste of hundreds of unknown codes is not a reason for hundreds of requests. */
const mostCodesAsked = 10
/** A rep is waiting at the scan box: one quick attempt, as before Send. */
const waitMs = 4_000

/**
 * `source`: a client making one quick attempt, or null when none is set up; `offline`: the app says
 * Offline, so nothing is asked.
 */
export function codesFromService(
  local: LocalData,
  source: () => Promise<CodeSource | null>,
  offline: () => boolean,
): (catalogGuid: string, codes: string[], customerGuid: string | null) => Promise<CodesAsked> {
  return async (catalogGuid, codes, customerGuid) => {
    const wanted = [...new Set(codes.map((code) => code.trim()).filter(Boolean))].slice(0, mostCodesAsked)
    if (wanted.length === 0 || offline()) return { fetched: [], asked: false }
    // In its first sync a catalog's items are inserted as new rows, and a code not found is "not here
    // yet": nothing is written beside that listing.
    if ((local.syncState.catalogItems(catalogGuid)?.lastSuccessAt ?? null) === null)
      return { fetched: [], asked: false }
    // A catalog update copies the rows these would be written over: the local copy decides until it is done.
    const job = local.copy.catalogUpdateJobs().next()
    if (job !== null && job !== 'counts') return { fetched: [], asked: false }
    const client = await source()
    if (!client) return { fetched: [], asked: false }
    const signal = AbortSignal.timeout(waitMs)
    const guidsOf = new Map<string, string[]>()
    for (const code of wanted) guidsOf.set(code, await itemsNamed(client, catalogGuid, code, signal))
    const guids = [...new Set([...guidsOf.values()].flat())]
    if (guids.length === 0) return { fetched: [], asked: true }
    const items = await client.getCatalogItemsByGuid(catalogGuid, guids, {
      signal,
      ...(customerGuid ? { vendorGuid: customerGuid } : {}),
    })
    local.copy.applyCatalogItems(catalogGuid, items, { listingId: null, serverTime: null })
    const arrived = new Set(items.map((item) => item.guid))
    return {
      fetched: wanted.filter((code) => guidsOf.get(code)!.some((guid) => arrived.has(guid))),
      asked: true,
    }
  }
}

/**
 * The items the service has for a code: its exact SKU (the SKU lookup), else the items the typeahead
 * finds whose UPC is the code, in any spelling of the GTIN it carries, or whose SKU it is.
 */
async function itemsNamed(
  client: CodeSource,
  catalogGuid: string,
  code: string,
  signal: AbortSignal,
): Promise<string[]> {
  // A projection without the SKU is taken at its word: the lookup is exact.
  const bySku = (await client.lookupSku(catalogGuid, code, { signal })).filter(
    (item) => item.sku === null || item.sku === code,
  )
  if (bySku.length > 0) return bySku.map((item) => item.guid)
  const gtin = scannedGtin(code)
  // The service's search matches text as stored: a scanner's GTIN-14 is asked again as the UPC it carries.
  const forms = [code, ...(gtin === null ? [] : storedGtinForms(gtin).filter((form) => form !== code))]
  const upcs = new Set(forms)
  for (const form of forms) {
    const found = (await client.typeahead(catalogGuid, form, 25, { signal })).filter(
      (item) => (item.upc !== null && upcs.has(item.upc)) || item.sku?.toLowerCase() === code.toLowerCase(),
    )
    if (found.length > 0) return found.map((item) => item.guid)
  }
  return []
}
