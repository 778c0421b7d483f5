/**
 * Catalog search (the catalog screen's box and `satchel items search`) finds an item by the GTIN a
 * scanner sends in any spelling, as the order screen's scan box does: EAN-13 and GTIN-14 for a stored
 * UPC-A, and GS1 element strings with lot and expiry after.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { browseQueries, type BrowseQueries } from '../../../../src/main/browse'
import { closeDatabase, openDatabase, type Database } from '../../../../src/main/db/database'
import { LocalCopy } from '../../../../src/main/local/copy'
import { Retention } from '../../../../src/main/local/retention'
import type { CatalogItemRecord } from '../../../../src/main/ordering-client/schemas'
import { catalogItem } from '../../../support/builders'
import { openLocalData } from '../../../../src/main/local/data'

const catalogGuid = 'cat-1'
const stamp = '2025-01-01T00:00:00.000Z'
let directory: string
let db: Database
let queries: BrowseQueries

function coffee(id: number, sku: string, upc: string): CatalogItemRecord {
  return catalogItem(id, {
    guid: `i${id}`,
    catalog_id: 1,
    category_id: 100,
    sku,
    upc,
    name: `Coffee ${sku}`,
    pricing: { Retail: 10 },
    updated_at: stamp,
    Category: { id: 100, guid: 'c-100', catalog_id: 1, parent_category_id: 0, name: 'Coffee', updated_at: stamp },
  })
}

beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), 'satchel-gtin-'))
  db = openDatabase(join(directory, 'satchel.db'))
  const store = new LocalCopy(db, new Retention(db))
  queries = browseQueries(openLocalData(db))
  store.applyCatalogs(
    [
      {
        id: 1,
        guid: catalogGuid,
        name: 'Foodservice',
        active: true,
        updated_at: stamp,
        Price_Groups: [{ id: 11, guid: 'pg-retail', catalog_id: 1, value: 'Retail', is_main: true, updated_at: stamp }],
      },
    ],
    { listingId: store.newListingId('catalogs'), serverTime: null },
  )
  store.applyCatalogItems(
    catalogGuid,
    [
      coffee(1, 'BCF-10001', '067191014636'),
      coffee(2, 'BCF-10002', '067191014643'),
      coffee(3, 'BAD-1', '067191014600'),
    ],
    { listingId: null, serverTime: '2025-01-02T00:00:00.000Z' },
  )
})

afterEach(() => {
  closeDatabase(db)
  rmSync(directory, { recursive: true, force: true })
})

const skusFound = (query: string) =>
  queries.catalogs
    .searchCatalogItems({ catalogGuid, query, includeInactive: true, familyMembers: true })
    .items.map((i) => i.sku)

describe('catalog search by barcode', () => {
  it('finds the stored UPC-A from the EAN-13, the GTIN-14 and GS1 element strings', () => {
    for (const query of [
      '067191014636',
      '0067191014636',
      '00067191014636',
      '(01)00067191014636',
      '(01)00067191014636(17)271231(10)LOT42',
      '0100067191014636\x1d10LOT42',
    ])
      expect(skusFound(query), query).toEqual(['BCF-10001'])
  })

  it('finds a stored code with a wrong check digit as written, and nothing for a GTIN no item has', () => {
    expect(skusFound('067191014600')).toEqual(['BAD-1'])
    expect(skusFound('00067191014650')).toEqual([])
  })
})
