/**
 * A `?` overlay listing every shortcut: a rep who forgot Alt+4 or F2 asks the app, not a
 * colleague. It opens with ? (not while typing), lists the frame's and each screen's keys, traps
 * focus as a modal dialog, and closes with Escape, giving focus back.
 */
import { test, expect, shoot, watchConsole, findOrderWorld } from './harness'

test('? opens the list of every shortcut, Escape closes it', async ({ page, bridge }) => {
  const errors = watchConsole(page)
  await page.goto(`${bridge.url}#/orders`)
  await expect(page.getByRole('heading', { level: 1, name: 'Orders' })).toBeVisible()

  // Typing a question mark in a field is text, not a shortcut.
  await page.getByRole('searchbox', { name: 'Search' }).fill('')
  await page.getByRole('searchbox', { name: 'Search' }).press('?')
  await expect(page.getByRole('dialog', { name: 'Keyboard shortcuts' })).toBeHidden()
  await page.getByRole('searchbox', { name: 'Search' }).fill('')

  await page.locator('main').click({ position: { x: 5, y: 5 } })
  await page.keyboard.press('?')
  const overlay = page.getByRole('dialog', { name: 'Keyboard shortcuts' })
  await expect(overlay).toBeVisible()
  for (const [keys, action] of [
    ['Alt+1', 'Customers'],
    ['Alt+4', 'Outbox'],
    ['Alt+7', 'Quotes'],
    ['Ctrl+K', 'Search'],
    ['Ctrl+Shift+S', 'Sync now'],
    ['F2', 'SKU'],
    ['Ctrl+Enter', 'Send'],
    ['Esc', 'Close'],
    ['?', 'shortcuts'],
  ]) {
    await expect(overlay.getByRole('row').filter({ hasText: keys }).filter({ hasText: action }).first()).toBeVisible()
  }
  await expect(overlay.getByRole('button', { name: 'Close' })).toBeFocused()
  await shoot(page, 'shortcuts-1280.png')
  await page.setViewportSize({ width: 1366, height: 768 })
  await shoot(page, 'shortcuts-1366.png')
  await page.keyboard.press('Escape')
  await expect(overlay).toBeHidden()

  // The sidebar says where the list is.
  await page.getByRole('button', { name: /Keyboard shortcuts/ }).click()
  await expect(overlay).toBeVisible()
  await overlay.getByRole('button', { name: 'Close' }).click()
  await expect(overlay).toBeHidden()
  expect(errors).toEqual([])
})

test('Ctrl+N on a customer’s page opens the new order with the cursor in the SKU box', async ({
  page,
  bridge,
  core,
}) => {
  const errors = watchConsole(page)
  const world = await findOrderWorld(core.handlers)
  await page.goto(`${bridge.url}#/customers/${world.customer.guid}`)
  await expect(page.getByRole('heading', { level: 1, name: world.customer.name })).toBeVisible()
  await page.locator('body').click({ position: { x: 5, y: 5 } })
  await page.keyboard.press('Control+N')
  await expect(page).toHaveURL(/#\/drafts\/\d+$/)
  const sku = page.getByLabel('SKU or barcode')
  await expect(sku).toBeFocused()
  // Typing goes straight in: no F2 first.
  await page.keyboard.type(world.plain[0]!.sku)
  await page.keyboard.press('Enter')
  await expect(page.getByRole('spinbutton', { name: `Quantity for ${world.plain[0]!.sku}`, exact: true })).toBeVisible()
  expect(errors).toEqual([])
})
