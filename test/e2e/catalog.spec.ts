import { join } from 'node:path'
import { expect, screenshotDir, test, call, watchConsole, findOrderWorld } from './harness'

test.describe.configure({ timeout: 90_000 })

test('catalog: search, category filter, item detail, "not offered", and add to an order', async ({
  page,
  bridge,
  core,
}) => {
  const pageErrors = watchConsole(page)
  const world = await findOrderWorld(core.handlers)
  const [first] = world.plain
  const draft = await call(core.handlers, 'createDraft', {
    customerGuid: world.customer.guid,
    catalogGuid: world.catalogGuid,
  })
  const id = draft.draft.id

  await page.goto(`${bridge.url}#/catalog?customer=${world.customer.guid}&catalog=${world.catalogGuid}`)
  const scroller = page.getByTestId('catalog-scroller')
  await expect(scroller).toHaveAttribute('data-results-for', '')
  await expect(page.getByTestId('catalog-context')).toContainText(`Prices for ${world.customer.name}`)
  await expect(page.getByTestId('catalog-context')).toContainText(`${world.priceGroupName} prices`)
  // Only the catalogs this customer may order from.
  const allowed = await call(core.handlers, 'listCatalogs', { customerGuid: world.customer.guid })
  await expect(page.getByLabel('Catalog', { exact: true }).locator('option')).toHaveCount(allowed.length)

  // "/" reaches the search field from anywhere on the screen.
  await page.locator('body').click({ position: { x: 5, y: 5 } })
  await page.keyboard.press('/')
  const search = page.getByLabel('Search catalog')
  await expect(search).toBeFocused()

  // Search by SKU: the row shows the customer's price, MSRP and stock.
  await search.pressSequentially(first!.sku)
  await expect(scroller).toHaveAttribute('data-results-for', first!.sku)
  const row = scroller.getByRole('row').filter({ hasText: first!.sku }).first()
  await expect(row).toContainText(first!.name)
  await expect(row).toContainText(
    new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' }).format(first!.price!),
  )

  // "Not offered" for an item N/A to the customer's price group.
  await search.fill(world.notOffered.sku)
  await expect(scroller).toHaveAttribute('data-results-for', world.notOffered.sku)
  await expect(scroller.getByRole('row').filter({ hasText: world.notOffered.sku }).first()).toContainText('Not offered')

  // Category filter: a branch with its leaves, counted as the core counts them.
  await search.fill('')
  await expect(scroller).toHaveAttribute('data-results-for', '')
  await page.screenshot({ path: join(screenshotDir, 'catalog.png') })
  const tree = page.getByRole('tree', { name: 'Categories' })
  const branch = tree.getByRole('treeitem').nth(1)
  const branchName = (await branch.locator('.label').textContent())!.trim()
  const categories = await call(core.handlers, 'listCategories', { catalogGuid: world.catalogGuid })
  const category = categories.find((c) => c.name === branchName && c.parentId === null)!
  const expected = await call(core.handlers, 'searchCatalogItems', {
    catalogGuid: world.catalogGuid,
    categoryId: category.id,
    customerGuid: world.customer.guid,
    limit: 1,
  })
  await branch.click()
  await expect(branch).toHaveAttribute('aria-selected', 'true')
  await expect(scroller).toHaveAttribute('data-total', String(expected.total))
  // Keyboard: open the branch and move into a leaf.
  await branch.focus()
  await page.keyboard.press('ArrowRight')
  await expect(branch).toHaveAttribute('aria-expanded', 'true')
  await page.keyboard.press('ArrowDown')
  await page.keyboard.press('Enter')
  const leaf = tree.locator('[aria-selected="true"]')
  await expect(leaf).toHaveAttribute('aria-level', '2')
  await expect(scroller).not.toHaveAttribute('data-total', String(expected.total))

  // Item detail in the side panel.
  await tree.getByRole('treeitem', { name: /All categories/ }).click()
  await search.fill(first!.sku)
  await expect(scroller).toHaveAttribute('data-results-for', first!.sku)
  await scroller.getByRole('button', { name: `${first!.name}, ${first!.sku}: show details` }).click()
  const detail = page.getByTestId('item-detail')
  await expect(detail.getByRole('heading')).toHaveText(first!.name)
  await expect(detail.getByTestId('detail-price')).toContainText(world.priceGroupName)
  await page.screenshot({ path: join(screenshotDir, 'catalog-detail.png') })
  await page.emulateMedia({ colorScheme: 'dark' })
  await page.screenshot({ path: join(screenshotDir, 'catalog-detail-dark.png') })
  await page.emulateMedia({ colorScheme: 'light' })
  await page.keyboard.press('Escape')
  await expect(detail).toHaveCount(0)

  // Add to order from the catalog, coming from the draft.
  await page.goto(`${bridge.url}#/drafts/${id}`)
  await page.getByRole('link', { name: 'Browse the catalog' }).click()
  await expect(page.getByTestId('adding-to-draft')).toContainText(`Adding to order #${id}`)
  await expect(scroller).toHaveAttribute('data-results-for', '')
  await page.getByLabel('Search catalog').fill(first!.sku)
  await expect(scroller).toHaveAttribute('data-results-for', first!.sku)
  await page
    .getByRole('button', { name: `Add ${first!.sku} to order` })
    .first()
    .click()
  await expect(page.getByTestId('adding-to-draft')).toContainText(`Added ${first!.sku} to the order (quantity 1)`)
  await page
    .getByRole('button', { name: `Add ${first!.sku} to order` })
    .first()
    .click()
  await expect(page.getByTestId('adding-to-draft')).toContainText(`Added ${first!.sku} to the order (quantity 2)`)
  const saved = await call(core.handlers, 'getDraft', { id })
  expect(saved.draft.lines.map((l) => [l.sku, l.qty])).toEqual([[first!.sku, 2]])

  await page.getByRole('link', { name: 'Back to the order' }).click()
  await expect(page.getByRole('spinbutton', { name: `Quantity for ${first!.sku}`, exact: true })).toHaveValue('2')

  // The typeahead inside order entry adds by search.
  const finder = page.getByRole('combobox', { name: 'Find an item' })
  await finder.fill(world.plain[1]!.sku)
  await expect(page.getByRole('option').first()).toContainText(world.plain[1]!.sku)
  await finder.press('Enter')
  await expect(page.getByRole('spinbutton', { name: `Quantity for ${world.plain[1]!.sku}`, exact: true })).toHaveValue(
    '1',
  )

  // Drafts: a second one open, listed, and reachable from order entry's switcher.
  const other = await call(core.handlers, 'createDraft', {
    customerGuid: world.customer.guid,
    catalogGuid: world.catalogGuid,
  })
  await page.goto(`${bridge.url}#/drafts`)
  await expect(page.getByRole('link', { name: `Open draft #${id} for ${world.customer.name}` })).toBeVisible()
  await expect(
    page.getByRole('link', { name: `Open draft #${other.draft.id} for ${world.customer.name}` }),
  ).toBeVisible()
  await page.screenshot({ path: join(screenshotDir, 'drafts.png') })
  await page.emulateMedia({ colorScheme: 'dark' })
  await page.screenshot({ path: join(screenshotDir, 'drafts-dark.png') })
  await page.setViewportSize({ width: 1280, height: 1100 })
  await page.goto(`${bridge.url}#/drafts/${id}`)
  await expect(page.getByRole('spinbutton', { name: `Quantity for ${first!.sku}`, exact: true })).toHaveValue('2')
  await page.screenshot({ path: join(screenshotDir, 'order-entry-dark.png') })
  await page.emulateMedia({ colorScheme: 'light' })
  await page.getByLabel('Open drafts').selectOption(String(other.draft.id))
  await expect(page).toHaveURL(new RegExp(`#/drafts/${other.draft.id}$`))
  await expect(page.getByText('No lines yet.')).toBeVisible()
  expect(pageErrors).toEqual([])
})

test('hide_pricing: prices are hidden in the list for a customer who hides them; without a customer, the main group is named', async ({
  page,
  bridge,
  core,
  service,
}) => {
  const { customers } = await call(core.handlers, 'searchCustomers', { limit: 500 })
  let hidden = null
  for (const summary of customers) {
    const detail = await call(core.handlers, 'getCustomer', { guid: summary.guid })
    if (detail.hidePricing && detail.active) {
      hidden = detail
      break
    }
  }
  if (!hidden) {
    const target = customers.find((c) => c.active)!
    service.current.control.update('customer', target.guid, { hide_pricing: true })
    await call(core.handlers, 'syncNow', {})
    hidden = await call(core.handlers, 'getCustomer', { guid: target.guid })
  }
  expect(hidden.hidePricing).toBe(true)
  await page.goto(`${bridge.url}#/catalog?customer=${hidden.guid}`)
  const scroller = page.getByTestId('catalog-scroller')
  await expect(scroller).toHaveAttribute('data-results-for', '')
  await expect(page.getByTestId('catalog-context')).toContainText('prices hidden for this customer')
  const firstRow = scroller.getByRole('row').first()
  await expect(firstRow.getByRole('cell').nth(2)).toHaveText('Hidden')

  const catalogs = await call(core.handlers, 'listCatalogs')
  const main = catalogs[0]!.priceGroups.find((g) => g.isMain)!
  await page.goto(`${bridge.url}#/catalog?catalog=${catalogs[0]!.guid}`)
  await expect(page.getByTestId('catalog-context')).toContainText(
    `No customer chosen: prices are for the catalog’s main group, ${main.name}.`,
  )
})
