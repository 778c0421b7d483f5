/**
 * "Send" is all-or-nothing. Every check and every value of the reply is computed before
 * the one durable transaction; nothing after it can turn a queued order into an error.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { closeDatabase, openDatabase, type Database } from '../../../../src/main/db/database'
import { OrderDesk } from '../../../../src/main/orders/desk'
import * as request from '../../../../src/main/orders/request'
import { checkDraft } from '../../../../src/main/orders/validation'
import type { Draft } from '../../../../src/shared/orders'
import { catalogGuid, customerGuid, draft, item, MemoryLookup } from '../../../support/orders'

/** Lets a test corrupt what the request builder hands on (the totals the reply is made of). */
let corruptTotals: ((totals: request.RepTotals) => request.RepTotals) | null = null
vi.mock('../../../../src/main/orders/request', async (importOriginal) => {
  const actual = await importOriginal<typeof request>()
  return {
    ...actual,
    buildOrderRequest: (...args: Parameters<typeof actual.buildOrderRequest>) => {
      const built = actual.buildOrderRequest(...args)
      return corruptTotals ? { ...built, totals: corruptTotals(built.totals) } : built
    },
  }
})

let directory: string
let db: Database
let desk: OrderDesk
let lookup: MemoryLookup
const product = item({ pricing: { Retail: 10, Dealer: 8 } })
const clock = { now: () => Date.parse('2026-11-20T12:00:00Z') }

beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), 'satchel-send-'))
  db = openDatabase(join(directory, 'satchel.db'))
  lookup = new MemoryLookup([product])
  desk = new OrderDesk(db, lookup, clock, () => ({ remainInPreliminary: false }))
  corruptTotals = null
})

afterEach(() => {
  corruptTotals = null
  closeDatabase(db)
  rmSync(directory, { recursive: true, force: true })
})

function draftWith(qty: number): number {
  const draft = desk.createDraft({ customerGuid, catalogGuid })
  desk.addLines(draft.id, [{ sku: product.sku, qty }])
  return draft.id
}

const outboxRows = () => db.prepare<[], number>('SELECT count(*) FROM outbox').pluck().get()

describe('sending is all-or-nothing', () => {
  it('a reply that cannot be computed (a total that is not a number) fails before the commit: no outbox row, the draft stays', () => {
    const id = draftWith(2)
    corruptTotals = (totals) => ({ ...totals, subTotal: Number.POSITIVE_INFINITY })
    expect(() => desk.send(id)).toThrow()
    expect(outboxRows()).toBe(0)
    expect(desk.drafts.find(id)).not.toBeNull()
  })

  it('the reply is in hand before the commit: prepareSend writes nothing, and commit() returns what it promised', () => {
    const id = draftWith(3)
    const sending = desk.prepareSend(id)
    expect(sending.entry).toMatchObject({
      state: 'queued',
      subTotal: 24,
      lineCount: 1,
      customerName: 'Harbor Hardware',
      attempts: 0,
    })
    expect(outboxRows()).toBe(0)
    const entry = sending.commit()
    expect(entry).toMatchObject({ apiGuid: sending.entry.apiGuid, state: 'queued', subTotal: 24, lineCount: 1 })
    expect(outboxRows()).toBe(1)
  })

  it('nothing is read back after the commit, so a failing read cannot turn a queued order into an error', () => {
    const id = draftWith(2)
    const apiGuid = desk.drafts.get(id).apiGuid
    const read = vi.spyOn(desk.outbox, 'get').mockImplementation(() => {
      throw new Error('disk hiccup after the commit')
    })
    const entry = desk.send(id)
    expect(read).not.toHaveBeenCalled()
    read.mockRestore()
    expect(entry).toMatchObject({ apiGuid, state: 'queued', subTotal: 16, lineCount: 1 })
    expect(desk.outbox.list().map((e) => e.apiGuid)).toEqual([apiGuid])
    expect(desk.drafts.find(id)).toBeNull()
  })

  it('a failure inside the transaction still fails the send and leaves the draft', () => {
    const first = draftWith(1)
    const apiGuid = desk.send(first).apiGuid
    // A draft with the api_guid of an order already in the outbox (only the repository allows it):
    // the transaction refuses, nothing commits.
    const spare = desk.createDraft({ customerGuid, catalogGuid })
    desk.drafts.delete(spare.id)
    const { id: _id, apiGuid: _a, createdAt: _c, updatedAt: _u, ...fields } = spare
    const twin = desk.drafts.create(
      {
        ...fields,
        lines: [
          {
            lineId: 'l1',
            catalogItemGuid: product.guid,
            sku: product.sku,
            name: 'x',
            qty: 1,
            note: '',
            unitPriceSeen: 8,
            qtyAvailableSeen: null,
          },
        ],
      },
      apiGuid,
    )
    expect(() => desk.send(twin.id)).toThrow(/already in the outbox/)
    expect(desk.drafts.find(twin.id)).not.toBeNull()
    expect(outboxRows()).toBe(1)
  })
})

describe('the quantity rule in the core’s draft check', () => {
  function draftOf(qty: number, lineId = 'l1'): Draft {
    return draft({
      lines: [
        {
          lineId,
          catalogItemGuid: product.guid,
          sku: product.sku,
          name: 'x',
          qty,
          note: '',
          unitPriceSeen: null,
          qtyAvailableSeen: null,
        },
      ],
    })
  }

  it.each([
    [0, /above zero/],
    [-1, /above zero/],
    [1.5, /whole number/],
    [1_000_001, /1,000,000/],
    [1e308, /1,000,000/],
    [Number.NaN, /number/],
    [Number.POSITIVE_INFINITY, /number/],
  ])('refuses qty %s on the line’s qty, with a finite total', (qty, message) => {
    const check = checkDraft(draftOf(qty), lookup)
    expect(check.sendable).toBe(false)
    expect(check.issues).toEqual([
      { field: 'qty', lineId: 'l1', severity: 'error', message: expect.stringMatching(message) },
    ])
    expect(Number.isFinite(check.subTotal)).toBe(true)
    expect(check.lines[0]!.lineTotal).toBeNull()
  })

  it('accepts whole quantities from 1 to 1,000,000', () => {
    for (const qty of [1, 12, 1_000_000]) expect(checkDraft(draftOf(qty), lookup).sendable).toBe(true)
  })

  it('refuses a line, and an order, whose total would not be finite', () => {
    const dear = item({ pricing: { Dealer: 1e303 } })
    const huge = new MemoryLookup([dear])
    const line = { ...draftOf(1).lines[0]!, catalogItemGuid: dear.guid }
    const one = checkDraft({ ...draftOf(1), lines: [{ ...line, qty: 1_000_000 }] }, huge)
    expect(one.sendable).toBe(false)
    expect(one.issues).toEqual([
      { field: 'qty', lineId: 'l1', severity: 'error', message: expect.stringMatching(/too large/) },
    ])
    expect(Number.isFinite(one.subTotal)).toBe(true)

    // Each line finite, their sum not: the line that tips it over is named.
    const dearest = item({ pricing: { Dealer: 1e302 } })
    const sum = new MemoryLookup([dearest])
    const lines = [1, 2].map((n) => ({ ...line, lineId: `l${n}`, catalogItemGuid: dearest.guid, qty: 10_000 }))
    const two = checkDraft({ ...draftOf(1), lines }, sum)
    expect(two.sendable).toBe(false)
    expect(two.issues).toEqual([
      { field: 'qty', lineId: 'l2', severity: 'error', message: expect.stringMatching(/too large/) },
    ])
    expect(Number.isFinite(two.subTotal)).toBe(true)
  })

  it('desk.addLines and updateLine refuse a quantity that cannot be stored, naming it', () => {
    const id = draftWith(1)
    expect(() => desk.addLines(id, [{ sku: product.sku, qty: Number.NaN }])).toThrow(
      expect.objectContaining({ code: 'INVALID_ARGUMENT', issues: [expect.objectContaining({ path: 'lines.0.qty' })] }),
    )
    const lineId = desk.drafts.get(id).lines[0]!.lineId
    expect(() => desk.updateLine(id, lineId, { qty: Number.POSITIVE_INFINITY })).toThrow(
      expect.objectContaining({ code: 'INVALID_ARGUMENT', issues: [expect.objectContaining({ path: 'qty' })] }),
    )
    expect(desk.drafts.get(id).lines[0]!.qty).toBe(1)
  })

  it('a draft with a refused quantity cannot be sent, and send names lines.<lineId>.qty', () => {
    const id = draftWith(1e308)
    const lineId = desk.drafts.get(id).lines[0]!.lineId
    expect(() => desk.send(id)).toThrow(
      expect.objectContaining({
        code: 'INVALID_ARGUMENT',
        issues: [{ path: `lines.${lineId}.qty`, message: expect.stringMatching(/1,000,000/) }],
      }),
    )
    expect(outboxRows()).toBe(0)
  })
})
