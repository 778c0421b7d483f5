/**
 * What the order screen's SKU box hands the core, as a rep types or scans it: a UPC is a code like a
 * SKU (the exact UPC first, then the SKU; a UPC two items share is named, never guessed), a scan with
 * no quantity starts at the item's minimum and says so, an empty draft is not a problem until Send,
 * and a line that cannot be ordered suggests no quantity break.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { closeDatabase, openDatabase, type Database } from '../../../../src/main/db/database'
import { OrderDesk } from '../../../../src/main/orders/desk'
import { catalogGuid, customer, customerGuid, item, MemoryLookup } from '../../../support/orders'

const clock = {
  ms: Date.parse('2026-11-20T12:00:00Z'),
  now() {
    return this.ms
  },
}
let directory: string
let db: Database
let lookup: MemoryLookup
let desk: OrderDesk

const scanned = item({ upc: '012345678905' })
// An item whose SKU is another item's UPC: the scanner's code is the UPC.
const skuLikeUpc = item({ sku: '012345678905' })
const twinA = item({ upc: '099999999999' })
const twinB = item({ upc: '099999999999' })
const minimum = item({ minOrderQty: 6 })

beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), 'satchel-entry-'))
  db = openDatabase(join(directory, 'satchel.db'))
  lookup = new MemoryLookup([scanned, skuLikeUpc, twinA, twinB, minimum], [customer({ priceGroupId: 7 })])
  desk = new OrderDesk(db, lookup, clock, () => ({ remainInPreliminary: false }))
})
afterEach(() => {
  closeDatabase(db)
  rmSync(directory, { recursive: true, force: true })
})

describe('a code in the SKU box', () => {
  it('finds an item by its exact UPC before any SKU', () => {
    const draft = desk.createDraft({ customerGuid, catalogGuid })
    const added = desk.addLines(draft.id, [{ sku: '012345678905', qty: 2 }])
    expect(added.unknown).toEqual([])
    expect(added.check.draft.lines.map((line) => [line.sku, line.qty])).toEqual([[scanned.sku, 2]])
    expect(added.lineIds).toEqual([added.check.draft.lines[0]!.lineId])
  })

  it('still finds an item by its SKU', () => {
    const draft = desk.createDraft({ customerGuid, catalogGuid })
    expect(
      desk.addLines(draft.id, [{ sku: minimum.sku.toLowerCase(), qty: 6 }]).check.draft.lines.map((line) => line.sku),
    ).toEqual([minimum.sku])
  })

  it('names the items a UPC matches when it matches two, and adds neither', () => {
    const draft = desk.createDraft({ customerGuid, catalogGuid })
    const added = desk.addLines(draft.id, [{ sku: '099999999999', qty: 1 }])
    expect(added.check.draft.lines).toEqual([])
    expect(added.unknown).toEqual([])
    expect(added.ambiguous).toEqual([{ code: '099999999999', skus: [twinA.sku, twinB.sku] }])
    expect(added.lineIds).toEqual([null])
  })
})

describe('a barcode as scanners send it', () => {
  // BCF-10001's UPC-A in the double's data, stored as 12 digits, as the supplier gives it.
  const stored = '067191014636'
  const gtin14 = '00067191014636'

  it('finds the stored UPC-A from its EAN-13, GTIN-14 and GS1 element strings', () => {
    const coffee = item({ upc: stored })
    lookup.items.set(coffee.guid, coffee)
    const draft = desk.createDraft({ customerGuid, catalogGuid })
    const codes = [
      '0067191014636',
      gtin14,
      `(01)${gtin14}`,
      `(01)${gtin14}(17)271231(10)LOT42`,
      `01${gtin14}10LOT42`,
      `01${gtin14}17271231\x1d10LOT42`,
    ]
    const added = desk.addLines(
      draft.id,
      codes.map((sku) => ({ sku })),
    )
    expect(added.unknown).toEqual([])
    expect(added.check.draft.lines.map((line) => [line.sku, line.qty])).toEqual([[coffee.sku, codes.length]])
  })

  it('takes a stored code matched as written first, valid check digit or not', () => {
    const badCheck = item({ upc: '067191014637' })
    const asEan = item({ upc: '0067191014636' })
    const asUpc = item({ upc: stored })
    for (const found of [badCheck, asEan, asUpc]) lookup.items.set(found.guid, found)
    const draft = desk.createDraft({ customerGuid, catalogGuid })
    const added = desk.addLines(draft.id, [{ sku: '067191014637' }, { sku: '0067191014636' }, { sku: stored }])
    expect(added.check.draft.lines.map((line) => line.sku)).toEqual([badCheck.sku, asEan.sku, asUpc.sku])
    // Spelled as neither, the GTIN is both items': named, not guessed.
    expect(desk.addLines(draft.id, [{ sku: gtin14 }]).ambiguous).toEqual([
      { code: gtin14, skus: [asEan.sku, asUpc.sku].sort() },
    ])
  })

  it('finds nothing for a GTIN no item carries', () => {
    const draft = desk.createDraft({ customerGuid, catalogGuid })
    expect(desk.addLines(draft.id, [{ sku: '(01)00067191014637' }]).unknown).toEqual(['(01)00067191014637'])
  })
})

describe('a scan with no quantity', () => {
  it('starts a new line at the item’s minimum order quantity and says which line did', () => {
    const draft = desk.createDraft({ customerGuid, catalogGuid })
    const added = desk.addLines(draft.id, [{ sku: minimum.sku }])
    const line = added.check.draft.lines[0]!
    expect(line.qty).toBe(6)
    expect(added.startedAtMinimum).toEqual([line.lineId])
    expect(added.check.issues.filter((issue) => issue.lineId === line.lineId)).toEqual([])
  })

  it('is one more on a line already there, and one on an item without a minimum', () => {
    const draft = desk.createDraft({ customerGuid, catalogGuid })
    desk.addLines(draft.id, [{ sku: minimum.sku }])
    const again = desk.addLines(draft.id, [{ sku: minimum.sku }, { sku: scanned.sku }])
    expect(again.check.draft.lines.map((line) => line.qty)).toEqual([7, 1])
    expect(again.startedAtMinimum).toEqual([])
  })

  it('a quantity the rep gave is kept, and the minimum is a problem to fix', () => {
    const draft = desk.createDraft({ customerGuid, catalogGuid })
    const added = desk.addLines(draft.id, [{ sku: minimum.sku, qty: 2 }])
    expect(added.check.draft.lines[0]!.qty).toBe(2)
    expect(added.startedAtMinimum).toEqual([])
    expect(added.check.issues.map((issue) => issue.message)).toContain(
      `The minimum order quantity for ${minimum.sku} is 6.`,
    )
  })
})

describe('an empty draft', () => {
  it('has nothing to fix until it is sent, and Send says to add a line', () => {
    const draft = desk.createDraft({ customerGuid, catalogGuid })
    const check = desk.check(draft.id)
    expect(check.issues).toEqual([])
    expect(check.sendable).toBe(false)
    expect(() => desk.send(draft.id)).toThrow(/Add at least one line/)
  })
})

describe('a line that cannot be ordered', () => {
  it('suggests no quantity break; an orderable one does', () => {
    const broken = { pricing: { Retail: 34.3, Dealer: 30 }, qtyBreak: 50, qtyBreakPrice: 31.56 }
    const inactive = item({ ...broken, active: false })
    const active = item(broken)
    lookup.items.set(inactive.guid, inactive)
    lookup.items.set(active.guid, active)
    const draft = desk.createDraft({ customerGuid, catalogGuid })
    const check = desk.addLines(draft.id, [
      { catalogItemGuid: inactive.guid, qty: 45 },
      { catalogItemGuid: active.guid, qty: 45 },
    ]).check
    expect(check.lines.map((line) => line.priceBreak ?? null)).toEqual([
      null,
      { qty: 50, unitPrice: 31.56, applies: false, toGo: 5 },
    ])
  })
})

describe('an item not offered to the customer’s price group', () => {
  const notOffered = item({ sku: 'DBK-10001', pricing: { Retail: 'N/A', Dealer: 10 } })

  it('is refused at the scan, by code or by guid: no line, and the reason and what to do in the core’s words', () => {
    lookup.items.set(notOffered.guid, notOffered)
    const draft = desk.createDraft({ customerGuid, catalogGuid })
    const reason =
      'DBK-10001 is not offered to price group Retail: it cannot be ordered for this customer; ask the supplier, or choose another item.'
    for (const wanted of [{ sku: 'DBK-10001' }, { catalogItemGuid: notOffered.guid, qty: 2 }]) {
      const added = desk.addLines(draft.id, [wanted, { sku: minimum.sku, qty: 6 }])
      expect(added.lineIds[0]).toBeNull()
      expect(added.notOffered).toEqual([{ code: wanted.sku ?? notOffered.guid, sku: 'DBK-10001', reason }])
      expect(added.check.draft.lines.map((line) => line.sku)).toEqual([minimum.sku])
    }
  })
})
