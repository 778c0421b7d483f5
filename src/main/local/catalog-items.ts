/**
 * The catalog items' one home: the catalog_item_rows table, the catalog_items view over it (the row
 * with its record's JSON rebuilt), its full-text index, catalog_item_search, and the live counts per
 * catalog and category that the sync writer keeps, catalog_item_counts. How sync writes an
 * item, and every read of one: the catalog search, the item page, the lookups by guid, SKU and UPC
 * that the order checks and usual items make.
 */
import type { Database, Statement } from 'better-sqlite3'
import { itemSearchFill, itemsBefore10, leanItemColumns, leanItemsSelect } from '../db/migrations/0010-lean-catalog-items'
import { itemsBefore13 } from '../db/migrations/0013-item-guid-index'
import { familyColumnsFill, familyIndex } from '../db/migrations/0017-item-families'
import { catalogKeysFill, itemFiltersFill } from '../db/migrations/0020-catalog-item-filters'
import { keyedItemIndexes } from '../db/migrations/0021-item-indexes-by-catalog-key'
import { storedItemAt, storedItemColumns, type StoredItemColumn, type StoredItemValues } from './rows'
import { SearchIndex, type IndexedRow } from './search-index'
import { SearchPages, type SearchCount } from './search-page'
import { matchSku, rowOfSku, skuCandidatesLimit, type SkuCandidate, type SkuMatch } from './sku-match'
import { prepareTableStatements, type SyncedTable, type TableStatements } from './synced-table'

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
export const deferrableItemIndexes = new Set(['catalog_items_by_guid', 'catalog_items_by_name', 'catalog_items_by_category', 'catalog_items_by_sku'])

/** The columns of catalog_item_rows that its indexes hold. */
// group_parent_id last: the family index holds it, and where an item counts (storedCountPlace) reads it.
const itemIndexedColumns: readonly StoredItemColumn[] = ['catalog_guid', 'active', 'name', 'category_id', 'sku', 'id', 'listed_run', 'deleted_at', 'group_parent_id']
/** What an item's lookup reads beside its searched text (IndexedRow.stored): its indexed columns and unlisted_at. */
const itemStoredColumns = [...itemIndexedColumns, 'unlisted_at']

/**
 * What an item update compares to tell "a different body at the same version": all but key, version and
 * bookkeeping. Nor the catalog's key: it follows catalog_guid (migration 21's trigger, when that changes).
 */
const comparedItemColumns = storedItemColumns.filter((column) => !['local_id', 'guid', 'version', 'listed_run', 'synced_at', 'catalog_key'].includes(column))

const itemSearch = ['name', 'sku', 'upc', 'description', 'manufacturer'] as const

/**
 * SQLite page cache while an item index is built, in KiB (withIndexBuildCache). SQLite's sorter
 * keeps up to cache_size of an index's keys in memory before it writes them out in sorted runs to a
 * temporary file, so at the sync writer's bulk cache (LocalCopy's bulkCacheSize) each build took memory that grew with the catalog up to 16 MB:
 * four such builds over 1,000,000 rows raised a process's peak RSS by 19 MB (100,000 rows: 9 MB), and
 * a first sync's peak at a million items was its index builds', 10 to 20 MB over its item scopes'.
 * At 2 MB they raised it by 2 MB at either size and ran no slower (4.0-4.3 s against 5.1 s at a
 * million, 0.40-0.47 s against 0.49 s at 100,000): the table is read once, each index is written in
 * order, and merging the sorted runs from the file costs less than sorting 16 MB at once.
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
const live = 'deleted_at IS NULL AND unlisted_at IS NULL'

/** The SQL of the small key (catalog_keys) of the catalog whose guid `guid` (SQL) gives: a lookup in a table of a few rows. */
function catalogKeyOf(guid: string): string {
  return `(SELECT key FROM catalog_keys WHERE catalog_guid = ${guid})`
}

/** The items `i` of a fill's slice (CatalogItemUpkeep.fillSlice): local_id after the first parameter, up to the second. */
const byRange = 'WHERE i.local_id > ? AND i.local_id <= ?'

/** The SQL of the key of the catalog that `alias`'s row names by guid. */
function keyOf(alias: string): string {
  return catalogKeyOf(`${alias}.catalog_guid`)
}

/** The item indexes a catalog heads: on its small key since migration 21, on its guid before (ItemIndexLayout). */
export type CatalogHeadedIndex = 'catalog_items_by_name' | 'catalog_items_by_category' | 'catalog_items_by_sku' | 'catalog_items_by_listing'

/**
 * Which item indexes are headed by the catalog's small key (migration 21) and which still by its guid:
 * all of them on a laptop whose items were stored since, or were few enough to rebuild at start; on a
 * larger one upgraded from before, each until the catalog update has rebuilt it (catalog-upkeep.ts),
 * one at a time. So a query names the index it walks, and filters on the catalog the way that index
 * can seek, asked when it runs: a read of the schema, a few microseconds.
 */
export class ItemIndexLayout {
  private readonly definition: Statement<[string], string>

  constructor(db: Database) {
    this.definition = db.prepare<[string], string>("SELECT sql FROM sqlite_schema WHERE type = 'index' AND name = ?").pluck()
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

/** An item update and where each of its parameters sits in StoredItemValues, in order. */
interface ItemUpdate {
  statement: Statement<unknown[]>
  binding: number[]
}

/**
 * An update of an item by local_id that assigns `assigned` (and version, synced_at; with `relists`
 * also listed_run and unlisted_at), guarded like every upsert: a newer version, or a different body
 * at the same one. better-sqlite3 binds numbered parameters (?3) only by name, so each plain `?` is
 * given its value's position in StoredItemValues.
 */
function prepareItemUpdate(db: Database, assigned: StoredItemColumn[], relists: boolean): ItemUpdate {
  const compared = comparedItemColumns
  const set = [...assigned.map((column) => `${column} = ?`), 'version = ?', ...(relists ? ['unlisted_at = NULL', 'listed_run = coalesce(?, listed_run)'] : []), 'synced_at = ?']
  const bound: StoredItemColumn[] = [...assigned, 'version', ...(relists ? ['listed_run' as const] : []), 'synced_at', 'local_id', 'version', 'version', ...compared]
  // OR FAIL: one row, whose constraints are checked before it is written, so nothing is left half
  // done; the policy lets SQLite keep no statement journal for the search filters' trigger
  // (migration 20), which an update assigning unlisted_at (each one) would otherwise pay for.
  const statement = db.prepare<unknown[]>(`
    UPDATE OR FAIL catalog_item_rows SET ${set.join(', ')}
    WHERE local_id = ? AND (? > version OR (? = version AND
      (${compared.map(() => '?').join(', ')}) IS NOT (${compared.join(', ')})))`)
  return { statement, binding: bound.map((column) => storedItemAt[column]) }
}

/**
 * What sync writes of items, bound by position (storedItemValues: what the writer thread is posted)
 * and found by local_id, not ON CONFLICT (guid): the guid index may wait for the end of a first sync
 * (LocalCopy.deferIndexes). Statements are prepared once, here: a first sync inserts thousands of
 * items a second through them.
 */
export class CatalogItemWrites {
  readonly rows
  /** The full-text index, kept in step from code (search-index.ts). */
  readonly index: SearchIndex
  private readonly insertItem
  /**
   * Updates by which indexed columns they assign (a bit per itemIndexedColumns entry, and one for a
   * row listed again), each prepared when first needed: SQLite rewrites the entry of every index
   * whose column an UPDATE assigns, changed or not.
   */
  private readonly updates = new Map<number, ItemUpdate>()
  /** Where the full-text index's columns sit in StoredItemValues. */
  private readonly searchColumns: number[]
  private readonly anyItem
  private readonly itemKeysOffTheirIds
  private readonly forgetCounts
  private readonly saveCount
  private readonly countedCatalogs
  private readonly isCounted
  private readonly addToCount
  private readonly keptLive
  /** Counted by category-index walk, one statement for each state of that index, by its SQL (see countByCategory). */
  private readonly countsBy = new Map<string, Statement<[string], { category_id: number | null; active: number; n: number }>>()
  private readonly categoryIndexed
  private readonly familyIndexed
  private membersBy: Statement<[string], { category_id: number | null; active: number; n: number }> | undefined
  /** What the writes of the current transaction add to catalog_item_counts, by catalog and category (see noteCounted). */
  private readonly pendingCounts = new Map<string, { catalogGuid: string; categoryId: number | null } & KeptCountDraft>()

  readonly layout: ItemIndexLayout
  /** `rows` with their catalog terms as the listing and name indexes stand (see scopedRows). */
  private readonly scopedBy = new Map<string, TableStatements>()

  constructor(private readonly db: Database) {
    this.layout = new ItemIndexLayout(db)
    // OR FAIL: one row, checked before it is written (a key taken is retried under another, below),
    // so nothing is left half done; and SQLite keeps no statement journal for the search filters'
    // trigger (migration 20), which cost a first sync half its insert rate (bench:sync, writer alone).
    // The catalog's key is looked up by the statement, from the guid StoredItemValues holds in its
    // place (rows.ts): no round trip to JavaScript. A catalog's first item finds none yet, and
    // migration 21's trigger gives it the key migration 20's trigger has just made.
    const placeholders = storedItemColumns.map((column) => (column === 'catalog_key' ? catalogKeyOf('?') : '?'))
    this.insertItem = db.prepare<StoredItemValues>(`INSERT OR FAIL INTO catalog_item_rows (${storedItemColumns.join(', ')}) VALUES (${placeholders.join(', ')})`)
    this.rows = prepareTableStatements(db, catalogItemsTable)
    this.index = new SearchIndex(db, 'catalog_item_rows', 'catalog_item_search', itemSearch, itemStoredColumns)
    this.searchColumns = itemSearch.map((column) => storedItemAt[column])
    this.anyItem = db.prepare<[], number>('SELECT 1 FROM catalog_item_rows LIMIT 1').pluck()
    this.itemKeysOffTheirIds = db.prepare<[], [string, number]>('SELECT guid, local_id FROM catalog_item_rows WHERE id IS NULL OR local_id IS NOT id').raw()
    this.forgetCounts = db.prepare<[string]>('DELETE FROM catalog_item_counts WHERE catalog_guid = ?')
    this.saveCount = db.prepare<[string, number | null, number, number, number, number]>(
      'INSERT INTO catalog_item_counts (catalog_guid, category_id, live, active, members_live, members_active) VALUES (?, ?, ?, ?, ?, ?)',
    )
    this.countedCatalogs = db.prepare<[], string>('SELECT DISTINCT catalog_guid FROM catalog_item_counts').pluck()
    this.isCounted = db.prepare<[string], number>('SELECT 1 FROM catalog_item_counts WHERE catalog_guid = ? LIMIT 1').pluck()
    this.addToCount = db.prepare<[number, number, number, number, string, number | null]>(
      'UPDATE catalog_item_counts SET live = live + ?, active = active + ?, members_live = members_live + ?, members_active = members_active + ? WHERE catalog_guid = ? AND category_id IS ?',
    )
    this.keptLive = db.prepare<[string], number | null>('SELECT sum(live) FROM catalog_item_counts WHERE catalog_guid = ?').pluck()
    this.categoryIndexed = db.prepare<[], number>("SELECT 1 FROM sqlite_schema WHERE type = 'index' AND name = 'catalog_items_by_category'").pluck()
    this.familyIndexed = db.prepare<[], number>("SELECT 1 FROM sqlite_schema WHERE type = 'index' AND name = 'catalog_items_by_family'").pluck()
  }

  /**
   * An item that enters (`sign` 1) or leaves (-1) the live items of its catalog and category, by
   * the columns that say where it counts (IndexedRow.stored, or an item's values as written): kept
   * for writeCounted, at the end of the same transaction. A catalog the writer keeps counts of
   * stays counted through every write rather than by counting it again after a run, which read all
   * of its items (0.1-0.4 s a catalog at a million items, on each delta).
   */
  noteCounted(catalogGuid: string, categoryId: number | null, active: number, member: boolean, sign: 1 | -1): void {
    const key = `${catalogGuid}\u0000${categoryId ?? ''}`
    const pending = this.pendingCounts.get(key) ?? { catalogGuid, categoryId, ...emptyCount() }
    pending.live += sign
    if (active === 1) pending.active += sign
    if (member) {
      pending.membersLive += sign
      if (active === 1) pending.membersActive += sign
    }
    this.pendingCounts.set(key, pending)
  }

  /**
   * Adds what noteCounted kept to the counts of the catalogs counted already; one not counted yet is
   * counted whole by its next recount. Called inside the transaction of the writes it describes, so
   * the counts and the items commit together, whichever connection writes them.
   */
  writeCounted(): void {
    if (this.pendingCounts.size === 0) return
    const counted = new Map<string, boolean>()
    for (const { catalogGuid, categoryId, live, active, membersLive, membersActive } of this.pendingCounts.values()) {
      if (live === 0 && active === 0 && membersLive === 0 && membersActive === 0) continue
      let known = counted.get(catalogGuid)
      if (known === undefined) counted.set(catalogGuid, (known = this.isCounted.get(catalogGuid) !== undefined))
      if (!known) continue
      if (this.addToCount.run(live, active, membersLive, membersActive, catalogGuid, categoryId).changes === 0) {
        this.saveCount.run(catalogGuid, categoryId, live, active, membersLive, membersActive)
      }
    }
    this.pendingCounts.clear()
  }

  /** Forgets what noteCounted kept, for a transaction that did not commit. */
  dropCounted(): void {
    this.pendingCounts.clear()
  }

  /** The catalog's live items as kept (recount, writeCounted); null when it is not counted yet. */
  liveCount(catalogGuid: string): number | null {
    return this.isCounted.get(catalogGuid) === undefined ? null : (this.keptLive.get(catalogGuid) ?? 0)
  }

  /**
   * Counts the live items of each catalog in `catalogGuids` per category again, and forgets the counts
   * of catalogs not in `liveCatalogs`. Each catalog's count is read before its short write, so another
   * connection's write waits for a few rows, not for the count (a few hundred ms at a million items).
   * One that commits in between may have written the catalog's items (a draft's refresh) and counted
   * them (writeCounted) into the rows this replaces: then the count is read again.
   * The sync writer calls it after a catalog's full listing; the catalog screens read the rows (CatalogItems).
   */
  recount(catalogGuids: readonly string[], liveCatalogs: readonly string[]): void {
    for (const catalogGuid of catalogGuids) {
      for (let attempt = 1; ; attempt++) {
        const seen = this.dataVersion()
        const counts = new Map<number | null, KeptCountDraft>([[null, emptyCount()]])
        for (const row of this.countByCategory(catalogGuid)) {
          const count = counts.get(row.category_id) ?? emptyCount()
          count.live += row.n
          if (row.active === 1) count.active += row.n
          counts.set(row.category_id, count)
        }
        // A family is one row of the catalog (its parent's): its members are kept apart, so the screens
        // leave them out while the delta's check against the service still sees every item.
        for (const row of this.countMembersByCategory(catalogGuid)) {
          const count = counts.get(row.category_id) ?? emptyCount()
          count.membersLive += row.n
          if (row.active === 1) count.membersActive += row.n
          counts.set(row.category_id, count)
        }
        const written = this.db
          .transaction(() => {
            // After a few tries the count stands: the next full listing counts the catalog again.
            if (attempt < 4 && this.dataVersion() !== seen) return false
            this.forgetCounts.run(catalogGuid)
            // The row of items without a category is written even at 0: it marks the catalog as counted.
            for (const [categoryId, count] of counts) this.saveCount.run(catalogGuid, categoryId, count.live, count.active, count.membersLive, count.membersActive)
            return true
          })
          .immediate()
        if (written) break
      }
    }
    const live = new Set(liveCatalogs)
    const gone = this.countedCatalogs.all().filter((catalogGuid) => !live.has(catalogGuid))
    if (gone.length > 0) this.db.transaction(() => gone.forEach((catalogGuid) => this.forgetCounts.run(catalogGuid))).immediate()
  }

  /** Changes when another connection commits (PRAGMA data_version). */
  private dataVersion(): number {
    return this.db.pragma('data_version', { simple: true }) as number
  }

  /**
   * A catalog's live items by active and category, grouped in the category index's own order, which
   * holds every column read: 0.1 s at a million items, where the planner's own choice (the SKU index,
   * then each row) took 2 s. Prepared once for each state of the index, which a first sync defers.
   */
  private countByCategory(catalogGuid: string): { category_id: number | null; active: number; n: number }[] {
    const indexed = this.categoryIndexed.get() !== undefined
    const sql = `SELECT category_id, active, count(*) AS n FROM catalog_item_rows ${indexed ? 'INDEXED BY catalog_items_by_category' : ''}
         WHERE ${this.layout.inCatalog('catalog_items_by_category', '', '?')} AND ${live} GROUP BY active, category_id`
    let statement = this.countsBy.get(sql)
    if (!statement) {
      statement = this.db.prepare<[string], { category_id: number | null; active: number; n: number }>(sql)
      this.countsBy.set(sql, statement)
    }
    return statement.all(catalogGuid)
  }

  /**
   * The statements of `rows` that name a catalog (a listing's candidates, its count, whether any row
   * is stored, the live count), with the catalog term the listing and name indexes seek on now: the
   * catalog update may rebuild either on the catalog's key while this store is open.
   */
  scopedRows(): TableStatements {
    const scope = (index: CatalogHeadedIndex) => this.layout.inCatalog(index, '', '@scope')
    const key = `${scope('catalog_items_by_listing')}|${scope('catalog_items_by_name')}`
    let statements = this.scopedBy.get(key)
    if (!statements) {
      statements = prepareTableStatements(this.db, catalogItemsTable, { scope: scope('catalog_items_by_listing'), liveScope: scope('catalog_items_by_name') })
      this.scopedBy.set(key, statements)
    }
    return statements
  }

  /**
   * A catalog's live family members by active and category: the family index's range, a few percent
   * of the items. Where that index is missing (items stored before migration 17 on a large catalog)
   * members could be told only by reading every item's record, a second at a million: they stay
   * counted until the index is there.
   */
  private countMembersByCategory(catalogGuid: string): { category_id: number | null; active: number; n: number }[] {
    if (this.familyIndexed.get() === undefined) return []
    // Prepared once the index is there: INDEXED BY names it.
    this.membersBy ??= this.db.prepare<[string], { category_id: number | null; active: number; n: number }>(
      `SELECT category_id, active, count(*) AS n FROM catalog_item_rows INDEXED BY catalog_items_by_family
       WHERE catalog_guid = ? AND group_parent_id > 0 AND ${live} GROUP BY active, category_id`,
    )
    return this.membersBy.all(catalogGuid)
  }

  /** Of these catalogs, those with no count kept yet (recount has not met them since the upgrade). */
  uncounted(catalogGuids: readonly string[]): string[] {
    const counted = new Set(this.countedCatalogs.all())
    return catalogGuids.filter((catalogGuid) => !counted.has(catalogGuid))
  }

  /**
   * Writes `values` over the stored row `before` when they are newer (or differ at the same version);
   * false when the stored row stays as it was.
   */
  update(before: IndexedRow, values: StoredItemValues): boolean {
    const keyed = values.slice()
    keyed[storedItemAt.local_id] = before.localId
    const { statement, binding } = this.updateFor(indexedChanges(before, values))
    return statement.run(binding.map((position) => keyed[position])).changes > 0
  }

  /**
   * The update that assigns the columns no index holds and, of the indexed ones, those `changes`
   * names. SQLite rewrites the entry of every index whose column an UPDATE assigns, changed or not:
   * for a delta of stock and prices that was six random index entries a row (0.5 ms a row at 100,000
   * items), and a renamed item, whose name two indexes hold, still rewrote its entry in the SKU, id
   * and listing indexes, each a page read and written at random in a million-item catalog.
   */
  private updateFor(changes: number): ItemUpdate {
    let update = this.updates.get(changes)
    if (!update) {
      const assigned = comparedItemColumns.filter((column) => {
        const indexed = itemIndexedColumns.indexOf(column)
        return indexed < 0 || (changes & (1 << indexed)) !== 0
      })
      update = prepareItemUpdate(this.db, assigned, (changes & relisted) !== 0)
      this.updates.set(changes, update)
    }
    return update
  }

  /**
   * Inserts an item under the key its values name (local_id: the service's id, migration 10), or, when
   * another row already holds that id (the service reused it, or an older row kept its own key), under
   * a key SQLite picks. Returns the row's local_id.
   */
  insert(values: StoredItemValues): number {
    if (values[storedItemAt.local_id] === null) return Number(this.insertItem.run(values).lastInsertRowid)
    try {
      return Number(this.insertItem.run(values).lastInsertRowid)
    } catch (error) {
      if ((error as { code?: unknown })?.code !== 'SQLITE_CONSTRAINT_PRIMARYKEY') throw error
      const unkeyed = values.slice()
      unkeyed[storedItemAt.local_id] = null
      return Number(this.insertItem.run(unkeyed).lastInsertRowid)
    }
  }

  /** What the full-text index holds of an item, from its column values. */
  searchedValues(values: StoredItemValues): unknown[] {
    return this.searchColumns.map((position) => values[position] ?? null)
  }

  /** Whether the table holds any item at all. */
  anyRow(): boolean {
    return this.anyItem.get() !== undefined
  }

  /** The guid and local_id of every item not stored under its service id (local_id = id, migration 10). */
  keysOffTheirIds(): [string, number][] {
    return this.itemKeysOffTheirIds.all()
  }

  /** Items that share a guid with a newer version (or a later row at the same one). */
  duplicateKeys(): number[] {
    return this.db
      .prepare<[], number>(
        `SELECT local_id FROM (
           SELECT local_id, row_number() OVER (PARTITION BY guid ORDER BY version DESC, local_id DESC) AS rank FROM catalog_item_rows
         ) WHERE rank > 1`,
      )
      .pluck()
      .all()
  }
}

/** Where a stored item counts (CatalogItemWrites.noteCounted): catalog, category, active, and whether it is a family member. */
export function storedCountPlace(row: IndexedRow): [string, number | null, number, boolean] {
  const [catalogGuid, active, , categoryId, , , , , parent] = row.stored as [string, number, string, number | null, string, number, number, string, number | null]
  return [catalogGuid, categoryId, active, (parent ?? 0) > 0]
}

/** Where an item about to be written counts, by its values (see storedCountPlace). */
export function valuesCountPlace(values: StoredItemValues): [string, number | null, number, boolean] {
  const parent = values[storedItemAt.group_parent_id] as number | null
  return [values[storedItemAt.catalog_guid] as string, values[storedItemAt.category_id] as number | null, values[storedItemAt.active] as number, (parent ?? 0) > 0]
}

/** The bit of indexedChanges that says the row is listed again (listed_run, unlisted_at assigned). */
const relisted = 1 << itemIndexedColumns.length

/**
 * Which indexed columns writing `values` over `stored` changes, a bit per itemIndexedColumns entry
 * (listed_run's is `relisted`'s instead), and `relisted` when the row was kept unlisted or the
 * values name a listing other than the stored one (a delta names none: listed_run stays).
 */
function indexedChanges(stored: IndexedRow, values: StoredItemValues): number {
  let changes = stored.unlisted ? relisted : 0
  itemIndexedColumns.forEach((column, index) => {
    const value = values[storedItemAt[column]]
    if (column === 'listed_run') {
      if (value !== null && value !== stored.stored[index]) changes |= relisted
    } else if (value !== stored.stored[index]) {
      changes |= 1 << index
    }
  })
  return changes
}

/** An item as the catalog screens read it. */
export interface ItemRow {
  local_id: number
  guid: string
  id: number | null
  catalog_guid: string
  category_id: number | null
  sku: string
  upc: string | null
  name: string
  description: string | null
  manufacturer: string | null
  active: number
  msrp: number | null
  qty_on_hand: number | null
  min_order_qty: number | null
  has_inventory: number | null
  allow_backorder: number | null
  pricing: string | null
  synced_at: string | null
  deleted_at: string | null
  unlisted_at: string | null
  /** From `extra`: no column holds them (absent when 0, the spec default). */
  qty_break: unknown
  qty_break_price: unknown
  reserved_qty_on_hand: unknown
  qty_incoming: unknown
  /** The family's parent's service id; 0 when the item is in no family. */
  group_parent_id: number
  /** 1 for a family's parent. */
  is_product_group: number
  group_title: unknown
  group_sequence: unknown
  color: unknown
  style: unknown
  third_party_size: unknown
}

/** An item as the order checks read it: its record's JSON whole (the catalog_items view). */
export interface ItemRecordRow {
  guid: string
  sku: string
  name: string
  active: number
  deleted_at: string | null
  unlisted_at: string | null
  pricing: string | null
  json: string
}

/** A catalog's live items of one category (null: those without one), as the sync writer last counted them. */
/** A catalog's or category's count as it is added up: every live item, and of those the family members. */
interface KeptCountDraft {
  live: number
  active: number
  membersLive: number
  membersActive: number
}

function emptyCount(): KeptCountDraft {
  return { live: 0, active: 0, membersLive: 0, membersActive: 0 }
}

interface KeptCount {
  category_id: number | null
  live: number
  active: number
}

/** Where an item is, for usual items: its catalog, and when it was synced. */
interface ItemPlace {
  guid: string
  catalog_guid: string
  synced_at: string | null
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
const shallowWalk = 2000

/**
 * The service id of the family `alias`'s row is a member of, 0 for none. A row stored before migration
 * 17 holds NULL and is read from its record; coalesce reads the record only for such a row.
 */
function familyParentId(alias: string): string {
  return `coalesce(${alias}.group_parent_id, json_extract(${alias}.extra, '$.group_parent_catalog_item_id'), 0)`
}

/**
 * The local_id of the row a search lists for the matching row `alias`: its family's parent, live in
 * the same catalog (and active, when the search wants only active items), or the row itself when it
 * is in no family or its parent is not here to list. Only a member pays the look-up, by the service
 * id index (catalog_items_by_id), which no first sync defers.
 */
function familyParentOf(alias: string, activeOnly: boolean): string {
  return `coalesce(CASE WHEN ${familyParentId(alias)} > 0 THEN (
      SELECT p.local_id FROM catalog_item_rows p WHERE p.id = ${familyParentId(alias)} AND p.catalog_guid = ${alias}.catalog_guid
        AND p.deleted_at IS NULL AND p.unlisted_at IS NULL${activeOnly ? ' AND p.active = 1' : ''} LIMIT 1) END, ${alias}.local_id)`
}

/**
 * familyParentOf over the narrow filter table (`alias`, migration 20): the parent's local_id by the
 * service id index, which holds it (no item row read), then its catalog and state from its own
 * filter row. Which row comes first among several is the same as familyParentOf's: by_id's order.
 */
function familyParentAmongFilters(alias: string, activeOnly: boolean): string {
  return `coalesce(CASE WHEN ${alias}.family_parent_id > 0 THEN (
      SELECT p.local_id FROM catalog_item_rows p CROSS JOIN catalog_item_filters pf ON pf.local_id = p.local_id
      WHERE p.id = ${alias}.family_parent_id AND pf.catalog_key = ${alias}.catalog_key AND pf.live = 1${activeOnly ? ' AND pf.active = 1' : ''} LIMIT 1) END, ${alias}.local_id)`
}

const itemColumns = `i.local_id, i.guid, i.id, i.catalog_guid, i.category_id, i.sku, i.upc, i.name, i.description, i.manufacturer,
  i.active, i.msrp, i.qty_on_hand, i.min_order_qty, i.has_inventory, i.allow_backorder, i.pricing, i.synced_at, i.deleted_at, i.unlisted_at,
  json_extract(i.extra, '$.qty_break') AS qty_break, json_extract(i.extra, '$.qty_break_price') AS qty_break_price,
  json_extract(i.extra, '$.reserved_qty_on_hand') AS reserved_qty_on_hand, json_extract(i.extra, '$.qty_incoming') AS qty_incoming,
  ${familyColumns}`

/** Every read of catalog items. Lists and searches hold live items; single-item reads also rows kept for a draft. */
export class CatalogItems {
  private readonly statements
  /** Asked on every list page that shows a family: prepared once, as are both ways to read members. */
  private readonly familyIndex: Statement<[], unknown>
  private readonly membersBy = new Map<boolean, Statement<{ catalog: string; parent: number }, ItemRow>>()
  private readonly searches: SearchPages
  private readonly filterTable: Statement<[], number>
  private filtersFilling: Statement<[], number> | undefined

  /** How the item indexes stand; the statements whose catalog term follows it go through SearchPages' statement cache. */
  private readonly layout: ItemIndexLayout

  constructor(private readonly db: Database) {
    this.layout = new ItemIndexLayout(db)
    this.searches = new SearchPages(db)
    this.familyIndex = db.prepare("SELECT 1 FROM sqlite_schema WHERE type = 'index' AND name = 'catalog_items_by_family'")
    this.filterTable = db.prepare<[], number>("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'catalog_item_filters'").pluck()
    this.statements = {
      // Two statements: SQLite reads min() or max() of the rowid off the b-tree's edge only when the
      // query has just one of them; together they scan the table.
      firstLocalId: db.prepare<[], number | null>('SELECT min(local_id) FROM catalog_item_rows').pluck(),
      lastLocalId: db.prepare<[], number | null>('SELECT max(local_id) FROM catalog_item_rows').pluck(),
      byGuid: db.prepare<[string], ItemRow>(`SELECT ${itemColumns} FROM catalog_item_rows i WHERE i.guid = ?`),
      bySkuAnyCatalog: db.prepare<[string], ItemRow>(
        `SELECT ${itemColumns} FROM catalog_item_rows i WHERE i.sku = ? COLLATE NOCASE AND i.deleted_at IS NULL AND i.unlisted_at IS NULL LIMIT ${skuCandidatesLimit}`,
      ),
      jsonOf: db.prepare<[number], string>('SELECT json FROM catalog_items WHERE local_id = ?').pluck(),
      countLive: db.prepare<[], number>(`SELECT count(*) FROM catalog_item_rows WHERE ${live}`).pluck(),
      // What the screens list: a family is its parent's row, so its members are taken off.
      keptCounts: db.prepare<[string], KeptCount>(
        'SELECT category_id, live - members_live AS live, active - members_active AS active FROM catalog_item_counts WHERE catalog_guid = ?',
      ),
      recordIn: db.prepare<[string, string], ItemRecordRow>('SELECT * FROM catalog_items WHERE catalog_guid = ? AND guid = ?'),
      // Through the search index, which holds UPCs and only live items: the one catalog search finds
      // an item by, so the SKU box and the search agree, and no catalog is scanned row by row.
      recordsByUpc: db.prepare<[string, string, string], ItemRecordRow>(
        `SELECT i.* FROM catalog_item_search s JOIN catalog_items i ON i.local_id = s.rowid
         WHERE catalog_item_search MATCH ? AND i.catalog_guid = ? AND i.upc = ? ORDER BY i.sku COLLATE NOCASE, i.guid LIMIT 20`,
      ),
      rowsByUpc: db.prepare<[string, string, string], ItemRow>(
        `SELECT ${itemColumns} FROM catalog_item_search s JOIN catalog_item_rows i ON i.local_id = s.rowid
         WHERE catalog_item_search MATCH ? AND i.catalog_guid = ? AND i.upc = ? AND i.deleted_at IS NULL AND i.unlisted_at IS NULL
         ORDER BY i.sku COLLATE NOCASE, i.guid LIMIT 20`,
      ),
      byIdIn: db.prepare<[string, number], ItemRow>(
        `SELECT ${itemColumns} FROM catalog_item_rows i WHERE i.catalog_guid = ? AND i.id = ? ORDER BY (i.deleted_at IS NULL AND i.unlisted_at IS NULL) DESC LIMIT 1`,
      ),
      placeByGuid: db.prepare<[string], ItemPlace>('SELECT guid, catalog_guid, synced_at FROM catalog_items WHERE guid = ?'),
      placeById: db.prepare<[number], ItemPlace>('SELECT guid, catalog_guid, synced_at FROM catalog_items WHERE id = ? ORDER BY deleted_at IS NOT NULL LIMIT 1'),
    }
  }

  /** Whether the catalog holds any item, in any state. */
  anyOf(catalogGuid: string): boolean {
    const listing = this.layout.inCatalog('catalog_items_by_listing', '', '@catalog')
    return this.searches.all(`SELECT 1 FROM catalog_item_rows INDEXED BY catalog_items_by_listing WHERE ${listing} LIMIT 1`, { catalog: catalogGuid }).length > 0
  }

  byGuid(guid: string): ItemRow | undefined {
    return this.statements.byGuid.get(guid)
  }

  /** By SKU in a catalog (sku-match.ts: exact first, else a unique match in other capitals), a live and active row first. */
  bySku(catalogGuid: string, sku: string): ItemRow | undefined {
    return rowOfSku(sku, this.searches.all<ItemRow>(
      `SELECT ${itemColumns} FROM catalog_item_rows i WHERE ${this.layout.inCatalog('catalog_items_by_sku', 'i', '@catalog')} AND i.sku = @sku COLLATE NOCASE
       ORDER BY (i.deleted_at IS NULL AND i.unlisted_at IS NULL) DESC, i.active DESC LIMIT ${skuCandidatesLimit}`,
      { catalog: catalogGuid, sku },
    ))
  }

  /** A live item of any catalog by SKU, by the rule of sku-match.ts. */
  bySkuAnyCatalog(sku: string): ItemRow | undefined {
    return rowOfSku(sku, this.statements.bySkuAnyCatalog.all(sku))
  }

  /** The item's record as the service sent it, rebuilt by the catalog_items view. */
  jsonOf(localId: number): string | undefined {
    return this.statements.jsonOf.get(localId)
  }

  countLive(): number {
    return this.statements.countLive.get() ?? 0
  }

  /**
   * Live items of each of these catalogs, as the sync writer last counted them (CatalogItemWrites.recount).
   * A catalog it has not counted yet (just after the upgrade that made the counts, or while its
   * first sync runs) is counted here, as before the counts were kept.
   */
  liveCountsByCatalog(catalogGuids: readonly string[]): Map<string, number> {
    const counts = new Map<string, number>()
    for (const catalogGuid of catalogGuids) {
      const kept = this.statements.keptCounts.all(catalogGuid)
      if (kept.length > 0) {
        counts.set(catalogGuid, kept.reduce((sum, row) => sum + row.live, 0))
        continue
      }
      const all = this.searches.count(`SELECT count(*) FROM catalog_item_rows ${this.searches.indexedBy('catalog_items_by_name')} WHERE ${this.layout.inCatalog('catalog_items_by_name', '', '@catalog')} AND ${live}`, { catalog: catalogGuid })
      counts.set(catalogGuid, all - [...this.uncountedMembers(catalogGuid).values()].reduce((sum, n) => sum + n, 0))
    }
    return counts
  }

  /** A catalog's live items per category: kept by the sync writer, or counted here until it has (see liveCountsByCatalog). */
  liveCountsByCategory(catalogGuid: string): Map<number | null, number> {
    const kept = this.statements.keptCounts.all(catalogGuid)
    if (kept.length > 0) return new Map(kept.map((row) => [row.category_id, row.live]))
    const sql = `SELECT category_id, count(*) AS n FROM catalog_item_rows ${this.searches.indexedBy('catalog_items_by_category')} WHERE ${this.layout.inCatalog('catalog_items_by_category', '', '@catalog')} AND ${live} GROUP BY category_id`
    const members = this.uncountedMembers(catalogGuid)
    return new Map(this.searches.all<{ category_id: number | null; n: number }>(sql, { catalog: catalogGuid }).map((row) => [row.category_id, row.n - (members.get(row.category_id) ?? 0)]))
  }

  /**
   * A catalog's live family members by category, for the counts made here before the sync writer has
   * counted the catalog: the kept counts list a family once (its parent's row), and so must these,
   * or the catalog's and its categories' totals drop when the writer's count lands. Read as the
   * writer reads them, by the family index (a few percent of the items); where it is missing, the
   * kept counts hold members too, and so do these.
   */
  private uncountedMembers(catalogGuid: string): Map<number | null, number> {
    if (!this.familiesIndexed()) return new Map()
    const sql = `SELECT category_id, count(*) AS n FROM catalog_item_rows INDEXED BY catalog_items_by_family WHERE catalog_guid = @catalog AND group_parent_id > 0 AND ${live} GROUP BY category_id`
    return new Map(this.searches.all<{ category_id: number | null; n: number }>(sql, { catalog: catalogGuid }).map((row) => [row.category_id, row.n]))
  }

  /** An item of a catalog by guid, with its record. */
  recordIn(catalogGuid: string, guid: string): ItemRecordRow | undefined {
    return this.statements.recordIn.get(catalogGuid, guid)
  }

  /** The item of a catalog a SKU names, with its record, or the items it could mean (sku-match.ts); a live row first. */
  recordBySku(catalogGuid: string, sku: string): SkuMatch<ItemRecordRow> {
    // Found in the item rows, whose SKU index the view's columns do not reach, then read whole through it.
    return matchSku(sku, this.searches.all<ItemRecordRow>(
      `SELECT * FROM catalog_items WHERE local_id IN (SELECT local_id FROM catalog_item_rows WHERE ${this.layout.inCatalog('catalog_items_by_sku', '', '@catalog')}
         AND sku = @sku COLLATE NOCASE LIMIT ${skuCandidatesLimit}) ORDER BY deleted_at IS NOT NULL, unlisted_at IS NOT NULL`,
      { catalog: catalogGuid, sku },
    ))
  }

  /** Live items of a catalog with this UPC; `phrase` is the full-text match that finds them. */
  recordsByUpc(phrase: string, catalogGuid: string, upc: string): ItemRecordRow[] {
    return this.statements.recordsByUpc.all(phrase, catalogGuid, upc)
  }

  /** Live items of a catalog whose UPC is exactly `upc`, as the screens read them; `phrase` is the full-text match that finds them. */
  rowsByUpc(phrase: string, catalogGuid: string, upc: string): ItemRow[] {
    return this.statements.rowsByUpc.all(phrase, catalogGuid, upc)
  }

  /** An item of a catalog by the service's id (a family's parent, as its members name it), a live row first. */
  byIdIn(catalogGuid: string, id: number): ItemRow | undefined {
    return this.statements.byIdIn.get(catalogGuid, id)
  }

  /**
   * The live members of a family, by group_sequence. Through catalog_items_by_family where migration
   * 17 could build it; without it (rows stored before), members are told by their record's field,
   * read from every row of the catalog.
   */
  familyMembers(catalogGuid: string, parentId: number): ItemRow[] {
    const indexed = this.familiesIndexed()
    let members = this.membersBy.get(indexed)
    if (!members) {
      const member = indexed
        ? 'i.group_parent_id = @parent AND i.group_parent_id > 0'
        : "coalesce(i.group_parent_id, json_extract(i.extra, '$.group_parent_catalog_item_id')) = @parent"
      members = this.db.prepare<{ catalog: string; parent: number }, ItemRow>(
        `SELECT ${itemColumns} FROM catalog_item_rows i WHERE i.catalog_guid = @catalog AND ${member} AND i.${live.replace(' AND ', ' AND i.')}
         ORDER BY coalesce(json_extract(i.extra, '$.group_sequence'), 0), i.sku COLLATE NOCASE`,
      )
      this.membersBy.set(indexed, members)
    }
    return members.all({ catalog: catalogGuid, parent: parentId })
  }

  /** Whether a family's members are an index range (see familyMembers), not a read of the whole catalog. */
  familiesIndexed(): boolean {
    return this.familyIndex.get() !== undefined
  }

  /**
   * Whether every stored item has its filter row (migration 20): asked on every keystroke, two reads
   * of a few rows. Until the catalog update has filled the rows stored before, searches filter on
   * the item rows themselves (correct, slower).
   */
  filtersFilled(): boolean {
    if (this.filterTable.get() === undefined) return false
    this.filtersFilling ??= this.db.prepare<[], number>('SELECT 1 FROM catalog_item_filters_fill LIMIT 1').pluck()
    return this.filtersFilling.get() === undefined
  }

  placeByGuid(guid: string): ItemPlace | undefined {
    return this.statements.placeByGuid.get(guid)
  }

  /** By the service's id, a row that is not deleted first. */
  placeById(id: number): ItemPlace | undefined {
    return this.statements.placeById.get(id)
  }

  /** By SKU in a catalog (by the rule of sku-match.ts), a row that is not deleted first. */
  placeBySku(catalogGuid: string, sku: string): ItemPlace | undefined {
    return rowOfSku(sku, this.searches.all<ItemPlace & SkuCandidate>(
      `SELECT guid, catalog_guid, synced_at, sku, deleted_at, unlisted_at FROM catalog_item_rows WHERE ${this.layout.inCatalog('catalog_items_by_sku', '', '@catalog')} AND sku = @sku COLLATE NOCASE
       ORDER BY deleted_at IS NOT NULL LIMIT ${skuCandidatesLimit}`,
      { catalog: catalogGuid, sku },
    ))
  }

  /**
   * A catalog's live items, by full-text match and/or category: one page, and whether more follow.
   * `count` gives how many match, capped (countCap), from the same plan.
   */
  search(search: ItemSearch): { rows: ItemRow[]; more: boolean } {
    return this.searches.page<ItemRow>(this.searchSpec(search))
  }

  /**
   * With no text to match, a catalog's or a category's items are summed from the counts the sync
   * writer keeps (an exact count walked an index entry per item: 50 ms at a million); searched, or
   * before the writer has counted the catalog, they are counted here.
   */
  count(search: Omit<ItemSearch, 'limit' | 'offset'>, countCap: number): SearchCount {
    // The kept counts count a family once (recount): a search that lists members counts here.
    const kept = search.match === null && !search.familyMembers ? this.statements.keptCounts.all(search.catalogGuid) : []
    if (kept.length > 0) {
      const categories = search.categoryId === undefined ? null : new Set(search.categoryIds?.length ? search.categoryIds : [search.categoryId])
      const total = kept.filter((row) => categories === null || (row.category_id !== null && categories.has(row.category_id))).reduce((sum, row) => sum + (search.includeInactive ? row.live : row.active), 0)
      return { total, capped: false }
    }
    return this.searches.countMatches({ ...this.searchSpec({ ...search, limit: 0, offset: 0 }, true), countCap })
  }

  /**
   * Whether the catalog's items sit in the upper half of the search index's rows: a first sync lists
   * one catalog after another, so a catalog's items are a run of local ids, and any one of them says
   * which end of the shared index its matches are nearer (SearchPageSpec.newestFirst).
   */
  private arrivedLate(catalogGuid: string): boolean {
    // A listed item first: items a delta added since (listed_run NULL) lead the listing index and
    // hold the newest ids, so one of them would place the whole catalog at the top of the shared
    // search index (a one-letter count went from 12 ms to 0.3 s at a million items after the bench's deltas).
    const listing = this.layout.inCatalog('catalog_items_by_listing', '', '@catalog')
    const [found] = this.searches.all<Record<string, number | null>>(
      `SELECT coalesce(
         (SELECT local_id FROM catalog_item_rows INDEXED BY catalog_items_by_listing WHERE ${listing} AND listed_run IS NOT NULL LIMIT 1),
         (SELECT local_id FROM catalog_item_rows INDEXED BY catalog_items_by_listing WHERE ${listing} LIMIT 1))`,
      { catalog: catalogGuid },
    )
    // Its one column, unnamed: local-copy.test.ts tells the reads of one row by their closing LIMIT 1.
    const one = (found && Object.values(found)[0]) ?? undefined
    const first = this.statements.firstLocalId.get() ?? null
    const last = this.statements.lastLocalId.get() ?? null
    return one !== undefined && first !== null && last !== null && one - first > last - one
  }

  /**
   * The term that leaves family members out of a listing with no match, for a walk of the name index
   * `rows` deep. Judging each row walked by its own column reads its table row: nothing for a page near
   * the top, but 0.9 s for a page halfway down a million items, or a count (40 ms without). Such a walk
   * reads the members' keys once from the family index instead (about 1 ms for 30,000 members) and
   * probes each row walked against them without leaving the index. Where that index is missing, each
   * row is read (its record, for rows stored before migration 17).
   */
  private notAMember(rows: number): string {
    return rows > shallowWalk && this.familiesIndexed()
      ? 'i.local_id NOT IN (SELECT local_id FROM catalog_item_rows INDEXED BY catalog_items_by_family WHERE catalog_guid = @catalog AND group_parent_id > 0)'
      : `${familyParentId('i')} = 0`
  }

  /** searchSpec's filters over the narrow table (SearchPageSpec.narrow), with the same parameters. */
  private filtersOf(search: ItemSearch, folded: boolean): ItemSearchNarrow {
    const where = [`f.catalog_key = ${catalogKeyOf('@catalog')}`, 'f.live = 1']
    if (!search.includeInactive) where.push('f.active = 1')
    if (search.categoryId !== undefined) where.push((search.categoryIds ?? []).length <= 1 ? 'f.category_id = @category' : 'f.category_id IN (SELECT value FROM json_each(@categories))')
    return { table: 'catalog_item_filters f', where, ...(folded ? { listedAs: familyParentAmongFilters('f', !search.includeInactive) } : {}) }
  }

  /** `counting`: the spec is for a count, which walks every match, not a page. */
  private searchSpec(search: ItemSearch, counting = false) {
    const index: CatalogHeadedIndex = search.categoryId !== undefined ? 'catalog_items_by_category' : 'catalog_items_by_name'
    const where = [this.layout.inCatalog(index, 'i', '@catalog'), 'i.deleted_at IS NULL', 'i.unlisted_at IS NULL']
    const params: Record<string, unknown> = { catalog: search.catalogGuid, limit: search.limit, offset: search.offset }
    if (!search.includeInactive) where.push('i.active = 1')
    if (search.categoryId !== undefined) {
      const ids = search.categoryIds ?? []
      if (ids.length <= 1) {
        where.push('i.category_id = @category')
        params.category = search.categoryId
      } else {
        where.push(`i.category_id IN (SELECT value FROM json_each(@categories))`)
        params.categories = JSON.stringify(ids)
      }
    }
    // A family is one row, its parent's: a member is not listed of its own, and a match of a member
    // lists its family (see familyParentOf).
    const folded = !search.familyMembers
    if (folded && search.match === null) where.push(this.notAMember(counting ? Infinity : search.offset + search.limit))
    // A match is filtered on the narrow table once it is filled; with no match, the name and
    // category indexes hold every filtered column already.
    const narrow = search.match !== null && this.filtersFilled() ? this.filtersOf(search, folded) : undefined
    return {
      ...(narrow ? { narrow } : {}),
      fts: 'catalog_item_search' as const,
      table: 'catalog_item_rows i',
      ...(folded ? { listedAs: familyParentOf('i', !search.includeInactive) } : {}),
      columns: itemColumns,
      // bm25 ranks name and SKU hits above hits in the description.
      rank: 'bm25(catalog_item_search, 10.0, 10.0, 5.0, 1.0, 2.0)',
      index,
      where,
      params,
      match: search.match,
      broad: 'as indexed' as const,
      newestFirst: search.match !== null && this.arrivedLate(search.catalogGuid),
      countCap: Number.MAX_SAFE_INTEGER,
      // Inactive rows (a few percent) are counted too; no row of a first listing is unlisted.
      ...(search.categoryId === undefined
        ? { arrival: { count: `SELECT count(*) FROM catalog_item_rows INDEXED BY catalog_items_by_listing WHERE ${this.layout.inCatalog('catalog_items_by_listing', '', '@catalog')} AND deleted_at IS NULL` } }
        : {}),
    }
  }
}

interface ItemSearchNarrow {
  table: string
  where: string[]
  listedAs?: string
}

interface ItemSearch {
  catalogGuid: string
  includeInactive?: boolean
  /** A family's members listed of their own too (CatalogItemSearch.familyMembers). */
  familyMembers?: boolean
  categoryId?: number
  /** The category and those below it (Catalogs.categoryTree), when `categoryId` is given. */
  categoryIds?: number[]
  /** wordPrefixQuery's FTS5 query, or null. */
  match: string | null
  limit: number
  offset: number
}

/**
 * The per-item work a migration leaves for later on a large catalog (local/catalog-upkeep.ts orders
 * it), each call one slice in one short transaction, so the window's own writes (a draft, the
 * outbox) wait for one slice at most:
 *
 * - migration 10's copy: schema 9's rows, set aside as they were, become catalog_item_rows (with
 *   their family columns and full-text entries) in local_id order, and leave the table set aside in
 *   the same transaction, so what is left to copy is what that table still holds, whatever stopped
 *   the copy; migration 13's likewise, rows copied as they are;
 * - migration 17's family columns and their index, on a laptop whose catalog was already past the
 *   limit at that migration;
 * - migration 20's search filters of the items stored before it (those written since have theirs
 *   from its triggers);
 * - migration 21's catalog keys of the items stored before it, then its item indexes rebuilt on them.
 *
 * The SQL is the migrations' own (leanItemsSelect, itemSearchFill, familyColumnsFill, itemFiltersFill), so a large catalog ends up
 * with the rows, full-text entries and indexes a small one gets at start.
 */
export class CatalogItemUpkeep {
  private readonly exists: Statement<[string, string], number>
  private copy: {
    from: string
    keys: Statement<[number]>
    keysOne: Statement<[number]>
    bounds: Statement<[number], { lo: number | null; hi: number | null }>
    insert: Statement<[number]>
    insertOne: Statement<[number]>
    needed: Statement<[], number>
    neededDone: boolean
    removeOne: Statement<[number]>
    families: Statement<[number, number]>
    search: Statement<[number, number]> | null
    remove: Statement<[number]>
  } | null = null
  private families: Statement<[number, number]> | null = null
  /** The statements of each fill by local_id (fillSlice), by the table that notes how far it got. */
  private readonly fills = new Map<string, { after: Statement<[], number>; work: Statement<[number, number]>[]; note: Statement<[number]>; done: Statement<[]> }>()
  private ends: { until: Statement<[number, number], number | null>; first: Statement<[], number | null>; last: Statement<[], number | null> } | null = null

  constructor(private readonly db: Database) {
    this.exists = db.prepare<[string, string], number>('SELECT 1 FROM sqlite_schema WHERE type = ? AND name = ?').pluck()
  }

  /** The table migration 10 or 13 set aside with rows still to copy, or null. */
  private setAside(): string | null {
    if (this.exists.get('table', itemsBefore10) !== undefined) return itemsBefore10
    if (this.exists.get('table', itemsBefore13) !== undefined) return itemsBefore13
    return null
  }

  /** Whether migration 10 or 13 left rows to copy. */
  rowsWaiting(): boolean {
    return this.setAside() !== null
  }

  /** Rows left to copy and rows already in catalog_item_rows: a count of each table, for the progress shown. */
  rowsCounts(): { waiting: number; stored: number } {
    const aside = this.setAside()
    const waiting = aside ? (this.db.prepare<[], number>(`SELECT count(*) FROM ${aside}`).pluck().get() ?? 0) : 0
    const stored = this.db.prepare<[], number>('SELECT count(*) FROM catalog_item_rows').pluck().get() ?? 0
    return { waiting, stored }
  }

  /**
   * Copies the next `rows` rows set aside by migration 10 (made lean, with their full-text entries)
   * or 13 (as they were: their full-text entries, keyed by local_id, stayed); returns how many it
   * copied, 0 once none is left (the emptied table is then dropped).
   */
  copyRows(rows: number): number {
    const aside = this.setAside()
    if (!aside) return 0
    if (this.copy?.from !== aside) {
      const columns = this.db.prepare<[], string>(`SELECT name FROM pragma_table_info('${aside}')`).pluck().all().join(', ')
      this.copy = {
        from: aside,
        bounds: this.db.prepare(`SELECT min(local_id) AS lo, max(local_id) AS hi FROM (SELECT local_id FROM ${aside} ORDER BY local_id LIMIT ?)`),
        // With the catalog's key (migration 21), given to each catalog of the slice first, so no row is
        // written twice to get it.
        keys: this.db.prepare(`INSERT OR IGNORE INTO catalog_keys (catalog_guid) SELECT DISTINCT catalog_guid FROM ${aside} WHERE local_id <= ?`),
        keysOne: this.db.prepare(`INSERT OR IGNORE INTO catalog_keys (catalog_guid) SELECT catalog_guid FROM ${aside} WHERE local_id = ?`),
        insert: this.db.prepare(
          aside === itemsBefore10
            ? `INSERT INTO catalog_item_rows (${leanItemColumns}, catalog_key) SELECT lean.*, ${keyOf('lean')} FROM (${leanItemsSelect(aside, 'WHERE i.local_id <= ?')}) AS lean`
            : `INSERT INTO catalog_item_rows (${columns}, catalog_key) SELECT ${columns}, ${keyOf(aside)} FROM ${aside} WHERE local_id <= ?`,
        ),
        insertOne: this.db.prepare(
          aside === itemsBefore10
            ? `INSERT INTO catalog_item_rows (${leanItemColumns}, catalog_key) SELECT lean.*, ${keyOf('lean')} FROM (${leanItemsSelect(aside, 'WHERE i.local_id = ?')}) AS lean`
            : `INSERT INTO catalog_item_rows (${columns}, catalog_key) SELECT ${columns}, ${keyOf(aside)} FROM ${aside} WHERE local_id = ?`,
        ),
        needed: this.db.prepare<[], number>(`SELECT local_id FROM ${aside} WHERE guid IN (SELECT guid FROM retained_refs WHERE kind = 'catalogItem')`).pluck(),
        neededDone: false,
        removeOne: this.db.prepare(`DELETE FROM ${aside} WHERE local_id = ?`),
        families: this.db.prepare(familyColumnsFill('AND local_id BETWEEN ? AND ?')),
        search: aside === itemsBefore10 ? this.db.prepare(itemSearchFill('AND local_id BETWEEN ? AND ?')) : null,
        remove: this.db.prepare(`DELETE FROM ${aside} WHERE local_id <= ?`),
      }
    }
    const copy = this.copy
    return this.db.transaction(() => {
      // First the items drafts, quotes and the outbox name (retained_refs, local/retention.ts), so
      // checking and sending a draft finds them while the rest is copied.
      if (!copy.neededDone) {
        copy.neededDone = true
        let copied = 0
        for (const localId of copy.needed.all()) {
          copy.keysOne.run(localId)
          copied += copy.insertOne.run(localId).changes
          copy.families.run(localId, localId)
          copy.search?.run(localId, localId)
          copy.removeOne.run(localId)
        }
        if (copied > 0) return copied
      }
      const { lo, hi } = copy.bounds.get(rows) ?? { lo: null, hi: null }
      if (lo === null || hi === null) {
        this.copy = null
        this.db.exec(`DROP TABLE ${aside}`)
        return 0
      }
      copy.keys.run(hi)
      const copied = copy.insert.run(hi).changes
      copy.families.run(lo, hi)
      copy.search?.run(lo, hi)
      copy.remove.run(hi)
      return copied
    }).immediate()
  }

  /**
   * Whether migration 17 left the family columns of stored rows empty and their index unbuilt (the
   * catalog was past the limit then). A first sync defers other indexes, never this one.
   */
  familiesWaiting(): boolean {
    return this.exists.get('index', 'catalog_items_by_family') === undefined && this.exists.get('table', 'catalog_item_rows') !== undefined
  }

  /** The last local_id of catalog_item_rows: where the family fill ends. */
  lastLocalId(): number {
    return this.db.prepare<[], number | null>('SELECT max(local_id) FROM catalog_item_rows').pluck().get() ?? 0
  }

  /** Whether migration 20 left the filter rows of stored items to fill (a row of catalog_item_filters_fill says how far it got). */
  filtersWaiting(): boolean {
    return this.exists.get('table', 'catalog_item_filters_fill') !== undefined && this.db.prepare('SELECT 1 FROM catalog_item_filters_fill').get() !== undefined
  }

  /**
   * Derives the filter rows of the next `rows` items by local_id, after those filled already, and
   * notes how far it got in the same transaction, so a restart goes on from there; the last slice
   * takes the note away, which puts searches on the filter table. Items written meanwhile have
   * theirs from the triggers. Returns the local_id reached and the first and last stored, for the
   * progress shown; null when nothing was left to fill.
   */
  fillFilters(rows: number): { reached: number; first: number; last: number } | null {
    return this.fillSlice('catalog_item_filters_fill', [catalogKeysFill('', byRange), itemFiltersFill('', byRange)], rows)
  }

  /**
   * One slice of a fill that goes through the items by local_id: `work` (SQL over the range, `?` and
   * `?`) on the next `rows` items after where `table`'s one row says it has got, and that note moved
   * on, or taken away by the last slice, in the same transaction, so a restart goes on from there.
   * Returns the local_id reached and the first and last stored, for the progress shown; null when
   * nothing was left to fill.
   */
  private fillSlice(table: string, work: string[], rows: number): { reached: number; first: number; last: number } | null {
    const ends = (this.ends ??= {
      until: this.db.prepare<[number, number], number | null>('SELECT max(local_id) FROM (SELECT local_id FROM catalog_item_rows WHERE local_id > ? ORDER BY local_id LIMIT ?)').pluck(),
      first: this.db.prepare<[], number | null>('SELECT min(local_id) FROM catalog_item_rows').pluck(),
      last: this.db.prepare<[], number | null>('SELECT max(local_id) FROM catalog_item_rows').pluck(),
    })
    let fill = this.fills.get(table)
    if (!fill) {
      fill = {
        after: this.db.prepare<[], number>(`SELECT filled_until FROM ${table} LIMIT 1`).pluck(),
        work: work.map((sql) => this.db.prepare<[number, number]>(sql)),
        note: this.db.prepare<[number]>(`UPDATE ${table} SET filled_until = ?`),
        done: this.db.prepare(`DELETE FROM ${table}`),
      }
      this.fills.set(table, fill)
    }
    const { after, note, done } = fill
    const statements = fill.work
    return this.db.transaction(() => {
      const reachedBefore = after.get()
      if (reachedBefore === undefined) return null
      const until = ends.until.get(reachedBefore, rows) ?? null
      const first = ends.first.get() ?? 0
      const last = ends.last.get() ?? 0
      if (until !== null) for (const statement of statements) statement.run(reachedBefore, until)
      if (until === null || until >= last) done.run()
      else note.run(until)
      return { reached: until ?? last, first, last }
    }).immediate()
  }

  /**
   * Whether migration 21 left work: the catalog keys of rows stored before it to fill
   * (catalog_item_keys_fill), or an item index still headed by the guid. One a first sync deferred
   * meanwhile (LocalCopy.deferIndexes) is met once that sync has built it again.
   */
  keysWaiting(): boolean {
    return this.keysFillNote() !== undefined || this.guidHeadedIndex() !== null
  }

  private keysFillNote(): number | undefined {
    if (this.exists.get('table', 'catalog_item_keys_fill') === undefined) return undefined
    return this.db.prepare<[], number>('SELECT filled_until FROM catalog_item_keys_fill LIMIT 1').pluck().get()
  }

  /** An item index the catalog heads still by its guid, or null. */
  private guidHeadedIndex(): string | null {
    const definitions = this.db
      .prepare<[], { name: string; sql: string }>("SELECT name, sql FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'catalog_item_rows' ORDER BY name")
      .all()
    return definitions.find((definition) => definition.name in keyedItemIndexes && / \(catalog_guid\b/.test(definition.sql))?.name ?? null
  }

  /**
   * Gives the catalog's key to the next `rows` items by local_id (their rows grow by a byte or two),
   * noting how far it got in the same transaction; the last slice takes the note away. Returns as
   * fillFilters does; null when nothing was left to fill.
   */
  fillKeys(rows: number): { reached: number; first: number; last: number } | null {
    // Rows the copy of migration 10 or 13 wrote have theirs: read, not written again.
    const keys = `UPDATE catalog_item_rows SET catalog_key = ${keyOf('catalog_item_rows')} WHERE local_id > ? AND local_id <= ? AND catalog_key IS NULL`
    return this.fillSlice('catalog_item_keys_fill', [catalogKeysFill('', byRange), keys], rows)
  }

  /**
   * Rebuilds one item index still headed by the guid on the catalog's key, once every row has its key:
   * one transaction, which the window's own writes wait for (an index's build: about a second at a
   * million items). Every query asks how the index it walks stands (ItemIndexLayout), so each goes
   * on the new one from the commit. Returns its name, or null when none was left.
   */
  rekeyIndex(): string | null {
    if (this.keysFillNote() !== undefined) return null
    const index = this.guidHeadedIndex()
    if (!index) return null
    withIndexBuildCache(this.db, () =>
      this.db.transaction(() => {
        this.db.exec(`DROP INDEX ${index}`)
        this.db.exec(keyedItemIndexes[index]!)
      }).immediate(),
    )
    return index
  }

  /** Fills the family columns of rows with local_id in (after, until]; `last` builds the index in the same transaction. */
  fillFamilies(after: number, until: number, last: boolean, alsoRecord: () => void): void {
    const families = (this.families ??= this.db.prepare(familyColumnsFill('AND local_id > ? AND local_id <= ?')))
    this.db.transaction(() => {
      families.run(after, until)
      if (last) {
        this.db.exec(familyIndex)
        // Kept counts took members filled here for plain items; the catalog update counts them again.
        this.db.exec('DELETE FROM catalog_item_counts')
      }
      alsoRecord()
    }).immediate()
  }
}
