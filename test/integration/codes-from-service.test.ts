/**
 * A code the laptop's copy lacks is not a dead end: online, the service is asked (its SKU lookup, then
 * its typeahead for a barcode), and an item it has is read into the local copy and added, said to be
 * new since the last sync. Offline, or when the service has none, the answer says so, with when the
 * catalog last synced. Through the contract, against the double over loopback.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { startOrdersHarness, type OrdersHarness } from './orders-support'

let harness: OrdersHarness
beforeEach(async () => {
  harness = await startOrdersHarness()
})
afterEach(async () => {
  await harness.close()
})

/** An item the supplier adds after the laptop's last sync, priced as an orderable one of the customer's catalog. */
function addedSinceSync(fields: { sku: string; upc: string }): { guid: string; sku: string } {
  const target = harness.orderable()
  const like = harness.core.db
    .prepare<[string], { json: string }>('SELECT json FROM catalog_items WHERE guid = ?')
    .get(target.itemGuids[0]!)!
  const { pricing } = JSON.parse(like.json) as { pricing: Record<string, unknown> }
  const inserted = harness.service.control.insertCatalogItem(target.catalogGuid, {
    ...fields,
    pricing,
    min_order_qty: null,
    has_inventory: false,
    is_product_group: false,
    group_parent_catalog_item_id: null,
  })
  return { guid: String(inserted.guid), sku: fields.sku }
}

async function draftFor(): Promise<number> {
  const target = harness.orderable()
  const check = await harness.api('createDraft', { customerGuid: target.customerGuid, catalogGuid: target.catalogGuid })
  return check.draft.id
}

describe('a code not in the local copy', () => {
  it('online, by SKU: the service’s item is read into the local copy and added, new since the last sync', async () => {
    const item = addedSinceSync({ sku: 'NEW-77001', upc: '614141000036' })
    const id = await draftFor()
    const added = await harness.api('addDraftLines', { id, lines: [{ sku: 'NEW-77001' }] })
    expect(added.unknown).toEqual([])
    expect(added.newSinceSync).toEqual(['NEW-77001'])
    expect(added.check.draft.lines.map((line) => [line.catalogItemGuid, line.sku, line.qty])).toEqual([
      [item.guid, 'NEW-77001', 1],
    ])
    expect(added.check.sendable).toBe(true)
    // In the local copy now, as a sync would have written it: the catalog finds it.
    const found = await harness.api('searchCatalogItems', {
      catalogGuid: harness.orderable().catalogGuid,
      query: 'NEW-77001',
      limit: 5,
    })
    expect(found.items.map((row) => row.guid)).toContain(item.guid)
    const asked = harness.service.control.requestLog().map((request) => request.route)
    expect(asked).toContain('POST /v1/catalog_items/sku-lookup')
    expect(asked).toContain('POST /v1/catalog/:catalogGuid/catalog_items/batch')
  })

  it('online, by a scanner’s GTIN-14 of its UPC: found through the typeahead and added', async () => {
    const item = addedSinceSync({ sku: 'NEW-77002', upc: '614141000036' })
    const id = await draftFor()
    const added = await harness.api('addDraftLines', { id, lines: [{ sku: '00614141000036', qty: 3 }] })
    expect(added.newSinceSync).toEqual(['00614141000036'])
    expect(added.check.draft.lines.map((line) => [line.catalogItemGuid, line.qty])).toEqual([[item.guid, 3]])
  })

  it('that the service does not have either: no line, and when the catalog last synced', async () => {
    const id = await draftFor()
    const added = await harness.api('addDraftLines', { id, lines: [{ sku: 'NOPE-404' }] })
    expect(added.unknown).toEqual(['NOPE-404'])
    expect(added.check.draft.lines).toEqual([])
    expect(added.notOnLaptop).toEqual({ syncedAt: expect.any(String), serviceAsked: true })
    expect(Date.parse(added.notOnLaptop!.syncedAt!)).toBeLessThanOrEqual(Date.now())
  })

  it('offline: no line, the service could not be asked, and when the catalog last synced', async () => {
    addedSinceSync({ sku: 'NEW-77003', upc: '614141000036' })
    const id = await draftFor()
    await harness.stopService()
    const added = await harness.api('addDraftLines', { id, lines: [{ sku: 'NEW-77003' }] })
    expect(added.unknown).toEqual(['NEW-77003'])
    expect(added.newSinceSync).toBeUndefined()
    expect(added.check.draft.lines).toEqual([])
    expect(added.notOnLaptop).toEqual({ syncedAt: expect.any(String), serviceAsked: false })
  })
})
