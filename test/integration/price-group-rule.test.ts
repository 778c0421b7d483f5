import { afterEach, describe, expect, it } from 'vitest'
import { startOrdersHarness, type OrdersHarness } from './orders-support'

/**
 * The price group of a customer in a catalog that lacks their group is chosen by one rule for the
 * catalog screen and the order alike: before, the catalog priced every item under the customer's
 * foreign group ("Key Account prices · Not offered") while the draft priced them at Retail.
 */
let harness: OrdersHarness | undefined
afterEach(async () => {
  await harness?.close()
  harness = undefined
})

describe('a customer whose price group belongs to another catalog', () => {
  it('is priced by the catalog’s main group on the catalog screen and in the draft, and the screen says why', async () => {
    harness = await startOrdersHarness()
    const { db } = harness.core
    // A customer whose group's name is not a price group of some other catalog.
    const found = db
      .prepare<[], { customerGuid: string; groupName: string; catalogGuid: string; mainName: string }>(
        `SELECT c.guid AS customerGuid, pg.name AS groupName, cat.guid AS catalogGuid,
                (SELECT name FROM price_groups WHERE catalog_guid = cat.guid AND is_main = 1 AND deleted_at IS NULL) AS mainName
         FROM customers c JOIN price_groups pg ON pg.id = c.price_group_id JOIN catalogs cat ON cat.guid <> pg.catalog_guid AND cat.deleted_at IS NULL
         WHERE c.active = 1 AND c.deleted_at IS NULL AND json_extract(c.json, '$.lock_catalog_id') IN (0, NULL)
           AND NOT EXISTS (SELECT 1 FROM price_groups other WHERE other.catalog_guid = cat.guid AND other.name = pg.name AND other.deleted_at IS NULL)
         LIMIT 1`,
      )
      .get()
    expect(found, 'the double has a customer whose group is not in every catalog').toBeDefined()
    const { customerGuid, groupName, catalogGuid, mainName } = found!

    const listed = await harness.api('searchCatalogItems', { catalogGuid, customerGuid, limit: 20 })
    expect(listed.priceGroupName).toBe(mainName)
    expect(listed.priceGroupNote).toBe(`${mainName} prices: ${groupName} is not a price group of this catalog`)
    const item = listed.items.find((row) => row.offered && row.active && row.price !== null)!
    expect(item).toBeDefined()

    const check = await harness.api('createDraft', { customerGuid, catalogGuid })
    const added = await harness.api('addDraftLines', { id: check.draft.id, lines: [{ sku: item.sku, qty: 1 }] })
    expect(added.check.priceGroup?.name).toBe(mainName)
    expect(added.check.lines[0]!.unitPrice).toBe(item.price)
  })

  it('a customer in a catalog that has their group is priced by it, with nothing to explain', async () => {
    harness = await startOrdersHarness()
    const { db } = harness.core
    const found = db
      .prepare<[], { customerGuid: string; groupName: string; catalogGuid: string }>(
        `SELECT c.guid AS customerGuid, pg.name AS groupName, pg.catalog_guid AS catalogGuid
         FROM customers c JOIN price_groups pg ON pg.id = c.price_group_id
         WHERE c.active = 1 AND c.deleted_at IS NULL AND pg.is_main = 0 AND pg.deleted_at IS NULL LIMIT 1`,
      )
      .get()!
    const listed = await harness.api('searchCatalogItems', {
      catalogGuid: found.catalogGuid,
      customerGuid: found.customerGuid,
      limit: 5,
    })
    expect(listed.priceGroupName).toBe(found.groupName)
    expect(listed.priceGroupNote ?? null).toBeNull()
  })
})
