import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import BetterSqlite3 from 'better-sqlite3'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { closeDatabase, openDatabase, type Database } from '../../../../src/main/db/database'
import type { CatalogItemRecord, CatalogRecord } from '../../../../src/main/ordering-client/schemas'
import { browseQueries, type BrowseQueries } from '../../../../src/main/browse'
import { Retention } from '../../../../src/main/local/retention'
import { LocalCopy } from '../../../../src/main/local/copy'
import { parseServerTime } from '../../../../src/main/local/time'
import { wordPrefixQuery } from '../../../../src/main/browse/search'
import { ITEM_COUNT_CAP } from '../../../../src/shared/synced'
import { catalogItem } from '../../../support/builders'
import { openLocalData } from '../../../../src/main/local/data'
import { NewItemCounts } from '../../../../src/main/brief/new-items'

let directory: string
let db: Database
let retention: Retention
let store: LocalCopy
let queries: BrowseQueries

const catalogGuid = 'cat-1'

function catalog(extra: Partial<CatalogRecord> = {}): CatalogRecord {
  return {
    id: 1,
    guid: catalogGuid,
    name: 'Spring',
    active: true,
    updated_at: '2025-01-01T00:00:00.000Z',
    Price_Groups: [
      {
        id: 11,
        guid: 'pg-retail',
        catalog_id: 1,
        value: 'Retail',
        is_main: true,
        updated_at: '2025-01-01T00:00:00.000Z',
      },
      { id: 12, guid: 'pg-gold', catalog_id: 1, value: 'Gold', is_main: false, updated_at: '2025-01-01T00:00:00.000Z' },
    ],
    ...extra,
  }
}

/** A widget of category 100 (Tools) known by its guid, its id the guid's digits. */
function widget(guid: string, extra: Partial<CatalogItemRecord> = {}): CatalogItemRecord {
  return catalogItem(Number(guid.replace(/\D/g, '')) || 1, {
    guid,
    catalog_id: 1,
    category_id: 100,
    sku: `SKU-${guid}`,
    upc: '0123456789',
    name: `Widget ${guid}`,
    description: 'A sturdy widget',
    manufacturer: 'Acme',
    pricing: { Retail: 10, Gold: 8 },
    updated_at: '2025-01-01T00:00:00.000Z',
    Category: {
      id: 100,
      guid: 'c-100',
      catalog_id: 1,
      parent_category_id: 0,
      name: 'Tools',
      updated_at: '2025-01-01T00:00:00.000Z',
    },
    ...extra,
  })
}

const delta = { listingId: null, serverTime: '2025-01-02T00:00:00.000Z' }

/**
 * How a statement run on `db` reads the catalog items, told from its compiled program (EXPLAIN), not
 * its text: null when it opens no b-tree of catalog_item_rows (the table or an index of it); else
 * 'full-text' (it walks the search index), 'count' (it counts or sums over them), 'an end' (min or
 * max, read off one edge), 'one row' (a walk cut short by a LIMIT), or 'walk' (every row in reach).
 */
function readOfItems(db: BetterSqlite3.Database, sql: string): string | null {
  if (sql.startsWith('--')) return null
  const items = new Set(
    db
      .prepare<[], number>("SELECT rootpage FROM sqlite_schema WHERE tbl_name = 'catalog_item_rows' AND rootpage > 0")
      .pluck()
      .all(),
  )
  const program = db.prepare<[], { opcode: string; p2: number; p4: string | null }>(`EXPLAIN ${sql}`).all()
  if (!program.some((op) => (op.opcode === 'OpenRead' || op.opcode === 'ReopenIdx') && items.has(op.p2))) return null
  const has = (opcode: string, p4?: RegExp) =>
    program.some((op) => op.opcode === opcode && (!p4 || p4.test(op.p4 ?? '')))
  if (has('VFilter')) return 'full-text'
  if (has('Count') || has('AggStep', /^(count|sum|total)\(/)) return 'count'
  if (has('AggStep', /^(min|max)\(/)) return 'an end'
  return has('DecrJumpZero') ? 'one row' : 'walk'
}

beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), 'satchel-store-'))
  db = openDatabase(join(directory, 'satchel.db'))
  retention = new Retention(db)
  store = new LocalCopy(db, retention)
  queries = browseQueries(openLocalData(db))
  store.applyCatalogs([catalog()], { listingId: store.newListingId('catalogs'), serverTime: null })
})

afterEach(() => {
  closeDatabase(db)
  rmSync(directory, { recursive: true, force: true })
})

describe('applying pages', () => {
  it('applies a page twice without changing anything the second time', () => {
    const rows = [widget('i1'), widget('i2')]
    expect(store.applyCatalogItems(catalogGuid, rows, delta)).toEqual({ fetched: 2, upserted: 2, deleted: 0 })
    const before = db.prepare('SELECT * FROM catalog_items ORDER BY guid').all()
    expect(store.applyCatalogItems(catalogGuid, rows, delta)).toEqual({ fetched: 2, upserted: 0, deleted: 0 })
    expect(db.prepare('SELECT * FROM catalog_items ORDER BY guid').all()).toEqual(before)
  })

  it('never lets an older version overwrite a newer one, in either timestamp format', () => {
    store.applyCatalogItems(catalogGuid, [widget('i1', { name: 'Newer', updated_at: '2025-01-05 10:00:00' })], delta)
    store.applyCatalogItems(catalogGuid, [widget('i1', { name: 'Older', updated_at: '2025-01-05T09:59:59Z' })], delta)
    expect(queries.catalogs.getCatalogItem({ guid: 'i1' })?.name).toBe('Newer')
    store.applyCatalogItems(
      catalogGuid,
      [widget('i1', { name: 'Newest', updated_at: '2025-01-05T10:00:01.000Z' })],
      delta,
    )
    expect(queries.catalogs.getCatalogItem({ guid: 'i1' })?.name).toBe('Newest')
  })

  it('takes a changed body at the same timestamp (services that stamp whole seconds)', () => {
    store.applyCatalogItems(catalogGuid, [widget('i1', { qty_on_hand: 5 })], delta)
    store.applyCatalogItems(catalogGuid, [widget('i1', { qty_on_hand: 3 })], delta)
    expect(queries.catalogs.getCatalogItem({ guid: 'i1' })?.qtyOnHand).toBe(3)
  })

  it('writes each indexed column a change names, one at a time or together, and every index finds the row by its new values', () => {
    const tools = {
      id: 100,
      guid: 'c-100',
      catalog_id: 1,
      parent_category_id: 0,
      name: 'Tools',
      updated_at: '2025-01-01T00:00:00.000Z',
    }
    const saws = {
      id: 200,
      guid: 'c-200',
      catalog_id: 1,
      parent_category_id: 100,
      name: 'Saws',
      updated_at: '2025-01-01T00:00:00.000Z',
    }
    store.applyCatalogItems(catalogGuid, [widget('i1', { Category: tools }), widget('i2', { Category: tools })], delta)
    const changes: Partial<CatalogItemRecord>[] = [
      { name: 'Renamed widget' },
      { sku: 'NEW-SKU-1' },
      { category_id: 200, Category: saws },
      { active: false },
      { id: 901 },
      { qty_on_hand: 7 },
      { name: 'Both at once', sku: 'BOTH-1', active: true, qty_on_hand: 9 },
    ]
    let minute = 10
    let expected: Partial<CatalogItemRecord> = {}
    for (const change of changes) {
      expected = { ...expected, ...change }
      store.applyCatalogItems(
        catalogGuid,
        [widget('i1', { Category: tools, ...expected, updated_at: `2025-01-02T00:${minute++}:00.000Z` })],
        delta,
      )
      const row = queries.catalogs.getCatalogItem({ guid: 'i1' })
      expect(row).toMatchObject({
        name: expected.name ?? 'Widget i1',
        sku: expected.sku ?? 'SKU-i1',
        categoryId: expected.category_id ?? 100,
        active: expected.active ?? true,
      })
      // By SKU (the SKU index), by name and category (their indexes, live rows only) and by the service's id.
      expect(queries.catalogs.getCatalogItem({ catalogGuid, sku: expected.sku ?? 'SKU-i1' })?.guid).toBe('i1')
      const browsed = queries.catalogs
        .searchCatalogItems({ catalogGuid, categoryId: expected.category_id ?? 100, includeInactive: true })
        .items.map((i) => i.guid)
      expect(browsed).toContain('i1')
      expect(
        queries.catalogs.searchCatalogItems({ catalogGuid, includeInactive: true }).items.map((i) => i.name),
      ).toContain(expected.name ?? 'Widget i1')
      expect(
        db
          .prepare('SELECT guid FROM catalog_item_rows WHERE id = ?')
          .pluck()
          .get(expected.id ?? 1),
      ).toBe('i1')
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok')
    }
  })

  it('lists a row kept unlisted for a draft again when a listing sees it, its body unchanged', () => {
    store.applyCatalogItems(catalogGuid, [widget('i1'), widget('i2')], delta)
    db.prepare("UPDATE catalog_item_rows SET unlisted_at = '2025-01-02T00:00:00.000Z' WHERE guid = 'i1'").run()
    expect(queries.catalogs.searchCatalogItems({ catalogGuid }).items.map((i) => i.guid)).toEqual(['i2'])
    const listingId = store.newListingId(`catalogItems:${catalogGuid}`)
    store.applyCatalogItems(catalogGuid, [widget('i1', { qty_on_hand: 4, updated_at: '2025-01-03T00:00:00.000Z' })], {
      listingId,
      serverTime: null,
    })
    expect(queries.catalogs.searchCatalogItems({ catalogGuid }).items.map((i) => i.guid)).toEqual(['i1', 'i2'])
    expect(db.prepare("SELECT listed_run FROM catalog_item_rows WHERE guid = 'i1'").pluck().get()).toBe(listingId)
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok')
  })

  it('keeps fields the spec does not show in the stored record', () => {
    store.applyCatalogItems(catalogGuid, [widget('i1', { warehouse_bins: ['A1', 'B2'] })], delta)
    expect(queries.catalogs.getCatalogItem({ guid: 'i1' })?.record.warehouse_bins).toEqual(['A1', 'B2'])
  })

  it('takes a deleted row out of every live view, even one never seen before', () => {
    store.applyCatalogItems(catalogGuid, [widget('i1'), widget('i2')], delta)
    const counts = store.applyCatalogItems(
      catalogGuid,
      [
        widget('i1', { deleted_at: '2025-01-03T00:00:00Z', updated_at: '2025-01-03T00:00:00Z' }),
        widget('i9', { deleted_at: '2025-01-03T00:00:00Z' }),
      ],
      delta,
    )
    expect(counts.deleted).toBe(2)
    expect(queries.catalogs.searchCatalogItems({ catalogGuid, query: 'widget' }).items.map((i) => i.guid)).toEqual([
      'i2',
    ])
    expect(queries.catalogs.searchCatalogItems({ catalogGuid }).items.map((i) => i.guid)).toEqual(['i2'])
    expect(openLocalData(db).counts().catalogItems).toBe(1)
    expect(queries.catalogs.getCatalogItem({ guid: 'i1' })?.status).toBe('deleted')
    // A late, older copy of the deleted row does not bring it back.
    store.applyCatalogItems(catalogGuid, [widget('i1')], delta)
    expect(queries.catalogs.getCatalogItem({ guid: 'i1' })?.status).toBe('deleted')
  })
})

describe('full listing removal', () => {
  it('removes rows the listing did not see, flagging those a draft still needs', () => {
    store.applyCatalogItems(catalogGuid, [widget('i1'), widget('i2'), widget('i3')], delta)
    retention.register((kind, guids) => (kind === 'catalogItem' ? guids.filter((guid) => guid === 'i3') : []))
    const listing = store.newListingId('catalogItems:cat-1')
    store.applyCatalogItems(catalogGuid, [widget('i1')], { listingId: listing, serverTime: '2025-01-04T00:00:00Z' })
    const pruned = store.pruneUnlisted('catalogItems', catalogGuid, listing, '2025-01-04T00:00:00Z')
    expect(pruned.deleted).toBe(2)
    expect(queries.catalogs.getCatalogItem({ guid: 'i2' })).toBeNull()
    expect(queries.catalogs.getCatalogItem({ guid: 'i3' })?.status).toBe('unlisted')
    expect(queries.catalogs.searchCatalogItems({ catalogGuid, query: 'widget' }).items.map((i) => i.guid)).toEqual([
      'i1',
    ])
    // Listed again later: live again.
    const next = store.newListingId('catalogItems:cat-1')
    store.applyCatalogItems(catalogGuid, [widget('i1'), widget('i3')], { listingId: next, serverTime: null })
    expect(queries.catalogs.getCatalogItem({ guid: 'i3' })?.status).toBe('live')
    expect(queries.catalogs.searchCatalogItems({ catalogGuid, query: 'widget' }).total).toBe(2)
  })

  it('keeps rows named by the retained_refs view (migration 7): here, an item on a draft', () => {
    store.applyCatalogItems(catalogGuid, [widget('i1'), widget('i2')], delta)
    db.prepare(
      'INSERT INTO drafts (api_guid, customer_guid, catalog_guid, document, created_at, updated_at) VALUES (?, NULL, ?, ?, ?, ?)',
    ).run(
      'c0ffee00-0000-4000-8000-000000000001',
      catalogGuid,
      JSON.stringify({ lines: [{ catalogItemGuid: 'i2' }] }),
      '2026-11-20T00:00:00.000Z',
      '2026-11-20T00:00:00.000Z',
    )
    const listing = store.newListingId('catalogItems:cat-1')
    store.pruneUnlisted('catalogItems', catalogGuid, listing, null)
    expect(queries.catalogs.getCatalogItem({ guid: 'i1' })).toBeNull()
    expect(queries.catalogs.getCatalogItem({ guid: 'i2' })?.status).toBe('unlisted')
  })
})

describe('queries', () => {
  beforeEach(() => {
    store.applyCatalogItems(
      catalogGuid,
      [
        widget('i1', { name: 'Blue Hammer', sku: 'HAM-100', pricing: { Retail: 12.5, Gold: 'N/A' } }),
        widget('i2', {
          name: 'Red Screwdriver',
          sku: 'SCR-200',
          description: 'Hammer-proof handle',
          pricing: { Retail: 4, Gold: 3.5 },
        }),
        widget('i3', {
          name: 'Café Crème Mug',
          sku: 'MUG-300',
          upc: '777000111',
          manufacturer: 'Délice',
          active: false,
        }),
      ],
      delta,
    )
    store.applyCustomers(
      [
        {
          customer: {
            guid: 'cu-1',
            id: 501,
            name: 'Harbor Hardware',
            price_group_id: 12,
            city: 'Portland',
            active: true,
          },
          connection: { id: 1 },
          connectionDeletedAt: null,
        },
        {
          customer: { guid: 'cu-2', id: 502, name: 'Hilltop Supply', price_group_id: 0, city: 'Salem', active: false },
          connection: {},
          connectionDeletedAt: null,
        },
      ],
      delta,
    )
  })

  it('matches word prefixes across name, SKU, UPC, description and manufacturer, case- and accent-insensitively', () => {
    const guids = (query: string) =>
      queries.catalogs.searchCatalogItems({ catalogGuid, query, includeInactive: true }).items.map((i) => i.guid)
    expect(guids('ham')).toEqual(['i1', 'i2'])
    expect(guids('HAM-1')).toEqual(['i1'])
    expect(guids('scr 200')).toEqual(['i2'])
    expect(guids('7770')).toEqual(['i3'])
    expect(guids('cafe deli')).toEqual(['i3'])
    expect(guids('mer')).toEqual([])
    expect(guids('"')).toEqual([])
    expect(wordPrefixQuery('  ')).toBeNull()
    // The words the query drops (repeated, one letter after the first, a start of another) only widened it.
    expect(guids(`${'ham '.repeat(60)}h ha`)).toEqual(guids('ham'))
    expect(guids('s '.repeat(100))).toEqual(guids('s'))
    expect(guids('cafe c d deli')).toEqual(guids('cafe deli'))
  })

  it('lists a broad search as the index holds it, page after page, with its total, when there are too many matches to rank', () => {
    const many = Array.from({ length: 2100 }, (_, n) =>
      widget(`w${n}`, { name: `Widget ${String(2100 - n).padStart(4, '0')}`, description: null }),
    )
    store.applyCatalogItems(catalogGuid, many, delta)
    const found = queries.catalogs.searchCatalogItems({ catalogGuid, query: 'wid', limit: 3, offset: 1 })
    // The widgets, and "Blue Hammer" whose description says widget; the inactive mug is left out.
    expect(found.total).toBe(2101)
    expect(found.totalCapped).toBe(false)
    // Not sorted: sorting every match is what a broad search at a million items cannot afford.
    expect(found.items.map((i) => i.name)).toEqual(['Widget 2100', 'Widget 2099', 'Widget 2098'])
    expect(found.more).toBe(true)
    // Paged through, every match comes once.
    const seen: string[] = []
    for (let offset = 0; ; offset += 500) {
      const page = queries.catalogs.searchCatalogItems({
        catalogGuid,
        query: 'wid',
        limit: 500,
        offset,
        withTotal: false,
      })
      expect(page.total).toBeNull()
      seen.push(...page.items.map((i) => i.guid))
      if (!page.more) break
    }
    expect(new Set(seen).size).toBe(2101)
    expect(seen).toHaveLength(2101)
    // A narrow search among them is still ranked by relevance.
    expect(queries.catalogs.searchCatalogItems({ catalogGuid, query: 'widget 0042' }).items.map((i) => i.name)).toEqual(
      ['Widget 0042'],
    )
  })

  it('lists a broad search of the catalog that arrived last from the top of the shared index, every match once', () => {
    // The first catalog's widgets take the low local ids; a second catalog's come after them.
    store.applyCatalogItems(
      catalogGuid,
      Array.from({ length: 1500 }, (_, n) => widget(`a${n}`, { name: `Widget A${n}`, description: null })),
      delta,
    )
    const later = 'cat-later'
    store.applyCatalogItems(
      later,
      Array.from({ length: 1200 }, (_, n) => widget(`b${n}`, { name: `Widget B${n}`, description: null })),
      delta,
    )
    const first = queries.catalogs.searchCatalogItems({ catalogGuid: later, query: 'w', limit: 3 })
    expect(first.items.map((i) => i.name)).toEqual(['Widget B1199', 'Widget B1198', 'Widget B1197'])
    expect(first).toMatchObject({ more: true, total: 1200, totalCapped: false })
    const seen: string[] = []
    for (let offset = 0; ; offset += 500) {
      const page = queries.catalogs.searchCatalogItems({
        catalogGuid: later,
        query: 'w',
        limit: 500,
        offset,
        withTotal: false,
      })
      seen.push(...page.items.map((i) => i.guid))
      if (!page.more) break
    }
    expect(new Set(seen).size).toBe(1200)
    expect(seen.every((guid) => guid.startsWith('b'))).toBe(true)
    // The catalog that came first still lists from the bottom.
    // (Blue Hammer, of the fixture, says widget in its description.)
    expect(queries.catalogs.searchCatalogItems({ catalogGuid, query: 'w', limit: 2 }).items.map((i) => i.name)).toEqual(
      ['Blue Hammer', 'Widget A0'],
    )
  })

  it('walks from the end its listed items are nearer, whatever a delta added at the top of the index since', () => {
    const listed = (catalog: string, prefix: string, from: number, count: number) => {
      const listingId = store.newListingId(`catalogItems:${catalog}`)
      store.applyCatalogItems(
        catalog,
        Array.from({ length: count }, (_, n) =>
          widget(`${prefix}${n}`, { id: from + n, name: `Widget ${prefix.toUpperCase()}${n}`, description: null }),
        ),
        { listingId, serverTime: null },
      )
    }
    listed('cat-early', 'c', 10_000, 1200)
    listed('cat-later', 'b', 20_000, 1500)
    // A delta brings the early catalog an item whose id is above every other.
    store.applyCatalogItems(
      'cat-early',
      [widget('c-new', { id: 30_000, name: 'Widget C new', description: null })],
      delta,
    )
    expect(
      queries.catalogs.searchCatalogItems({ catalogGuid: 'cat-early', query: 'w', limit: 2 }).items.map((i) => i.name),
    ).toEqual(['Widget C0', 'Widget C1'])
    expect(
      queries.catalogs.searchCatalogItems({ catalogGuid: 'cat-later', query: 'w', limit: 2 }).items.map((i) => i.name),
    ).toEqual(['Widget B1499', 'Widget B1498'])
  })

  it('lists and counts only the items created after a moment, by the record’s created_at, with a search or a category too', async () => {
    store.applyCatalogItems(
      catalogGuid,
      [
        widget('n1', { name: 'Widget old', created_at: '2025-01-01T00:00:00.000Z' }),
        widget('n2', { name: 'Widget new', created_at: '2025-06-01T00:00:00.000Z' }),
        widget('n3', { name: 'Gadget new', created_at: '2025-07-01T00:00:00.000Z', category_id: 200 }),
        widget('n4', { name: 'Widget new but inactive', created_at: '2025-07-01T00:00:00.000Z', active: false }),
      ],
      delta,
    )
    const createdAfter = '2025-03-01T00:00:00.000Z'
    const names = (search: Partial<Parameters<BrowseQueries['catalogs']['searchCatalogItems']>[0]>) =>
      queries.catalogs.searchCatalogItems({ catalogGuid, createdAfter, ...search }).items.map((item) => item.name)
    expect(names({})).toEqual(['Gadget new', 'Widget new'])
    expect(queries.catalogs.countCatalogItems({ catalogGuid, createdAfter })).toEqual({ total: 2, capped: false })
    expect(names({ query: 'gadget' })).toEqual(['Gadget new'])
    expect(queries.catalogs.countCatalogItems({ catalogGuid, createdAfter, query: 'gadget' })).toEqual({
      total: 1,
      capped: false,
    })
    expect(names({ categoryId: 100 })).toEqual(['Widget new'])
    // The brief counts its new items by the same rule: whole seconds, whatever the offset they are written with.
    store.applyCatalogItems(
      catalogGuid,
      [
        widget('n5', { name: 'Widget same second', created_at: '2025-08-01T02:00:00+02:00' }),
        widget('n6', { name: 'Widget a second on', created_at: '2025-08-01T00:00:01Z' }),
      ],
      delta,
    )
    const counts = new NewItemCounts(openLocalData(db).catalogItems)
    await counts.ready()
    for (const moment of [createdAfter, '2025-08-01T00:00:00.700Z']) {
      const listed = queries.catalogs.countCatalogItems({ catalogGuid, createdAfter: moment }).total
      expect(listed).toBe(counts.countSince(catalogGuid, moment))
      expect(listed).toBe(openLocalData(db).catalogItems.countCreatedSince(catalogGuid, moment))
    }
    expect(names({ createdAfter: '2025-08-01T00:00:00.700Z' })).toEqual(['Widget a second on'])
  })

  it(`counts a search's matches no further than ${ITEM_COUNT_CAP.toLocaleString('en-US')}, and a browse without one exactly`, () => {
    const many = Array.from({ length: ITEM_COUNT_CAP + 50 }, (_, n) =>
      widget(`s${n}`, { name: `Sprocket ${n}`, sku: `SP-${n}`, description: null }),
    )
    store.applyCatalogItems(catalogGuid, many, delta)
    expect(queries.catalogs.countCatalogItems({ catalogGuid, query: 's' })).toEqual({
      total: ITEM_COUNT_CAP,
      capped: true,
    })
    expect(queries.catalogs.countCatalogItems({ catalogGuid, query: 'sprocket 1234' })).toEqual({
      total: 1,
      capped: false,
    })
    const browse = queries.catalogs.countCatalogItems({ catalogGuid, includeInactive: true })
    expect(browse).toEqual({ total: ITEM_COUNT_CAP + 50 + 3, capped: false })
    // The first page says rows follow, and the count it carries is the same capped one.
    const first = queries.catalogs.searchCatalogItems({ catalogGuid, query: 's', limit: 50 })
    expect(first).toMatchObject({ more: true, total: ITEM_COUNT_CAP, totalCapped: true })
    expect(first.items).toHaveLength(50)
  })

  it('prices items for the customer price group by name, with N/A as not offered', () => {
    const gold = queries.catalogs.searchCatalogItems({ catalogGuid, customerGuid: 'cu-1' })
    expect(gold.priceGroupName).toBe('Gold')
    const byGuid = Object.fromEntries(gold.items.map((i) => [i.guid, { price: i.price, offered: i.offered }]))
    expect(byGuid).toEqual({ i1: { price: null, offered: false }, i2: { price: 3.5, offered: true } })
    // No price group on the customer: the catalog's main group.
    const retail = queries.catalogs.searchCatalogItems({ catalogGuid, customerGuid: 'cu-2', query: 'hammer' })
    expect(retail.priceGroupName).toBe('Retail')
    expect(retail.items.find((i) => i.guid === 'i1')).toMatchObject({ price: 12.5, offered: true })
  })

  it('finds an item by exact SKU, case-insensitively, as a scanner types it', () => {
    expect(queries.catalogs.getCatalogItem({ catalogGuid, sku: 'scr-200', customerGuid: 'cu-1' })).toMatchObject({
      guid: 'i2',
      price: 3.5,
    })
    expect(queries.catalogs.getCatalogItem({ catalogGuid, sku: 'SCR-20' })).toBeNull()
  })

  it('lists categories with their item counts, and items by category', () => {
    expect(queries.catalogs.listCategories(catalogGuid)).toEqual([
      expect.objectContaining({ id: 100, name: 'Tools', itemCount: 3, parentId: null }),
    ])
    expect(queries.catalogs.searchCatalogItems({ catalogGuid, categoryId: 100 }).total).toBe(2)
  })

  it('searches customers and counts inactive ones as live', () => {
    expect(queries.customers.searchCustomers({ query: 'port' }).customers.map((c) => c.guid)).toEqual(['cu-1'])
    expect(queries.customers.searchCustomers({}).customers.map((c) => c.name)).toEqual([
      'Harbor Hardware',
      'Hilltop Supply',
    ])
    expect(openLocalData(db).counts()).toMatchObject({ catalogs: 1, priceGroups: 2, customers: 2, catalogItems: 3 })
    expect(queries.customers.getCustomer('cu-1')).toMatchObject({
      priceGroup: { id: 12, name: 'Gold' },
      status: 'live',
    })
  })
})

describe('item counts kept by the sync writer', () => {
  const saws = {
    id: 200,
    guid: 'c-200',
    catalog_id: 1,
    parent_category_id: 100,
    name: 'Saws',
    updated_at: '2025-01-01T00:00:00.000Z',
  }

  /** Every count the catalog screens show, read through `reads`. */
  function shownCounts(reads: BrowseQueries) {
    return {
      catalogs: reads.catalogs.listCatalogs().map((c) => c.itemCount),
      categories: reads.catalogs.listCategories(catalogGuid).map((c) => [c.id, c.itemCount]),
      browse: reads.catalogs.countCatalogItems({ catalogGuid }).total,
      browseInactive: reads.catalogs.countCatalogItems({ catalogGuid, includeInactive: true }).total,
      tools: reads.catalogs.countCatalogItems({ catalogGuid, categoryId: 100 }).total,
      saws: reads.catalogs.countCatalogItems({ catalogGuid, categoryId: 200, includeInactive: true }).total,
      searched: reads.catalogs.countCatalogItems({ catalogGuid, query: 'widget' }).total,
    }
  }

  beforeEach(() => {
    store.applyCatalogItems(
      catalogGuid,
      [
        widget('i1'),
        widget('i2', { active: false }),
        widget('i3', { category_id: 200, Category: saws }),
        widget('i4', { category_id: null, Category: null }),
        widget('i5', { deleted_at: '2025-01-02T00:00:00.000Z' }),
      ],
      delta,
    )
  })

  it('counts from the items until the writer has counted a catalog (as just after the upgrade), then reads no item to count', () => {
    const expected = {
      catalogs: [4],
      categories: [
        [200, 1],
        [100, 2],
      ],
      browse: 3,
      browseInactive: 4,
      tools: 2,
      saws: 1,
      searched: 3,
    }
    expect(shownCounts(queries)).toEqual(expected)

    store.recountItems([catalogGuid])
    const statements: string[] = []
    const traced = new BetterSqlite3(join(directory, 'satchel.db'), { verbose: (sql) => statements.push(String(sql)) })
    try {
      const tracedQueries = browseQueries(openLocalData(traced))
      expect(shownCounts(tracedQueries)).toEqual(expected)
      // The full-text count reads its matches, the catalog list asks whether a catalog holds any item
      // (one row), and the search which end of the index its catalog's items are nearer (one row and
      // the two ends); every other count reads the kept counts, whatever the catalog's size.
      const readItems = statements
        .slice()
        .map((sql) => readOfItems(traced, sql))
        .filter((kind) => kind !== null)
      expect(readItems).toEqual(['one row', 'one row', 'an end', 'an end', 'full-text'])
    } finally {
      traced.close()
    }
  })

  it('keeps a counted catalog counted through each write, a delta, a prune, a relisting, as counting it again would', () => {
    const kept = () =>
      db
        .prepare(
          'SELECT category_id, live, active FROM catalog_item_counts WHERE catalog_guid = ? ORDER BY category_id',
        )
        .all(catalogGuid)
    /** The kept counts, then the same counted afresh from the items: they must agree. */
    const keptAndRecounted = () => {
      const before = kept()
      store.recountItems([catalogGuid])
      return [before, kept()]
    }
    store.recountItems([catalogGuid])
    // New (i6), deleted (i1), made active (i2), moved to another category (i3), and unchanged (i4).
    store.applyCatalogItems(
      catalogGuid,
      [
        widget('i6', { category_id: 200, Category: saws }),
        widget('i1', { deleted_at: '2025-01-03T00:00:00.000Z', updated_at: '2025-01-03T00:00:00.000Z' }),
        widget('i2', { active: true, updated_at: '2025-01-03T00:00:00.000Z' }),
        widget('i3', { category_id: 100, updated_at: '2025-01-03T00:00:00.000Z' }),
        widget('i4', { category_id: null, Category: null }),
      ],
      delta,
    )
    // Read at once, with no recount in between.
    expect(shownCounts(queries)).toMatchObject({
      catalogs: [4],
      categories: [
        [200, 1],
        [100, 2],
      ],
      browse: 4,
      tools: 3,
      saws: 1,
    })
    let [before, after] = keptAndRecounted()
    expect(before).toEqual(after)

    // A listing that sees i2 and i6 only: i3 is kept unlisted for a draft, i4 removed; later listed again.
    retention.register((kind, guids) => (kind === 'catalogItem' ? guids.filter((guid) => guid === 'i3') : []))
    const listing = store.newListingId(`catalogItems:${catalogGuid}`)
    store.applyCatalogItems(
      catalogGuid,
      [
        widget('i2', { active: true, updated_at: '2025-01-03T00:00:00.000Z' }),
        widget('i6', { category_id: 200, Category: saws }),
      ],
      { listingId: listing, serverTime: null },
    )
    store.pruneUnlisted('catalogItems', catalogGuid, listing, '2025-01-04T00:00:00.000Z')
    expect(shownCounts(queries)).toMatchObject({ catalogs: [2], browse: 2 })
    ;[before, after] = keptAndRecounted()
    expect(before).toEqual(after)
    const next = store.newListingId(`catalogItems:${catalogGuid}`)
    store.applyCatalogItems(catalogGuid, [widget('i3', { category_id: 100, updated_at: '2025-01-03T00:00:00.000Z' })], {
      listingId: next,
      serverTime: null,
    })
    expect(shownCounts(queries)).toMatchObject({ catalogs: [3], browse: 3 })
    ;[before, after] = keptAndRecounted()
    expect(before).toEqual(after)
  })

  it("keeps a family's members apart in the counts through each write: listed once, every item still counted", () => {
    const keptAll = () =>
      db
        .prepare(
          'SELECT category_id, live, active, members_live, members_active FROM catalog_item_counts WHERE catalog_guid = ? ORDER BY category_id',
        )
        .all(catalogGuid)
    /** What a delta's check holds against the service's count: every live item, members too. */
    const everyItem = () =>
      db.prepare('SELECT sum(live) FROM catalog_item_counts WHERE catalog_guid = ?').pluck().get(catalogGuid)
    store.recountItems([catalogGuid])
    // A family (parent i10) of two members, then a member that leaves it and one that joins.
    const parent = widget('i10', { is_product_group: true, name: 'Widget family' })
    store.applyCatalogItems(
      catalogGuid,
      [
        parent,
        widget('i11', { group_parent_catalog_item_id: 10 }),
        widget('i12', { group_parent_catalog_item_id: 10, active: false }),
      ],
      delta,
    )
    // Listed: i1, i3, i4 and the family, and with the inactive i2 (i12 is a member); every live item: 7.
    expect(shownCounts(queries)).toMatchObject({ catalogs: [5], browse: 4, browseInactive: 5 })
    expect(everyItem()).toBe(7)
    let before = keptAll()
    store.recountItems([catalogGuid])
    expect(keptAll()).toEqual(before)

    store.applyCatalogItems(
      catalogGuid,
      [
        widget('i11', { group_parent_catalog_item_id: 0, updated_at: '2025-01-03T00:00:00.000Z' }),
        widget('i4', {
          category_id: null,
          Category: null,
          group_parent_catalog_item_id: 10,
          updated_at: '2025-01-03T00:00:00.000Z',
        }),
        widget('i12', {
          group_parent_catalog_item_id: 10,
          deleted_at: '2025-01-03T00:00:00.000Z',
          updated_at: '2025-01-03T00:00:00.000Z',
        }),
      ],
      delta,
    )
    // i11 listed of its own now, i4 folded into the family, i12 gone.
    expect(shownCounts(queries)).toMatchObject({ catalogs: [5], browse: 4, browseInactive: 5 })
    expect(everyItem()).toBe(6)
    before = keptAll()
    store.recountItems([catalogGuid])
    expect(keptAll()).toEqual(before)
  })

  it('counts a catalog again when another connection writes its items while the writer counts it', () => {
    store.recountItems([catalogGuid])
    const window = openDatabase(join(directory, 'satchel.db'))
    try {
      const windowStore = new LocalCopy(window, new Retention(window))
      const items = (store as unknown as { items: { countByCategory(catalogGuid: string): unknown[] } }).items
      const countByCategory = items.countByCategory.bind(items)
      let refreshed = false
      items.countByCategory = (guid) => {
        const rows = countByCategory(guid)
        // A draft's item refreshed on the window's connection, after the count was read.
        if (!refreshed) windowStore.applyCatalogItems(catalogGuid, [widget('i7')], delta)
        refreshed = true
        return rows
      }
      store.recountItems([catalogGuid])
    } finally {
      closeDatabase(window)
    }
    expect(shownCounts(queries).catalogs).toEqual([5])
  })

  it('counts a catalog only once recounted, and forgets a catalog that is gone', () => {
    // Not counted yet (as just after the upgrade): writes keep no count of it, the screens count the items.
    store.applyCatalogItems(catalogGuid, [widget('i6', { category_id: 200, Category: saws })], delta)
    expect(db.prepare('SELECT count(*) FROM catalog_item_counts').pluck().get()).toBe(0)
    expect(shownCounts(queries).categories).toEqual([
      [200, 2],
      [100, 2],
    ])
    store.recountItems([])
    expect(shownCounts(queries).categories).toEqual([
      [200, 2],
      [100, 2],
    ])
    expect(db.prepare('SELECT count(*) FROM catalog_item_counts').pluck().get()).toBeGreaterThan(0)

    store.applyCatalogs([catalog({ deleted_at: '2025-01-04T00:00:00.000Z', updated_at: '2025-01-04T00:00:00.000Z' })], {
      listingId: null,
      serverTime: null,
    })
    store.recountItems([])
    expect(db.prepare('SELECT count(*) FROM catalog_item_counts').pluck().get()).toBe(0)
  })
})

describe('sync state', () => {
  it("reads a scope's state without writing, so it never waits for the writer thread's lock", () => {
    // The engine plans the next scope (its cursor, its unfinished run) while the writer thread commits
    // the pages of the scope before: a write here waited for that commit with the event loop blocked.
    const writer = openDatabase(join(directory, 'satchel.db'))
    try {
      db.pragma('busy_timeout = 0')
      writer.exec('BEGIN IMMEDIATE')
      expect(store.scope('catalogItems:never-synced')).toMatchObject({
        cursor: null,
        run: null,
        verifyNeeded: false,
        lastError: null,
      })
      writer.exec('ROLLBACK')
      store.completeRun('catalogItems:never-synced', '2025-01-01T00:00:00.000Z', 1)
      writer.exec('BEGIN IMMEDIATE')
      expect(store.scope('catalogItems:never-synced')).toMatchObject({ cursor: '2025-01-01T00:00:00.000Z', run: null })
      writer.exec('ROLLBACK')
    } finally {
      closeDatabase(writer)
    }
  })
})

describe('parseServerTime', () => {
  it('reads both cursor formats as UTC whatever the laptop time zone', () => {
    expect(parseServerTime('2025-01-05 10:00:00')).toBe(Date.UTC(2025, 0, 5, 10))
    expect(parseServerTime('2025-01-05T10:00:00')).toBe(Date.UTC(2025, 0, 5, 10))
    expect(parseServerTime('2025-01-05T12:00:00+02:00')).toBe(Date.UTC(2025, 0, 5, 10))
    expect(parseServerTime('not a time')).toBeNull()
  })
})
