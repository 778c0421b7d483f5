/** `satchel quotes` and `satchel customer usual` as a user runs them, on a database the app wrote. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { cli, json } from '../support/cli'
import { startOrdersHarness, type OrdersHarness } from './orders-support'

let harness: OrdersHarness

beforeAll(async () => {
  harness = await startOrdersHarness()
})
afterAll(async () => {
  await harness.close()
})

describe('satchel quotes and customer usual', () => {
  it('lists the quotes, and a customer’s usual items in the documented shape', async () => {
    const target = harness.orderable(2)
    const draft = await harness.api('createDraft', {
      customerGuid: target.customerGuid,
      catalogGuid: target.catalogGuid,
    })
    await harness.api('addDraftLines', { id: draft.draft.id, lines: target.skus.map((sku) => ({ sku, qty: 2 })) })
    const quote = await harness.api('saveDraftAsQuote', { draftId: draft.draft.id, keepDraft: true })
    await harness.api('sendDraft', { id: draft.draft.id })
    await harness.settle()

    const quotes = json(await cli(['quotes', '--db', harness.databasePath, '--json']))
    expect(quotes.quotes).toEqual([
      expect.objectContaining({ number: quote.number, customerGuid: target.customerGuid, lineCount: 2 }),
    ])

    const usual = await cli([
      'customer',
      'usual',
      target.customerGuid,
      '--limit',
      '1',
      '--db',
      harness.databasePath,
      '--json',
    ])
    expect(usual.code).toBe(0)
    const { items } = json(usual) as { items: Record<string, unknown>[] }
    expect(items).toHaveLength(1)
    expect(Object.keys(items[0]!).sort()).toEqual([
      'available',
      'family',
      'guid',
      'incoming',
      'lastOrderedAt',
      'lastQty',
      'name',
      'offered',
      'orderable',
      'orders',
      'price',
      'sku',
      'upc',
    ])
    expect(items[0]).toMatchObject({ orders: 1, lastQty: 2, offered: true })

    const unknown = await cli(['customer', 'usual', 'no-such-customer', '--db', harness.databasePath])
    expect(unknown.code).toBe(2)
  })
})
