/**
 * A family's members are found by their parent's id: through the columns and index migration 17
 * adds on a fresh database, and from the record's fields on a laptop whose items were stored before
 * (where the migration adds the columns without touching a row and builds no index).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { browseQueries } from '../../../../src/main/browse'
import { closeDatabase, openDatabase } from '../../../../src/main/db/database'
import { migrations } from '../../../../src/main/db/migrations'
import { CatalogItems } from '../../../../src/main/local/catalog-items/reads'
import { CatalogItemWrites } from '../../../../src/main/local/catalog-items/writes'
import { LocalCopy } from '../../../../src/main/local/copy'
import { Retention } from '../../../../src/main/local/retention'
import { storedItemAt, storedItemColumns, storedItemValues } from '../../../../src/main/local/rows'
import type { CatalogItemRecord } from '../../../../src/main/ordering-client/schemas'
import { catalogItem } from '../../../support/builders'
import { openLocalData } from '../../../../src/main/local/data'

const directories: string[] = []
afterEach(() => {
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true })
})
function tempPath(): string {
  const directory = mkdtempSync(join(tmpdir(), 'satchel-families-'))
  directories.push(directory)
  return join(directory, 'satchel.db')
}

/** An apron with a UPC, 15 in stock and prices of its own to Retail and Wholesale. */
function stockedApron(id: number, fields: Record<string, unknown> = {}): CatalogItemRecord {
  return catalogItem(id, {
    sku: `APR-${id}`,
    upc: `0360002914${String(id).padStart(2, '0')}`,
    name: `Apron ${id}`,
    has_inventory: true,
    allow_backorder: false,
    qty_on_hand: 20,
    reserved_qty_on_hand: 5,
    pricing: { Retail: 10 + id, Wholesale: 8 + id },
    ...fields,
  })
}

/** A parent and three members, the members given out of sequence; one not offered to Wholesale. */
const family = [
  stockedApron(10, {
    is_product_group: true,
    group_title: 'Bib Apron',
    product_group_type: 'Color/Size',
    has_inventory: false,
  }),
  stockedApron(13, {
    group_parent_catalog_item_id: 10,
    group_sequence: 3,
    color: 'Navy',
    style: 'L',
    pricing: { Retail: 14, Wholesale: 'N/A' },
  }),
  stockedApron(11, { group_parent_catalog_item_id: 10, group_sequence: 1, color: 'Navy', style: 'S' }),
  stockedApron(12, {
    group_parent_catalog_item_id: 10,
    group_sequence: 2,
    color: 'Navy',
    style: 'M',
    qty_incoming: 48,
  }),
  stockedApron(20),
]

function gridOf(db: ReturnType<typeof openDatabase>) {
  return browseQueries(openLocalData(db)).catalogs.getItemFamily({ guid: 'item-12', priceGroupName: 'Wholesale' })
}

/** The family is listed as its parent's row alone, whatever finds it, and counted once. */
function expectOneRowPerFamily(db: ReturnType<typeof openDatabase>): void {
  const browse = browseQueries(openLocalData(db))
  const guids = (query?: string) =>
    browse.catalogs
      .searchCatalogItems({ catalogGuid: 'cat-a', query, priceGroupName: 'Wholesale' })
      .items.map((row) => row.guid)
  expect(guids()).toEqual(['item-10', 'item-20'])
  expect(browse.catalogs.searchCatalogItems({ catalogGuid: 'cat-a', priceGroupName: 'Wholesale' })).toMatchObject({
    total: 2,
    totalCapped: false,
  })
  expect(
    browse.catalogs.searchCatalogItems({ catalogGuid: 'cat-a', priceGroupName: 'Wholesale' }).items[0]!.familyOf,
  ).toEqual({
    memberCount: 3,
    priceMin: 19,
    priceMax: 20,
  })
  // A member's SKU, its UPC, its words: the family's row, once.
  expect(guids('APR-12')).toEqual(['item-10'])
  expect(guids('036000291413')).toEqual(['item-10'])
  expect(guids('apron')).toEqual(['item-10', 'item-20'])
  expect(browse.catalogs.countCatalogItems({ catalogGuid: 'cat-a', query: 'apron' })).toEqual({
    total: 2,
    capped: false,
  })
  expect(browse.catalogs.countCatalogItems({ catalogGuid: 'cat-a' })).toEqual({ total: 2, capped: false })
  // Paged one row at a time, the family is not met again on the next page.
  expect(
    browse.catalogs
      .searchCatalogItems({ catalogGuid: 'cat-a', query: 'apron', limit: 1, offset: 1 })
      .items.map((row) => row.guid),
  ).toEqual(['item-20'])
  expect(browse.catalogs.searchCatalogItems({ catalogGuid: 'cat-a', query: 'apron', limit: 1, offset: 0 }).more).toBe(
    true,
  )
  expect(browse.catalogs.searchCatalogItems({ catalogGuid: 'cat-a', query: 'apron', limit: 1, offset: 1 }).more).toBe(
    false,
  )
}

describe('a family in the local copy', () => {
  it('on a fresh database: members by the column and its index, in sequence, priced and stocked for the group', () => {
    const db = openDatabase(tempPath())
    expect(db.prepare("SELECT 1 FROM sqlite_schema WHERE name = 'catalog_items_by_family'").get()).toBeDefined()
    new LocalCopy(db, new Retention(db)).applyCatalogItems('cat-a', family, { listingId: null, serverTime: null })
    expect(
      db.prepare('SELECT guid, group_parent_id, is_product_group FROM catalog_item_rows ORDER BY id').all(),
    ).toEqual([
      { guid: 'item-10', group_parent_id: 0, is_product_group: 1 },
      { guid: 'item-11', group_parent_id: 10, is_product_group: 0 },
      { guid: 'item-12', group_parent_id: 10, is_product_group: 0 },
      { guid: 'item-13', group_parent_id: 10, is_product_group: 0 },
      { guid: 'item-20', group_parent_id: 0, is_product_group: 0 },
    ])
    const grid = gridOf(db)!
    expect(grid).toMatchObject({
      guid: 'item-10',
      title: 'Bib Apron',
      rowAxis: 'Color',
      columnAxis: 'Size',
      rows: ['Navy'],
      columns: ['S', 'M', 'L'],
      priceMin: 19,
      priceMax: 20,
    })
    expect(grid.cells.map((cell) => [cell.sku, cell.price, cell.available, cell.incoming, cell.refused])).toEqual([
      ['APR-11', 19, 15, 0, null],
      ['APR-12', 20, 15, 48, null],
      ['APR-13', null, 15, 0, 'Not offered to Wholesale'],
    ])
    expect(browseQueries(openLocalData(db)).catalogs.getItemFamily({ guid: 'item-20' })).toBeNull()
    expect(
      browseQueries(openLocalData(db)).catalogs.getCatalogItem({ guid: 'item-10', priceGroupName: 'Wholesale' })
        ?.familyOf,
    ).toEqual({
      memberCount: 3,
      priceMin: 19,
      priceMax: 20,
    })
    expect(browseQueries(openLocalData(db)).catalogs.getCatalogItem({ guid: 'item-11' })?.family).toEqual({
      guid: 'item-10',
      title: 'Bib Apron',
    })
    closeDatabase(db)
  })

  it("is one row in the catalog: browsed, searched by any member's SKU, UPC or name, and counted once", () => {
    const db = openDatabase(tempPath())
    new LocalCopy(db, new Retention(db)).applyCatalogItems('cat-a', family, { listingId: null, serverTime: null })
    expectOneRowPerFamily(db)
    // The counts the sync writer keeps count the family once too, and still hold every item for the
    // delta's check against the service.
    new CatalogItemWrites(db).recount(['cat-a'], ['cat-a'])
    expect(
      db.prepare("SELECT sum(live - members_live) FROM catalog_item_counts WHERE catalog_guid = 'cat-a'").pluck().get(),
    ).toBe(2)
    expect(db.prepare("SELECT sum(live) FROM catalog_item_counts WHERE catalog_guid = 'cat-a'").pluck().get()).toBe(5)
    expectOneRowPerFamily(db)
    closeDatabase(db)
  })

  it('counts the family once in the catalog list and the category tree, before the sync writer has counted the catalog as after', () => {
    const db = openDatabase(tempPath())
    const withCategory = family.map((record) => ({ ...record, category_id: 7 }))
    new LocalCopy(db, new Retention(db)).applyCatalogItems('cat-a', withCategory as CatalogItemRecord[], {
      listingId: null,
      serverTime: null,
    })
    // Not counted yet: just after an upgrade that forgot the counts (migration 19), or during a first sync.
    db.exec('DELETE FROM catalog_item_counts')
    const items = new CatalogItems(db)
    const uncounted = {
      catalogs: items.liveCountsByCatalog(['cat-a']),
      categories: items.liveCountsByCategory('cat-a'),
    }
    new CatalogItemWrites(db).recount(['cat-a'], ['cat-a'])
    const counted = { catalogs: items.liveCountsByCatalog(['cat-a']), categories: items.liveCountsByCategory('cat-a') }
    expect(counted.catalogs).toEqual(new Map([['cat-a', 2]]))
    expect(counted.categories.get(7)).toBe(2)
    expect(uncounted.catalogs).toEqual(counted.catalogs)
    expect(uncounted.categories.get(7)).toBe(2)
    closeDatabase(db)
  })

  it('is left out of a page deep in a long list as of the first page, and out of its count', () => {
    const db = openDatabase(tempPath())
    // 2,500 items of no family named to sort after the family, then the family again further down.
    const fillers = Array.from({ length: 2500 }, (_, k) =>
      stockedApron(1000 + k, { name: `Basin ${String(k).padStart(4, '0')}`, upc: null }),
    )
    const later = family.map((record) => ({
      ...record,
      id: Number(record.id) + 5000,
      guid: `late-${record.id}`,
      sku: `LATE-${record.id}`,
      upc: null,
      name: `Crate ${record.id}`,
      ...(record.group_parent_catalog_item_id ? { group_parent_catalog_item_id: 5010 } : {}),
    }))
    new LocalCopy(db, new Retention(db)).applyCatalogItems(
      'cat-a',
      [...family, ...fillers, ...later] as CatalogItemRecord[],
      { listingId: null, serverTime: null },
    )
    const browse = browseQueries(openLocalData(db))
    // Apron 10, Apron 20, 2,500 basins, Crate 5010, Crate 5020: members are nowhere.
    const deep = browse.catalogs.searchCatalogItems({ catalogGuid: 'cat-a', limit: 10, offset: 2498 })
    expect(deep.items.map((row) => row.guid)).toEqual([
      'item-3496',
      'item-3497',
      'item-3498',
      'item-3499',
      'late-10',
      'late-20',
    ])
    expect(deep.total).toBe(2504)
    closeDatabase(db)
  })

  it("counts what a search lists, ranked (a few matches) or streamed (over a thousand): a family once, inactive items when asked, no other catalog's", () => {
    const db = openDatabase(tempPath())
    const copy = new LocalCopy(db, new Retention(db))
    const fillers = Array.from({ length: 1200 }, (_, k) =>
      stockedApron(2000 + k, { name: `Apron filler ${k}`, upc: null, active: k % 10 !== 0 }),
    )
    // A family whose parent is inactive: to a search of active items its members are rows of their own.
    const parentless = [
      stockedApron(4000, { is_product_group: true, group_title: 'Shop Apron', active: false, upc: null }),
      stockedApron(4001, { group_parent_catalog_item_id: 4000, upc: null }),
      stockedApron(4002, { group_parent_catalog_item_id: 4000, upc: null }),
    ]
    copy.applyCatalogItems('cat-a', [...family, ...fillers, ...parentless], { listingId: null, serverTime: null })
    copy.applyCatalogItems(
      'cat-b',
      Array.from({ length: 1500 }, (_, k) => stockedApron(10_000 + k, { name: `Apron b ${k}`, upc: null })),
      { listingId: null, serverTime: null },
    )
    const browse = browseQueries(openLocalData(db))
    /** Every row the search lists, a page of 200 at a time. */
    const listed = (search: { catalogGuid: string; query: string; includeInactive?: boolean }) => {
      const guids: string[] = []
      for (let offset = 0; ; offset += 200) {
        const page = browse.catalogs.searchCatalogItems({ ...search, limit: 200, offset, withTotal: false })
        guids.push(...page.items.map((row) => row.guid))
        if (!page.more) return guids
      }
    }
    const searches = [
      { catalogGuid: 'cat-a', query: 'apron' },
      { catalogGuid: 'cat-a', query: 'apron', includeInactive: true },
      { catalogGuid: 'cat-a', query: 'a' },
      { catalogGuid: 'cat-a', query: 'APR-40' },
      { catalogGuid: 'cat-a', query: 'APR-40', includeInactive: true },
      { catalogGuid: 'cat-b', query: 'apron' },
      { catalogGuid: 'cat-b', query: 'filler' },
    ]
    // Family (1), item 20, the active fillers (1,080), the inactive parent's two members.
    expect(listed(searches[0]!)).toHaveLength(1 + 1 + 1080 + 2)
    // Family, item 20, every filler, the inactive parent's family as one row.
    expect(listed(searches[1]!)).toHaveLength(1 + 1 + 1200 + 1)
    expect(listed(searches[3]!).sort()).toEqual(['item-4001', 'item-4002'])
    expect(listed(searches[4]!)).toEqual(['item-4000'])
    // Streamed from the nearer end of the shared index: cat-b arrived last, so newest first, the same
    // order whether a page is found among the first matches read or in the whole match.
    expect(listed(searches[5]!)).toEqual(Array.from({ length: 1500 }, (_, k) => `item-${11_499 - k}`))
    for (const search of searches) {
      const rows = listed(search)
      expect(new Set(rows).size).toBe(rows.length)
      expect(browse.catalogs.countCatalogItems(search)).toEqual({ total: rows.length, capped: false })
    }
    closeDatabase(db)
  })

  /** A database at schema 16 holding the family, and `fillers` items of no family after it. */
  function storedBefore(fillers: number): string {
    const path = tempPath()
    const old = openDatabase(path, { migrations: migrations.filter((m) => m.version <= 16) })
    // The columns schema 16 had: those of later migrations are left out.
    const columns = storedItemColumns.filter(
      (column) => !['group_parent_id', 'is_product_group', 'catalog_key'].includes(column),
    )
    const insert = old.prepare(
      `INSERT INTO catalog_item_rows (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`,
    )
    for (const record of family) {
      const values = storedItemValues('cat-a', record, null, null)
      insert.run(columns.map((column) => values[storedItemAt[column]]))
    }
    if (fillers > 0) {
      const copied = columns.map((column) =>
        column === 'local_id'
          ? 'NULL'
          : column === 'guid'
            ? "'filler-' || x"
            : column === 'id'
              ? '100000 + x'
              : column === 'sku'
                ? "'F-' || x"
                : column === 'extra'
                  ? "'{}'"
                  : column,
      )
      old.exec(`WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < ${fillers})
        INSERT INTO catalog_item_rows (${columns.join(', ')}) SELECT ${copied.join(', ')} FROM n, (SELECT * FROM catalog_item_rows WHERE guid = 'item-10')`)
    }
    closeDatabase(old)
    return path
  }

  it('on a laptop whose items were stored before, a small catalog has its family rows filled and indexed at the upgrade', () => {
    const db = openDatabase(storedBefore(0))
    expect(db.prepare("SELECT 1 FROM sqlite_schema WHERE name = 'catalog_items_by_family'").get()).toBeDefined()
    // Only the family's rows are written: four of five.
    expect(
      db
        .prepare('SELECT count(*) FROM catalog_item_rows WHERE group_parent_id IS NULL AND is_product_group IS NULL')
        .pluck()
        .get(),
    ).toBe(1)
    expect(gridOf(db)!.cells.map((cell) => cell.sku)).toEqual(['APR-11', 'APR-12', 'APR-13'])
    expect(
      browseQueries(openLocalData(db)).catalogs.getCatalogItem({ guid: 'item-10', priceGroupName: 'Wholesale' })
        ?.familyOf,
    ).toEqual({
      memberCount: 3,
      priceMin: 19,
      priceMax: 20,
    })
    closeDatabase(db)
  })

  it('on a laptop with more items stored before than the upgrade does at start: no row rewritten, no index built, members read from the record', () => {
    const db = openDatabase(storedBefore(20_000))
    expect(db.prepare("SELECT 1 FROM sqlite_schema WHERE name = 'catalog_items_by_family'").get()).toBeUndefined()
    expect(
      db
        .prepare(
          'SELECT count(*) FROM catalog_item_rows WHERE group_parent_id IS NOT NULL OR is_product_group IS NOT NULL',
        )
        .pluck()
        .get(),
    ).toBe(0)
    const grid = gridOf(db)!
    expect(grid.cells.map((cell) => cell.sku)).toEqual(['APR-11', 'APR-12', 'APR-13'])
    expect(grid).toMatchObject({ guid: 'item-10', priceMin: 19, priceMax: 20 })
    // A list does not read the whole catalog for a parent's count there; the grid, opened, does.
    expect(browseQueries(openLocalData(db)).catalogs.getCatalogItem({ guid: 'item-10' })?.familyOf).toEqual({
      memberCount: null,
      priceMin: null,
      priceMax: null,
    })
    // Members are told by their record there: still one row per family, browsed and searched.
    const browse = browseQueries(openLocalData(db))
    db.exec(
      "INSERT INTO catalog_item_search (rowid, name, sku, upc, description, manufacturer) SELECT local_id, name, sku, upc, description, manufacturer FROM catalog_item_rows WHERE guid LIKE 'item-%'",
    )
    expect(
      browse.catalogs.searchCatalogItems({ catalogGuid: 'cat-a', query: 'APR-13', withTotal: true }),
    ).toMatchObject({
      items: [{ guid: 'item-10' }],
      total: 1,
    })
    expect(browse.catalogs.searchCatalogItems({ catalogGuid: 'cat-a', limit: 3 }).items.map((row) => row.guid)).toEqual(
      ['item-10', 'filler-1', 'filler-2'],
    )
    // A row sync writes again gets its columns.
    new LocalCopy(db, new Retention(db)).applyCatalogItems(
      'cat-a',
      [{ ...family[1]!, updated_at: '2026-02-01T00:00:00.000Z' }],
      { listingId: null, serverTime: null },
    )
    expect(db.prepare("SELECT group_parent_id FROM catalog_item_rows WHERE guid = 'item-13'").pluck().get()).toBe(10)
    expect(gridOf(db)!.cells.map((cell) => cell.sku)).toEqual(['APR-11', 'APR-12', 'APR-13'])
    closeDatabase(db)
  })
})
