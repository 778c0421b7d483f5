/**
 * A whole order given at once (the CLI's draft file) and the cap on lines per order: the order is
 * built and checked in memory and written only by the one transaction that queues it, each line
 * costs a fixed number of look-ups, and no order holds more than `maxOrderLines` lines, whether it
 * comes whole or line by line.
 */
import { orderList } from '../../../support/order-list'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { closeDatabase, openDatabase, type Database } from '../../../../src/main/db/database'
import { OrderDesk } from '../../../../src/main/orders/desk'
import { OutboxFlusher } from '../../../../src/main/orders/outbox/flusher'
import { ServiceRejectedError } from '../../../../src/main/ordering-client/errors'
import { checkDraft } from '../../../../src/main/orders/validation'
import { silentLogger } from '../../../../src/main/ports'
import { maxOrderLines } from '../../../../src/shared/orders'
import { catalogGuid, customerGuid, item, MemoryLookup } from '../../../support/orders'

const clock = { now: () => Date.parse('2026-11-20T12:00:00Z') }
const items = Array.from({ length: maxOrderLines + 1 }, () => item({ pricing: { Retail: 10, Dealer: 8 } }))
let directory: string
let db: Database
let lookup: MemoryLookup
let desk: OrderDesk

beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), 'satchel-compose-'))
  db = openDatabase(join(directory, 'satchel.db'))
  lookup = new MemoryLookup(items)
  desk = new OrderDesk(db, lookup, clock, () => ({ remainInPreliminary: false }))
})
afterEach(() => {
  vi.restoreAllMocks()
  closeDatabase(db)
  rmSync(directory, { recursive: true, force: true })
})

const count = (table: 'drafts' | 'outbox') => db.prepare<[], number>(`SELECT count(*) FROM ${table}`).pluck().get()
const linesOf = (n: number, from = 0) => items.slice(from, from + n).map((i) => ({ catalogItemGuid: i.guid, qty: 1 }))

describe('an order composed whole', () => {
  it('writes nothing until the commit, and then only the outbox entry', () => {
    const order = desk.composeOrder({ customerGuid, catalogGuid }, linesOf(3))
    expect(order.check.sendable).toBe(true)
    const sending = order.prepareSend()
    expect(count('drafts')).toBe(0)
    expect(count('outbox')).toBe(0)
    const entry = sending.commit()
    expect(entry).toMatchObject({ state: 'queued', lineCount: 3, subTotal: 24 })
    expect(count('drafts')).toBe(0)
    expect(count('outbox')).toBe(1)
  })

  it('merges a repeated item into one line, and says which line each given line went into', () => {
    const [a, b] = items
    const order = desk.composeOrder({ customerGuid, catalogGuid }, [
      { catalogItemGuid: a!.guid, qty: 1 },
      { sku: 'NOPE', qty: 1 },
      { catalogItemGuid: b!.guid, qty: 2 },
      { sku: a!.sku, qty: 4 },
    ])
    const [first, unknown, second, again] = order.lineIds
    expect(unknown).toBeNull()
    expect(again).toBe(first)
    expect(order.check.draft.lines.map((l) => [l.lineId, l.qty])).toEqual([
      [first, 5],
      [second, 2],
    ])
  })

  it('looks each line up a fixed number of times, and the customer and price group once', () => {
    const byGuid = vi.spyOn(lookup, 'catalogItem')
    const customer = vi.spyOn(lookup, 'customer')
    const groups = vi.spyOn(lookup, 'priceGroups')
    const order = desk.composeOrder({ customerGuid, catalogGuid }, linesOf(2000))
    expect(order.check.draft.lines).toHaveLength(2000)
    // One to add the line, one to check it.
    expect(byGuid.mock.calls.length).toBe(2 * 2000)
    expect(customer.mock.calls.length).toBeLessThanOrEqual(4)
    expect(groups.mock.calls.length).toBeLessThanOrEqual(4)
  })

  it('once refused by the supplier and reopened, becomes a draft with a number of its own', async () => {
    const entry = desk.composeOrder({ customerGuid, catalogGuid }, linesOf(2)).prepareSend().commit()
    const sender = {
      listOrders: orderList(),
      async createOrderWithItems(): Promise<never> {
        throw new ServiceRejectedError('Order could not be reconciled', [], { status: 400 })
      },
    }
    await new OutboxFlusher({ outbox: desk.outbox, sender: async () => sender, clock, logger: silentLogger }).flush()
    const reopened = desk.outbox.reopenAsDraft(entry.apiGuid)
    expect(reopened.id).toBeGreaterThan(0)
    expect(reopened.apiGuid).toBe(entry.apiGuid)
    expect(reopened.lines).toHaveLength(2)
  })
})

describe(`at most ${maxOrderLines} lines per order`, () => {
  it('takes exactly the cap whole, and refuses one line more, naming the cap', () => {
    expect(desk.composeOrder({ customerGuid, catalogGuid }, linesOf(maxOrderLines)).check.sendable).toBe(true)
    let refused: unknown
    try {
      desk.composeOrder({ customerGuid, catalogGuid }, linesOf(maxOrderLines + 1))
    } catch (error) {
      refused = error
    }
    expect(refused).toMatchObject({
      code: 'INVALID_ARGUMENT',
      message: expect.stringContaining('at most 5,000 lines'),
      issues: [{ path: 'lines' }],
    })
    expect(count('drafts')).toBe(0)
  })

  it('refuses the line past the cap added to a saved draft, which keeps the lines it had', () => {
    const draft = desk.createDraft({ customerGuid, catalogGuid })
    for (let from = 0; from < maxOrderLines; from += 500) desk.addLines(draft.id, linesOf(500, from))
    expect(() => desk.addLines(draft.id, linesOf(1, maxOrderLines))).toThrow(/at most 5,000 lines/)
    expect(desk.drafts.get(draft.id).lines).toHaveLength(maxOrderLines)
    // More of an item already on it is not a new line.
    expect(desk.addLines(draft.id, linesOf(1)).check.draft.lines).toHaveLength(maxOrderLines)
  })

  it('the draft check refuses a draft holding more (one saved before the rule)', () => {
    const draft = desk.createDraft({ customerGuid, catalogGuid })
    const lines = items.map((i, n) => ({
      lineId: `l${n}`,
      catalogItemGuid: i.guid,
      sku: i.sku,
      name: i.name,
      qty: 1,
      unitPriceSeen: 8,
      qtyAvailableSeen: null,
      note: '',
    }))
    const check = checkDraft({ ...desk.drafts.get(draft.id), lines }, lookup)
    expect(check.sendable).toBe(false)
    expect(check.issues).toContainEqual(
      expect.objectContaining({
        field: 'lines',
        severity: 'error',
        message: expect.stringContaining('at most 5,000 lines'),
      }),
    )
  })
})
