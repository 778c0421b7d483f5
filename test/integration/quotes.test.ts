/**
 * Quotes against a real core and the ordering-service double: numbering that survives restarts, and
 * conversion into a draft that re-reads prices from the service and names every line that moved.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { call } from '../../src/main/core/handlers'
import { silentLogger } from '../../src/main/ports'
import { Retention } from '../../src/main/local/retention'
import { LocalCopy } from '../../src/main/local/copy'
import { startOrdersHarness, type OrdersHarness } from './orders-support'

/** Money as the rep reads it, whatever it is: currency sign, thousands, two decimals. */
const usd = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' })
let harness: OrdersHarness

beforeEach(async () => {
  harness = await startOrdersHarness()
})
afterEach(async () => {
  await harness.close()
})

async function draftWith(qtys: number[]) {
  const target = harness.orderable(qtys.length)
  const created = await harness.api('createDraft', {
    customerGuid: target.customerGuid,
    catalogGuid: target.catalogGuid,
  })
  await harness.api('addDraftLines', {
    id: created.draft.id,
    lines: target.skus.map((sku, index) => ({ sku, qty: qtys[index]! })),
  })
  return { target, draftId: created.draft.id }
}

describe('quotes', () => {
  it('saving a draft as a quote moves it into the quote, so converting the quote leaves one draft, not two alike', async () => {
    const { draftId } = await draftWith([2, 3])
    const quote = await harness.api('saveDraftAsQuote', { draftId })
    expect((await harness.api('listDrafts', undefined)).map((draft) => draft.id)).toEqual([])
    await expect(harness.api('getDraft', { id: draftId })).rejects.toThrow('NOT_FOUND')

    const { check } = await harness.api('convertQuote', { id: quote.id })
    const drafts = await harness.api('listDrafts', undefined)
    expect(drafts.map((draft) => draft.id)).toEqual([check.draft.id])
    expect(check.draft.lines.map((line) => line.qty)).toEqual([2, 3])
  })

  it('keeps the draft too only when asked to', async () => {
    const { draftId } = await draftWith([2])
    await harness.api('saveDraftAsQuote', { draftId, keepDraft: true })
    expect((await harness.api('listDrafts', undefined)).map((draft) => draft.id)).toEqual([draftId])
  })

  it('numbers quotes Q-<prefix>-0001 upwards, never reusing a number, across restarts and deletes', async () => {
    const { draftId, target } = await draftWith([2, 3])
    const first = await harness.api('saveDraftAsQuote', { draftId, keepDraft: true })
    expect(first.number).toMatch(/^Q-[A-Z2-9]{4}-0001$/)
    const prefix = first.number.slice(2, 6)
    const second = await harness.api('saveDraftAsQuote', { draftId, keepDraft: true })
    expect(second.number).toBe(`Q-${prefix}-0002`)
    await harness.api('deleteQuote', { id: second.id })

    await harness.reopenCore()
    const third = await harness.api('saveDraftAsQuote', { draftId, keepDraft: true })
    expect(third.number).toBe(`Q-${prefix}-0003`)
    const duplicate = await harness.api('duplicateQuote', { id: first.id })
    expect(duplicate.number).toBe(`Q-${prefix}-0004`)

    // What was quoted is kept: the customer, the lines and the prices of the moment, valid 30 days.
    const quote = await harness.api('getQuote', { id: first.id })
    expect(quote.customerGuid).toBe(target.customerGuid)
    expect(quote.lines.map((line) => [line.sku, line.qty])).toEqual([
      [target.skus[0], 2],
      [target.skus[1], 3],
    ])
    expect(quote.lines.every((line) => line.unitPrice !== null)).toBe(true)
    const days = (Date.parse(quote.validUntil) - Date.parse(quote.createdAt.slice(0, 10))) / 86_400_000
    expect(days).toBe(30)

    // Found by number, by customer and by a SKU on it; the draft it came from is untouched.
    expect((await harness.api('listQuotes', { query: first.number })).map((q) => q.id)).toEqual([first.id])
    expect((await harness.api('listQuotes', { customerGuid: target.customerGuid })).map((q) => q.number)).toEqual([
      `Q-${prefix}-0004`,
      `Q-${prefix}-0003`,
      `Q-${prefix}-0001`,
    ])
    expect((await harness.api('listQuotes', { query: target.skus[1]!.toLowerCase() })).length).toBe(3)
    expect((await harness.api('getDraft', { id: draftId })).draft.lines).toHaveLength(2)
  })

  it('edits quantities, validity and notes while not converted; a quote with no lines is refused', async () => {
    const { draftId } = await draftWith([2, 3])
    const quote = await harness.api('saveDraftAsQuote', { draftId, keepDraft: true })
    const [a, b] = quote.lines
    const edited = await harness.api('updateQuote', {
      id: quote.id,
      changes: { validUntil: '2031-01-31', note: 'Spring promotion', lines: [{ lineId: a!.lineId, qty: 10 }] },
    })
    expect(edited.lines).toHaveLength(1)
    expect(edited.lines[0]!.lineTotal).toBeCloseTo(a!.unitPrice! * 10, 2)
    expect(edited.subTotal).toBeCloseTo(a!.unitPrice! * 10, 2)
    expect(edited.validUntil).toBe('2031-01-31')
    expect(b).toBeDefined()
    const refused = await call(harness.core.handlers, 'updateQuote', { id: quote.id, changes: { lines: [] } })
    expect(refused.ok).toBe(false)

    // The validity of a new quote is a setting.
    await harness.api('updateSettings', { quoteValidityDays: 7 })
    const week = await harness.api('saveDraftAsQuote', { draftId })
    expect((Date.parse(week.validUntil) - Date.parse(week.createdAt.slice(0, 10))) / 86_400_000).toBe(7)
  })

  it('converts into a draft priced today: a price changed at the service and an item no longer offered are listed line by line', async () => {
    const { draftId, target } = await draftWith([2, 3, 1])
    const quote = await harness.api('saveDraftAsQuote', { draftId })
    const [raised, withdrawn, same] = quote.lines
    const newPrice = Math.round((raised!.unitPrice! + 1.5) * 100) / 100
    harness.service.control.setPrice(raised!.catalogItemGuid, quote.priceGroupName!, newPrice)
    harness.service.control.setPrice(withdrawn!.catalogItemGuid, quote.priceGroupName!, 'N/A')

    // No sync in between: converting re-reads the quote's items from the service.
    const { check, changes } = await harness.api('convertQuote', { id: quote.id })
    expect(check.draft.customerGuid).toBe(target.customerGuid)
    expect(check.draft.lines.map((line) => line.sku)).toEqual([raised!.sku, withdrawn!.sku, same!.sku])
    expect(changes).toEqual([
      expect.objectContaining({
        sku: raised!.sku,
        kind: 'price',
        quotedPrice: raised!.unitPrice,
        currentPrice: newPrice,
        message: `${usd.format(raised!.unitPrice!)} → ${usd.format(newPrice)}`,
      }),
      expect.objectContaining({
        sku: withdrawn!.sku,
        kind: 'notOffered',
        quotedPrice: withdrawn!.unitPrice,
        currentPrice: null,
      }),
    ])
    expect(check.lines.find((line) => line.lineId === check.draft.lines[0]!.lineId)?.unitPrice).toBe(newPrice)
    // The draft goes through the normal checks: the line no longer offered blocks sending.
    expect(check.sendable).toBe(false)

    const converted = await harness.api('getQuote', { id: quote.id })
    expect(converted.convertedDraftId).toBe(check.draft.id)
    const again = await call(harness.core.handlers, 'convertQuote', { id: quote.id })
    expect(again.ok).toBe(false)
    if (!again.ok) expect(again.error.code).toBe('CONFLICT')
    const edit = await call(harness.core.handlers, 'updateQuote', { id: quote.id, changes: { note: 'x' } })
    expect(edit.ok).toBe(false)
  })

  it('converts once when Convert is pressed twice: one draft, the second press refused', async () => {
    const { draftId } = await draftWith([2, 1])
    const quote = await harness.api('saveDraftAsQuote', { draftId })
    const draftsBefore = (await harness.api('listDrafts', undefined)).length
    // The second press arrives while the first waits for the service to re-read the items.
    const [first, second] = await Promise.all([
      call(harness.core.handlers, 'convertQuote', { id: quote.id }),
      call(harness.core.handlers, 'convertQuote', { id: quote.id }),
    ])
    expect([first.ok, second.ok].sort()).toEqual([false, true])
    const refused = first.ok ? second : first
    if (!refused.ok) expect(refused.error.code).toBe('CONFLICT')
    expect((await harness.api('listDrafts', undefined)).length).toBe(draftsBefore + 1)
    const converted = await harness.api('getQuote', { id: quote.id })
    expect(converted.convertedDraftId).toBe(
      first.ok ? first.value.check.draft.id : second.ok ? second.value.check.draft.id : null,
    )
  })

  it('converts offline on the local copy, with today’s local prices, in a few seconds at most', async () => {
    const { draftId } = await draftWith([2, 1])
    const quote = await harness.api('saveDraftAsQuote', { draftId })
    await harness.stopService()
    // The harness's core logs to silentLogger: what it says shows how the re-read of the items ended.
    const info = vi.spyOn(silentLogger, 'info')
    const warn = vi.spyOn(silentLogger, 'warn')
    let converted: Awaited<ReturnType<typeof harness.api<'convertQuote'>>>
    try {
      converted = await harness.api('convertQuote', { id: quote.id })
      // One refused connection and no retries, then the local copy decides: seconds at most, never a wait on backoff.
      expect(warn.mock.calls.filter(([message]) => message === 'service call failed, retrying')).toEqual([])
      expect(
        info.mock.calls.filter(([message]) => message.startsWith('could not refresh items before sending')),
      ).toEqual([[expect.any(String), { error: expect.stringContaining('cannot be reached') }]])
    } finally {
      info.mockRestore()
      warn.mockRestore()
    }
    const { check, changes } = converted
    expect(changes).toEqual([])
    expect(check.sendable).toBe(true)
    expect(check.lines.map((line) => line.unitPrice)).toEqual(quote.lines.map((line) => line.unitPrice))
  })

  it('keeps the customer and items an open quote names through listings that no longer have them, so converting it says what is gone', async () => {
    const { draftId, target } = await draftWith([1, 1])
    const quote = await harness.api('saveDraftAsQuote', { draftId })

    // A store of its own, as the writer thread and the CLI have: only the database says what is needed.
    const db = harness.core.db
    const store = new LocalCopy(db, new Retention(db))
    const items = `catalogItems:${target.catalogGuid}`
    const countItems = () =>
      db
        .prepare<[string], number>('SELECT count(*) FROM catalog_items WHERE catalog_guid = ?')
        .pluck()
        .get(target.catalogGuid)
    store.pruneUnlisted('catalogItems', target.catalogGuid, store.newListingId(items), null)
    store.pruneUnlisted('customers', null, store.newListingId('customers'), null)
    expect(countItems()).toBe(2)
    expect(
      db
        .prepare<[string], string | null>('SELECT unlisted_at FROM customers WHERE guid = ?')
        .pluck()
        .get(target.customerGuid),
    ).toEqual(expect.any(String))

    // The customer is still on this laptop, so the quote converts; its items are no longer offered.
    const { check, changes } = await harness.api('convertQuote', { id: quote.id })
    expect(check.draft.customerGuid).toBe(target.customerGuid)
    expect(changes.map((change) => [change.sku, change.kind])).toEqual(target.skus.map((sku) => [sku, 'gone']))

    // Converted, the quote no longer holds them.
    await harness.api('deleteDraft', { id: check.draft.id })
    store.pruneUnlisted('catalogItems', target.catalogGuid, store.newListingId(items), null)
    expect(countItems()).toBe(0)
  })
})
