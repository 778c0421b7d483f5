/**
 * Impossible data is refused, not stored, so no order is priced from it. The double rewrites the
 * items' `pricing` with values and keys the contract never allows; sync must refuse those rows,
 * keep the last good copy, and nothing priced afterwards may come out negative.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { itemFactsFromRecord } from '../../src/main/orders/local-lookup'
import { unitPriceAt } from '../../src/main/pricing'
import { itemsRoute, startHarness, type Harness } from './sync-support'

let harness: Harness | undefined

afterEach(async () => {
  await harness?.close()
  harness = undefined
})

const badKeys = new Set(['__proto__', 'constructor', 'prototype', ''])

interface StoredItem {
  guid: string
  pricing: string | null
  json: string
}

function storedItems(h: Harness): StoredItem[] {
  return h.db.prepare<[], StoredItem>('SELECT guid, pricing, json FROM catalog_items').all()
}

/** Every stored pricing map (the column and the record's JSON) holds only sane keys and finite, non-negative numbers or "N/A". */
function expectSanePricing(h: Harness): void {
  for (const row of storedItems(h)) {
    const record = JSON.parse(row.json) as Record<string, unknown>
    const maps = [record.pricing, row.pricing === null ? null : (JSON.parse(row.pricing) as unknown)]
    for (const map of maps) {
      if (map === null || map === undefined) continue
      expect(typeof map).toBe('object')
      for (const [key, value] of Object.entries(map as Record<string, unknown>)) {
        expect(badKeys.has(key), `key ${JSON.stringify(key.slice(0, 20))} of ${row.guid}`).toBe(false)
        expect(key.length).toBeLessThanOrEqual(200)
        if (value === 'N/A') continue
        expect(typeof value, `price ${String(value)} of ${row.guid}`).toBe('number')
        expect(Number.isFinite(value)).toBe(true)
        expect(value as number).toBeGreaterThanOrEqual(0)
      }
    }
    for (const field of ['msrp', 'min_order_qty', 'qty_break', 'qty_break_price']) {
      const value = record[field]
      if (value === null || value === undefined) continue
      expect(typeof value).toBe('number')
      expect(Number.isFinite(value)).toBe(true)
      expect(value as number).toBeGreaterThanOrEqual(0)
    }
  }
}

function priceGroupNames(h: Harness): string[] {
  return h.db.prepare<[], string>('SELECT DISTINCT name FROM price_groups').pluck().all()
}

/** A draft line of 3 of every stored item, for every price group: never a negative sub-total. */
function expectNoNegativeDraft(h: Harness): void {
  const groups = priceGroupNames(h)
  for (const row of storedItems(h)) {
    const facts = itemFactsFromRecord(JSON.parse(row.json) as Record<string, unknown>, false)
    for (const group of [...groups, '__proto__', 'constructor', '']) {
      const price = unitPriceAt(facts, group, 3)
      if (!price.offered) continue
      expect(Number.isFinite(price.unitPrice)).toBe(true)
      expect(price.unitPrice * 3, `${row.guid} for ${group}`).toBeGreaterThanOrEqual(0)
    }
  }
}

function storedPricing(h: Harness, guid: string): Record<string, unknown> {
  const json = h.db.prepare<[string], string>('SELECT json FROM catalog_items WHERE guid = ?').pluck().get(guid)!
  return (JSON.parse(json) as { pricing: Record<string, unknown> }).pricing
}

function firstPricedItem(h: Harness): { catalogGuid: string; guid: string; group: string; price: number } {
  const rows = h.db
    .prepare<[], { guid: string; catalog_guid: string; json: string }>(
      'SELECT guid, catalog_guid, json FROM catalog_items WHERE deleted_at IS NULL ORDER BY guid',
    )
    .all()
  for (const row of rows) {
    const pricing = (JSON.parse(row.json) as { pricing?: Record<string, unknown> }).pricing ?? {}
    const entry = Object.entries(pricing).find(([, value]) => typeof value === 'number' && value > 0)
    if (entry) return { catalogGuid: row.catalog_guid, guid: row.guid, group: entry[0], price: entry[1] as number }
  }
  throw new Error('no priced item')
}

describe('impossible data from the service is refused, not stored', () => {
  it('refuses items with bad prices or keys on a delta, keeping the last good copy', async () => {
    harness = await startHarness()
    expect((await harness.sync()).ok).toBe(true)
    expectSanePricing(harness)
    const item = firstPricedItem(harness)
    const before = storedPricing(harness, item.guid)

    // The price changes on the service, and the reply that carries the change is corrupt.
    harness.service.control.setPrice(item.guid, item.group, item.price + 1)
    harness.service.control.addFault({
      route: itemsRoute,
      type: 'badPricing',
      values: ['negative', 'numericString', 'nonFinite'],
      keys: ['__proto__', 'constructor', 'empty', 'long'],
      times: 50,
    })
    const report = await harness.sync()
    expect(report.error ?? null).toBeNull()
    expect(report.ok).toBe(true)
    expectSanePricing(harness)
    expect(storedPricing(harness, item.guid)).toEqual(before)
    expect(report.resources.catalogItems.rejected ?? 0).toBeGreaterThan(0)
    expectNoNegativeDraft(harness)

    // Once the service sends good data again, the change arrives.
    harness.service.control.clearFaults()
    harness.service.control.setPrice(item.guid, item.group, item.price + 2)
    expect((await harness.sync()).ok).toBe(true)
    expect(storedPricing(harness, item.guid)[item.group]).toBe(item.price + 2)
  })

  it('a full listing of corrupt pages stores none of it, prunes none of the good copies, and prices nothing negative', async () => {
    harness = await startHarness()
    expect((await harness.sync()).ok).toBe(true)
    const guidsBefore = storedItems(harness)
      .map((row) => row.guid)
      .sort()
    const pricingBefore = new Map(storedItems(harness).map((row) => [row.guid, row.pricing]))

    for (const rule of [
      { values: ['negative' as const], keys: [] },
      { values: ['numericString' as const], keys: [] },
      { values: ['nonFinite' as const], keys: [] },
      { values: [], keys: ['__proto__' as const], keyValue: { polluted: true } },
      { values: [], keys: ['constructor' as const, 'empty' as const, 'long' as const] },
    ]) {
      harness.service.control.clearFaults()
      harness.service.control.addFault({ route: itemsRoute, type: 'badPricing', times: 1000, ...rule })
      const report = await harness.sync({ full: true })
      expectSanePricing(harness)
      expect(
        storedItems(harness)
          .map((row) => row.guid)
          .sort(),
      ).toEqual(guidsBefore)
      for (const row of storedItems(harness)) expect(row.pricing).toBe(pricingBefore.get(row.guid))
      expect(report.resources.catalogItems.rejected ?? 0).toBeGreaterThan(0)
      expectNoNegativeDraft(harness)
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
  })
})
