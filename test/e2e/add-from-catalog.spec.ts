/**
 * "Add to order" from any catalog row or item panel, not only when the catalog was opened from a
 * draft: into the customer's open draft in that catalog, or a new one; with no customer chosen, the
 * rep is asked which customer first.
 */
import { expect, test, call, watchConsole, findOrderWorld } from './harness'

test.describe.configure({ timeout: 90_000 })
test.use({ viewport: { width: 1280, height: 720 } })

test('from the catalog for a customer: a row and the item panel add to their open draft, or start one', async ({
  page,
  bridge,
  core,
}) => {
  const pageErrors = watchConsole(page)
  const world = await findOrderWorld(core.handlers)
  const [first, second, third] = world.plain
  const scroller = page.getByTestId('catalog-scroller')
  const search = page.getByLabel('Search catalog')

  // No draft yet: the row's "Add to order" starts one for the customer, in this catalog.
  await page.goto(`${bridge.url}#/catalog?customer=${world.customer.guid}&catalog=${world.catalogGuid}`)
  await search.fill(first!.sku)
  await expect(scroller).toHaveAttribute('data-results-for', first!.sku)
  await scroller.getByRole('button', { name: `Add ${first!.sku} to order` }).click()
  await expect(page.getByTestId('adding-to-draft')).toContainText(`Added ${first!.sku} to a new order`)
  const drafts = await call(core.handlers, 'listDrafts')
  expect(drafts).toHaveLength(1)
  expect(drafts[0]!.customerGuid).toBe(world.customer.guid)
  await expect(page).toHaveURL(new RegExp(`draft=${drafts[0]!.id}`))

  // The item panel adds to the same order.
  await search.fill(second!.sku)
  await expect(scroller).toHaveAttribute('data-results-for', second!.sku)
  await scroller.locator('.name-button').first().click()
  const panel = page.getByTestId('item-detail')
  await panel.getByRole('button', { name: `Add ${second!.sku} to order` }).click()
  await expect(page.getByTestId('adding-to-draft')).toContainText(`Added ${second!.sku} to the order`)
  const check = await call(core.handlers, 'getDraft', { id: drafts[0]!.id })
  expect(check.draft.lines.map((line) => line.sku)).toEqual([first!.sku, second!.sku])

  // Opened afresh, the catalog finds that open draft again rather than starting another.
  await page.goto(`${bridge.url}#/customers`)
  await page.goto(`${bridge.url}#/catalog?customer=${world.customer.guid}&catalog=${world.catalogGuid}`)
  await search.fill(third!.sku)
  await expect(scroller).toHaveAttribute('data-results-for', third!.sku)
  await scroller.getByRole('button', { name: `Add ${third!.sku} to order` }).click()
  await expect(page.getByTestId('adding-to-draft')).toContainText(`to order #${drafts[0]!.id}`)
  expect(await call(core.handlers, 'listDrafts')).toHaveLength(1)
  expect(pageErrors).toEqual([])
})

test('from the catalog with no customer chosen: the rep is asked which customer, and the item goes on their order', async ({
  page,
  bridge,
  core,
}) => {
  const pageErrors = watchConsole(page)
  const world = await findOrderWorld(core.handlers)
  const item = world.plain[0]!
  await page.goto(`${bridge.url}#/catalog?catalog=${world.catalogGuid}`)
  const scroller = page.getByTestId('catalog-scroller')
  await page.getByLabel('Search catalog').fill(item.sku)
  await expect(scroller).toHaveAttribute('data-results-for', item.sku)
  await scroller.getByRole('button', { name: `Add ${item.sku} to order` }).click()
  await expect(page.getByTestId('add-to-order-ask')).toContainText('Which customer is this order for?')
  const picker = page.getByRole('combobox', { name: 'Customer' })
  await expect(picker).toBeFocused()
  await page.keyboard.type(world.customer.name)
  await expect(
    page.getByRole('option', { name: new RegExp(world.customer.name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')) }).first(),
  ).toBeVisible()
  await page.keyboard.press('ArrowDown')
  await page.keyboard.press('Enter')
  await expect(page.getByTestId('adding-to-draft')).toContainText(`Added ${item.sku} to a new order`)
  const drafts = await call(core.handlers, 'listDrafts')
  expect(drafts.map((draft) => [draft.customerGuid, draft.lineCount])).toEqual([[world.customer.guid, 1]])
  expect(pageErrors).toEqual([])
})

test('an item not offered to the customer’s price group has no "Add to order", on its row or in its panel', async ({
  page,
  bridge,
  core,
}) => {
  const pageErrors = watchConsole(page)
  const world = await findOrderWorld(core.handlers)
  const scroller = page.getByTestId('catalog-scroller')
  await page.goto(`${bridge.url}#/catalog?customer=${world.customer.guid}&catalog=${world.catalogGuid}`)
  await page.getByLabel('Search catalog').fill(world.notOffered.sku)
  await expect(scroller).toHaveAttribute('data-results-for', world.notOffered.sku)
  const row = scroller.getByRole('row').filter({ hasText: world.notOffered.sku }).first()
  await expect(row).toContainText('Not offered')
  await expect(row.getByRole('button', { name: `Add ${world.notOffered.sku} to order` })).toHaveCount(0)
  await row.locator('.name-button').click()
  const panel = page.getByTestId('item-detail')
  await expect(panel).toContainText('Not offered')
  await expect(panel.getByRole('button', { name: `Add ${world.notOffered.sku} to order` })).toHaveCount(0)
  // An offered item beside it still has its button.
  await page.getByLabel('Search catalog').fill(world.plain[0]!.sku)
  await expect(scroller).toHaveAttribute('data-results-for', world.plain[0]!.sku)
  await expect(scroller.getByRole('button', { name: `Add ${world.plain[0]!.sku} to order` })).toBeVisible()
  expect(pageErrors).toEqual([])
})
