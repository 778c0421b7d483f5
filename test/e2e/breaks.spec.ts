/**
 * Quantity-break prices shown, so a rep can offer the better price: an item with a break says so in
 * the catalog row, the item panel ("$31.56 from 50") and on the draft line, when the break applies
 * and when the rep is close.
 */
import { expect, test, call, watchConsole, findOrderWorld } from './harness'
import { money, shootAtLaptopSizes } from './workspace'

test.describe.configure({ timeout: 60_000 })
test.use({ viewport: { width: 1280, height: 720 } })

test('the break price is visible in the catalog row, the item panel and the draft line', async ({
  page,
  bridge,
  core,
  service,
}) => {
  const pageErrors = watchConsole(page)
  const world = await findOrderWorld(core.handlers)
  const item = world.plain[0]!
  const listPrice = item.price!
  const breakPrice = Math.round(listPrice * 0.92 * 100) / 100
  service.current.control.update('catalogItem', item.guid, { qty_break: 50, qty_break_price: breakPrice })
  await call(core.handlers, 'syncNow', {})
  const created = await call(core.handlers, 'createDraft', {
    customerGuid: world.customer.guid,
    catalogGuid: world.catalogGuid,
  })
  const id = created.draft.id

  // The catalog row: the list price, and a marker that a break exists.
  await page.goto(`${bridge.url}#/catalog?customer=${world.customer.guid}&catalog=${world.catalogGuid}&draft=${id}`)
  const search = page.getByLabel('Search catalog')
  await search.fill(item.sku)
  const scroller = page.getByTestId('catalog-scroller')
  await expect(scroller).toHaveAttribute('data-results-for', item.sku)
  const row = scroller.getByRole('row').filter({ hasText: item.sku }).first()
  await expect(row).toContainText(money(listPrice))
  await expect(row.getByTestId('break-marker')).toBeVisible()
  await expect(row.getByTestId('break-marker')).toHaveAttribute('title', `${money(breakPrice)} from 50`)

  // The item panel: "$31.56 from 50".
  await row.getByRole('button', { name: new RegExp(`${item.sku}: show details`) }).click()
  await expect(page.getByTestId('detail-break')).toContainText(`${money(breakPrice)} from 50`)
  await shootAtLaptopSizes(page, 'catalog-break')

  // The draft line: close to the break, then on it.
  await call(core.handlers, 'addDraftLines', { id, lines: [{ catalogItemGuid: item.guid, qty: 45 }] })
  await page.goto(`${bridge.url}#/drafts/${id}`)
  const line = page.locator(`tbody[data-line="${item.sku}"]`)
  await expect(line.getByTestId('break-hint')).toContainText(`5 more for ${money(breakPrice)} each`)
  await expect(line.getByRole('cell').nth(4)).toHaveText(money(listPrice))
  const qty = page.getByRole('spinbutton', { name: `Quantity for ${item.sku}`, exact: true })
  await qty.fill('50')
  await qty.press('Enter')
  await expect(line.getByTestId('break-hint')).toContainText('Break price from 50')
  await expect(line.getByRole('cell').nth(4)).toContainText(money(breakPrice))
  await expect(line.getByRole('cell').nth(5)).toHaveText(money(Math.round(breakPrice * 50 * 100) / 100))
  await shootAtLaptopSizes(page, 'order-break')
  expect(pageErrors).toEqual([])
})
