/**
 * Search says what narrows it, so an empty result is never a dead end: no hits under a category
 * names the category and offers every category (Enter); no hits in this catalog offers the other
 * catalog when it has some.
 */
import { expect, test, call, watchConsole } from './harness'
import { shootAtLaptopSizes, unlockedCustomers } from './workspace'

test.describe.configure({ timeout: 60_000 })
test.use({ viewport: { width: 1280, height: 720 } })

test('a search narrowed by a category says so, and Enter searches all categories; the other catalog is offered', async ({
  page,
  bridge,
  core,
}) => {
  const pageErrors = watchConsole(page)
  const [customer] = await unlockedCustomers(core, 1)
  const catalogs = await call(core.handlers, 'listCatalogs', { customerGuid: customer!.guid })
  const food = catalogs.find((c) => c.name === 'Foodservice & Janitorial')!
  const equipment = catalogs.find((c) => c.name === 'Equipment & Smallwares')!
  let elsewhere: string | null = null
  for (const word of ['fry pan', 'stock pot', 'knife', 'blender', 'toaster']) {
    const here = await call(core.handlers, 'searchCatalogItems', { catalogGuid: food.guid, query: word, limit: 1 })
    const there = await call(core.handlers, 'searchCatalogItems', {
      catalogGuid: equipment.guid,
      query: word,
      limit: 1,
    })
    if (here.total === 0 && there.total! > 0) {
      elsewhere = word
      break
    }
  }
  expect(elsewhere).not.toBeNull()

  await page.goto(`${bridge.url}#/catalog?customer=${customer!.guid}&catalog=${food.guid}`)
  const scroller = page.getByTestId('catalog-scroller')
  await expect(scroller).toHaveAttribute('data-results-for', '')
  const tree = page.getByRole('tree', { name: 'Categories' })
  await tree.getByRole('treeitem', { name: /^Beverages/ }).click()
  await page.keyboard.press('ArrowRight')
  await tree.getByRole('treeitem', { name: /^Coffee/ }).click()
  await expect(tree.getByRole('treeitem', { name: /^Coffee/ })).toHaveAttribute('aria-selected', 'true')

  const search = page.getByLabel('Search catalog')
  await search.fill('napkins')
  await expect(scroller).toHaveAttribute('data-results-for', 'napkins')
  const empty = page.getByTestId('search-empty')
  await expect(empty).toContainText('No items in Coffee match “napkins” — search all categories (Enter)')
  await shootAtLaptopSizes(page, 'catalog-search-hint')
  await search.press('Enter')
  await expect(tree.getByRole('treeitem', { name: /All categories/ })).toHaveAttribute('aria-selected', 'true')
  await expect(scroller).not.toHaveAttribute('data-total', '0')
  await expect(scroller.getByRole('row').first()).toContainText(/Napkins/i)

  // Nothing in this catalog at all: the other catalog is offered when it has hits.
  await search.fill(elsewhere!)
  await expect(scroller).toHaveAttribute('data-results-for', elsewhere!)
  await expect(empty).toContainText(`No items in ${food.name} match “${elsewhere}”`)
  const offer = empty.getByRole('button', { name: new RegExp(`in ${equipment.name.replace('&', '\\&')}`) })
  await expect(offer).toBeVisible()
  await shootAtLaptopSizes(page, 'catalog-search-elsewhere')
  await offer.click()
  await expect(page.getByRole('combobox', { name: 'Catalog', exact: true })).toHaveValue(equipment.guid)
  await expect(search).toHaveValue(elsewhere!)
  await expect(scroller).toHaveAttribute('data-results-for', elsewhere!)
  await expect(scroller).not.toHaveAttribute('data-total', '0')
  expect(pageErrors).toEqual([])
})
