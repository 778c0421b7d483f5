import { join } from 'node:path'
import { expect, screenshotDir, test, call, watchConsole } from './harness'

test.describe.configure({ timeout: 90_000 })

/**
 * A customer whose price group belongs to another catalog: the catalog screen says which group
 * applies there and why, and prices the rows by it, as the draft does (before, every row read
 * "Key Account prices · Not offered" while the draft priced them at Retail).
 */
test('catalog: a customer whose group is not a price group of this catalog sees the main group, and why', async ({
  page,
  bridge,
  core,
}) => {
  const pageErrors = watchConsole(page)
  const found = core.db
    .prepare<[], { customerGuid: string; customerName: string; groupName: string; catalogGuid: string }>(
      `SELECT c.guid AS customerGuid, c.name AS customerName, pg.name AS groupName, cat.guid AS catalogGuid
       FROM customers c JOIN price_groups pg ON pg.id = c.price_group_id JOIN catalogs cat ON cat.guid <> pg.catalog_guid AND cat.deleted_at IS NULL
       WHERE c.active = 1 AND c.deleted_at IS NULL AND json_extract(c.json, '$.lock_catalog_id') IN (0, NULL)
         AND NOT EXISTS (SELECT 1 FROM price_groups other WHERE other.catalog_guid = cat.guid AND other.name = pg.name AND other.deleted_at IS NULL)
       LIMIT 1`,
    )
    .get()!
  const expected = await call(core.handlers, 'searchCatalogItems', {
    catalogGuid: found.catalogGuid,
    customerGuid: found.customerGuid,
    limit: 5,
  })
  const priced = expected.items.find((item) => item.offered && item.price !== null)!

  await page.goto(`${bridge.url}#/catalog?customer=${found.customerGuid}&catalog=${found.catalogGuid}`)
  await expect(page.getByTestId('catalog-context')).toContainText(`Prices for ${found.customerName}`)
  await expect(page.getByTestId('price-group-note')).toHaveText(
    `${expected.priceGroupName} prices: ${found.groupName} is not a price group of this catalog`,
  )
  const row = page.getByTestId('catalog-scroller').getByRole('row').filter({ hasText: priced.sku }).first()
  await expect(row).toContainText(
    new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' }).format(priced.price!),
  )
  await page.screenshot({ path: join(screenshotDir, 'catalog-foreign-price-group.png') })
  expect(pageErrors).toEqual([])
})
