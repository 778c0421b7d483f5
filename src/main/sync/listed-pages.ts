/**
 * A listing's page as sync pages through it: how many rows it holds, the keys that tell it from
 * another page, what the service said of the listing, and the rows themselves, either here (decoded
 * on this thread: a test's source, the inline writer) or held on the writer's thread, where the page
 * reader put them (page-reader.ts). The paging needs nothing else of a page, so the window's thread
 * never has to decode one. Pure: the reader thread checks its pages with the same code.
 */
import type { CustomerConnection, Listing, Page } from '../ordering-client/listing-pages'
import { ServiceError } from '../ordering-client/errors'
import type { CatalogItemRecord } from '../ordering-client/schemas'
import type { HeldPage } from './thread-data'

export interface ListedPage<T> {
  count: number
  /** The keys (listingKey) of its first and last rows; null for an empty page. */
  firstKey: string | null
  lastKey: string | null
  serverTimestamp: string | null
  total: number | null
  hasMore: boolean | null
  rows: T[] | HeldPage
}

export function isHeld<T>(rows: T[] | HeldPage): rows is HeldPage {
  return !Array.isArray(rows)
}

/** A row's guid, by which pages are compared. */
function listingKey(kind: Listing['kind'], row: unknown): string {
  return kind === 'customers' ? (row as CustomerConnection).customer.guid : (row as { guid: string }).guid
}

/** A page decoded here, as the paging takes it. */
export function listedHere<T>(kind: Listing['kind'], page: Page<T>): ListedPage<T> {
  const { rows } = page
  return {
    ...keysOf(kind, rows),
    serverTimestamp: page.serverTimestamp,
    total: page.total,
    hasMore: page.hasMore,
    rows,
  }
}

export function keysOf(
  kind: Listing['kind'],
  rows: readonly unknown[],
): Pick<ListedPage<unknown>, 'count' | 'firstKey' | 'lastKey'> {
  return {
    count: rows.length,
    firstKey: rows.length > 0 ? listingKey(kind, rows[0]) : null,
    lastKey: rows.length > 0 ? listingKey(kind, rows[rows.length - 1]) : null,
  }
}

/** What a catalog's item pages are checked against: the catalog's id here, and its name for the message. */
export interface StrayCheck {
  catalogId: number
  /** `"Spring"`, or `catalog <guid>` when it has no name here. */
  catalogName: string
}

/**
 * A page of another catalog's items (a misrouted cache) is no page of this listing: written, its
 * items would move to this catalog here, and a full pass would take them out of their own.
 */
export function strayItems(rows: readonly CatalogItemRecord[], check: StrayCheck): ServiceError | null {
  const stray = rows.find((row) => row.catalog_id != null && row.catalog_id !== check.catalogId)
  if (!stray) return null
  return new ServiceError(
    'invalidResponse',
    `A page of the ${check.catalogName} listing holds items of another catalog (catalog_id ${String(stray.catalog_id)}); it was not used.`,
  )
}
