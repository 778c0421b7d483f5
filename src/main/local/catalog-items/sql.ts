/**
 * What the catalog items' reads, writes and catalog update share about their table: its spec for
 * sync, which indexes a first sync may defer and how a catalog heads them (ItemIndexLayout), the
 * index builds' cache, and the SQL terms queries are built of (live, the catalog's key, the item
 * columns and family terms). A change to the table's shape is made here once.
 */
import type { Database, Statement } from 'better-sqlite3'
import type { SyncedTable } from '../synced-table'

export const catalogItemsTable = {
  table: 'catalog_item_rows',
  kind: 'catalogItem',
  scopeColumn: 'catalog_guid',
  retainable: true,
  liveIndex: 'catalog_items_by_name',
} as const satisfies SyncedTable

/**
 * The item indexes whose keys a listing meets in random order (guid, name, category, SKU). by_id and
 * by_listing stay: a listing's rows arrive in id order with one listing id, so each of their entries
 * lands at the end, as cheap as the table's own.
 */
export const deferrableItemIndexes = new Set([
  'catalog_items_by_guid',
  'catalog_items_by_name',
  'catalog_items_by_category',
  'catalog_items_by_sku',
])

/**
 * SQLite page cache while an item index is built, in KiB (withIndexBuildCache). SQLite's sorter
 * keeps up to cache_size of an index's keys in memory before it writes sorted runs to a temporary
 * file, so under the writer's bulk cache each build's memory grew with the catalog and a first sync
 * peaked in its index builds. A small cache keeps a build's memory flat in the item count and costs
 * no time: the table is read once, each index written in order, and merging sorted runs from the file
 * costs less than sorting a large cache at once (measured in docs/perf/2026-11-27-round-3.md).
 */
export const indexBuildCacheSize = -2048

/**
 * Runs `build` (item index builds: a first sync's deferred ones, the catalog update's) under
 * indexBuildCacheSize, and gives the connection its cache back after. The builds read the table once
 * and write each index in order: a small cache serves them, and caps each build's sorter.
 */
export function withIndexBuildCache<T>(db: Database, build: () => T): T {
  const cacheSize = db.pragma('cache_size', { simple: true }) as number
  db.pragma(`cache_size = ${indexBuildCacheSize}`)
  try {
    return build()
  } finally {
    db.pragma(`cache_size = ${cacheSize}`)
  }
}

/** The items lists, searches and counts show: neither deleted nor kept unlisted for a draft. */
export const live = 'deleted_at IS NULL AND unlisted_at IS NULL'

/**
 * Created by the service after @createdAfter, by the item record's own created_at (kept in `extra`),
 * in whole seconds as brief/new-items.ts holds them: one rule for the brief's count of new items and
 * the catalog listing them, whatever the offset or precision each time is written with.
 */
export function createdAfter(alias: string): string {
  return `unixepoch(json_extract(${alias}.extra, '$.created_at')) > unixepoch(@createdAfter)`
}

/** The SQL of the small key (catalog_keys) of the catalog whose guid `guid` (SQL) gives: a lookup in a table of a few rows. */
export function catalogKeyOf(guid: string): string {
  return `(SELECT key FROM catalog_keys WHERE catalog_guid = ${guid})`
}

/** The item indexes a catalog heads: on its small key since migration 21, on its guid before (ItemIndexLayout). */
export type CatalogHeadedIndex =
  'catalog_items_by_name' | 'catalog_items_by_category' | 'catalog_items_by_sku' | 'catalog_items_by_listing'

/**
 * Which item indexes are headed by the catalog's small key (migration 21) and which still by its guid:
 * all of them on a laptop whose items were stored since, or were few enough to rebuild at start; on a
 * larger one upgraded from before, each until the catalog update has rebuilt it (catalog-update-jobs.ts),
 * one at a time. So a query names the index it walks, and filters on the catalog the way that index
 * can seek, asked when it runs: a read of the schema, a few microseconds.
 */
export class ItemIndexLayout {
  private readonly definition: Statement<[string], string>

  constructor(db: Database) {
    this.definition = db
      .prepare<[string], string>("SELECT sql FROM sqlite_schema WHERE type = 'index' AND name = ?")
      .pluck()
  }

  /** Whether `index` is there and headed by the catalog's key. */
  keyed(index: CatalogHeadedIndex): boolean {
    return /^CREATE INDEX \w+ ON catalog_item_rows \(catalog_key\b/.test(this.definition.get(index) ?? '')
  }

  /**
   * The SQL term "the item (`alias`, or the table's own columns when '') is in the catalog whose guid
   * `param` gives", as `index` can seek on it: by the catalog's key, looked up once (a constant to
   * SQLite), or by the guid itself, which is right whatever the index (every row keeps its guid), and
   * is taken while `index` is missing (a first sync defers it) or still on the guid.
   */
  inCatalog(index: CatalogHeadedIndex, alias: string, param: string): string {
    const column = alias ? `${alias}.` : ''
    return this.keyed(index) ? `${column}catalog_key = ${catalogKeyOf(param)}` : `${column}catalog_guid = ${param}`
  }
}

/**
 * A row stored before migration 17 has NULL in group_parent_id and is_product_group; its record's
 * fields in `extra` say the same.
 */
const familyColumns = `coalesce(i.group_parent_id, json_extract(i.extra, '$.group_parent_catalog_item_id'), 0) AS group_parent_id,
  coalesce(i.is_product_group, json_extract(i.extra, '$.is_product_group'), 0) AS is_product_group,
  json_extract(i.extra, '$.group_title') AS group_title, json_extract(i.extra, '$.group_sequence') AS group_sequence,
  json_extract(i.extra, '$.color') AS color, json_extract(i.extra, '$.style') AS style, json_extract(i.extra, '$.third_party_size') AS third_party_size`

/** Rows of the name index a page walks, up to which reading each one's table row costs less than reading the family index. */
export const shallowWalk = 2000

/**
 * The service id of the family `alias`'s row is a member of, 0 for none. A row stored before migration
 * 17 holds NULL and is read from its record; coalesce reads the record only for such a row.
 */
export function familyParentId(alias: string): string {
  return `coalesce(${alias}.group_parent_id, json_extract(${alias}.extra, '$.group_parent_catalog_item_id'), 0)`
}

/**
 * The local_id of the row a search lists for the matching row `alias`: its family's parent, live in
 * the same catalog (and active, when the search wants only active items), or the row itself when it
 * is in no family or its parent is not here to list. Only a member pays the look-up, by the service
 * id index (catalog_items_by_id), which no first sync defers.
 */
export function familyParentOf(alias: string, activeOnly: boolean): string {
  return `coalesce(CASE WHEN ${familyParentId(alias)} > 0 THEN (
      SELECT p.local_id FROM catalog_item_rows p WHERE p.id = ${familyParentId(alias)} AND p.catalog_guid = ${alias}.catalog_guid
        AND p.deleted_at IS NULL AND p.unlisted_at IS NULL${activeOnly ? ' AND p.active = 1' : ''} LIMIT 1) END, ${alias}.local_id)`
}

/**
 * familyParentOf over the narrow filter table (`alias`, migration 20): the parent's local_id by the
 * service id index, which holds it (no item row read), then its catalog and state from its own
 * filter row. Which row comes first among several is the same as familyParentOf's: by_id's order.
 */
export function familyParentAmongFilters(alias: string, activeOnly: boolean): string {
  return `coalesce(CASE WHEN ${alias}.family_parent_id > 0 THEN (
      SELECT p.local_id FROM catalog_item_rows p CROSS JOIN catalog_item_filters pf ON pf.local_id = p.local_id
      WHERE p.id = ${alias}.family_parent_id AND pf.catalog_key = ${alias}.catalog_key AND pf.live = 1${activeOnly ? ' AND pf.active = 1' : ''} LIMIT 1) END, ${alias}.local_id)`
}

export const itemColumns = `i.local_id, i.guid, i.id, i.catalog_guid, i.category_id, i.sku, i.upc, i.name, i.description, i.manufacturer,
  i.active, i.msrp, i.qty_on_hand, i.min_order_qty, i.has_inventory, i.allow_backorder, i.pricing, i.synced_at, i.deleted_at, i.unlisted_at,
  json_extract(i.extra, '$.qty_break') AS qty_break, json_extract(i.extra, '$.qty_break_price') AS qty_break_price,
  json_extract(i.extra, '$.reserved_qty_on_hand') AS reserved_qty_on_hand, json_extract(i.extra, '$.qty_incoming') AS qty_incoming,
  ${familyColumns}`
