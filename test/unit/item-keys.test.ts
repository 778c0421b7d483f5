/**
 * The item indexes headed by the catalog's small key (migration 21, issue 28): four indexes that led
 * with the catalog's 36-byte guid, about 140 MB of a million-item database, lead with a key of a byte
 * or two. A new laptop has them from the start; on a laptop past the limit at the upgrade, the catalog
 * update gives the rows stored before their key in slices and then rebuilds the indexes one at a time,
 * and every search, count and lookup finds the same items at every step, also through stores made
 * before it began.
 */
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { closeDatabase, openDatabase, type Database } from '../../src/main/db/database'
import { CatalogItems } from '../../src/main/local/catalog-items/reads'
import { ItemIndexLayout, indexBuildCacheSize, type CatalogHeadedIndex } from '../../src/main/local/catalog-items/sql'
import { CatalogUpdateJobs, type CatalogUpdateProgress } from '../../src/main/local/catalog-update-jobs'
import { LocalCopy } from '../../src/main/local/copy'
import { Retention } from '../../src/main/local/retention'
import type { SkuMatch } from '../../src/main/local/sku-match'
import { catalogWithEveryState, item, outcome, searches, unlisted } from '../support/item-states'
import { undoItemIndexesByCatalogKey } from '../support/schema-rollback'

const directories: string[] = []
const open: Database[] = []
afterEach(() => {
  for (const db of open.splice(0)) if (db.open) closeDatabase(db)
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true })
})
function tempPath(name = 'satchel.db'): string {
  const directory = mkdtempSync(join(tmpdir(), 'satchel-keys-'))
  directories.push(directory)
  return join(directory, name)
}
function opened(db: Database): Database {
  open.push(db)
  return db
}

const headed: CatalogHeadedIndex[] = [
  'catalog_items_by_category',
  'catalog_items_by_listing',
  'catalog_items_by_name',
  'catalog_items_by_sku',
]

function definitions(db: Database): Record<string, string> {
  return Object.fromEntries(
    db
      .prepare<[], [string, string]>(
        "SELECT name, sql FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'catalog_item_rows' ORDER BY name",
      )
      .raw()
      .all(),
  )
}

/** Rows whose catalog_key is not their catalog's key. */
function offTheirKey(db: Database): number {
  return db
    .prepare<[], number>(
      'SELECT count(*) FROM catalog_item_rows i LEFT JOIN catalog_keys k ON k.catalog_guid = i.catalog_guid WHERE i.catalog_key IS NOT k.key',
    )
    .pluck()
    .get()!
}

/**
 * What the screens and the sync read of the catalogs, through stores given (made once, before any
 * change of the indexes): searches, counts made without the kept ones, lookups by SKU, and what a
 * listing's end asks.
 */
function readings(items: CatalogItems, copy: LocalCopy) {
  const catalogs = ['cat-a', 'cat-b', 'cat-none']
  return {
    searches: searches.map((search) => outcome(items, search)),
    counts: [...items.liveCountsByCatalog(catalogs)],
    byCategory: catalogs.map((catalogGuid) =>
      [...items.liveCountsByCategory(catalogGuid)].sort((a, b) => Number(a[0]) - Number(b[0])),
    ),
    skus: ['APR-2001', 'apr-4001', 'APR-10005', 'APR-2005', 'APR-2016', 'nope'].flatMap((sku) =>
      catalogs.map((catalogGuid) => [
        items.bySku(catalogGuid, sku)?.guid,
        foundGuid(items.recordBySku(catalogGuid, sku)),
        items.placeBySku(catalogGuid, sku)?.guid,
      ]),
    ),
    stored: catalogs.map((catalogGuid) => [
      items.anyOf(catalogGuid),
      copy.hasRows('catalogItems', catalogGuid),
      copy.countLive('catalogItems', catalogGuid),
      copy.countListedLive('catalogItems', catalogGuid, 2),
    ]),
  }
}

/** The guid of the one item a SKU names, as recordBySku answers it. */
const foundGuid = (match: SkuMatch<{ guid: string }>) => (match && 'found' in match ? match.found.guid : undefined)

/** A new laptop's database with every item state, its kept counts taken away so counts walk the indexes. */
function newLaptop(path: string): Database {
  const db = opened(openDatabase(path))
  catalogWithEveryState(db)
  db.exec('DELETE FROM catalog_item_counts')
  return db
}

describe('the item indexes on the catalog key', () => {
  it('head every catalog-headed item index of a new laptop, and every item, a catalog’s first too, holds its catalog’s key', () => {
    const db = newLaptop(tempPath())
    const layout = new ItemIndexLayout(db)
    for (const index of headed) {
      expect(definitions(db)[index], index).toMatch(/ON catalog_item_rows \(catalog_key, /)
      expect(layout.keyed(index)).toBe(true)
      // The key is looked up once, and the index sought on it.
      const plan = db
        .prepare(
          `EXPLAIN QUERY PLAN SELECT count(*) FROM catalog_item_rows INDEXED BY ${index} WHERE ${layout.inCatalog(index, '', '@catalog')} AND deleted_at IS NULL AND unlisted_at IS NULL`,
        )
        .all({ catalog: 'cat-a' })
      expect(JSON.stringify(plan), index).toMatch(new RegExp(`USING (COVERING )?INDEX ${index} \\(catalog_key=\\?`))
    }
    expect(offTheirKey(db)).toBe(0)
    // A catalog new to the laptop, and an item moved to another catalog.
    new LocalCopy(db, new Retention(db)).applyCatalogItems('cat-new', [item(90_001), item(90_002)], unlisted)
    db.exec("UPDATE catalog_item_rows SET catalog_guid = 'cat-b' WHERE guid = 'item-2001'")
    expect(offTheirKey(db)).toBe(0)
    expect(
      db
        .prepare(
          "SELECT count(*) FROM catalog_item_rows WHERE catalog_key = (SELECT key FROM catalog_keys WHERE catalog_guid = 'cat-new')",
        )
        .pluck()
        .get(),
    ).toBe(2)
    expect(new CatalogItems(db).bySku('cat-b', 'APR-2001')?.guid).toBe('item-2001')
  })

  it('on a laptop past the limit at the upgrade: keys filled and indexes rebuilt by the catalog update, resumed after a restart, every reading the same at each step', () => {
    const reference = newLaptop(tempPath())
    const expected = readings(new CatalogItems(reference), new LocalCopy(reference, new Retention(reference)))
    closeDatabase(reference)

    // The same rows as a laptop at schema 20 held them.
    const path = tempPath('upgraded.db')
    copyFileSync(reference.name, path)
    const old = openDatabase(path)
    undoItemIndexesByCatalogKey(old)
    old.pragma('user_version = 20')
    closeDatabase(old)

    const limit = { largeCatalogItems: 500 }
    let db = opened(openDatabase(path, limit))
    expect(
      db.prepare('SELECT count(*) FROM catalog_item_rows WHERE catalog_key IS NULL').pluck().get(),
    ).toBeGreaterThan(500)
    let items = new CatalogItems(db)
    let copy = new LocalCopy(db, new Retention(db))
    const layout = new ItemIndexLayout(db)
    expect(headed.filter((index) => layout.keyed(index))).toEqual([])
    expect(readings(items, copy)).toEqual(expected)

    let jobs = new CatalogUpdateJobs(db, { keySpan: 400 })
    expect(jobs.next()).toBe('itemKeys')
    const progress: CatalogUpdateProgress[] = [jobs.slice(), jobs.slice()]
    expect(
      progress.every(
        (step) => step.job === 'itemKeys' && step.itemsBrowsable && step.done > 0 && step.done < step.total,
      ),
    ).toBe(true)
    expect(readings(items, copy)).toEqual(expected)
    // An item written mid-fill, past where it has got, is given its key by the writer (then deleted, so
    // that the readings stay those expected).
    copy.applyCatalogItems('cat-b', [item(11_600, { name: 'Late apron' })], unlisted)
    expect(
      db
        .prepare(
          "SELECT catalog_key = (SELECT key FROM catalog_keys WHERE catalog_guid = 'cat-b') FROM catalog_item_rows WHERE guid = 'item-11600'",
        )
        .pluck()
        .get(),
    ).toBe(1)
    copy.applyCatalogItems(
      'cat-b',
      [item(11_600, { updated_at: '2026-02-01T00:00:00.000Z', deleted_at: '2026-02-01T00:00:00.000Z' })],
      unlisted,
    )
    db.exec('DELETE FROM catalog_item_counts')
    closeDatabase(db)

    // Opened again: the job is found from the schema and goes on from where it was, stores made first.
    db = opened(openDatabase(path, limit))
    items = new CatalogItems(db)
    copy = new LocalCopy(db, new Retention(db))
    const layoutAgain = new ItemIndexLayout(db)
    jobs = new CatalogUpdateJobs(db, { keySpan: 400 })
    // Each rebuild's sort in the small cache (withIndexBuildCache), the connection's own given back.
    const cacheBefore = db.pragma('cache_size', { simple: true })
    const cacheAtBuilds: unknown[] = []
    const exec = db.exec.bind(db)
    db.exec = (sql: string) => {
      if (sql.trimStart().startsWith('CREATE INDEX')) cacheAtBuilds.push(db.pragma('cache_size', { simple: true }))
      return exec(sql)
    }
    const kept: number[] = []
    for (let step = 0; step < 50; step++) {
      const next = jobs.next()
      if (next !== 'itemKeys') break
      const after = jobs.slice()
      progress.push(after)
      kept.push(headed.filter((index) => layoutAgain.keyed(index)).length)
      // Every step, indexes half rebuilt included: the same items, the kept counts left aside.
      db.exec('DELETE FROM catalog_item_counts')
      expect(readings(items, copy), `after step ${step}`).toEqual(expected)
    }
    expect(jobs.next()).not.toBe('itemKeys')
    expect(cacheAtBuilds).toEqual([indexBuildCacheSize, indexBuildCacheSize, indexBuildCacheSize, indexBuildCacheSize])
    expect(db.pragma('cache_size', { simple: true })).toBe(cacheBefore)
    // Each index rebuilt in a slice of its own, after every key was filled.
    expect(kept.filter((count, at) => count !== (kept[at - 1] ?? 0))).toEqual([1, 2, 3, 4])
    expect(offTheirKey(db)).toBe(0)
    const percents = progress
      .filter((step) => step.job === 'itemKeys')
      .map((step) => Math.round((step.done / step.total) * 100))
    expect(percents).toEqual([...percents].sort((a, b) => a - b))
    const fresh = opened(openDatabase(tempPath()))
    expect(definitions(db)).toEqual(definitions(fresh))
    expect(db.prepare('SELECT count(*) FROM catalog_item_keys_fill').pluck().get()).toBe(0)
  })
})
