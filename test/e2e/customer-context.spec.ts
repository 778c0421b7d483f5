/**
 * The catalog knows whose prices it shows, so a rep never quotes one customer another's: the
 * customer carries from their page to the catalog (Alt+2), the catalog has a keyboard-reachable
 * customer picker and says whose prices these are, search text stays with the customer it was typed
 * for, and a new order starts on a catalog.
 */
import { expect, test, call, watchConsole } from './harness'
import { money, shootAtLaptopSizes, unlockedCustomers } from './workspace'

test.describe.configure({ timeout: 60_000 })
test.use({ viewport: { width: 1280, height: 720 } })

test('Alt+2 from a customer keeps that customer’s prices; the picker changes whose they are', async ({
  page,
  bridge,
  core,
}) => {
  const pageErrors = watchConsole(page)
  const [first, second] = await unlockedCustomers(core, 2)
  const catalogs = await call(core.handlers, 'listCatalogs', { customerGuid: first!.guid })
  // The catalog opens on the customer's own (their price group's), else their first.
  const firstPage = await call(core.handlers, 'searchCatalogItems', {
    catalogGuid: first!.catalogGuid ?? catalogs[0]!.guid,
    customerGuid: first!.guid,
    limit: 1,
  })
  const item = firstPage.items[0]!

  await page.goto(`${bridge.url}#/customers/${first!.guid}`)
  await expect(page.getByRole('heading', { level: 1, name: first!.name })).toBeVisible()
  await page.keyboard.press('Alt+2')
  await expect(page).toHaveURL(/#\/catalog/)
  const context = page.getByTestId('catalog-context')
  await expect(context).toContainText(`Prices for ${first!.name}`)
  await expect(context).toContainText(`${firstPage.priceGroupName} prices`)
  const scroller = page.getByTestId('catalog-scroller')
  await expect(scroller).toHaveAttribute('data-results-for', '')
  const row = scroller.getByRole('row').filter({ hasText: item.sku }).first()
  await expect(row).toContainText(item.offered ? money(item.price!) : 'Not offered')

  // Search text typed for one customer does not follow to the next.
  const search = page.getByLabel('Search catalog')
  await search.fill('coffee')
  await expect(scroller).toHaveAttribute('data-results-for', 'coffee')

  // The picker, by keyboard only.
  const picker = page.getByRole('combobox', { name: 'Customer' })
  await picker.focus()
  await expect(picker).toBeFocused()
  await page.keyboard.press('Control+a')
  await page.keyboard.type(second!.name)
  await expect(
    page.getByRole('option', { name: new RegExp(second!.name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')) }).first(),
  ).toBeVisible()
  await page.keyboard.press('ArrowDown')
  await page.keyboard.press('Enter')
  await expect(context).toContainText(`Prices for ${second!.name}`)
  await expect(search).toHaveValue('')
  await shootAtLaptopSizes(page, 'catalog-customer')

  // The customer stays chosen across screens until changed.
  await page.keyboard.press('Alt+1')
  await expect(page).toHaveURL(/#\/customers/)
  await page.keyboard.press('Alt+2')
  await expect(context).toContainText(`Prices for ${second!.name}`)

  // A new order starts on a catalog, never on "Choose a catalog…".
  await page.goto(`${bridge.url}#/customers/${first!.guid}`)
  await expect(page.getByRole('heading', { level: 1, name: first!.name })).toBeVisible()
  // Terms show a name or nothing: the spec sends only payment_term_id.
  await expect(page.getByText(/Payment term \d/)).toHaveCount(0)
  await shootAtLaptopSizes(page, 'customer')
  await page.getByRole('button', { name: 'New order' }).click()
  await expect(page).toHaveURL(/#\/drafts\/\d+$/)
  const id = Number(page.url().split('/').pop())
  expect((await call(core.handlers, 'getDraft', { id })).draft.catalogGuid).not.toBeNull()
  await expect(page.getByTestId('order-facts')).not.toContainText('Choose a catalog')
  await expect(page.getByTestId('order-facts')).not.toContainText('none chosen')
  expect(pageErrors).toEqual([])
})

test('the catalog opened from a customer’s page is theirs, their price group’s, at their prices', async ({
  page,
  bridge,
  core,
  service,
}) => {
  const pageErrors = watchConsole(page)
  // A customer whose price group belongs to a catalog that does not sort first among theirs.
  const groupCatalog = new Map<number, string>()
  for (const catalog of service.current.control.catalogs().filter((c) => c.deleted_at === null))
    for (const group of service.current.control.priceGroups(String(catalog.guid)))
      groupCatalog.set(Number(group.id), String(catalog.guid))
  let found: { customer: Awaited<ReturnType<typeof unlockedCustomers>>[number]; catalogGuid: string } | null = null
  for (const customer of await unlockedCustomers(core, 20)) {
    const catalogs = await call(core.handlers, 'listCatalogs', { customerGuid: customer.guid })
    const own = groupCatalog.get(customer.priceGroup!.id)
    if (own && catalogs[0]!.guid !== own && catalogs.some((c) => c.guid === own)) {
      found = { customer, catalogGuid: own }
      break
    }
  }
  expect(found, 'a customer whose price group is in their second catalog').not.toBeNull()
  const { customer, catalogGuid } = found!

  await page.goto(`${bridge.url}#/customers/${customer.guid}`)
  await page.getByRole('main').getByRole('link', { name: 'Catalog', exact: true }).click()
  await expect(page).toHaveURL(new RegExp(`catalog=${catalogGuid}`))
  await expect(page.getByRole('combobox', { name: 'Catalog', exact: true })).toHaveValue(catalogGuid)
  const context = page.getByTestId('catalog-context')
  await expect(context).toContainText(`Prices for ${customer.name}`)
  await expect(context).toContainText(`${customer.priceGroup!.name} prices`)
  expect(pageErrors).toEqual([])
})
