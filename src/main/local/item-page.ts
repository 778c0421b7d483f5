/**
 * A page of catalog items made ready to write: every item checked (catalogItemProblem), the good ones
 * as the column values catalog_item_rows stores, and the categories the page carries. Pure, and plain
 * data: in the app sync's page reader thread prepares a page as it decodes it and hands it to the
 * writer thread, which then only writes (sync/page-reader.ts). Posting the service's nested records cost each
 * thread a structured clone of about 50 fields an item, and mapping them was the writer's own JS time
 * in a first sync. A prepared page is what LocalCopy.applyItemPage writes, on whichever thread.
 */
import type { CatalogItemRecord, CategoryRecord } from '../ordering-client/schemas'
import { catalogItemProblem, categoriesOf, storedItemAt, storedItemValues, type StoredItemValues } from './rows'

export interface PreparedItemPage {
  catalogGuid: string
  /** The items to write, in the order they came, each as storedItemColumns' values. */
  items: StoredItemValues[]
  /** Items refused as impossible, with their service id when it is one: nothing of them is written (see LocalCopy.reject). */
  rejected: { guid: string; id: number | null; reason: string }[]
  /** The categories the accepted items carry, each once, in its newest version. */
  categories: CategoryRecord[]
}

export function prepareItemPage(
  catalogGuid: string,
  records: CatalogItemRecord[],
  listingId: number | null,
  syncedAt: string | null,
): PreparedItemPage {
  const items: StoredItemValues[] = []
  const rejected: PreparedItemPage['rejected'] = []
  const accepted: CatalogItemRecord[] = []
  for (const record of records) {
    const problem = catalogItemProblem(record)
    if (problem) {
      rejected.push({
        guid: record.guid,
        id: Number.isSafeInteger(record.id) && Number(record.id) > 0 ? Number(record.id) : null,
        reason: problem,
      })
      continue
    }
    accepted.push(record)
    items.push(storedItemValues(catalogGuid, record, listingId, syncedAt))
  }
  return { catalogGuid, items, rejected, categories: categoriesOf(accepted) }
}

/** How many records a prepared page came from: the writer's measure of a batch. */
export function preparedSize(page: PreparedItemPage): number {
  return page.items.length + page.rejected.length
}

/**
 * A page prepared before its listing and time were known (sync's page reader prepares it as it
 * decodes, before the paging has seen it): given them, as prepareItemPage would have.
 */
export function stampItemPage(
  page: PreparedItemPage,
  listingId: number | null,
  syncedAt: string | null,
): PreparedItemPage {
  for (const values of page.items) {
    values[storedItemAt.listed_run] = listingId
    values[storedItemAt.synced_at] = syncedAt
  }
  return page
}
