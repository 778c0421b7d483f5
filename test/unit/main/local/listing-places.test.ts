/**
 * A listing by name starts a page from the nearest row an earlier page met before it (SearchPages'
 * listing places) rather than walking every row before it. Whatever order the pages are asked in,
 * and after writes, each page must be the rows a plain walk to its offset gives.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { browseQueries, type BrowseQueries } from '../../../../src/main/browse'
import { closeDatabase, openDatabase } from '../../../../src/main/db/database'
import { LocalCopy } from '../../../../src/main/local/copy'
import { Retention } from '../../../../src/main/local/retention'
import type { CatalogItemRecord } from '../../../../src/main/ordering-client/schemas'
import { catalogItem } from '../../../support/builders'
import { openLocalData } from '../../../../src/main/local/data'

const directories: string[] = []
afterEach(() => {
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true })
})

/** Names that tie under NOCASE ("Apron" and "APRON"), repeat, and interleave; a family; inactive and other categories' items. */
function items(count: number, version = 1): CatalogItemRecord[] {
  const names = ['Apron', 'APRON', 'apron', 'Basin', 'basin', 'Crate', 'Apron', 'Ladle', 'ladle', 'Zest']
  return Array.from({ length: count }, (_, k) => {
    return catalogItem(k + 1, {
      name: `${names[k % names.length]} ${k % 7}`,
      category_id: 1 + (k % 3),
      active: k % 11 !== 0,
      updated_at: `2026-01-0${version}T00:00:00.000Z`,
      ...(k > 0 && k % 13 === 0 ? { group_parent_catalog_item_id: 1 } : {}),
      ...(k === 0 ? { is_product_group: true } : {}),
    })
  })
}

function guidsOf(
  browse: BrowseQueries,
  search: { offset: number; limit: number; categoryId?: number; includeInactive?: boolean },
): string[] {
  return browse.catalogs
    .searchCatalogItems({ catalogGuid: 'cat-a', withTotal: false, ...search })
    .items.map((row) => row.guid)
}

describe('a listing by name, paged from the places earlier pages met', () => {
  it('gives each page the rows a plain walk to its offset gives, in any order and after writes', () => {
    const directory = mkdtempSync(join(tmpdir(), 'satchel-places-'))
    directories.push(directory)
    const db = openDatabase(join(directory, 'satchel.db'))
    const copy = new LocalCopy(db, new Retention(db))
    copy.applyCatalogItems('cat-a', items(400), { listingId: null, serverTime: null })
    const browse = browseQueries(openLocalData(db))
    const filters = [{}, { categoryId: 2 }, { includeInactive: true }]
    // Forward page by page, a jump ahead, back, the same page again, deep then shallow.
    const offsets = [0, 7, 14, 21, 90, 97, 35, 35, 300, 14, 0, 250, 257, 399]
    for (const filter of filters) {
      for (const offset of offsets) {
        // A fresh reader knows no places: its page is the plain walk's.
        expect(guidsOf(browse, { ...filter, offset, limit: 7 })).toEqual(
          guidsOf(browseQueries(openLocalData(db)), { ...filter, offset, limit: 7 }),
        )
      }
    }
    // Items renamed and added move rows: a place met before is not trusted after the write.
    guidsOf(browse, { offset: 200, limit: 7 })
    copy.applyCatalogItems(
      'cat-a',
      items(420, 2).map((record, k) => ({ ...record, name: k % 2 ? `Aaa ${k}` : record.name })),
      { listingId: null, serverTime: null },
    )
    for (const offset of [207, 214, 100, 419])
      expect(guidsOf(browse, { offset, limit: 7 })).toEqual(
        guidsOf(browseQueries(openLocalData(db)), { offset, limit: 7 }),
      )
    closeDatabase(db)
  })
})
