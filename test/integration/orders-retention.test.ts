import { afterEach, describe, expect, it } from 'vitest'
import { Retention } from '../../src/main/local/retention'
import { LocalCopy } from '../../src/main/local/copy'
import { startOrdersHarness, type OrdersHarness } from './orders-support'

let harness: OrdersHarness | undefined
afterEach(async () => {
  await harness?.close()
  harness = undefined
})

const liveItem = (h: OrdersHarness, guid: string) =>
  h.core.db
    .prepare<[string], { deleted_at: string | null; unlisted_at: string | null }>(
      'SELECT deleted_at, unlisted_at FROM catalog_items WHERE guid = ?',
    )
    .get(guid)

describe('rows that drafts and unsent orders still need survive a full sync', () => {
  it('a listing that no longer has a catalog’s items removes them all except the one a draft names, which stays flagged', async () => {
    harness = await startOrdersHarness()
    const target = harness.orderable(2)
    const check = await harness.api('createDraft', {
      customerGuid: target.customerGuid,
      catalogGuid: target.catalogGuid,
    })
    await harness.api('addDraftLines', { id: check.draft.id, lines: [{ sku: target.skus[0]!, qty: 1 }] })

    // A store of its own, as the writer thread and the CLI have: only the database says what is needed.
    const db = harness.core.db
    const store = new LocalCopy(db, new Retention(db))
    const scope = `catalogItems:${target.catalogGuid}`
    const emptyListing = store.newListingId(scope)
    store.pruneUnlisted('catalogItems', target.catalogGuid, emptyListing, null)

    expect(liveItem(harness, target.itemGuids[0]!)).toMatchObject({ deleted_at: null, unlisted_at: expect.any(String) })
    expect(liveItem(harness, target.itemGuids[1]!)).toBeUndefined()
    const left = db
      .prepare<[string], number>('SELECT count(*) FROM catalog_items WHERE catalog_guid = ?')
      .pluck()
      .get(target.catalogGuid)
    expect(left).toBe(1)
    // Out of search, still readable for the draft, which says plainly what happened to its line.
    const search = await harness.api('searchCatalogItems', { catalogGuid: target.catalogGuid, query: target.skus[0]! })
    expect(search.items.map((i) => i.guid)).not.toContain(target.itemGuids[0])
    const after = await harness.api('getDraft', { id: check.draft.id })
    expect(after.issues).toEqual([
      expect.objectContaining({ severity: 'error', message: expect.stringContaining('no longer in this catalog') }),
    ])
  })
})
