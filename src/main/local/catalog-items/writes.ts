/**
 * How sync writes catalog items: the insert and the guarded updates, bound by position, and the live
 * counts per catalog and category the writer keeps (catalog_item_counts). The writer thread and
 * LocalCopy use it; the screens read through reads.ts.
 */
import type { Database, Statement } from 'better-sqlite3'
import { storedItemAt, storedItemColumns, type StoredItemColumn, type StoredItemValues } from '../rows'
import { SearchIndex, type IndexedRow } from '../search-index'
import { prepareTableStatements, type TableStatements } from '../synced-table'
import { catalogItemsTable, catalogKeyOf, ItemIndexLayout, live, type CatalogHeadedIndex } from './sql'

/** The columns of catalog_item_rows that its indexes hold. */
// group_parent_id last: the family index holds it, and where an item counts (storedCountPlace) reads it.
const itemIndexedColumns: readonly StoredItemColumn[] = [
  'catalog_guid',
  'active',
  'name',
  'category_id',
  'sku',
  'id',
  'listed_run',
  'deleted_at',
  'group_parent_id',
]
/** What an item's lookup reads beside its searched text (IndexedRow.stored): its indexed columns and unlisted_at. */
const itemStoredColumns = [...itemIndexedColumns, 'unlisted_at']

/**
 * What an item update compares to tell "a different body at the same version": all but key, version and
 * bookkeeping. Nor the catalog's key: it follows catalog_guid (migration 21's trigger, when that changes).
 */
const comparedItemColumns = storedItemColumns.filter(
  (column) => !['local_id', 'guid', 'version', 'listed_run', 'synced_at', 'catalog_key'].includes(column),
)

const itemSearch = ['name', 'sku', 'upc', 'description', 'manufacturer'] as const

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
  const set = [
    ...assigned.map((column) => `${column} = ?`),
    'version = ?',
    ...(relists ? ['unlisted_at = NULL', 'listed_run = coalesce(?, listed_run)'] : []),
    'synced_at = ?',
  ]
  const bound: StoredItemColumn[] = [
    ...assigned,
    'version',
    ...(relists ? ['listed_run' as const] : []),
    'synced_at',
    'local_id',
    'version',
    'version',
    ...compared,
  ]
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
 * (DeferredItemIndexes.defer). Statements are prepared once, here: a first sync inserts thousands of
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
  private readonly countsBy = new Map<
    string,
    Statement<[string], { category_id: number | null; active: number; n: number }>
  >()
  private readonly categoryIndexed
  private readonly familyIndexed
  private membersBy: Statement<[string], { category_id: number | null; active: number; n: number }> | undefined
  /** What the writes of the current transaction add to catalog_item_counts, by catalog and category (see noteCounted). */
  private readonly pendingCounts = new Map<
    string,
    { catalogGuid: string; categoryId: number | null } & KeptCountDraft
  >()

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
    this.insertItem = db.prepare<StoredItemValues>(
      `INSERT OR FAIL INTO catalog_item_rows (${storedItemColumns.join(', ')}) VALUES (${placeholders.join(', ')})`,
    )
    this.rows = prepareTableStatements(db, catalogItemsTable)
    this.index = new SearchIndex(db, 'catalog_item_rows', 'catalog_item_search', itemSearch, itemStoredColumns)
    this.searchColumns = itemSearch.map((column) => storedItemAt[column])
    this.anyItem = db.prepare<[], number>('SELECT 1 FROM catalog_item_rows LIMIT 1').pluck()
    this.itemKeysOffTheirIds = db
      .prepare<[], [string, number]>(
        'SELECT guid, local_id FROM catalog_item_rows WHERE id IS NULL OR local_id IS NOT id',
      )
      .raw()
    this.forgetCounts = db.prepare<[string]>('DELETE FROM catalog_item_counts WHERE catalog_guid = ?')
    this.saveCount = db.prepare<[string, number | null, number, number, number, number]>(
      'INSERT INTO catalog_item_counts (catalog_guid, category_id, live, active, members_live, members_active) VALUES (?, ?, ?, ?, ?, ?)',
    )
    this.countedCatalogs = db.prepare<[], string>('SELECT DISTINCT catalog_guid FROM catalog_item_counts').pluck()
    this.isCounted = db
      .prepare<[string], number>('SELECT 1 FROM catalog_item_counts WHERE catalog_guid = ? LIMIT 1')
      .pluck()
    this.addToCount = db.prepare<[number, number, number, number, string, number | null]>(
      'UPDATE catalog_item_counts SET live = live + ?, active = active + ?, members_live = members_live + ?, members_active = members_active + ? WHERE catalog_guid = ? AND category_id IS ?',
    )
    this.keptLive = db
      .prepare<[string], number | null>('SELECT sum(live) FROM catalog_item_counts WHERE catalog_guid = ?')
      .pluck()
    this.categoryIndexed = db
      .prepare<[], number>("SELECT 1 FROM sqlite_schema WHERE type = 'index' AND name = 'catalog_items_by_category'")
      .pluck()
    this.familyIndexed = db
      .prepare<[], number>("SELECT 1 FROM sqlite_schema WHERE type = 'index' AND name = 'catalog_items_by_family'")
      .pluck()
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
            for (const [categoryId, count] of counts)
              this.saveCount.run(
                catalogGuid,
                categoryId,
                count.live,
                count.active,
                count.membersLive,
                count.membersActive,
              )
            return true
          })
          .immediate()
        if (written) break
      }
    }
    const live = new Set(liveCatalogs)
    const gone = this.countedCatalogs.all().filter((catalogGuid) => !live.has(catalogGuid))
    if (gone.length > 0)
      this.db.transaction(() => gone.forEach((catalogGuid) => this.forgetCounts.run(catalogGuid))).immediate()
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
      statements = prepareTableStatements(this.db, catalogItemsTable, {
        scope: scope('catalog_items_by_listing'),
        liveScope: scope('catalog_items_by_name'),
      })
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
  const [catalogGuid, active, , categoryId, , , , , parent] = row.stored as [
    string,
    number,
    string,
    number | null,
    string,
    number,
    number,
    string,
    number | null,
  ]
  return [catalogGuid, categoryId, active, (parent ?? 0) > 0]
}

/** Where an item about to be written counts, by its values (see storedCountPlace). */
export function valuesCountPlace(values: StoredItemValues): [string, number | null, number, boolean] {
  const parent = values[storedItemAt.group_parent_id] as number | null
  return [
    values[storedItemAt.catalog_guid] as string,
    values[storedItemAt.category_id] as number | null,
    values[storedItemAt.active] as number,
    (parent ?? 0) > 0,
  ]
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
