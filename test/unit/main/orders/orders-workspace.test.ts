/**
 * Core rules behind a workspace that tells the truth: a rejected order reopened keeps its number, its
 * key and the supplier's reasons while they apply; quantity breaks are one rule for every screen; a new order
 * starts on a catalog.
 */
import { orderList } from '../../../support/order-list'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { closeDatabase, openDatabase, type Database } from '../../../../src/main/db/database'
import { OrderDesk } from '../../../../src/main/orders/desk'
import { OutboxFlusher, type OrderSender } from '../../../../src/main/orders/outbox/flusher'
import type { OrderWithItemsResult } from '../../../../src/main/ordering-client/client'
import { ServiceRejectedError } from '../../../../src/main/ordering-client/errors'
import { silentLogger } from '../../../../src/main/ports'
import { lineBreak, quantityBreak, unitPriceAt } from '../../../../src/main/pricing'
import { catalogGuid, confirmation, customerGuid, item, MemoryLookup, otherCatalogGuid } from '../../../support/orders'

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
const kept = item({ pricing: { Retail: 10, Dealer: 8 } })
const refused = item({ pricing: { Retail: 12, Dealer: 9 } })

beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), 'satchel-workspace-'))
  db = openDatabase(join(directory, 'satchel.db'))
  lookup = new MemoryLookup([kept, refused])
  desk = new OrderDesk(db, lookup, clock, () => ({ remainInPreliminary: false }))
})
afterEach(() => {
  closeDatabase(db)
  rmSync(directory, { recursive: true, force: true })
})

function sender(
  reply: (body: Record<string, unknown>) => OrderWithItemsResult | Error,
): OrderSender & { bodies: Record<string, unknown>[] } {
  const bodies: Record<string, unknown>[] = []
  return {
    bodies,
    listOrders: orderList(),
    async createOrderWithItems(body) {
      bodies.push(body)
      const answer = reply(body)
      if (answer instanceof Error) throw answer
      return answer
    },
  }
}
const flush = (to: OrderSender) =>
  new OutboxFlusher({ outbox: desk.outbox, sender: async () => to, clock, logger: silentLogger }).flush()

async function rejectedOrder(): Promise<{ id: number; apiGuid: string }> {
  const draft = desk.createDraft({ customerGuid, catalogGuid })
  desk.addLines(draft.id, [
    { sku: kept.sku, qty: 2 },
    { sku: refused.sku, qty: 1 },
  ])
  const { apiGuid } = desk.send(draft.id)
  await flush(
    sender(
      () =>
        new ServiceRejectedError(
          'Order could not be reconciled',
          [
            {
              type: 'ITEM_NOT_OFFERED',
              message: `${refused.sku} is not offered to price group Dealer`,
              line: 1,
              catalogItemGuid: null,
              sku: refused.sku,
              raw: {},
            },
            {
              type: 'CREDIT_HOLD',
              message: 'The customer is on credit hold',
              line: null,
              catalogItemGuid: null,
              sku: null,
              raw: {},
            },
          ],
          { status: 400 },
        ),
    ),
  )
  return { id: draft.id, apiGuid }
}

describe('a rejected order reopened to be fixed', () => {
  it('is the same order: same number, same api_guid', async () => {
    const { id, apiGuid } = await rejectedOrder()
    const reopened = desk.outbox.reopenAsDraft(apiGuid)
    expect(reopened.id).toBe(id)
    expect(reopened.apiGuid).toBe(apiGuid)
  })

  it('keeps the supplier’s message on the line it names until that line changes, and the order’s at the top', async () => {
    const { apiGuid } = await rejectedOrder()
    const { id, lines } = desk.outbox.reopenAsDraft(apiGuid)
    const [keptLine, refusedLine] = lines
    const supplier = (check = desk.check(id)) =>
      check.issues.filter((issue) => issue.supplier).map((issue) => [issue.lineId, issue.message])
    expect(supplier()).toEqual([
      [null, 'Order could not be reconciled'],
      [refusedLine!.lineId, `${refused.sku} is not offered to price group Dealer`],
      [null, 'The customer is on credit hold'],
    ])
    expect(
      desk
        .check(id)
        .issues.filter((issue) => issue.supplier)
        .every((issue) => issue.severity === 'warning'),
    ).toBe(true)
    // Another line's change leaves it; a change to the named line takes it away; as sent again, it is back.
    desk.updateLine(id, keptLine!.lineId, { qty: 5 })
    expect(supplier().some(([lineId]) => lineId === refusedLine!.lineId)).toBe(true)
    expect(
      supplier(desk.updateLine(id, refusedLine!.lineId, { qty: 2 })).some(([lineId]) => lineId === refusedLine!.lineId),
    ).toBe(false)
    expect(
      supplier(desk.updateLine(id, refusedLine!.lineId, { qty: 1 })).some(([lineId]) => lineId === refusedLine!.lineId),
    ).toBe(true)
    expect(
      supplier(desk.updateLine(id, refusedLine!.lineId, { note: 'as agreed' })).some(
        ([lineId]) => lineId === refusedLine!.lineId,
      ),
    ).toBe(false)
    expect(supplier(desk.removeLine(id, refusedLine!.lineId)).map(([lineId]) => lineId)).toEqual([null, null])
  })

  it('does not block Send: the supplier checks again, with the same key, and the request carries no old reasons', async () => {
    const { apiGuid } = await rejectedOrder()
    const { id } = desk.outbox.reopenAsDraft(apiGuid)
    expect(desk.check(id).sendable).toBe(true)
    expect(desk.send(id).apiGuid).toBe(apiGuid)
    const wire = sender(confirmation)
    await flush(wire)
    expect(desk.outbox.get(apiGuid).state).toBe('sent')
    expect(JSON.stringify(wire.bodies[0])).not.toContain('not offered')
    expect((wire.bodies[0]!.order as { api_guid: string }).api_guid).toBe(apiGuid)
  })

  it('a second rejection replaces the first one’s reasons', async () => {
    const { apiGuid } = await rejectedOrder()
    const { id } = desk.outbox.reopenAsDraft(apiGuid)
    desk.send(id)
    await flush(sender(() => new ServiceRejectedError('Still no', [], { status: 400 })))
    const again = desk.outbox.reopenAsDraft(apiGuid)
    expect(again.id).toBe(id)
    expect(
      desk
        .check(id)
        .issues.filter((issue) => issue.supplier)
        .map((issue) => issue.message),
    ).toEqual(['Still no'])
  })
})

describe('quantity breaks', () => {
  const broken = item({ pricing: { Retail: 34.3, Dealer: 30, Key: 'N/A' }, qtyBreak: 50, qtyBreakPrice: 31.56 })

  it('are shown only where they lower the group’s price', () => {
    expect(quantityBreak(broken, 'Retail')).toEqual({ qty: 50, unitPrice: 31.56 })
    expect(quantityBreak(broken, 'Dealer')).toBeNull()
    expect(quantityBreak(broken, 'Key')).toBeNull()
    expect(quantityBreak(item({ pricing: { Retail: 5 }, qtyBreak: 0, qtyBreakPrice: 4 }), 'Retail')).toBeNull()
  })

  it('say on the line when they apply and when the rep is near, and price it the same way', () => {
    expect(lineBreak(broken, 'Retail', 24)).toBeNull()
    expect(lineBreak(broken, 'Retail', 45)).toEqual({ qty: 50, unitPrice: 31.56, applies: false, toGo: 5 })
    expect(lineBreak(broken, 'Retail', 50)).toEqual({ qty: 50, unitPrice: 31.56, applies: true, toGo: null })
    expect(unitPriceAt(broken, 'Retail', 49).unitPrice).toBe(34.3)
    expect(unitPriceAt(broken, 'Retail', 50).unitPrice).toBe(31.56)
  })

  it('reach the draft check’s priced lines', () => {
    lookup.items.set(broken.guid, broken)
    lookup.customers.set(customerGuid, { ...lookup.customers.get(customerGuid)!, priceGroupId: 7 })
    const draft = desk.createDraft({ customerGuid, catalogGuid })
    const near = desk.addLines(draft.id, [{ catalogItemGuid: broken.guid, qty: 40 }]).check
    expect(near.lines[0]!.priceBreak).toEqual({ qty: 50, unitPrice: 31.56, applies: false, toGo: 10 })
    const on = desk.updateLine(draft.id, near.draft.lines[0]!.lineId, { qty: 50 })
    expect(on.lines[0]).toMatchObject({ unitPrice: 31.56, lineTotal: 1578, priceBreak: { applies: true } })
  })
})

describe('the catalog a new order starts on', () => {
  it('is the customer’s only (or locked) catalog', () => {
    lookup.allowedCatalogs = [otherCatalogGuid]
    expect(desk.createDraft({ customerGuid }).catalogGuid).toBe(otherCatalogGuid)
  })

  it('else the last one used for the customer, then their order history, then the rep’s last, then the first allowed', () => {
    lookup.allowedCatalogs = [catalogGuid, otherCatalogGuid]
    const first = desk.createDraft({ customerGuid })
    expect(first.catalogGuid).toBe(catalogGuid)
    desk.deleteDraft(first.id)
    lookup.orderCatalogs.set(customerGuid, otherCatalogGuid)
    const fromHistory = desk.createDraft({ customerGuid })
    desk.deleteDraft(fromHistory.id)
    expect(fromHistory.catalogGuid).toBe(otherCatalogGuid)
    lookup.orderCatalogs.clear()
    const mine = desk.createDraft({ customerGuid, catalogGuid: otherCatalogGuid })
    expect(desk.createDraft({ customerGuid }).catalogGuid).toBe(otherCatalogGuid)
    desk.deleteDraft(mine.id)
    const other = '88888888-8888-4888-8888-888888888888'
    lookup.customers.set(other, { ...lookup.customers.get(customerGuid)!, guid: other })
    expect(desk.createDraft({ customerGuid: other }).catalogGuid).toBe(otherCatalogGuid)
  })

  // Issue 54: the rep's last catalog gave a new customer's first order items it would not have.
  it('for a customer captured in the field, the catalog the service puts new customers on, whatever the rep used last', () => {
    expect(desk.createDraft({ newCustomer: { name: 'Corner Cafe' } }).catalogGuid).toBe(catalogGuid)
    clock.ms += 60_000
    desk.createDraft({ customerGuid, catalogGuid: otherCatalogGuid })
    expect(desk.createDraft({ newCustomer: { name: 'Dock Diner' } }).catalogGuid).toBe(catalogGuid)
  })
})
