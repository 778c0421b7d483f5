/**
 * Catalog items stored once (migration 10): a record kept beside copies of its columns filled a
 * 4 KB page an item. The hand-written item check gives the schema's verdicts; the writer's lean
 * record and the migration's are the same; the catalog_items view gives back the record as the
 * service sent it, unknown fields included.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { closeDatabase, openDatabase } from '../../../../src/main/db/database'
import { migrations } from '../../../../src/main/db/migrations'
import { catalogItemSchema, type CatalogItemRecord } from '../../../../src/main/ordering-client/schemas'
import { browseQueries } from '../../../../src/main/browse'
import { Retention } from '../../../../src/main/local/retention'
import {
  catalogItemProblem,
  catalogItemRow,
  categoriesOf,
  categoryRow,
  leanItemExtra,
} from '../../../../src/main/local/rows'
import { LocalCopy, bulkCacheSize } from '../../../../src/main/local/copy'
import { indexBuildCacheSize } from '../../../../src/main/local/catalog-items/sql'
import { openLocalData } from '../../../../src/main/local/data'

const directories: string[] = []
afterEach(() => {
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true })
})
function tempPath(): string {
  const directory = mkdtempSync(join(tmpdir(), 'satchel-lean-'))
  directories.push(directory)
  return join(directory, 'satchel.db')
}

const category = (id: number, parent: number, name: string) => ({
  id,
  guid: `cat-${id}`,
  catalog_id: 11,
  parent_category_id: parent,
  name,
  sequence: 1,
  hide_category: false,
  created_at: '2024-07-02T00:00:00.000Z',
  updated_at: '2024-07-02T00:00:00.000Z',
})

/** An item as the double sends it to an API key: every spec field, defaults included, plus one the spec does not show. */
function fullItem(id: number, overrides: Record<string, unknown> = {}): CatalogItemRecord {
  return {
    id,
    catalog_id: 11,
    category_id: 1003,
    group_parent_catalog_item_id: 0,
    group_sequence: 0,
    subsection_id: 0,
    guid: `item-${id}`,
    sku: `BTE-${id}`,
    upc: '029433980970',
    name: `Peppermint Tea ${id}`,
    description: 'Peppermint loose leaf tea',
    manufacturer: 'Bayside Roasting Co.',
    color: '',
    style: 'Loose',
    product_group_type: '',
    product_group_display_style: '',
    group_title: '',
    third_party_sku: 'BAYS-363289',
    third_party_pricing: '',
    third_party_size: '',
    active: true,
    is_taxable: false,
    has_inventory: true,
    allow_backorder: false,
    has_serials: false,
    has_lots: true,
    has_exp_date: true,
    is_product_group: false,
    msrp: 57.9,
    cost_per_uom: 26.59,
    qty_on_hand: 3,
    qty_incoming: 0,
    reserved_qty_on_hand: 0,
    qty_backordered: 0,
    qty_held_for_backorders: 0,
    min_qty_on_hand: 6,
    max_qty_on_hand: 480,
    min_order_qty: 2,
    qty_break: 0,
    qty_break_price: 0,
    width: 3.2,
    height: 9.93,
    depth: 20.45,
    item_weight: 7.61,
    shipping_weight: 8.67,
    pricing: { Retail: 42.89, Wholesale: 37.74, 'Key Account': 'N/A' },
    created_at: '2025-02-11T11:53:56.708Z',
    updated_at: '2026-10-16T19:06:05.324Z',
    deleted_at: null,
    Category: category(1003, 1001, 'Tea'),
    CategoryHierarchy: [category(1001, 0, 'Beverages'), category(1003, 1001, 'Tea')],
    season_code: 'SP25',
    nullable_future_field: null,
    ...overrides,
  }
}

describe('catalogItemProblem', () => {
  const cases: unknown[] = [
    fullItem(1),
    { guid: 'bare' },
    { guid: '' },
    { id: 1 },
    null,
    [],
    'item',
    { guid: 'g', id: 1.5 },
    { guid: 'g', id: 2 ** 60 },
    { guid: 'g', catalog_id: '11' },
    { guid: 'g', sku: 12 },
    { guid: 'g', active: 'yes' },
    { guid: 'g', msrp: -1 },
    { guid: 'g', msrp: Infinity },
    { guid: 'g', qty_on_hand: -4 },
    { guid: 'g', qty_on_hand: Number.NaN },
    { guid: 'g', min_order_qty: '2' },
    { guid: 'g', qty_break_price: -0.01 },
    { guid: 'g', pricing: [] },
    { guid: 'g', pricing: 'cheap' },
    { guid: 'g', pricing: { Retail: -5 } },
    { guid: 'g', pricing: { Retail: '12.50' } },
    { guid: 'g', pricing: { Retail: Infinity } },
    { guid: 'g', pricing: { Retail: null, Gold: 'N/A' } },
    { guid: 'g', pricing: JSON.parse('{"__proto__": 1}') as unknown },
    { guid: 'g', pricing: { constructor: 1 } },
    { guid: 'g', pricing: { '': 1 } },
    { guid: 'g', pricing: { ['k'.repeat(5000)]: 1 } },
    { guid: 'g', pricing: { Retail: true } },
    { guid: 'g', Category: { name: 'no id' } },
    { guid: 'g', Category: { id: 1, hide_category: 'no' } },
    { guid: 'g', Category: 'Tea' },
    { guid: 'g', CategoryHierarchy: [{ id: 1 }, { id: 'two' }] },
    { guid: 'g', CategoryHierarchy: {} },
    { guid: 'g', updated_at: 5 },
    { guid: 'g', Category: null, CategoryHierarchy: null, deleted_at: '2025-01-01 00:00:00' },
  ]

  it('accepts and refuses exactly what catalogItemSchema does', () => {
    for (const value of cases) {
      const schemaSays = catalogItemSchema.safeParse(value).success
      expect(catalogItemProblem(value) === null, JSON.stringify(value)?.slice(0, 80)).toBe(schemaSays)
    }
  })

  it('names what is wrong', () => {
    expect(catalogItemProblem({ guid: 'g', pricing: { Retail: -5 } })).toContain('negative price -5')
    expect(catalogItemProblem({ guid: 'g', msrp: -1 })).toContain('msrp')
  })
})

describe('leanItemExtra', () => {
  it('keeps each field once: no column fields, no defaults, categories by reference, unknown fields as sent', () => {
    const extra = JSON.parse(leanItemExtra(fullItem(7))) as Record<string, unknown>
    expect(extra).toStrictEqual({
      catalog_id: 11,
      style: 'Loose',
      third_party_sku: 'BAYS-363289',
      has_lots: true,
      has_exp_date: true,
      cost_per_uom: 26.59,
      min_qty_on_hand: 6,
      max_qty_on_hand: 480,
      width: 3.2,
      height: 9.93,
      depth: 20.45,
      item_weight: 7.61,
      shipping_weight: 8.67,
      created_at: '2025-02-11T11:53:56.708Z',
      season_code: 'SP25',
      nullable_future_field: null,
      CategoryHierarchy_ids: [1001, 1003],
    })
  })

  it('keeps a Category that is not the item category, and a key named __proto__ as data', () => {
    const odd = JSON.parse('{"guid":"g","category_id":5,"Category":{"id":6},"__proto__":{"x":1}}') as CatalogItemRecord
    const extra = leanItemExtra(odd)
    expect(extra).toContain('"Category":{"id":6}')
    expect(extra).toContain('"__proto__":{"x":1}')
  })
})

describe('catalog_item_rows and the catalog_items view', () => {
  it('gives back every item as sent, unknown fields included, after a sync writes it', () => {
    const db = openDatabase(tempPath())
    const store = new LocalCopy(db, new Retention(db))
    const items = [
      fullItem(1),
      fullItem(2, {
        pricing: null,
        Category: null,
        category_id: 0,
        CategoryHierarchy: [],
        qty_break: 6,
        qty_break_price: 1.5,
      }),
    ]
    store.applyCatalogItems('cat-a', items, { listingId: null, serverTime: '2026-11-01T00:00:00Z' })
    store.applyCatalogItems('cat-b', [fullItem(3)], {
      listingId: null,
      serverTime: '2026-11-01T00:00:00Z',
      fresh: true,
    })
    store.finishBulk()
    for (const item of [...items, fullItem(3)]) {
      const json = db.prepare<[string], string>('SELECT json FROM catalog_items WHERE guid = ?').pluck().get(item.guid)!
      expect(JSON.parse(json)).toStrictEqual(JSON.parse(JSON.stringify(item)))
    }
    closeDatabase(db)
  })

  it('opens, reads and syncs while a first sync left its indexes deferred (a crash mid-listing), and rebuilds them', () => {
    const path = tempPath()
    const db = openDatabase(path)
    new LocalCopy(db, new Retention(db)).applyCatalogItems('cat-a', [fullItem(1), fullItem(2)], {
      listingId: 1,
      serverTime: null,
      fresh: true,
    })
    closeDatabase(db)

    const again = openDatabase(path)
    // guid, name, category and SKU (migration 13 made the guid's a named index a first sync can defer).
    expect(again.prepare('SELECT count(*) FROM deferred_indexes').pluck().get()).toBe(4)
    const store = new LocalCopy(again, new Retention(again))
    const queries = browseQueries(openLocalData(again))
    expect(store.countLive('catalogItems', 'cat-a')).toBe(2)
    expect(queries.catalogs.searchCatalogItems({ catalogGuid: 'cat-a' }).items.map((item) => item.guid)).toEqual([
      'item-1',
      'item-2',
    ])
    expect(queries.catalogs.searchCatalogItems({ catalogGuid: 'cat-a', query: 'pepper', categoryId: 1003 }).total).toBe(
      2,
    )
    expect(queries.catalogs.listCategories('cat-a').find((category) => category.id === 1003)?.itemCount).toBe(2)
    store.applyCatalogItems('cat-a', [fullItem(3)], { listingId: null, serverTime: null })
    store.finishBulk()
    expect(again.prepare('SELECT count(*) FROM deferred_indexes').pluck().get()).toBe(0)
    expect(store.countLive('catalogItems', 'cat-a')).toBe(3)
    expect(queries.catalogs.searchCatalogItems({ catalogGuid: 'cat-a' }).items.map((item) => item.name)).toEqual([
      'Peppermint Tea 1',
      'Peppermint Tea 2',
      'Peppermint Tea 3',
    ])
    closeDatabase(again)
  })

  it('builds the deferred indexes under the small cache that caps their sorter, and gives the connection its cache back', () => {
    const db = openDatabase(tempPath())
    const store = new LocalCopy(db, new Retention(db))
    const restore = store.beginBulkWrite()
    store.applyCatalogItems('cat-a', [fullItem(1), fullItem(2)], { listingId: 1, serverTime: null, fresh: true })
    const cacheAtBuilds: unknown[] = []
    const exec = db.exec.bind(db)
    db.exec = (sql: string) => {
      if (sql.startsWith('CREATE')) cacheAtBuilds.push(db.pragma('cache_size', { simple: true }))
      return exec(sql)
    }
    expect(store.finishBulk()).toBe(true)
    expect(cacheAtBuilds).toEqual([indexBuildCacheSize, indexBuildCacheSize, indexBuildCacheSize, indexBuildCacheSize])
    expect(db.pragma('cache_size', { simple: true })).toBe(bulkCacheSize)
    expect(db.prepare('SELECT count(*) FROM deferred_indexes').pluck().get()).toBe(0)
    restore()
    closeDatabase(db)
  })

  it('keeps one row per guid while the guid index waits: a page met twice, a take-over after a crash', () => {
    const path = tempPath()
    const db = openDatabase(path)
    const fresh = { listingId: 1, serverTime: null, fresh: true }
    const store = new LocalCopy(db, new Retention(db))
    store.applyCatalogItems('cat-a', [fullItem(1), fullItem(2)], fresh)
    expect(db.prepare("SELECT 1 FROM sqlite_schema WHERE name = 'catalog_items_by_guid'").get()).toBeUndefined()
    // Rows moved while paging: the same item on a later page, once as it was and once changed.
    const counts = store.applyCatalogItems(
      'cat-a',
      [fullItem(2), fullItem(1, { name: 'Peppermint Tea 1 renamed', updated_at: '2027-06-01T00:00:00.000Z' })],
      fresh,
    )
    expect(counts).toMatchObject({ fetched: 2, upserted: 1 })
    closeDatabase(db)

    // Another process takes the listing over (the first was killed) and meets item 2 again.
    const again = openDatabase(path)
    const next = new LocalCopy(again, new Retention(again))
    next.applyCatalogItems('cat-a', [fullItem(2), fullItem(3)], fresh)
    next.finishBulk()
    expect(again.prepare('SELECT guid, name FROM catalog_item_rows ORDER BY guid').all()).toEqual([
      { guid: 'item-1', name: 'Peppermint Tea 1 renamed' },
      { guid: 'item-2', name: 'Peppermint Tea 2' },
      { guid: 'item-3', name: 'Peppermint Tea 3' },
    ])
    expect(again.prepare("SELECT 1 FROM sqlite_schema WHERE name = 'catalog_items_by_guid'").get()).toBeDefined()
    expect(
      browseQueries(openLocalData(again))
        .catalogs.searchCatalogItems({ catalogGuid: 'cat-a', query: 'renamed' })
        .items.map((item) => item.guid),
    ).toEqual(['item-1'])
    closeDatabase(again)
  })

  it('finds items at their service ids while the guid index waits, keeping only the exceptions by guid', () => {
    const path = tempPath()
    const db = openDatabase(path)
    const fresh = { listingId: 1, serverTime: null, fresh: true }
    const store = new LocalCopy(db, new Retention(db))
    const newer = (id: number, overrides: Record<string, unknown> = {}) =>
      fullItem(id, { name: `Newer ${id}`, updated_at: '2027-06-01T00:00:00.000Z', ...overrides })
    // Item 3 has no id; item 4 comes with item 1's id, so it is stored under a key SQLite picks.
    store.applyCatalogItems(
      'cat-a',
      [fullItem(1), fullItem(2), fullItem(3, { id: null }), fullItem(4, { id: 1 })],
      fresh,
    )
    const offTheirIds = (of: LocalCopy) =>
      (of as unknown as { deferred: { itemsOffTheirIds: Map<string, number> } }).deferred.itemsOffTheirIds
    expect([...offTheirIds(store).keys()].sort()).toEqual(['item-3', 'item-4'])
    expect(
      store.applyCatalogItems('cat-a', [newer(1), fullItem(2), newer(3, { id: null }), newer(4, { id: 1 })], fresh),
    ).toMatchObject({ fetched: 4, upserted: 3 })
    closeDatabase(db)

    // Another process takes the listing over and meets every item again.
    const again = openDatabase(path)
    const next = new LocalCopy(again, new Retention(again))
    next.applyCatalogItems('cat-a', [newer(2), fullItem(1), fullItem(3, { id: null }), fullItem(4, { id: 1 })], fresh)
    expect([...offTheirIds(next).keys()].sort()).toEqual(['item-3', 'item-4'])
    next.finishBulk()
    expect(again.prepare('SELECT guid, name FROM catalog_item_rows ORDER BY guid').all()).toEqual(
      [1, 2, 3, 4].map((id) => ({ guid: `item-${id}`, name: `Newer ${id}` })),
    )
    closeDatabase(again)
  })

  it('builds the guid index when another connection wrote an item the writer did not know of, keeping the newest version', () => {
    const path = tempPath()
    const writerDb = openDatabase(path)
    const writer = new LocalCopy(writerDb, new Retention(writerDb))
    writer.applyCatalogItems('cat-a', [fullItem(1)], { listingId: 1, serverTime: null, fresh: true })
    // The window's own connection refreshes item 2 while the guid index waits, as the service then
    // numbered it; the writer meets it later, newer and under another id, so not at the row's key.
    const windowDb = openDatabase(path)
    new LocalCopy(windowDb, new Retention(windowDb)).applyCatalogItems('cat-a', [fullItem(2, { id: 7 })], {
      listingId: null,
      serverTime: null,
    })
    writer.applyCatalogItems('cat-a', [fullItem(2, { name: 'Newer', updated_at: '2027-06-01T00:00:00.000Z' })], {
      listingId: 1,
      serverTime: null,
      fresh: true,
    })
    expect(writerDb.prepare("SELECT count(*) FROM catalog_item_rows WHERE guid = 'item-2'").pluck().get()).toBe(2)
    writer.finishBulk()
    expect(writerDb.prepare("SELECT name FROM catalog_item_rows WHERE guid = 'item-2'").pluck().all()).toEqual([
      'Newer',
    ])
    expect(writerDb.prepare('SELECT count(*) FROM deferred_indexes').pluck().get()).toBe(0)
    const queries = browseQueries(openLocalData(writerDb))
    expect(
      queries.catalogs.searchCatalogItems({ catalogGuid: 'cat-a', query: 'newer' }).items.map((item) => item.guid),
    ).toEqual(['item-2'])
    expect(
      queries.catalogs.searchCatalogItems({ catalogGuid: 'cat-a', query: 'peppermint' }).items.map((item) => item.guid),
    ).toEqual(['item-1', 'item-2'])
    // The full-text index holds exactly the rows left (rank 1: checked against catalog_item_rows).
    writerDb.exec("INSERT INTO catalog_item_search (catalog_item_search, rank) VALUES ('integrity-check', 1)")
    closeDatabase(windowDb)
    closeDatabase(writerDb)
  })

  it('updates stock and prices without touching the indexes, and a renamed or unlisted item through them', () => {
    const db = openDatabase(tempPath())
    const store = new LocalCopy(db, new Retention(db))
    const delta = { listingId: null, serverTime: null }
    store.applyCatalogItems('cat-a', [fullItem(1), fullItem(2)], delta)
    // Kept for a draft after a listing no longer had it: flagged, and out of the full-text index.
    db.exec(`INSERT INTO catalog_item_search (catalog_item_search, rowid, name, sku, upc, description, manufacturer)
      SELECT 'delete', local_id, name, sku, upc, description, manufacturer FROM catalog_item_rows WHERE guid = 'item-2'`)
    db.prepare("UPDATE catalog_item_rows SET unlisted_at = '2026-11-01T00:00:00Z' WHERE guid = 'item-2'").run()
    const later = '2027-06-01T00:00:00.000Z'
    const counts = store.applyCatalogItems(
      'cat-a',
      [
        fullItem(1, { qty_on_hand: 11, msrp: 9.5, updated_at: later }),
        fullItem(2, { qty_on_hand: 12, updated_at: later }),
      ],
      delta,
    )
    expect(counts).toMatchObject({ fetched: 2, upserted: 2 })
    const rows = () =>
      db.prepare('SELECT guid, name, qty_on_hand, msrp, unlisted_at FROM catalog_item_rows ORDER BY guid').all()
    expect(rows()).toEqual([
      { guid: 'item-1', name: 'Peppermint Tea 1', qty_on_hand: 11, msrp: 9.5, unlisted_at: null },
      { guid: 'item-2', name: 'Peppermint Tea 2', qty_on_hand: 12, msrp: 57.9, unlisted_at: null },
    ])
    store.applyCatalogItems(
      'cat-a',
      [fullItem(1, { name: 'Chamomile', qty_on_hand: 11, msrp: 9.5, updated_at: '2027-06-02T00:00:00.000Z' })],
      delta,
    )
    expect(rows()[0]).toEqual({ guid: 'item-1', name: 'Chamomile', qty_on_hand: 11, msrp: 9.5, unlisted_at: null })
    const queries = browseQueries(openLocalData(db))
    expect(queries.catalogs.searchCatalogItems({ catalogGuid: 'cat-a' }).items.map((item) => item.name)).toEqual([
      'Chamomile',
      'Peppermint Tea 2',
    ])
    expect(
      queries.catalogs.searchCatalogItems({ catalogGuid: 'cat-a', query: 'chamomile' }).items.map((item) => item.guid),
    ).toEqual(['item-1'])
    db.exec("INSERT INTO catalog_item_search (catalog_item_search, rank) VALUES ('integrity-check', 1)")
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok')
    closeDatabase(db)
  })

  it('keeps the indexes for a catalog new to a laptop that already holds items', () => {
    const db = openDatabase(tempPath())
    const store = new LocalCopy(db, new Retention(db))
    store.applyCatalogItems('cat-a', [fullItem(1)], { listingId: null, serverTime: null })
    store.applyCatalogItems('cat-b', [fullItem(2)], { listingId: 2, serverTime: null, fresh: true })
    expect(db.prepare('SELECT count(*) FROM deferred_indexes').pluck().get()).toBe(0)
    expect(db.prepare("SELECT 1 FROM sqlite_schema WHERE name = 'catalog_items_by_guid'").get()).toBeDefined()
    closeDatabase(db)
  })

  it('leaves out what the view puts back (a live item’s updated_at, its category path) and keeps what it cannot, each given back as sent', () => {
    const db = openDatabase(tempPath())
    const store = new LocalCopy(db, new Retention(db))
    const items = [
      fullItem(11),
      // Whole seconds: not what the version writes back.
      fullItem(12, { updated_at: '2026-10-16T19:06:05Z' }),
      fullItem(13, { updated_at: null }),
      // A hierarchy that is not the path by the parents its records name.
      fullItem(14, { CategoryHierarchy: [category(1003, 1001, 'Tea')] }),
      fullItem(15, { CategoryHierarchy: [category(1002, 0, 'Pantry'), category(1003, 1001, 'Tea')] }),
    ]
    store.applyCatalogItems('cat-a', [fullItem(17)], { listingId: null, serverTime: '2026-11-01T00:00:00Z' })
    store.applyCatalogItems('cat-a', items, { listingId: null, serverTime: '2026-11-01T00:00:00Z' })
    const stored = db.prepare<[string], { updated_at: string | null; ids: string | null }>(
      "SELECT updated_at, json_extract(extra, '$.CategoryHierarchy_ids') AS ids FROM catalog_item_rows WHERE guid = ?",
    )
    expect(items.map((item) => stored.get(item.guid))).toEqual([
      { updated_at: null, ids: null },
      { updated_at: '2026-10-16T19:06:05Z', ids: '[1001,1003]' },
      { updated_at: null, ids: '[1001,1003]' },
      { updated_at: null, ids: '[1003]' },
      { updated_at: null, ids: '[1002,1003]' },
    ])
    const viewed = (guid: string) =>
      JSON.parse(
        db.prepare<[string], string>('SELECT json FROM catalog_items WHERE guid = ?').pluck().get(guid)!,
      ) as Record<string, unknown>
    for (const item of items) expect(viewed(item.guid), item.guid).toStrictEqual(JSON.parse(JSON.stringify(item)))
    expect(db.prepare("SELECT updated_at FROM catalog_items WHERE guid = 'item-11'").pluck().get()).toBe(
      '2026-10-16T19:06:05.324Z',
    )

    // Deleted, it keeps its updated_at (its version is the later deleted_at) and its path's ids.
    const deleted = fullItem(11, { updated_at: '2026-10-17T00:00:00.000Z', deleted_at: '2026-10-18T00:00:00.000Z' })
    store.applyCatalogItems('cat-a', [deleted], { listingId: null, serverTime: '2026-11-02T00:00:00Z' })
    expect(stored.get('item-11')).toEqual({ updated_at: '2026-10-17T00:00:00.000Z', ids: '[1001,1003]' })
    expect(viewed('item-11')).toStrictEqual(JSON.parse(JSON.stringify(deleted)))

    // A category moved since: a path left out is read where the category stands now; ids kept stay.
    store.applyCatalogItems(
      'cat-a',
      [
        fullItem(16, {
          updated_at: '2026-10-19T00:00:00.000Z',
          Category: category(1003, 0, 'Tea'),
          CategoryHierarchy: [{ ...category(1003, 0, 'Tea'), updated_at: '2026-10-19T00:00:00.000Z' }],
        }),
      ],
      {
        listingId: null,
        serverTime: '2026-11-03T00:00:00Z',
      },
    )
    expect(stored.get('item-16')).toEqual({ updated_at: null, ids: null })
    expect((viewed('item-12').CategoryHierarchy as { id: number }[]).map((found) => found.id)).toEqual([1001, 1003])
    expect((viewed('item-16').CategoryHierarchy as { id: number }[]).map((found) => found.id)).toEqual([1003])
    expect((viewed('item-17').CategoryHierarchy as { id: number }[]).map((found) => found.id)).toEqual([1003])
    closeDatabase(db)
  })

  it('migration 10 stores what the writer stores, and the view gives back what schema 9 held', () => {
    const path = tempPath()
    const old = openDatabase(path, { migrations: migrations.filter((m) => m.version <= 9) })
    const items = [
      fullItem(1),
      fullItem(2, { Category: null, category_id: 0, CategoryHierarchy: [], color: null, width: 0 }),
      fullItem(3, { Category: { id: 77, name: 'elsewhere' }, CategoryHierarchy: [{ name: 'no id' }] }),
    ]
    const insert =
      old.prepare(`INSERT INTO catalog_items (guid, id, catalog_guid, category_id, sku, upc, name, description, manufacturer, active,
      msrp, qty_on_hand, min_order_qty, has_inventory, allow_backorder, pricing, version, updated_at, deleted_at, listed_run, synced_at, json)
      VALUES (@guid, @id, @catalog_guid, @category_id, @sku, @upc, @name, @description, @manufacturer, @active, @msrp, @qty_on_hand,
      @min_order_qty, @has_inventory, @allow_backorder, @pricing, @version, @updated_at, @deleted_at, @listed_run, @synced_at, @json)`)
    const insertCategory =
      old.prepare(`INSERT INTO categories (catalog_guid, id, guid, parent_id, name, sequence, hidden, version, deleted_at, listed_run, json)
      VALUES (@catalog_guid, @id, @guid, @parent_id, @name, @sequence, @hidden, @version, @deleted_at, @listed_run, @json)`)
    for (const item of items) insert.run(catalogItemRow('cat-a', item, 1, null))
    for (const found of categoriesOf(items).filter((c) => typeof c.id === 'number'))
      insertCategory.run(categoryRow('cat-a', found, 1))
    closeDatabase(old)

    const db = openDatabase(path)
    for (const item of items) {
      const extra = db
        .prepare<[string], string>('SELECT extra FROM catalog_item_rows WHERE guid = ?')
        .pluck()
        .get(item.guid)!
      expect(JSON.parse(extra), item.guid).toStrictEqual(JSON.parse(leanItemExtra(item)))
    }
    const [first, second] = items.map(
      (item) =>
        JSON.parse(
          db.prepare<[string], string>('SELECT json FROM catalog_items WHERE guid = ?').pluck().get(item.guid)!,
        ) as unknown,
    )
    expect(first).toStrictEqual(JSON.parse(JSON.stringify(items[0])))
    // A default the service sent as null stays null; one left out of storage comes back as its default.
    expect(second).toMatchObject({ color: null, width: 0, Category: null, CategoryHierarchy: [] })
    // Searchable after the migration, as before it.
    expect(
      db.prepare("SELECT count(*) FROM catalog_item_search WHERE catalog_item_search MATCH 'pepper*'").pluck().get(),
    ).toBe(3)
    closeDatabase(db)
  })
})
