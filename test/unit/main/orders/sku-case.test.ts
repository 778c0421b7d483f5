/**
 * SKUs that differ only in capitals (issue 37): `DPR-10001` and `dpr-10001` are two items. A code
 * names the item whose SKU it is exactly; a code in other capitals names an item only when one SKU
 * of the catalog is that code in other capitals; otherwise it is refused, naming both. Every SKU read
 * of the local copy follows the one rule, so the scan box, the paste list and `order queue` (all
 * through the order desk) and the item page's lookup agree.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { closeDatabase, openDatabase, type Database } from '../../../../src/main/db/database'
import { CatalogItems } from '../../../../src/main/local/catalog-items/reads'
import { LocalCopy } from '../../../../src/main/local/copy'
import { Retention } from '../../../../src/main/local/retention'
import { LocalOrderLookup } from '../../../../src/main/orders/local-lookup'
import { OrderDesk } from '../../../../src/main/orders/desk'
import { catalogItem } from '../../../support/builders'
import { unlisted } from '../../../support/item-states'
import { openLocalData } from '../../../../src/main/local/data'

const guidOf = (n: number) => `00000000-0000-4000-8000-00000000000${n}`
const catalog = 'c0000000-0000-4000-8000-000000000001'
const clock = { now: () => Date.parse('2026-11-20T12:00:00Z') }
let directory: string
let db: Database
let desk: OrderDesk

beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), 'satchel-sku-case-'))
  db = openDatabase(join(directory, 'satchel.db'))
  const copy = new LocalCopy(db, new Retention(db))
  copy.applyCatalogItems(
    catalog,
    [
      catalogItem(1, { guid: guidOf(1), sku: 'DPR-10001', name: 'Dust pan, red' }),
      catalogItem(2, { guid: guidOf(2), sku: 'dpr-10001', name: 'Dust pan refill' }),
      catalogItem(3, { guid: guidOf(3), sku: 'Xyz-1', name: 'Only one of its kind' }),
      // The same SKU in other capitals, deleted: not an item a code can name any more.
      catalogItem(4, { guid: guidOf(4), sku: 'XYZ-1', deleted_at: '2026-01-02T00:00:00.000Z' }),
    ],
    unlisted,
  )
  desk = new OrderDesk(db, new LocalOrderLookup(openLocalData(db)), clock, () => ({ remainInPreliminary: false }))
})
afterEach(() => {
  closeDatabase(db)
  rmSync(directory, { recursive: true, force: true })
})

function added(code: string) {
  const draft = desk.createDraft({ catalogGuid: catalog })
  const outcome = desk.addLines(draft.id, [{ sku: code, qty: 1 }])
  return {
    guids: outcome.check.draft.lines.map((line) => line.catalogItemGuid),
    ambiguous: outcome.ambiguous,
    unknown: outcome.unknown,
  }
}

describe('a SKU typed, scanned, pasted or queued', () => {
  it('names the item whose SKU it is exactly, whichever of the two comes first', () => {
    expect(added('dpr-10001')).toEqual({ guids: [guidOf(2)], ambiguous: [], unknown: [] })
    expect(added('DPR-10001')).toEqual({ guids: [guidOf(1)], ambiguous: [], unknown: [] })
  })

  it('in other capitals names the one live item whose SKU it is', () => {
    expect(added('xyz-1')).toEqual({ guids: [guidOf(3)], ambiguous: [], unknown: [] })
  })

  it('in other capitals than two items is refused, naming both, and adds neither', () => {
    expect(added('Dpr-10001')).toEqual({
      guids: [],
      ambiguous: [{ code: 'Dpr-10001', skus: ['DPR-10001', 'dpr-10001'] }],
      unknown: [],
    })
  })

  it('is refused alike when a whole order is composed at once (order queue)', () => {
    const order = desk.composeOrder({ catalogGuid: catalog }, [
      { sku: 'dpr-10001', qty: 2 },
      { sku: 'dPR-10001', qty: 1 },
    ])
    expect(order.check.draft.lines.map((line) => [line.catalogItemGuid, line.qty])).toEqual([[guidOf(2), 2]])
    expect(order.lineIds[1]).toBeNull()
    expect(order.ambiguous).toEqual([{ code: 'dPR-10001', skus: ['DPR-10001', 'dpr-10001'] }])
  })
})

describe('a reorder of lines named by SKU', () => {
  it('names a line whose SKU could mean two items, instead of dropping it unsaid', () => {
    const { check, notOffered } = desk.reorder({
      customerGuid: '',
      catalogGuid: catalog,
      lines: [
        { sku: 'Dpr-10001', name: 'Dust pan', qty: 2 },
        { sku: 'xyz-1', name: 'Only', qty: 1 },
      ],
    })
    expect(check.draft.lines.map((line) => line.catalogItemGuid)).toEqual([guidOf(3)])
    expect(notOffered).toEqual([
      {
        sku: 'Dpr-10001',
        name: 'Dust pan',
        reason: expect.stringContaining('differ only in capitals (DPR-10001, dpr-10001)'),
      },
    ])
  })
})

describe('the local copy’s reads by SKU', () => {
  it('follow the same rule: exact first, a unique match in other capitals, else none', () => {
    const items = new CatalogItems(db)
    const reads = (sku: string) => [
      items.bySku(catalog, sku)?.guid,
      items.placeBySku(catalog, sku)?.guid,
      items.bySkuAnyCatalog(sku)?.guid,
    ]
    expect(reads('dpr-10001')).toEqual([guidOf(2), guidOf(2), guidOf(2)])
    expect(reads('DPR-10001')).toEqual([guidOf(1), guidOf(1), guidOf(1)])
    expect(reads('xyz-1')).toEqual([guidOf(3), guidOf(3), guidOf(3)])
    expect(reads('Dpr-10001')).toEqual([undefined, undefined, undefined])
  })
})
