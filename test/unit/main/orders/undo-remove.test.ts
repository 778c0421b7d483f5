/**
 * Remove line can be undone: the core keeps the draft's last removed line and puts it back in its
 * place with its quantity and note, unless its item has been put on the draft again since.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { closeDatabase, openDatabase, type Database } from '../../../../src/main/db/database'
import { OrderDesk } from '../../../../src/main/orders/desk'
import { catalogGuid, customer, customerGuid, item, MemoryLookup } from '../../../support/orders'

const clock = { now: () => Date.parse('2026-11-20T12:00:00Z') }
const first = item()
const second = item()
const third = item()
let directory: string
let db: Database
let desk: OrderDesk

beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), 'satchel-undo-'))
  db = openDatabase(join(directory, 'satchel.db'))
  desk = new OrderDesk(db, new MemoryLookup([first, second, third], [customer()]), clock, () => ({
    remainInPreliminary: false,
  }))
})
afterEach(() => {
  closeDatabase(db)
  rmSync(directory, { recursive: true, force: true })
})

function draftWithThreeLines() {
  const draft = desk.createDraft({ customerGuid, catalogGuid })
  const added = desk.addLines(draft.id, [
    { sku: first.sku, qty: 2 },
    { sku: second.sku, qty: 5 },
    { sku: third.sku, qty: 1 },
  ])
  const middle = added.check.draft.lines[1]!
  desk.updateLine(draft.id, middle.lineId, { note: 'Leave at the back door' })
  return { id: draft.id, middle }
}

describe('undo of Remove line', () => {
  it('puts the line back in its place with its quantity and note', () => {
    const { id, middle } = draftWithThreeLines()
    const before = desk.check(id).draft.lines
    expect(desk.removeLine(id, middle.lineId).draft.lines.map((line) => line.sku)).toEqual([first.sku, third.sku])
    const restored = desk.restoreLine(id, middle.lineId).draft.lines
    expect(restored).toEqual(before)
    expect(restored[1]).toMatchObject({ sku: second.sku, qty: 5, note: 'Leave at the back door' })
    // Once: a second undo has nothing to put back.
    expect(() => desk.restoreLine(id, middle.lineId)).toThrow(/can no longer be put back/)
  })

  it('keeps what survives on disk: the restored line is in the draft read again', () => {
    const { id, middle } = draftWithThreeLines()
    desk.removeLine(id, middle.lineId)
    desk.restoreLine(id, middle.lineId)
    expect(desk.drafts.get(id).lines.map((line) => line.note)).toEqual(['', 'Leave at the back door', ''])
  })

  it('refuses when the item is on the draft again, and undoes only the last removal', () => {
    const { id, middle } = draftWithThreeLines()
    desk.removeLine(id, middle.lineId)
    desk.addLines(id, [{ sku: second.sku, qty: 1 }])
    expect(() => desk.restoreLine(id, middle.lineId)).toThrow(`${second.sku} is on the draft again`)

    const lines = desk.check(id).draft.lines
    desk.removeLine(id, lines[0]!.lineId)
    desk.removeLine(id, lines[1]!.lineId)
    expect(() => desk.restoreLine(id, lines[0]!.lineId)).toThrow(/can no longer be put back/)
    expect(desk.restoreLine(id, lines[1]!.lineId).draft.lines.map((line) => line.sku)).toEqual([third.sku, second.sku])
  })
})
