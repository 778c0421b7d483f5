/**
 * The search filters (migration 20): what a catalog search filters and folds a match on, a few bytes
 * an item in catalog_item_filters, so that a full-text match is not joined to its wide item row
 * (issue 28). Searching through them gives the rows and counts that filtering on the item rows gives;
 * the triggers keep them equal to what the item rows say through every kind of write; and on a
 * laptop whose catalog is past the limit at the upgrade, the catalog update fills them in slices,
 * going on after a restart, while searches take the item rows' path.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { closeDatabase, openDatabase, type Database } from '../../src/main/db/database'
import { CatalogItems } from '../../src/main/local/catalog-items/reads'
import { CatalogUpdateJobs, type CatalogUpdateProgress } from '../../src/main/local/catalog-update-jobs'
import { LocalCopy } from '../../src/main/local/copy'
import { Retention } from '../../src/main/local/retention'
import { catalogWithEveryState, item, outcome, searches, unlisted } from '../support/item-states'
import { undoCatalogItemFilters, undoItemIndexesByCatalogKey } from '../support/schema-rollback'

const directories: string[] = []
const open: Database[] = []
afterEach(() => {
  for (const db of open.splice(0)) if (db.open) closeDatabase(db)
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true })
})
function tempPath(): string {
  const directory = mkdtempSync(join(tmpdir(), 'satchel-filters-'))
  directories.push(directory)
  return join(directory, 'satchel.db')
}
function opened(db: Database): Database {
  open.push(db)
  return db
}

/** What catalog_item_rows says of each item, as the filters must hold it (derived here, not by the migration's SQL). */
function derivedFilters(db: Database): unknown[] {
  return db
    .prepare(
      `SELECT local_id, catalog_guid, deleted_at IS NULL AND unlisted_at IS NULL AS live, active, category_id,
         coalesce(group_parent_id, json_extract(extra, '$.group_parent_catalog_item_id'), 0) AS family_parent_id
       FROM catalog_item_rows ORDER BY local_id`,
    )
    .all()
}

function storedFilters(db: Database): unknown[] {
  return db
    .prepare(
      `SELECT f.local_id, k.catalog_guid, f.live, f.active, f.category_id, f.family_parent_id
       FROM catalog_item_filters f LEFT JOIN catalog_keys k ON k.key = f.catalog_key ORDER BY f.local_id`,
    )
    .all()
}

/** Puts searches back on the item rows' path, as on a laptop whose filters are not filled yet. */
function notFilledYet(db: Database): void {
  db.exec('INSERT INTO catalog_item_filters_fill (filled_until) VALUES (0)')
}

describe('the search filters', () => {
  it('give the rows and counts that filtering on the item rows gives, for every filter, fold and state', () => {
    const db = opened(openDatabase(tempPath()))
    catalogWithEveryState(db)
    const items = new CatalogItems(db)
    expect(items.filtersFilled()).toBe(true)
    const through = searches.map((search) => outcome(items, search))
    // Smaller pages too: a family met again on a later page is not listed twice.
    const paged = outcome(items, { catalogGuid: 'cat-a', text: 'apron' }, 7)

    notFilledYet(db)
    expect(items.filtersFilled()).toBe(false)
    const before = searches.map((search) => outcome(items, search))
    for (const [index, search] of searches.entries())
      expect(through[index], JSON.stringify(search)).toEqual(before[index])
    expect(paged).toEqual(outcome(items, { catalogGuid: 'cat-a', text: 'apron' }, 7))

    // The states are there to be told apart: the fold, the parent's state, the other catalog.
    const apron = before[0]!
    expect(apron.rows.length).toBeGreaterThan(1000)
    expect(apron.rows).toContain('item-10')
    expect(apron.rows).not.toContain('item-11')
    expect(apron.rows).toEqual(
      expect.arrayContaining([
        'item-4001',
        'item-4002',
        'item-5001',
        'item-5002',
        'item-6001',
        'item-6002',
        'item-7001',
      ]),
    )
    expect(apron.rows).not.toEqual(
      expect.arrayContaining(['item-5000', 'item-6000', 'item-2005', 'item-2007', 'item-2025', 'item-2003']),
    )
    expect(apron.capped).toEqual({ total: 100, capped: true })
  })

  it('stay what the item rows say through every kind of write', () => {
    const db = opened(openDatabase(tempPath()))
    const check = () => expect(storedFilters(db)).toEqual(derivedFilters(db))
    // Inserts, tombstones, unlisting and removal by a listing, relisting (catalogWithEveryState).
    catalogWithEveryState(db)
    check()
    expect(db.prepare('SELECT count(*) FROM catalog_item_filters').pluck().get()).toBe(
      db.prepare('SELECT count(*) FROM catalog_item_rows').pluck().get(),
    )
    const copy = new LocalCopy(db, new Retention(db))
    // Updates of each column filtered on, and of one that is not (the name).
    copy.applyCatalogItems(
      'cat-a',
      [
        item(2001, { active: false, updated_at: '2026-02-01T00:00:00.000Z' }),
        item(2002, { category_id: 9, updated_at: '2026-02-01T00:00:00.000Z' }),
        item(2004, { category_id: null, updated_at: '2026-02-01T00:00:00.000Z' }),
        item(2006, { group_parent_catalog_item_id: 10, updated_at: '2026-02-01T00:00:00.000Z' }),
        item(11, {
          group_parent_catalog_item_id: 0,
          name: 'Bib apron navy S alone',
          updated_at: '2026-02-01T00:00:00.000Z',
        }),
        item(2008, { name: 'Renamed apron', updated_at: '2026-02-01T00:00:00.000Z' }),
        item(2009, { deleted_at: '2026-02-01T00:00:00.000Z', updated_at: '2026-02-01T00:00:00.000Z' }),
      ],
      unlisted,
    )
    check()
    // A catalog that is gone: its items removed, those kept for a draft flagged.
    copy.removeCatalogContents('cat-b', '2026-02-02T00:00:00.000Z')
    check()
    // Writes that no sync makes today, made by hand: a row moved to another key or catalog, a plain delete.
    db.exec("UPDATE catalog_item_rows SET local_id = 900000 WHERE guid = 'item-2010'")
    db.exec("UPDATE catalog_item_rows SET catalog_guid = 'cat-c' WHERE guid = 'item-2011'")
    db.exec("DELETE FROM catalog_item_rows WHERE guid = 'item-2013'")
    check()
    // The new catalog has a key, given once.
    expect(db.prepare("SELECT count(*) FROM catalog_keys WHERE catalog_guid = 'cat-c'").pluck().get()).toBe(1)
  })

  it('on a laptop past the limit at the upgrade: filled by the catalog update in slices, resumed after a restart, searched as before meanwhile', () => {
    const path = tempPath()
    // Written by this version, then taken back to schema 19: the rows as a laptop held them before 20.
    const old = openDatabase(path)
    catalogWithEveryState(old)
    undoItemIndexesByCatalogKey(old)
    undoCatalogItemFilters(old)
    old.pragma('user_version = 19')
    closeDatabase(old)
    const limit = { largeCatalogItems: 500 }

    const db = opened(openDatabase(path, limit))
    expect(db.prepare('SELECT count(*) FROM catalog_item_filters').pluck().get()).toBe(0)
    const items = new CatalogItems(db)
    expect(items.filtersFilled()).toBe(false)
    const before = searches.slice(0, 10).map((search) => outcome(items, search))
    // Items written meanwhile have their filters from the triggers.
    new LocalCopy(db, new Retention(db)).applyCatalogItems(
      'cat-a',
      [item(2001, { active: false, updated_at: '2026-02-01T00:00:00.000Z' })],
      unlisted,
    )
    const jobs = new CatalogUpdateJobs(db, { filterSpan: 400 })
    expect(jobs.next()).toBe('filters')
    const first: CatalogUpdateProgress[] = [jobs.slice(), jobs.slice()]
    expect(first.every((progress) => progress.job === 'filters' && progress.itemsBrowsable)).toBe(true)
    expect(first[1]!.done).toBeGreaterThan(first[0]!.done)
    expect(first[1]!.done).toBeLessThan(first[1]!.total)
    expect(items.filtersFilled()).toBe(false)
    closeDatabase(db)

    const reopened = opened(openDatabase(path, limit))
    const rest = new CatalogUpdateJobs(reopened, { filterSpan: 400 })
    expect(rest.next()).toBe('filters')
    const seen: CatalogUpdateProgress[] = []
    for (let progress = rest.slice(); ; progress = rest.slice()) {
      seen.push(progress)
      if (progress.job !== 'filters') break
    }
    // 2,700 items in slices of 400: the two before the restart are not done again.
    expect(seen.filter((progress) => progress.job === 'filters').length).toBeLessThan(Math.ceil(2700 / 400) - 2)
    expect(rest.next()).not.toBe('filters')
    expect(storedFilters(reopened)).toEqual(derivedFilters(reopened))
    const filled = new CatalogItems(reopened)
    expect(filled.filtersFilled()).toBe(true)
    const after = searches.slice(0, 10).map((search) => outcome(filled, search))
    // The same results, but for item 2001, made inactive meanwhile.
    const withoutItem = (results: typeof before) =>
      results.map((result) => ({ ...result, rows: result.rows.filter((guid) => guid !== 'item-2001') }))
    expect(withoutItem(after).map((result) => result.rows)).toEqual(withoutItem(before).map((result) => result.rows))
    notFilledYet(reopened)
    expect(searches.slice(0, 10).map((search) => outcome(filled, search))).toEqual(after)
  })
})
