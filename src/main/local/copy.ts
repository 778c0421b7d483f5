/**
 * Writes what sync fetched into the local copy. Every page is one short transaction: its rows, the
 * categories they carry, and the note that the page is done, so an interrupted run resumes where it
 * stopped and the renderer can read between pages. After a full listing, rows it did not see are
 * pruned. Records become column values in rows.ts; runs, pages and cursors are kept in sync-state.ts.
 * Each table's SQL is its home's (catalog-items/, catalogs.ts, customers.ts, order-history.ts,
 * price-groups.ts): this file orders the writes and names no synced table.
 */
import type { Database, Statement } from 'better-sqlite3'
import type { CustomerConnection } from '../ordering-client/client'
import type { CatalogItemRecord, CatalogRecord, CategoryRecord, OrderRecord } from '../ordering-client/schemas'
import type { Retention } from './retention'
import {
  catalogRow,
  categoryRow,
  customerRow,
  orderRow,
  priceGroupProblem,
  priceGroupRow,
  storedItemAt,
  type GuidLookup,
  type StoredItemValues,
} from './rows'
import { leaveCheckpointsToAnotherThread } from '../db/checkpoints'
import { prepareItemPage, type PreparedItemPage } from './item-page'
import type { IndexedRow, SearchIndex } from './search-index'
import { SyncState } from './sync-state'
import type { SyncedTable, TableStatements } from './synced-table'
import { CatalogItemWrites, storedCountPlace, valuesCountPlace } from './catalog-items/writes'
import { catalogItemsTable } from './catalog-items/sql'
import { DeferredItemIndexes } from './deferred-indexes'
import { CatalogWrites, Catalogs, catalogsTable, categoriesTable } from './catalogs'
import { CatalogUpdateJobs } from './catalog-update-jobs'
import { CustomerWrites, customersTable } from './customers'
import { OrderWrites, ordersTable } from './order-history'
import { PriceGroupWrites, priceGroupsTable } from './price-groups'

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
  if (more.rejections?.length)
    into.rejections = [...(into.rejections ?? []), ...more.rejections].slice(0, MAX_REJECTIONS_KEPT)
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

/** The synced tables, each spec given by the table's home module, where its own SQL lives. */
const tables = {
  catalogs: catalogsTable,
  priceGroups: priceGroupsTable,
  categories: categoriesTable,
  catalogItems: catalogItemsTable,
  customers: customersTable,
  orders: ordersTable,
} as const satisfies Record<string, SyncedTable>

export type SyncedTableName = keyof typeof tables

/**
 * SQLite page cache during a sync, in KiB (negative: a size, not a page count). 24 MB once kept a
 * first sync's indexes in memory while rows arrived in random order for each; those indexes now wait
 * until the last catalog (deferred-indexes.ts), and at 16 MB the bench's first sync ran at the same rate
 * with a peak RSS 10-20 MB lower (the cache fills to its limit, all of it resident).
 */
export const bulkCacheSize = -16_384

/** A mapped row (rows.ts) as applyRow needs it: its guid, tombstone and listing beside the other columns. */
type MappedRow = Record<string, unknown> & { guid: string; deleted_at: string | null; listed_run: number | null }

/**
 * The rows sync applies and prunes, on top of the run and page bookkeeping it inherits (SyncState,
 * sync-state.ts), which a page's transaction writes along with the page's rows.
 */
export class LocalCopy extends SyncState {
  private readonly catalogs: CatalogWrites
  private readonly catalogReads: Catalogs
  private readonly priceGroups: PriceGroupWrites
  private readonly items: CatalogItemWrites
  private readonly customers: CustomerWrites
  private readonly orders: OrderWrites
  private readonly guids: GuidLookup
  private readonly statements = new Map<SyncedTableName, TableStatements>()
  private readonly indexes = new Map<SyncedTableName, SearchIndex>()
  private readonly indexExists
  /** Categories as last written through this LocalCopy, per catalog and id (see applyCategoryRow). */
  private readonly categoriesWritten = new Map<string, string>()
  /** The item indexes a first sync defers, and the items it stores off their ids meanwhile (deferred-indexes.ts). */
  private readonly deferred: DeferredItemIndexes
  private updateJobs: CatalogUpdateJobs | null = null

  constructor(
    db: Database,
    private readonly retention: Retention,
  ) {
    super(db)
    // Each table's statements are prepared once, by its home module.
    this.catalogs = new CatalogWrites(db)
    this.catalogReads = new Catalogs(db)
    this.priceGroups = new PriceGroupWrites(db)
    this.items = new CatalogItemWrites(db)
    this.customers = new CustomerWrites(db)
    this.orders = new OrderWrites(db)
    this.guids = { customer: (id) => this.customers.guidOf(id), catalog: (id) => this.catalogs.guidOf(id) }
    this.indexes.set('catalogItems', this.items.index)
    this.indexes.set('customers', this.customers.index)
    this.statements.set('catalogs', this.catalogs.catalogRows)
    this.statements.set('priceGroups', this.priceGroups.rows)
    this.statements.set('categories', this.catalogs.categoryRows)
    this.statements.set('catalogItems', this.items.rows)
    this.statements.set('customers', this.customers.rows)
    this.statements.set('orders', this.orders.rows)

    this.indexExists = db
      .prepare<[string], number>("SELECT 1 FROM sqlite_schema WHERE type = 'index' AND name = ?")
      .pluck()
    this.deferred = new DeferredItemIndexes(db, this.items)
  }

  private table(name: SyncedTableName): TableStatements {
    const statements = this.statements.get(name)
    if (!statements) throw new Error(`no statements for ${name}`)
    return statements
  }

  /**
   * The table's statements for the ones that name a scope: a catalog's items are found the way their
   * indexes stand now (CatalogItemWrites.scopedRows), which the catalog update may change meanwhile.
   */
  private scoped(name: SyncedTableName): TableStatements {
    return name === 'catalogItems' ? this.items.scopedRows() : this.table(name)
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
  private markSeen(
    name: SyncedTableName,
    guid: string,
    listingId: number,
    before = this.findIndexed(name, guid),
  ): void {
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
      if (!before.deleted) {
        index.add(before.localId, before.values)
        if (name === 'catalogItems') this.countStored(before, 1)
      }
    }
  }

  /**
   * A row of a table with a search index, found by guid. While the guid index waits, an item is found
   * through deferred.itemsOffTheirIds, or else at its service id `id` (the guid checked); without an id, or
   * under another one, it is taken as new: should the service change an item's id between two
   * versions in one first sync, the guid index's build keeps the newer row (DeferredItemIndexes.buildDeferred).
   */
  private findIndexed(name: SyncedTableName, guid: string, id: number | null = null): IndexedRow | undefined {
    const index = this.indexes.get(name)
    if (!index) return undefined
    const offTheirIds = this.deferred.itemsOffTheirIds
    if (name !== 'catalogItems' || !offTheirIds) return index.find(guid)
    const localId = offTheirIds.get(guid)
    if (localId !== undefined) return index.findByLocalId(localId)
    return id === null ? undefined : index.findAt(id, guid)
  }

  /**
   * A row refused as impossible: nothing of it is written, so nothing is priced from it, and its
   * reason goes back with the counts, for the engine to log. The last good local copy stays; a full
   * listing counts it as seen, so the prune that follows does not remove it for having been refused.
   */
  private reject(
    counts: ApplyCounts,
    name: SyncedTableName,
    guid: string,
    reason: string,
    listingId: number | null,
    id: number | null = null,
  ): void {
    counts.fetched++
    counts.rejected = (counts.rejected ?? 0) + 1
    const rejections = (counts.rejections ??= [])
    if (rejections.length < MAX_REJECTIONS_KEPT) rejections.push(`${guid}: ${reason}`)
    if (listingId !== null) this.markSeen(name, guid, listingId, this.findIndexed(name, guid, id))
  }

  /** One page as one transaction: its rows, then the note that the page is done. */
  private applyPage(context: ApplyContext, applyRows: (counts: ApplyCounts) => void): ApplyCounts {
    const counts = emptyCounts()
    this.countedWrites(() => {
      applyRows(counts)
      if (context.page) this.recordPageDone(context.page.scope, context.page.page)
    })
    return counts
  }

  /** One immediate transaction whose item writes are added to the kept item counts before it commits. */
  private countedWrites(write: () => void): void {
    try {
      this.db
        .transaction(() => {
          write()
          this.items.writeCounted()
        })
        .immediate()
    } finally {
      this.items.dropCounted()
    }
  }

  /** An item row found before a write (IndexedRow.stored) counted in or out of its catalog's live items. */
  private countStored(row: IndexedRow, sign: 1 | -1): void {
    this.items.noteCounted(...storedCountPlace(row), sign)
  }

  /** Catalogs with their nested price groups, as one transaction (the list is small and has no pages). */
  applyCatalogs(catalogs: CatalogRecord[], context: ApplyContext): { catalogs: ApplyCounts; priceGroups: ApplyCounts } {
    const priceGroups = emptyCounts()
    const catalogCounts = this.applyPage(context, (counts) => {
      for (const catalog of catalogs) {
        const deleted = Boolean(catalog.deleted_at)
        this.applyRow(counts, 'catalogs', this.catalogs.upsertCatalog, catalogRow(catalog, context.listingId))
        for (const group of catalog.Price_Groups ?? []) {
          const problem = priceGroupProblem(group)
          if (problem) {
            this.reject(priceGroups, 'priceGroups', group.guid, problem, context.listingId)
            continue
          }
          const row = priceGroupRow(catalog.guid, group, context.listingId)
          // A group of a deleted catalog counts as deleted with it.
          this.applyRow(priceGroups, 'priceGroups', this.priceGroups.upsert, row, Boolean(group.deleted_at) || deleted)
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
    if (context.fresh) this.deferred.defer()
    return this.applyPage(context, (counts) => {
      for (const { guid, id, reason } of page.rejected)
        this.reject(counts, 'catalogItems', guid, reason, context.listingId, id)
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
    const index = this.items.index
    const guid = values[storedItemAt.guid] as string
    const live = values[storedItemAt.deleted_at] === null
    const id = values[storedItemAt.local_id] as number | null
    const before = this.findIndexed('catalogItems', guid, id)
    counts.fetched++
    if (before) {
      if (!this.items.update(before, values)) {
        const listingId = values[storedItemAt.listed_run] as number | null
        if (listingId !== null) this.markSeen('catalogItems', guid, listingId, before)
        return
      }
      // Most changes are stock and prices: a row whose searched text is as indexed keeps its entry.
      const searched = live ? this.items.searchedValues(values) : null
      if (!searched || !before.indexed || !sameValues(before.values, searched)) {
        index.drop(before)
        if (searched) index.add(before.localId, searched)
      }
      // An update lists the row again (unlisted_at cleared): it counts where its new values say.
      if (before.indexed) this.countStored(before, -1)
    } else {
      const localId = this.items.insert(values)
      if (localId !== id) this.deferred.itemsOffTheirIds?.set(guid, localId)
      if (live) index.add(localId, this.items.searchedValues(values))
    }
    if (live) {
      this.items.noteCounted(...valuesCountPlace(values), 1)
      counts.upserted++
    } else {
      counts.deleted++
    }
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
    const applied = this.catalogs.upsertCategory.run(categoryRow(catalogGuid, category, listingId)).changes > 0
    if (!applied && listingId !== null) this.catalogs.markCategorySeen(listingId, catalogGuid, category.id)
    if (seen !== null) this.categoriesWritten.set(key, seen)
  }

  /** One page of the customer list. */
  applyCustomers(rows: CustomerConnection[], context: ApplyContext): ApplyCounts {
    return this.applyPage(context, (counts) => {
      for (const row of rows)
        this.applyRow(counts, 'customers', this.customers.upsert, customerRow(row, context.listingId))
    })
  }

  /** One page of orders (the list's reduced projection, or a full order from create or read). */
  applyOrders(orders: OrderRecord[], context: ApplyContext): ApplyCounts {
    return this.applyPage(context, (counts) => {
      for (const order of orders)
        this.applyRow(counts, 'orders', this.orders.upsert, orderRow(order, context.listingId, this.guids))
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
    const statements = this.scoped(name)
    const counts = emptyCounts()
    const last = statements.lastLocalId.get() ?? 0
    if (after >= last) return { counts, next: null }
    const until = after + span
    const batch = statements.candidates.all({ scope, listing: listingId, after, until })
    if (batch.length > 0) {
      const flaggedAt = serverTime ?? new Date(0).toISOString()
      const kept = spec.kind
        ? this.retention.retained(
            spec.kind,
            batch.map((row) => row.guid),
          )
        : new Set<string>()
      const index = this.indexes.get(name)
      const items = name === 'catalogItems'
      this.countedWrites(() => {
        for (const row of batch) {
          const indexed = row.live && index ? index.findByLocalId(row.local_id) : undefined
          if (kept.has(row.guid)) {
            if (row.live && statements.flag && statements.flag.run(flaggedAt, row.local_id).changes > 0) {
              if (indexed) index?.drop(indexed)
              if (items && indexed) this.countStored(indexed, -1)
              counts.deleted++
            }
          } else {
            if (indexed) index?.drop(indexed)
            statements.remove.run(row.local_id)
            if (items) this.deferred.itemsOffTheirIds?.delete(row.guid)
            if (items && indexed) this.countStored(indexed, -1)
            if (row.live) counts.deleted++
          }
        }
      })
    }
    return { counts, next: until >= last ? null : until }
  }

  /** The whole of pruneUnlistedChunk at once, for small tables. */
  pruneUnlisted(
    name: SyncedTableName,
    scope: string | null,
    listingId: number,
    serverTime: string | null,
  ): ApplyCounts {
    const counts = emptyCounts()
    for (let after: number | null = 0; after !== null;) {
      const chunk = this.pruneUnlistedChunk(name, scope, listingId, serverTime, after)
      addCounts(counts, chunk.counts)
      after = chunk.next
    }
    return counts
  }

  /** Rows of a scope that the listing saw and that are not soft-deleted. */
  countListedLive(name: SyncedTableName, scope: string | null, listingId: number): number {
    return this.scoped(name).countListedLive.get({ scope, listing: listingId })?.n ?? 0
  }

  /**
   * A scope's live rows. A catalog's items as kept counted (CatalogItemWrites.writeCounted) once
   * recount has met it: walking its index took 0.1-0.3 s a catalog at a million items, after every
   * delta. A count gone wrong is found the same way (it differs from the service's) and the full
   * listing that follows counts the catalog again.
   */
  countLive(name: SyncedTableName, scope: string | null): number {
    if (name === 'catalogItems' && scope !== null) {
      const kept = this.items.liveCount(scope)
      if (kept !== null) return kept
    }
    const spec: SyncedTable = tables[name]
    const statements = this.scoped(name)
    const statement =
      spec.liveIndex && !this.indexExists.get(spec.liveIndex) ? statements.countLiveUnindexed : statements.countLive()
    return statement.get({ scope })?.n ?? 0
  }

  /** Rows of a scope stored locally in any state: none means a listing of it is its first. */
  hasRows(name: SyncedTableName, scope: string | null): boolean {
    return this.scoped(name).anyRow.get({ scope }) !== undefined
  }

  /** Builds every index a first sync deferred (deferred-indexes.ts); true when there were any. */
  finishBulk(): boolean {
    return this.deferred.build()
  }

  /** The items and categories of a catalog that is gone, keeping items a draft still needs (flagged). */
  removeCatalogContents(catalogGuid: string, serverTime: string | null): ApplyCounts {
    // Listing id 0 is never issued (AUTOINCREMENT starts at 1), so every row is a candidate.
    const counts = this.pruneUnlisted('catalogItems', catalogGuid, 0, serverTime)
    this.catalogs.removeCategoriesOf(catalogGuid)
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
   * connection checkpoints as it goes (writer-thread.ts).
   */
  leaveCheckpointsToWriter(): () => void {
    // Shared with the purge, which may leave checkpoints to a thread of its own at the same time.
    return leaveCheckpointsToAnotherThread(this.db)
  }

  liveCatalogGuids(): string[] {
    return this.catalogs.liveCatalogGuids()
  }

  /**
   * Counts again the live items per category of the catalogs a run listed in full, and of any live
   * catalog not counted yet; forgets the counts of catalogs that are gone. On the writer's thread,
   * once a run's pages and prunes are in: the catalog screens read these counts instead of counting
   * items. Between listings the writes keep the counts (countedWrites); a full listing, which reads
   * the whole catalog anyway, counts it afresh.
   */
  recountItems(listedCatalogs: readonly string[]): void {
    const live = this.catalogs.liveCatalogGuids()
    const listed = new Set(listedCatalogs)
    this.items.recount(
      [
        ...live.filter((catalogGuid) => listed.has(catalogGuid)),
        ...this.items.uncounted(live.filter((catalogGuid) => !listed.has(catalogGuid))),
      ],
      live,
    )
  }

  /** The service's id of the catalog as last synced, for telling its items from another's; null when unknown. */
  catalogId(catalogGuid: string): number | null {
    return this.catalogReads.idOf(catalogGuid)
  }

  /** The catalog's name as last synced, for messages; null when it is not here. */
  catalogName(catalogGuid: string): string | null {
    return this.catalogReads.nameOf(catalogGuid) ?? null
  }

  /**
   * The catalog update a migration left (catalog-update-jobs.ts), prepared when first asked.
   */
  catalogUpdateJobs(): CatalogUpdateJobs {
    return (this.updateJobs ??= new CatalogUpdateJobs(this.db))
  }

  /** Copies what the WAL holds into the database file, as far as no reader still needs it. */
  checkpoint(): void {
    this.db.pragma('wal_checkpoint(PASSIVE)')
  }
}

function sameValues(a: readonly unknown[], b: readonly unknown[]): boolean {
  return a.length === b.length && a.every((value, index) => value === b[index])
}
