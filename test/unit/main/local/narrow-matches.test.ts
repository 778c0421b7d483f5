/**
 * A search that finds few rows or none walks the full-text index to its end to know it. Its plan
 * reads the whole match set then (SearchPages' narrowMatches), so its page when nothing matched and
 * the count the screen asks for next filter that set rather than walk the index again: one walk a
 * search, where each statement walked it (8 broad words that match nothing: 65 + 28 ms at a million
 * items, 14 ms now). The counts must be those a fresh reader gives, and a write forgets the set.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { browseQueries } from '../../../../src/main/browse'
import { closeDatabase, openDatabase } from '../../../../src/main/db/database'
import { LocalCopy } from '../../../../src/main/local/copy'
import { Retention } from '../../../../src/main/local/retention'
import { catalogItem } from '../../../support/builders'
import { openLocalData } from '../../../../src/main/local/data'

const directories: string[] = []
afterEach(() => {
  vi.restoreAllMocks()
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true })
})

/** Full-text matches run through better-sqlite3 statements while `work` runs. */
function matchesRun(db: Database.Database, work: () => void): number {
  const prototype = Object.getPrototypeOf(db.prepare('SELECT 1')) as Record<string, (...args: unknown[]) => unknown>
  let runs = 0
  for (const method of ['all', 'get', 'iterate'] as const) {
    const original = prototype[method]!
    vi.spyOn(prototype, method).mockImplementation(function (this: { source: string }, ...args: unknown[]) {
      if (/\bMATCH\b/.test(this.source)) runs += 1
      return original.apply(this, args)
    })
  }
  work()
  vi.restoreAllMocks()
  return runs
}

describe('a search that finds few rows reads the full-text index once', () => {
  it('lists and counts from the match set its plan read, the same as a fresh reader, until a write', () => {
    const directory = mkdtempSync(join(tmpdir(), 'satchel-narrow-'))
    directories.push(directory)
    const db = openDatabase(join(directory, 'satchel.db'))
    const copy = new LocalCopy(db, new Retention(db))
    const names = ['Garbanzo Beans, #10 Can', 'Chrome Wire Shelf', 'Epoxy Wire Post', 'Sliced Mushrooms']
    copy.applyCatalogItems(
      'cat-a',
      Array.from({ length: 300 }, (_, k) =>
        catalogItem(k + 1, {
          name: `${names[k % names.length]} ${k}`,
          active: k % 7 !== 0,
          ...(k > 0 && k % 11 === 0 ? { group_parent_catalog_item_id: 1 } : {}),
          ...(k === 0 ? { is_product_group: true } : {}),
        }),
      ),
      { listingId: null, serverTime: null },
    )
    copy.applyCatalogItems('cat-b', [catalogItem(1001, { name: 'Wire Basket', guid: 'b-1' })], {
      listingId: null,
      serverTime: null,
    })
    const browse = browseQueries(openLocalData(db))
    const fresh = (query: string, includeInactive?: boolean) =>
      browseQueries(openLocalData(db)).catalogs.countCatalogItems({ catalogGuid: 'cat-a', query, includeInactive })

    for (const query of ['wire', 'wire she', 'basket', 'zzq', 's co ca pa', 'mush 1']) {
      for (const includeInactive of [false, true]) {
        const search = { catalogGuid: 'cat-a', query, limit: 5, includeInactive }
        let page: ReturnType<typeof browse.catalogs.searchCatalogItems> | undefined
        const pageRuns = matchesRun(db, () => {
          page = browse.catalogs.searchCatalogItems({ ...search, withTotal: false })
        })
        let count: ReturnType<typeof browse.catalogs.countCatalogItems> | undefined
        const countRuns = matchesRun(db, () => {
          count = browse.catalogs.countCatalogItems(search)
        })
        expect(count, query).toEqual(fresh(query, includeInactive))
        // The plan's walk (none when the same text was read last), and the ranking's when any catalog's rows matched; never the count's.
        expect(pageRuns, query).toBeLessThanOrEqual(['zzq', 's co ca pa'].includes(query) ? 1 : 2)
        expect(page!.items.length > 0, query).toBe(count!.total > 0)
        expect(countRuns, query).toBe(0)
      }
    }

    // A write forgets the set: the count is the new one's.
    browse.catalogs.searchCatalogItems({ catalogGuid: 'cat-a', query: 'basket', limit: 5, withTotal: false })
    copy.applyCatalogItems('cat-a', [catalogItem(5000, { name: 'Wire Basket', guid: 'a-5000' })], {
      listingId: null,
      serverTime: null,
    })
    expect(browse.catalogs.countCatalogItems({ catalogGuid: 'cat-a', query: 'basket' })).toEqual({
      total: 1,
      capped: false,
    })
    closeDatabase(db)
  })
})
