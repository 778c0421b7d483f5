/**
 * Writes what sync fetched into the local store. Every page is one short transaction: its rows, the
 * categories they carry, and the note that the page is done, so an interrupted run resumes where it
 * stopped and the renderer can read between pages. After a full listing, rows it did not see are
 * pruned. Records become column values in rows.ts; runs, pages and cursors are kept in sync-state.ts.
 */
import type { Database, Statement } from 'better-sqlite3'
import type { CustomerConnection } from '../ordering-client/client'
import type { CatalogItemRecord, CatalogRecord, CategoryRecord, OrderRecord } from '../ordering-client/schemas'
import type { RetainableKind, Retention } from './retention'
import {
  catalogRow,
  categoryRow,
  customerRow,
  orderRow,
  priceGroupProblem,
  priceGroupRow,
  storedItemAt,
  storedItemColumns,
  type GuidLookup,
  type StoredItemColumn,
  type StoredItemValues,
} from './rows'
import { prepareItemPage, type PreparedItemPage } from './item-page'
import { SearchIndex, type IndexedRow } from './search-index'
import { SyncState } from './sync-state'

export interface ApplyCounts {
  /** Rows received. */
  fetched: number
  /** Rows written live: new, or newer than the local copy. */
  upserted: number
  /** Rows that left the live views: tombstones applied and rows a full listing no longer had. */
  deleted: number
  /** Rows refused as impossible (a negative or non-finite price, a bad key…); their local copy is kept. Absent when none. */
  rejected?: number
  /** Why rows were refused, `guid: reason`, the first few only; absent when none. */
  rejections?: string[]
}

/** How many refusal reasons counts carry: enough to log, not a copy of a bad page. */
const MAX_REJECTIONS_KEPT = 20

export function emptyCounts(): ApplyCounts {
  return { fetched: 0, upserted: 0, deleted: 0 }
}

export function addCounts(into: ApplyCounts, more: ApplyCounts): ApplyCounts {
  into.fetched += more.fetched
  into.upserted += more.upserted
  into.deleted += more.deleted
  if (more.rejected) into.rejected = (into.rejected ?? 0) + more.rejected
  if (more.rejections?.length) into.rejections = [...(into.rejections ?? []), ...more.rejections].slice(0, MAX_REJECTIONS_KEPT)
  return into
}

export interface ApplyContext {
  /** The full listing this page belongs to, or null for a delta page. */
  listingId: number | null
  /** The service's serverTimestamp on this page. */
  serverTime: string | null
  /** Record the page as done for the unfinished run of this scope, in the same transaction. */
  page?: { scope: string; page: number }
  /**
   * The scope had no local rows when its listing began (a first sync of it): rows are inserted without
   * looking for a local copy first, and the table's secondary indexes wait until finishBulk.
   */
  fresh?: boolean
}

interface SyncedTable {
  table: string
  kind: RetainableKind | null
  /** Column that limits a listing's scope (catalog items and categories belong to one catalog). */
  scopeColumn: string | null
  /** Whether the table has unlisted_at (rows kept for drafts); categories and orders do not. */
  retainable: boolean
  /** A partial index over exactly the live rows, so counting them reads the index alone. */
  liveIndex?: string
}

const tables = {
  catalogs: { table: 'catalogs', kind: 'catalog', scopeColumn: null, retainable: true },
  priceGroups: { table: 'price_groups', kind: 'priceGroup', scopeColumn: null, retainable: true },
  categories: { table: 'categories', kind: null, scopeColumn: 'catalog_guid', retainable: false },
  catalogItems: { table: 'catalog_item_rows', kind: 'catalogItem', scopeColumn: 'catalog_guid', retainable: true, liveIndex: 'catalog_items_by_name' },
  customers: { table: 'customers', kind: 'customer', scopeColumn: null, retainable: true, liveIndex: 'customers_by_name' },
  orders: { table: 'orders', kind: null, scopeColumn: null, retainable: false },
} as const satisfies Record<string, SyncedTable>

export type SyncedTableName = keyof typeof tables

/**
 * The item indexes whose keys a listing meets in random order (guid, name, category, SKU). by_id and
 * by_listing stay: a listing's rows arrive in id order with one listing id, so each of their entries
 * lands at the end, as cheap as the table's own.
 */
const deferrable = new Set(['catalog_items_by_guid', 'catalog_items_by_name', 'catalog_items_by_category', 'catalog_items_by_sku'])

/** The columns of catalog_item_rows that its indexes hold. */
const itemIndexedColumns: readonly StoredItemColumn[] = ['catalog_guid', 'active', 'name', 'category_id', 'sku', 'id', 'listed_run', 'deleted_at']
/** What an item's lookup reads beside its searched text (IndexedRow.stored): its indexed columns and unlisted_at. */
const itemStoredColumns = [...itemIndexedColumns, 'unlisted_at']

/** What an item update compares to tell "a different body at the same version": all but key, version and bookkeeping. */
const comparedItemColumns = storedItemColumns.filter((column) => !['local_id', 'guid', 'version', 'listed_run', 'synced_at'].includes(column))

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
  const statement = db.prepare<unknown[]>(`
    UPDATE catalog_item_rows SET ${set.join(', ')}
    WHERE local_id = ? AND (? > version OR (? = version AND
      (${compared.map(() => '?').join(', ')}) IS NOT (${compared.join(', ')})))`)
  return { statement, binding: bound.map((column) => storedItemAt[column]) }
}

/**
 * SQLite page cache during a sync, in KiB (negative: a size, not a page count). 24 MB once kept a
 * first sync's indexes in memory while rows arrived in random order for each; those indexes now wait
 * until the last catalog (deferIndexes), and at 16 MB the bench's first sync ran at the same rate
 * with a peak RSS 10-20 MB lower (the cache fills to its limit, all of it resident).
 */
const bulkCacheSize = -16_384

/** Newer version wins; at the same version a different body wins too (the service may stamp seconds only). */
function upsertGuard(table: string): string {
  return `WHERE excluded.version > ${table}.version OR (excluded.version = ${table}.version AND excluded.json <> ${table}.json)`
}

interface TableStatements {
  markListed: Statement<[number, string]>
  clearUnlisted: Statement<[string]> | null
  /** markListed and clearUnlisted by local_id, for a row already found (an item's guid may have no index yet). */
  markListedKey: Statement<[number, number]>
  clearUnlistedKey: Statement<[number]> | null
  candidates: Statement<unknown[], { local_id: number; guid: string; live: number }>
  lastLocalId: Statement<[], number | null>
  remove: Statement<[number]>
  flag: Statement<[string, number]> | null
  countListedLive: Statement<unknown[], { n: number }>
  anyRow: Statement<unknown[], unknown>
  /** Prepared on first use: the index it names may be deferred (deferIndexes) when this store is made. */
  countLive: () => Statement<unknown[], { n: number }>
  /** countLive without naming the index, while a first sync has it deferred. */
  countLiveUnindexed: Statement<unknown[], { n: number }>
}

/** A mapped row (rows.ts) as applyRow needs it: its guid, tombstone and listing beside the other columns. */
type MappedRow = Record<string, unknown> & { guid: string; deleted_at: string | null; listed_run: number | null }

/**
 * The rows sync applies and prunes, on top of the run and page bookkeeping it inherits (SyncState,
 * sync-state.ts), which a page's transaction writes along with the page's rows.
 */
export class LocalCopy extends SyncState {
  private readonly upsertCatalog
  private readonly upsertPriceGroup
  private readonly upsertCategory
  private readonly updateItem
  private readonly insertItem
  private readonly upsertCustomer
  private readonly upsertOrder
  private readonly guids: GuidLookup
  private readonly statements = new Map<SyncedTableName, TableStatements>()
  private readonly indexes = new Map<SyncedTableName, SearchIndex>()
  private readonly markCategoryListed
  private readonly indexExists
  private readonly secondaryIndexes
  private readonly saveDeferred
  private readonly deferredIndexes
  private readonly forgetDeferred
  /** Categories as last written by this store, per catalog and id (see applyCategoryRow). */
  private readonly categoriesWritten = new Map<string, string>()
  /**
   * While a first sync has the item indexes deferred (guid's among them): each item's local_id by
   * guid, everything the table holds, so finding a row never scans it. Null otherwise.
   */
  private itemKeys: Map<string, number> | null = null
  private readonly updateItemUnindexed
  /** Where the full-text index's columns sit in StoredItemValues. */
  private readonly itemSearchColumns: number[]
  private readonly anyItem
  private readonly allItemKeys
  private readonly liveCatalogs
  private readonly deleteCategoriesOf

  constructor(
    db: Database,
    private readonly retention: Retention,
  ) {
    super(db)
    this.upsertCatalog = db.prepare(`
      INSERT INTO catalogs (guid, id, name, active, version, updated_at, deleted_at, unlisted_at, listed_run, json)
      VALUES (@guid, @id, @name, @active, @version, @updated_at, @deleted_at, NULL, @listed_run, @json)
      ON CONFLICT (guid) DO UPDATE SET id = excluded.id, name = excluded.name, active = excluded.active,
        version = excluded.version, updated_at = excluded.updated_at, deleted_at = excluded.deleted_at, unlisted_at = NULL,
        listed_run = coalesce(excluded.listed_run, catalogs.listed_run), json = excluded.json
      ${upsertGuard('catalogs')}`)
    this.upsertPriceGroup = db.prepare(`
      INSERT INTO price_groups (guid, id, catalog_guid, name, is_main, version, updated_at, deleted_at, unlisted_at, listed_run, json)
      VALUES (@guid, @id, @catalog_guid, @name, @is_main, @version, @updated_at, @deleted_at, NULL, @listed_run, @json)
      ON CONFLICT (guid) DO UPDATE SET id = excluded.id, catalog_guid = excluded.catalog_guid, name = excluded.name,
        is_main = excluded.is_main, version = excluded.version, updated_at = excluded.updated_at, deleted_at = excluded.deleted_at,
        unlisted_at = NULL, listed_run = coalesce(excluded.listed_run, price_groups.listed_run), json = excluded.json
      ${upsertGuard('price_groups')}`)
    this.upsertCategory = db.prepare(`
      INSERT INTO categories (catalog_guid, id, guid, parent_id, name, sequence, hidden, version, deleted_at, listed_run, json)
      VALUES (@catalog_guid, @id, @guid, @parent_id, @name, @sequence, @hidden, @version, @deleted_at, @listed_run, @json)
      ON CONFLICT (catalog_guid, id) DO UPDATE SET guid = excluded.guid, parent_id = excluded.parent_id, name = excluded.name,
        sequence = excluded.sequence, hidden = excluded.hidden, version = excluded.version, deleted_at = excluded.deleted_at,
        listed_run = coalesce(excluded.listed_run, categories.listed_run), json = excluded.json
      ${upsertGuard('categories')}`)
    // Items are bound by position (storedItemValues: what the writer thread is posted), and found by
    // local_id, not ON CONFLICT (guid): the guid index may wait for the end of a first sync (deferIndexes).
    this.insertItem = db.prepare<StoredItemValues>(
      `INSERT INTO catalog_item_rows (${storedItemColumns.join(', ')}) VALUES (${storedItemColumns.map(() => '?').join(', ')})`,
    )
    // SQLite rewrites the entry of every index whose column an UPDATE assigns, changed or not: for a
    // delta of stock and prices that was six random index entries a row (0.5 ms a row at 100,000 items),
    // so a row whose indexed columns stay as stored takes an update that does not name them.
    this.updateItem = prepareItemUpdate(db, comparedItemColumns, true)
    this.updateItemUnindexed = prepareItemUpdate(db, comparedItemColumns.filter((column) => !itemIndexedColumns.includes(column)), false)
    this.upsertCustomer = db.prepare(`
      INSERT INTO customers (guid, id, name, customer_internal_id, email, phone, city, state, active, price_group_id,
        lock_catalog_id, require_po, hide_pricing, version, updated_at, deleted_at, unlisted_at, listed_run, json, connection_json)
      VALUES (@guid, @id, @name, @customer_internal_id, @email, @phone, @city, @state, @active, @price_group_id,
        @lock_catalog_id, @require_po, @hide_pricing, @version, @updated_at, @deleted_at, NULL, @listed_run, @json, @connection_json)
      ON CONFLICT (guid) DO UPDATE SET id = excluded.id, name = excluded.name, customer_internal_id = excluded.customer_internal_id,
        email = excluded.email, phone = excluded.phone, city = excluded.city, state = excluded.state, active = excluded.active,
        price_group_id = excluded.price_group_id, lock_catalog_id = excluded.lock_catalog_id, require_po = excluded.require_po,
        hide_pricing = excluded.hide_pricing, version = excluded.version, updated_at = excluded.updated_at,
        deleted_at = excluded.deleted_at, unlisted_at = NULL, listed_run = coalesce(excluded.listed_run, customers.listed_run),
        json = excluded.json, connection_json = excluded.connection_json
      ${upsertGuard('customers')}`)
    this.upsertOrder = db.prepare(`
      INSERT INTO orders (guid, id, name, api_guid, customer_guid, customer_id, catalog_guid, catalog_id, order_state_id,
        order_state_name, po_no, sub_total, grand_total, created_at, created_ms, version, updated_at, deleted_at, listed_run, json)
      VALUES (@guid, @id, @name, @api_guid, @customer_guid, @customer_id, @catalog_guid, @catalog_id, @order_state_id,
        @order_state_name, @po_no, @sub_total, @grand_total, @created_at, @created_ms, @version, @updated_at, @deleted_at,
        @listed_run, @json)
      ON CONFLICT (guid) DO UPDATE SET id = excluded.id, name = excluded.name, api_guid = excluded.api_guid,
        customer_guid = coalesce(excluded.customer_guid, orders.customer_guid), customer_id = excluded.customer_id,
        catalog_guid = coalesce(excluded.catalog_guid, orders.catalog_guid), catalog_id = excluded.catalog_id,
        order_state_id = excluded.order_state_id, order_state_name = excluded.order_state_name, po_no = excluded.po_no,
        sub_total = excluded.sub_total, grand_total = excluded.grand_total, created_at = excluded.created_at,
        created_ms = excluded.created_ms, version = excluded.version, updated_at = excluded.updated_at,
        deleted_at = excluded.deleted_at, listed_run = coalesce(excluded.listed_run, orders.listed_run), json = excluded.json
      ${upsertGuard('orders')}`)
    const customerIdToGuid = db.prepare<[number], string>('SELECT guid FROM customers WHERE id = ?').pluck()
    const catalogIdToGuid = db.prepare<[number], string>('SELECT guid FROM catalogs WHERE id = ?').pluck()
    this.guids = { customer: (id) => customerIdToGuid.get(id) ?? null, catalog: (id) => catalogIdToGuid.get(id) ?? null }

    const itemSearch = ['name', 'sku', 'upc', 'description', 'manufacturer'] as const
    this.indexes.set('catalogItems', new SearchIndex(db, 'catalog_item_rows', 'catalog_item_search', itemSearch, itemStoredColumns))
    this.itemSearchColumns = itemSearch.map((column) => storedItemAt[column])
    this.indexes.set('customers', new SearchIndex(db, 'customers', 'customer_search', ['name', 'customer_internal_id', 'email', 'city']))

    for (const [name, spec] of Object.entries(tables) as [SyncedTableName, SyncedTable][]) {
      const scoped = spec.scopeColumn ? `${spec.scopeColumn} = @scope AND` : ''
      const unlisted = spec.retainable ? 'AND unlisted_at IS NULL' : ''
      this.statements.set(name, {
        markListed: db.prepare(`UPDATE ${spec.table} SET listed_run = ? WHERE guid = ?`),
        clearUnlisted: spec.retainable ? db.prepare(`UPDATE ${spec.table} SET unlisted_at = NULL WHERE guid = ? AND unlisted_at IS NOT NULL`) : null,
        markListedKey: db.prepare(`UPDATE ${spec.table} SET listed_run = ? WHERE local_id = ?`),
        clearUnlistedKey: spec.retainable ? db.prepare(`UPDATE ${spec.table} SET unlisted_at = NULL WHERE local_id = ? AND unlisted_at IS NOT NULL`) : null,
        // A bounded range of rowids per call, so no single statement scans a 100,000-row table.
        candidates: db.prepare(
          `SELECT local_id, guid, (deleted_at IS NULL ${unlisted}) AS live FROM ${spec.table}
           WHERE local_id > @after AND local_id <= @until AND ${scoped} (listed_run IS NULL OR listed_run <> @listing) ORDER BY local_id`,
        ),
        lastLocalId: db.prepare<[], number | null>(`SELECT max(local_id) FROM ${spec.table}`).pluck(),
        remove: db.prepare(`DELETE FROM ${spec.table} WHERE local_id = ?`),
        flag: spec.retainable ? db.prepare(`UPDATE ${spec.table} SET unlisted_at = ? WHERE local_id = ? AND unlisted_at IS NULL`) : null,
        countListedLive: db.prepare(`SELECT count(*) AS n FROM ${spec.table} WHERE ${scoped} listed_run = @listing AND deleted_at IS NULL`),
        anyRow: db.prepare(`SELECT 1 FROM ${spec.table} WHERE ${spec.scopeColumn ? `${spec.scopeColumn} = @scope` : '1'} LIMIT 1`),
        countLive: lazily(() =>
          db.prepare<unknown[], { n: number }>(
            `SELECT count(*) AS n FROM ${spec.table} ${spec.liveIndex ? `INDEXED BY ${spec.liveIndex}` : ''} WHERE ${scoped} deleted_at IS NULL ${unlisted}`,
          ),
        ),
        countLiveUnindexed: db.prepare(`SELECT count(*) AS n FROM ${spec.table} WHERE ${scoped} deleted_at IS NULL ${unlisted}`),
      })
    }

    this.indexExists = db.prepare<[string], number>("SELECT 1 FROM sqlite_schema WHERE type = 'index' AND name = ?").pluck()
    this.secondaryIndexes = db.prepare<[string], { name: string; sql: string }>(
      "SELECT name, sql FROM sqlite_schema WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL",
    )
    this.saveDeferred = db.prepare<[string, string]>('INSERT OR REPLACE INTO deferred_indexes (name, sql) VALUES (?, ?)')
    this.deferredIndexes = db.prepare<[], { name: string; sql: string }>('SELECT name, sql FROM deferred_indexes ORDER BY name')
    this.forgetDeferred = db.prepare<[string]>('DELETE FROM deferred_indexes WHERE name = ?')
    this.markCategoryListed = db.prepare<[number, string, number]>('UPDATE categories SET listed_run = ? WHERE catalog_guid = ? AND id = ?')
    this.liveCatalogs = db.prepare<[], string>('SELECT guid FROM catalogs WHERE deleted_at IS NULL AND unlisted_at IS NULL ORDER BY name, guid').pluck()
    this.deleteCategoriesOf = db.prepare<[string]>('DELETE FROM categories WHERE catalog_guid = ?')
    this.anyItem = db.prepare<[], number>('SELECT 1 FROM catalog_item_rows LIMIT 1').pluck()
    this.allItemKeys = db.prepare<[], [string, number]>('SELECT guid, local_id FROM catalog_item_rows').raw()
  }

  private table(name: SyncedTableName): TableStatements {
    const statements = this.statements.get(name)
    if (!statements) throw new Error(`no statements for ${name}`)
    return statements
  }

  /**
   * Runs one upsert (which writes only a newer version), keeps the search index in step and counts
   * the row: fetched, and upserted or deleted when it was written. In a full listing the row is
   * marked seen even when the local copy was already current, and a row kept unlisted for a draft
   * becomes live again.
   */
  private applyRow(
    counts: ApplyCounts,
    name: SyncedTableName,
    statement: Statement,
    row: MappedRow,
    deleted = Boolean(row.deleted_at),
  ): void {
    counts.fetched++
    const listingId = row.listed_run
    const index = this.indexes.get(name)
    const before = index?.find(row.guid)
    const result = statement.run(row)
    if (result.changes > 0) {
      if (index) {
        if (before) index.drop(before)
        if (row.deleted_at === null) index.add(before?.localId ?? Number(result.lastInsertRowid), index.valuesOf(row))
      }
      if (deleted) counts.deleted++
      else counts.upserted++
      return
    }
    if (listingId !== null) this.markSeen(name, row.guid, listingId, before)
  }

  /** A row the listing saw whose local copy stays as it is: marked listed, and live again if it was kept unlisted for a draft. */
  private markSeen(name: SyncedTableName, guid: string, listingId: number, before = this.findIndexed(name, guid)): void {
    const table = this.table(name)
    const index = this.indexes.get(name)
    if (!index) {
      table.markListed.run(listingId, guid)
      table.clearUnlisted?.run(guid)
      return
    }
    if (!before) return
    table.markListedKey.run(listingId, before.localId)
    if (before.unlisted) {
      table.clearUnlistedKey?.run(before.localId)
      if (!before.deleted) index.add(before.localId, before.values)
    }
  }

  /** A row of a table with a search index, found by guid: through itemKeys while the guid index waits. */
  private findIndexed(name: SyncedTableName, guid: string): IndexedRow | undefined {
    const index = this.indexes.get(name)
    if (!index) return undefined
    if (name !== 'catalogItems' || !this.itemKeys) return index.find(guid)
    const localId = this.itemKeys.get(guid)
    return localId === undefined ? undefined : index.findByLocalId(localId)
  }

  /**
   * A row refused as impossible: nothing of it is written, so nothing is priced from it, and its
   * reason goes back with the counts, for the engine to log. The last good local copy stays; a full
   * listing counts it as seen, so the prune that follows does not remove it for having been refused.
   */
  private reject(counts: ApplyCounts, name: SyncedTableName, guid: string, reason: string, listingId: number | null): void {
    counts.fetched++
    counts.rejected = (counts.rejected ?? 0) + 1
    const rejections = (counts.rejections ??= [])
    if (rejections.length < MAX_REJECTIONS_KEPT) rejections.push(`${guid}: ${reason}`)
    if (listingId !== null) this.markSeen(name, guid, listingId)
  }

  /** One page as one transaction: its rows, then the note that the page is done. */
  private applyPage(context: ApplyContext, applyRows: (counts: ApplyCounts) => void): ApplyCounts {
    const counts = emptyCounts()
    this.db.transaction(() => {
      applyRows(counts)
      if (context.page) this.recordPageDone(context.page.scope, context.page.page)
    }).immediate()
    return counts
  }

  /** Catalogs with their nested price groups, as one transaction (the list is small and has no pages). */
  applyCatalogs(catalogs: CatalogRecord[], context: ApplyContext): { catalogs: ApplyCounts; priceGroups: ApplyCounts } {
    const priceGroups = emptyCounts()
    const catalogCounts = this.applyPage(context, (counts) => {
      for (const catalog of catalogs) {
        const deleted = Boolean(catalog.deleted_at)
        this.applyRow(counts, 'catalogs', this.upsertCatalog, catalogRow(catalog, context.listingId))
        for (const group of catalog.Price_Groups ?? []) {
          const problem = priceGroupProblem(group)
          if (problem) {
            this.reject(priceGroups, 'priceGroups', group.guid, problem, context.listingId)
            continue
          }
          const row = priceGroupRow(catalog.guid, group, context.listingId)
          // A group of a deleted catalog counts as deleted with it.
          this.applyRow(priceGroups, 'priceGroups', this.upsertPriceGroup, row, Boolean(group.deleted_at) || deleted)
        }
      }
    })
    return { catalogs: catalogCounts, priceGroups }
  }

  /**
   * One page of a catalog's items, with the categories they carry. Each item is checked here (the page
   * check saw only its guid): an impossible one is refused on its own and the rest are applied.
   */
  applyCatalogItems(catalogGuid: string, items: CatalogItemRecord[], context: ApplyContext): ApplyCounts {
    return this.applyItemPage(prepareItemPage(catalogGuid, items, context.listingId, context.serverTime), context)
  }

  /** A page prepared by prepareItemPage (item-page.ts), with the same context it was prepared with. */
  applyItemPage(page: PreparedItemPage, context: ApplyContext): ApplyCounts {
    if (context.fresh) this.deferIndexes('catalogItems')
    return this.applyPage(context, (counts) => {
      for (const { guid, reason } of page.rejected) this.reject(counts, 'catalogItems', guid, reason, context.listingId)
      for (const values of page.items) this.applyItem(counts, values)
      // Many items share a category: each is written once per page, its newest version.
      for (const category of page.categories) this.applyCategoryRow(page.catalogGuid, category, context.listingId)
    })
  }

  /**
   * One item, as applyRow does for the other tables but found by guid through findIndexed and written
   * by local_id: the row is updated when this version is newer (or differs at the same version),
   * inserted when there is none, and marked seen otherwise.
   */
  private applyItem(counts: ApplyCounts, values: StoredItemValues): void {
    const index = this.indexes.get('catalogItems')!
    const guid = values[storedItemAt.guid] as string
    const live = values[storedItemAt.deleted_at] === null
    const before = this.findIndexed('catalogItems', guid)
    counts.fetched++
    if (before) {
      const keyed = values.slice()
      keyed[storedItemAt.local_id] = before.localId
      const { statement, binding } = keepsIndexedColumns(before, values) ? this.updateItemUnindexed : this.updateItem
      if (statement.run(binding.map((position) => keyed[position])).changes === 0) {
        const listingId = values[storedItemAt.listed_run] as number | null
        if (listingId !== null) this.markSeen('catalogItems', guid, listingId, before)
        return
      }
      // Most changes are stock and prices: a row whose searched text is as indexed keeps its entry.
      const searched = live ? this.searchedValues(values) : null
      if (!searched || !before.indexed || !sameValues(before.values, searched)) {
        index.drop(before)
        if (searched) index.add(before.localId, searched)
      }
    } else {
      const localId = Number(insertKeyed(this.insertItem, values).lastInsertRowid)
      this.itemKeys?.set(guid, localId)
      if (live) index.add(localId, this.searchedValues(values))
    }
    if (live) counts.upserted++
    else counts.deleted++
  }

  /** What the full-text index holds of an item, from its column values. */
  private searchedValues(values: StoredItemValues): unknown[] {
    return this.itemSearchColumns.map((position) => values[position] ?? null)
  }

  /**
   * Every page of a listing carries the same few categories again (on each item, and in each
   * hierarchy): one this listing already wrote as it is now is not written again. Only within a
   * listing, which prunes its categories after its last page; a delta writes what it carries.
   */
  private applyCategoryRow(catalogGuid: string, category: CategoryRecord, listingId: number | null): void {
    const key = `${catalogGuid}\u0000${category.id}`
    const seen = listingId === null ? null : `${listingId}\u0000${JSON.stringify(category)}`
    if (seen !== null && this.categoriesWritten.get(key) === seen) return
    const applied = this.upsertCategory.run(categoryRow(catalogGuid, category, listingId)).changes > 0
    if (!applied && listingId !== null) this.markCategoryListed.run(listingId, catalogGuid, category.id)
    if (seen !== null) this.categoriesWritten.set(key, seen)
  }

  /** One page of the customer list. */
  applyCustomers(rows: CustomerConnection[], context: ApplyContext): ApplyCounts {
    return this.applyPage(context, (counts) => {
      for (const row of rows) this.applyRow(counts, 'customers', this.upsertCustomer, customerRow(row, context.listingId))
    })
  }

  /** One page of orders (the list's reduced projection, or a full order from create or read). */
  applyOrders(orders: OrderRecord[], context: ApplyContext): ApplyCounts {
    return this.applyPage(context, (counts) => {
      for (const order of orders) this.applyRow(counts, 'orders', this.upsertOrder, orderRow(order, context.listingId, this.guids))
    })
  }

  /**
   * After a complete full listing: rows of the scope the listing did not see are removed, except those
   * a draft or outbox entry still needs, which are flagged unlisted instead. This call handles rows
   * with local_id in (after, after + span] in one short transaction and returns where to go on from,
   * or null when the table is done, so the caller can let the event loop breathe in between.
   */
  pruneUnlistedChunk(
    name: SyncedTableName,
    scope: string | null,
    listingId: number,
    serverTime: string | null,
    after: number,
    span = 2000,
  ): { counts: ApplyCounts; next: number | null } {
    const spec: SyncedTable = tables[name]
    const statements = this.table(name)
    const counts = emptyCounts()
    const last = statements.lastLocalId.get() ?? 0
    if (after >= last) return { counts, next: null }
    const until = after + span
    const batch = statements.candidates.all({ scope, listing: listingId, after, until })
    if (batch.length > 0) {
      const flaggedAt = serverTime ?? new Date(0).toISOString()
      const kept = spec.kind ? this.retention.retained(spec.kind, batch.map((row) => row.guid)) : new Set<string>()
      const index = this.indexes.get(name)
      this.db.transaction(() => {
        for (const row of batch) {
          const indexed = row.live && index ? index.findByLocalId(row.local_id) : undefined
          if (kept.has(row.guid)) {
            if (row.live && statements.flag && statements.flag.run(flaggedAt, row.local_id).changes > 0) {
              if (indexed) index?.drop(indexed)
              counts.deleted++
            }
          } else {
            if (indexed) index?.drop(indexed)
            statements.remove.run(row.local_id)
            if (name === 'catalogItems') this.itemKeys?.delete(row.guid)
            if (row.live) counts.deleted++
          }
        }
      }).immediate()
    }
    return { counts, next: until >= last ? null : until }
  }

  /** The whole of pruneUnlistedChunk at once, for small tables. */
  pruneUnlisted(name: SyncedTableName, scope: string | null, listingId: number, serverTime: string | null): ApplyCounts {
    const counts = emptyCounts()
    for (let after: number | null = 0; after !== null; ) {
      const chunk = this.pruneUnlistedChunk(name, scope, listingId, serverTime, after)
      addCounts(counts, chunk.counts)
      after = chunk.next
    }
    return counts
  }

  /** Rows of a scope that the listing saw and that are not soft-deleted. */
  countListedLive(name: SyncedTableName, scope: string | null, listingId: number): number {
    return this.table(name).countListedLive.get({ scope, listing: listingId })?.n ?? 0
  }

  countLive(name: SyncedTableName, scope: string | null): number {
    const spec: SyncedTable = tables[name]
    const statements = this.table(name)
    const statement = spec.liveIndex && !this.indexExists.get(spec.liveIndex) ? statements.countLiveUnindexed : statements.countLive()
    return statement.get({ scope })?.n ?? 0
  }

  /** Rows of a scope stored locally in any state: none means a listing of it is its first. */
  hasRows(name: SyncedTableName, scope: string | null): boolean {
    return this.table(name).anyRow.get({ scope }) !== undefined
  }

  /**
   * A first sync inserts a table's rows while its indexes would otherwise be updated row by row, in an
   * order that is random for each of them: measured, three such indexes halved the insert rate, and
   * the guid index alone cost a sixth of the writer's time. They are dropped for the first sync of
   * catalog_item_rows and built once, sorted, after the run's last catalog (finishBulk); meanwhile
   * this store finds items by guid in itemKeys. Their definitions wait in deferred_indexes (migration
   * 10) so a crash or a lost network only postpones the rebuild: a later store that meets them takes
   * the deferral over and reads itemKeys from the table. A catalog that is new to a laptop already
   * holding items keeps the indexes (the window reads through them meanwhile). The full-text index
   * stays: items are searchable as their pages land.
   */
  private deferIndexes(name: SyncedTableName): void {
    if (name !== 'catalogItems' || this.itemKeys) return
    if (this.deferredIndexes.all().length === 0 && this.anyItem.get() !== undefined) return
    this.db.transaction(() => {
      for (const index of this.secondaryIndexes.all(tables.catalogItems.table)) {
        if (!deferrable.has(index.name)) continue
        this.saveDeferred.run(index.name, index.sql)
        this.db.exec(`DROP INDEX ${index.name}`)
      }
    }).immediate()
    this.itemKeys = new Map(this.allItemKeys.all())
  }

  /** Builds every index a first sync deferred (see deferIndexes); true when there were any. */
  finishBulk(): boolean {
    const waiting = this.deferredIndexes.all()
    this.itemKeys = null
    if (waiting.length === 0) return false
    // One transaction an index: another connection's write waits for one index's build (a few hundred
    // milliseconds at 100,000 items), not for all of them.
    for (const index of waiting) {
      this.db.transaction(() => {
        if (!this.indexExists.get(index.name)) this.buildDeferred(index.sql)
        this.forgetDeferred.run(index.name)
      }).immediate()
    }
    return true
  }

  /**
   * One deferred index. The writer keeps guids unique through itemKeys, but another connection may
   * have written an item meanwhile without knowing them (the order desk refreshing a draft's items
   * mid-sync): should the guid index find two rows of one guid, the newest version stays.
   */
  private buildDeferred(sql: string): void {
    try {
      this.db.exec(sql)
    } catch (error) {
      if ((error as { code?: unknown })?.code !== 'SQLITE_CONSTRAINT_UNIQUE' || !sql.includes('catalog_items_by_guid')) throw error
      this.removeDuplicateItems()
      this.db.exec(sql)
    }
  }

  private removeDuplicateItems(): void {
    const index = this.indexes.get('catalogItems')!
    const extra = this.db
      .prepare<[], number>(
        `SELECT local_id FROM (
           SELECT local_id, row_number() OVER (PARTITION BY guid ORDER BY version DESC, local_id DESC) AS rank FROM catalog_item_rows
         ) WHERE rank > 1`,
      )
      .pluck()
      .all()
    for (const localId of extra) {
      const row = index.findByLocalId(localId)
      if (row) index.drop(row)
      this.table('catalogItems').remove.run(localId)
    }
  }

  /** The items and categories of a catalog that is gone, keeping items a draft still needs (flagged). */
  removeCatalogContents(catalogGuid: string, serverTime: string | null): ApplyCounts {
    // Listing id 0 is never issued (AUTOINCREMENT starts at 1), so every row is a candidate.
    const counts = this.pruneUnlisted('catalogItems', catalogGuid, 0, serverTime)
    this.deleteCategoriesOf.run(catalogGuid)
    return counts
  }

  /**
   * Settings for the length of a sync run; returns the function that restores the previous ones.
   * Checkpoints come four times as often and each is a quarter the size: the checkpoint (with its
   * fsync) runs inside whichever commit crosses the threshold, and at the default of 1,000 pages it
   * held the event loop for 30-100 ms. A larger page cache (bulkCacheSize) keeps the indexes a
   * delta or a new catalog updates in place in memory.
   */
  beginBulkWrite(): () => void {
    const checkpointPages = this.db.pragma('wal_autocheckpoint', { simple: true }) as number
    const cacheSize = this.db.pragma('cache_size', { simple: true }) as number
    this.db.pragma('wal_autocheckpoint = 250')
    this.db.pragma(`cache_size = ${bulkCacheSize}`)
    return () => {
      this.db.pragma(`wal_autocheckpoint = ${checkpointPages}`)
      this.db.pragma(`cache_size = ${cacheSize}`)
    }
  }

  /**
   * For the length of a sync whose pages another connection writes (the writer thread): this
   * connection stops checkpointing; returns the function that restores it. Its own commits during a
   * sync are small (run bookkeeping, a draft), but the one that found the WAL past its threshold ran
   * the checkpoint of the writer's pages on this thread, the window's: 20-90 ms. The writer's
   * connection checkpoints as it goes (writer-worker.ts).
   */
  leaveCheckpointsToWriter(): () => void {
    const checkpointPages = this.db.pragma('wal_autocheckpoint', { simple: true }) as number
    this.db.pragma('wal_autocheckpoint = 0')
    return () => void this.db.pragma(`wal_autocheckpoint = ${checkpointPages}`)
  }

  liveCatalogGuids(): string[] {
    return this.liveCatalogs.all()
  }

  /** The catalog's name as last synced, for messages; null when it is not here. */
  catalogName(catalogGuid: string): string | null {
    return this.db.prepare<[string], string>('SELECT name FROM catalogs WHERE guid = ?').pluck().get(catalogGuid) ?? null
  }

  /** Copies what the WAL holds into the database file, as far as no reader still needs it. */
  checkpoint(): void {
    this.db.pragma('wal_checkpoint(PASSIVE)')
  }
}

/**
 * Inserts an item under the key its values name (local_id: the service's id, migration 10), or, when
 * another row already holds that id (the service reused it, or an older row kept its own key), under
 * a key SQLite picks.
 */
function insertKeyed(statement: Statement<StoredItemValues>, values: StoredItemValues): { lastInsertRowid: number | bigint } {
  if (values[storedItemAt.local_id] === null) return statement.run(values)
  try {
    return statement.run(values)
  } catch (error) {
    if ((error as { code?: unknown })?.code !== 'SQLITE_CONSTRAINT_PRIMARYKEY') throw error
    const unkeyed = values.slice()
    unkeyed[storedItemAt.local_id] = null
    return statement.run(unkeyed)
  }
}

/** Whether writing `values` over `stored` leaves every indexed column as it is, the row listed. */
function keepsIndexedColumns(stored: IndexedRow, values: StoredItemValues): boolean {
  if (stored.unlisted) return false
  return itemIndexedColumns.every((column, index) => {
    const value = values[storedItemAt[column]]
    // A delta leaves listed_run as it is (coalesce in the update).
    return (column === 'listed_run' && value === null) || value === stored.stored[index]
  })
}

function sameValues(a: readonly unknown[], b: readonly unknown[]): boolean {
  return a.length === b.length && a.every((value, index) => value === b[index])
}

/** A value made on first use and kept. */
function lazily<T>(make: () => T): () => T {
  let made: T | undefined
  return () => (made ??= make())
}
