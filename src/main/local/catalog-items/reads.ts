/**
 * Every read of catalog items: the catalog search and its counts, the item page, the lookups by guid,
 * SKU and UPC that the order checks and usual items make. Only sync writes them (writes.ts).
 */
import type { Database, Statement } from 'better-sqlite3'
import { SearchPages, type SearchCount } from '../search-page'
import { matchSku, rowOfSku, skuCandidatesLimit, type SkuCandidate, type SkuMatch } from '../sku-match'
import {
  catalogKeyOf,
  createdAfter,
  familyParentAmongFilters,
  familyParentId,
  familyParentOf,
  ItemIndexLayout,
  itemColumns,
  live,
  shallowWalk,
  type CatalogHeadedIndex,
} from './sql'

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
    this.familyIndex = db.prepare(
      "SELECT 1 FROM sqlite_schema WHERE type = 'index' AND name = 'catalog_items_by_family'",
    )
    this.filterTable = db
      .prepare<[], number>("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'catalog_item_filters'")
      .pluck()
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
      recordIn: db.prepare<[string, string], ItemRecordRow>(
        'SELECT * FROM catalog_items WHERE catalog_guid = ? AND guid = ?',
      ),
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
      placeByGuid: db.prepare<[string], ItemPlace>(
        'SELECT guid, catalog_guid, synced_at FROM catalog_items WHERE guid = ?',
      ),
      placeById: db.prepare<[number], ItemPlace>(
        'SELECT guid, catalog_guid, synced_at FROM catalog_items WHERE id = ? ORDER BY deleted_at IS NOT NULL LIMIT 1',
      ),
    }
  }

  /** Whether the catalog holds any item, in any state. */
  anyOf(catalogGuid: string): boolean {
    const listing = this.layout.inCatalog('catalog_items_by_listing', '', '@catalog')
    return (
      this.searches.all(
        `SELECT 1 FROM catalog_item_rows INDEXED BY catalog_items_by_listing WHERE ${listing} LIMIT 1`,
        { catalog: catalogGuid },
      ).length > 0
    )
  }

  byGuid(guid: string): ItemRow | undefined {
    return this.statements.byGuid.get(guid)
  }

  /** By SKU in a catalog (sku-match.ts: exact first, else a unique match in other capitals), a live and active row first. */
  bySku(catalogGuid: string, sku: string): ItemRow | undefined {
    return rowOfSku(
      sku,
      this.searches.all<ItemRow>(
        `SELECT ${itemColumns} FROM catalog_item_rows i WHERE ${this.layout.inCatalog('catalog_items_by_sku', 'i', '@catalog')} AND i.sku = @sku COLLATE NOCASE
       ORDER BY (i.deleted_at IS NULL AND i.unlisted_at IS NULL) DESC, i.active DESC LIMIT ${skuCandidatesLimit}`,
        { catalog: catalogGuid, sku },
      ),
    )
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
        counts.set(
          catalogGuid,
          kept.reduce((sum, row) => sum + row.live, 0),
        )
        continue
      }
      const all = this.searches.count(
        `SELECT count(*) FROM catalog_item_rows ${this.searches.indexedBy('catalog_items_by_name')} WHERE ${this.layout.inCatalog('catalog_items_by_name', '', '@catalog')} AND ${live}`,
        { catalog: catalogGuid },
      )
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
    return new Map(
      this.searches
        .all<{ category_id: number | null; n: number }>(sql, { catalog: catalogGuid })
        .map((row) => [row.category_id, row.n - (members.get(row.category_id) ?? 0)]),
    )
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
    return new Map(
      this.searches
        .all<{ category_id: number | null; n: number }>(sql, { catalog: catalogGuid })
        .map((row) => [row.category_id, row.n]),
    )
  }

  /** An item of a catalog by guid, with its record. */
  recordIn(catalogGuid: string, guid: string): ItemRecordRow | undefined {
    return this.statements.recordIn.get(catalogGuid, guid)
  }

  /** The item of a catalog a SKU names, with its record, or the items it could mean (sku-match.ts); a live row first. */
  recordBySku(catalogGuid: string, sku: string): SkuMatch<ItemRecordRow> {
    // Found in the item rows, whose SKU index the view's columns do not reach, then read whole through it.
    return matchSku(
      sku,
      this.searches.all<ItemRecordRow>(
        `SELECT * FROM catalog_items WHERE local_id IN (SELECT local_id FROM catalog_item_rows WHERE ${this.layout.inCatalog('catalog_items_by_sku', '', '@catalog')}
         AND sku = @sku COLLATE NOCASE LIMIT ${skuCandidatesLimit}) ORDER BY deleted_at IS NOT NULL, unlisted_at IS NOT NULL`,
        { catalog: catalogGuid, sku },
      ),
    )
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
  /**
   * Live, active items of the catalog the service created after `sinceIso` (its own timestamp, as
   * the item record carries it): a customer's "new since their last order". Their created_at is kept
   * in the row's `extra`, so this reads every row of the catalog (40-70 ms at 100,000 items).
   */
  countCreatedSince(catalogGuid: string, sinceIso: string): number {
    return this.searches.count(
      `SELECT count(*) FROM catalog_item_rows i WHERE ${this.layout.inCatalog('catalog_items_by_listing', 'i', '@catalog')}
       AND ${live} AND i.active = 1 AND ${createdAfter('i')}`,
      { catalog: catalogGuid, createdAfter: sinceIso },
    )
  }

  /**
   * A slice of the live, active items after `afterLocalId`, with their catalog and the service's
   * created_at: what an index of "new since" is built from a slice at a time (brief/new-items.ts).
   */
  createdTimes(afterLocalId: number, limit: number): { local_id: number; catalog_guid: string; created_at: unknown }[] {
    return this.searches.all(
      `SELECT local_id, catalog_guid, json_extract(extra, '$.created_at') AS created_at FROM catalog_item_rows
       WHERE local_id > @after AND ${live} AND active = 1 ORDER BY local_id LIMIT @limit`,
      { after: afterLocalId, limit },
    )
  }

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
    return rowOfSku(
      sku,
      this.searches.all<ItemPlace & SkuCandidate>(
        `SELECT guid, catalog_guid, synced_at, sku, deleted_at, unlisted_at FROM catalog_item_rows WHERE ${this.layout.inCatalog('catalog_items_by_sku', '', '@catalog')} AND sku = @sku COLLATE NOCASE
       ORDER BY deleted_at IS NOT NULL LIMIT ${skuCandidatesLimit}`,
        { catalog: catalogGuid, sku },
      ),
    )
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
    const kept =
      search.match === null && !search.familyMembers && search.createdAfter === undefined
        ? this.statements.keptCounts.all(search.catalogGuid)
        : []
    if (kept.length > 0) {
      const categories =
        search.categoryId === undefined
          ? null
          : new Set(search.categoryIds?.length ? search.categoryIds : [search.categoryId])
      const total = kept
        .filter((row) => categories === null || (row.category_id !== null && categories.has(row.category_id)))
        .reduce((sum, row) => sum + (search.includeInactive ? row.live : row.active), 0)
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
    const [found] = this.searches.all<{ local_id: number | null }>(
      `SELECT coalesce(
         (SELECT local_id FROM catalog_item_rows INDEXED BY catalog_items_by_listing WHERE ${listing} AND listed_run IS NOT NULL LIMIT 1),
         (SELECT local_id FROM catalog_item_rows INDEXED BY catalog_items_by_listing WHERE ${listing} LIMIT 1)) AS local_id`,
      { catalog: catalogGuid },
    )
    const one = found?.local_id ?? undefined
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
    if (search.categoryId !== undefined)
      where.push(
        (search.categoryIds ?? []).length <= 1
          ? 'f.category_id = @category'
          : 'f.category_id IN (SELECT value FROM json_each(@categories))',
      )
    return {
      table: 'catalog_item_filters f',
      where,
      ...(folded ? { listedAs: familyParentAmongFilters('f', !search.includeInactive) } : {}),
    }
  }

  /** `counting`: the spec is for a count, which walks every match, not a page. */
  private searchSpec(search: ItemSearch, counting = false) {
    const index: CatalogHeadedIndex =
      search.categoryId !== undefined ? 'catalog_items_by_category' : 'catalog_items_by_name'
    const where = [this.layout.inCatalog(index, 'i', '@catalog'), 'i.deleted_at IS NULL', 'i.unlisted_at IS NULL']
    const params: Record<string, unknown> = { catalog: search.catalogGuid, limit: search.limit, offset: search.offset }
    if (!search.includeInactive) where.push('i.active = 1')
    // Read from each row's record (no index holds it): the walk reads the rows it passes, as a
    // count of the brief's new items does.
    if (search.createdAfter !== undefined) {
      where.push(createdAfter('i'))
      params.createdAfter = search.createdAfter
    }
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
    // The narrow table has no creation time: a search for new items filters the rows themselves.
    const narrow =
      search.match !== null && search.createdAfter === undefined && this.filtersFilled()
        ? this.filtersOf(search, folded)
        : undefined
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
      // The arrival estimate counts the whole catalog: not a count of new items.
      ...(search.categoryId === undefined && search.createdAfter === undefined
        ? {
            arrival: {
              count: `SELECT count(*) FROM catalog_item_rows INDEXED BY catalog_items_by_listing WHERE ${this.layout.inCatalog('catalog_items_by_listing', '', '@catalog')} AND deleted_at IS NULL`,
            },
          }
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
  /** Only items the service created after this moment (CatalogItemSearch.createdAfter). */
  createdAfter?: string
  /** wordPrefixQuery's FTS5 query, or null. */
  match: string | null
  limit: number
  offset: number
}
