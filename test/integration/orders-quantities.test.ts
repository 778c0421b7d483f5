/**
 * Through the handler table the renderer calls, so no screen can get around it: a quantity is a whole
 * number from 1 to 1,000,000, and a draft whose total would not be a finite number cannot be sent.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { call } from '../../src/main/core/handlers'
import { startOrdersHarness, type OrdersHarness } from './orders-support'

let harness: OrdersHarness

beforeAll(async () => {
  harness = await startOrdersHarness()
}, 60_000)

afterAll(async () => {
  await harness?.close()
})

async function newDraft(): Promise<number> {
  const target = harness.orderable(2)
  return (await harness.api('createDraft', { customerGuid: target.customerGuid, catalogGuid: target.catalogGuid }))
    .draft.id
}

describe('quantities through the handler table', () => {
  it('addDraftLines refuses 1e308, 0, -1, 1.5, 1,000,001 and NaN with INVALID_ARGUMENT naming lines.N.qty, and stores nothing', async () => {
    const id = await newDraft()
    const sku = harness.orderable(2).skus[0]!
    for (const qty of [1e308, 0, -1, 1.5, 1_000_001, Number.NaN, Number.POSITIVE_INFINITY]) {
      const result = await call(harness.core.handlers, 'addDraftLines', {
        id,
        lines: [
          { sku, qty: 1 },
          { sku, qty },
        ],
      })
      expect(result.ok, `qty ${qty}`).toBe(false)
      if (result.ok) continue
      expect(result.error.code).toBe('INVALID_ARGUMENT')
      expect(result.error.issues).toEqual([{ path: 'lines.1.qty', message: expect.any(String) }])
    }
    expect((await harness.api('getDraft', { id })).draft.lines).toEqual([])
  })

  it('updateDraftLine refuses 1e308 and a fraction with INVALID_ARGUMENT naming qty, and keeps the line as it was', async () => {
    const id = await newDraft()
    const sku = harness.orderable(2).skus[0]!
    const { check } = await harness.api('addDraftLines', { id, lines: [{ sku, qty: 2 }] })
    const lineId = check.draft.lines[0]!.lineId
    for (const qty of [1e308, 2.5, 0]) {
      const result = await call(harness.core.handlers, 'updateDraftLine', { id, lineId, qty })
      expect(!result.ok && result.error.code, `qty ${qty}`).toBe('INVALID_ARGUMENT')
      expect(!result.ok && result.error.issues).toEqual([{ path: 'qty', message: expect.any(String) }])
    }
    expect((await harness.api('getDraft', { id })).draft.lines[0]!.qty).toBe(2)
    expect((await harness.api('updateDraftLine', { id, lineId, qty: 1_000_000 })).draft.lines[0]!.qty).toBe(1_000_000)
  })

  it('a draft whose total would not be finite cannot be sent, and the outbox stays empty', async () => {
    const target = harness.orderable(2)
    const itemGuid = target.itemGuids[1]!
    // A price this large times 1,000,000 is beyond any number: the line total would be Infinity.
    const group = harness.core.db
      .prepare<[string], string>(
        'SELECT p.name FROM customers c JOIN price_groups p ON p.id = c.price_group_id WHERE c.guid = ?',
      )
      .pluck()
      .get(target.customerGuid)!
    harness.service.control.update('catalogItem', itemGuid, { pricing: { [group]: 1e303 } })
    expect((await harness.api('syncNow', {})).ok).toBe(true)

    const id = await newDraft()
    const { check } = await harness.api('addDraftLines', { id, lines: [{ catalogItemGuid: itemGuid, qty: 1_000_000 }] })
    expect(check.sendable).toBe(false)
    expect(Number.isFinite(check.subTotal)).toBe(true)
    const lineId = check.draft.lines[0]!.lineId
    expect(check.issues).toContainEqual({
      field: 'qty',
      lineId,
      severity: 'error',
      message: expect.stringMatching(/too large/),
    })

    const sent = await call(harness.core.handlers, 'sendDraft', { id })
    expect(!sent.ok && sent.error.code).toBe('INVALID_ARGUMENT')
    expect(!sent.ok && sent.error.issues).toEqual([
      { path: `lines.${lineId}.qty`, message: expect.stringMatching(/too large/) },
    ])
    expect(await harness.api('listOutbox')).toEqual([])
    expect((await harness.api('getDraft', { id })).draft.lines).toHaveLength(1)
  })
})
