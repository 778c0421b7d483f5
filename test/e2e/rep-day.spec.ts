/**
 * A rep's day, in one walk through the real renderer, bridge and core against the double: connect,
 * watch the first sync, find a customer, search the catalog, add lines by scanning and by pasting,
 * meet the order checks, send while offline, see the order go when the service is back, and fix an
 * order the supplier rejected. Screenshots of each step land in test-results/screenshots/rep-day-*.
 */
import { join } from 'node:path'
import { expect, screenshotDir, test, call, watchConsole, findOrderWorld, refuseOrders } from './harness'

test.describe.configure({ timeout: 180_000 })
// About the first sync: the core starts on an empty database, not connected.
test.use({ database: 'empty' })
test.use({ viewport: { width: 1280, height: 1100 } })

test('a rep’s day: connect, sync, find, search, scan, paste, fix, send offline, sent, rejected and fixed', async ({
  page,
  bridge,
  core,
  service,
}) => {
  const pageErrors = watchConsole(page)
  const shot = (name: string) => page.screenshot({ path: join(screenshotDir, `rep-day-${name}.png`), fullPage: true })
  const { apiKey, apiSecret } = service.current.credentials

  // Connect on first run; the first sync shows its progress, then the customers.
  await page.goto(bridge.url)
  await expect(page.getByRole('heading', { name: 'Connect Satchel to your ordering service' })).toBeVisible()
  await page.getByLabel('Service address').fill(service.url)
  await page.getByLabel('API key', { exact: true }).fill(apiKey)
  await page.getByLabel('API secret').fill(apiSecret)
  await page.getByRole('button', { name: 'Test connection' }).click()
  await expect(page.getByText(/Connected\. The service offers \d+ catalogs?\./)).toBeVisible()
  await page.getByRole('button', { name: 'Save and sync' }).click()
  await expect(page.getByRole('progressbar', { name: 'Sync progress' })).toBeVisible()
  await shot('1-first-sync')
  await expect(page).toHaveURL(/#\/customers$/, { timeout: 30_000 })
  await expect(page.getByRole('status', { name: 'Connection' })).toHaveText('Online')

  // Find the customer by typing, open them, start an order.
  const world = await findOrderWorld(core.handlers)
  const [first, second, third, fourth] = world.plain
  await page.getByLabel('Search customers').fill(world.customer.name.split(' ').slice(0, 2).join(' '))
  await page
    .getByRole('link', { name: new RegExp(world.customer.name) })
    .first()
    .click()
  await expect(page.getByRole('heading', { name: world.customer.name, level: 1 })).toBeVisible()
  await page.getByRole('button', { name: 'New order' }).click()
  await expect(page).toHaveURL(/#\/drafts\/\d+/)
  const draftUrl = page.url()

  // Search the catalog and add an item from it.
  await page.getByRole('link', { name: 'Browse the catalog' }).click()
  await page.getByLabel('Search catalog').fill(first!.sku)
  await page.getByRole('button', { name: `Add ${first!.sku} to order` }).click()
  await shot('2-catalog')
  await page.goto(draftUrl)
  await expect(page.getByRole('spinbutton', { name: `Quantity for ${first!.sku}`, exact: true })).toHaveValue('1')

  // Scan a SKU (then Enter), paste a list.
  const sku = page.getByLabel('SKU or barcode')
  await sku.fill(second!.sku)
  await sku.press('Enter')
  await expect(page.getByRole('spinbutton', { name: `Quantity for ${second!.sku}`, exact: true })).toHaveValue('1')
  await page.getByLabel('Paste SKUs and quantities').fill(`${third!.sku}\t2\n${fourth!.sku}, 3`)
  await page.getByRole('button', { name: 'Add pasted lines' }).click()
  await expect(page.getByRole('spinbutton', { name: `Quantity for ${fourth!.sku}`, exact: true })).toHaveValue('3')

  // The order checks: below the minimum, and an item not offered to this customer's price group.
  // One typed after the SKU is below the minimum (a scan alone starts at it).
  await sku.fill(`${world.minimum.sku} 1`)
  await sku.press('Enter')
  await expect(page.locator(`tbody[data-line="${world.minimum.sku}"] [data-severity="error"]`)).toContainText(
    'minimum order quantity',
  )
  // Not offered: refused at the scan, with why and what to do; no line is added.
  await sku.fill(world.notOffered.sku)
  await sku.press('Enter')
  await expect(page.getByTestId('scan-message')).toContainText('is not offered to price group')
  await expect(page.locator(`tbody[data-line="${world.notOffered.sku}"]`)).toHaveCount(0)
  await shot('3-order-checks')
  const minimumQty = page.getByRole('spinbutton', { name: `Quantity for ${world.minimum.sku}`, exact: true })
  await minimumQty.fill(String(world.minimum.minOrderQty))
  await minimumQty.press('Enter')
  await expect(page.locator('[data-severity="error"]')).toHaveCount(0)

  // The service goes away: the banner says so, and Send queues the order on the laptop.
  await service.stop()
  await expect(
    page
      .getByRole('alert')
      .filter({ hasText: 'Can’t reach the ordering service — your orders are safe on this laptop.' }),
  ).toBeVisible({
    timeout: 15_000,
  })
  await page.getByRole('button', { name: 'Send order' }).click()
  await expect(page.getByTestId('send-headline')).toHaveText('Order queued — it will be sent when you’re online', {
    timeout: 20_000,
  })
  await expect(page.getByRole('contentinfo', { name: 'Status' })).toContainText('1 waiting to send')
  await shot('4-queued-offline')

  // Back: the order goes by itself and the screen names the supplier's order number.
  await service.start()
  await expect(page.getByTestId('send-headline')).toHaveText(/^Sent as \S+/, { timeout: 45_000 })
  const [sent] = await call(core.handlers, 'listOutbox')
  await expect(page.getByTestId('send-headline')).toHaveText(`Sent as ${sent!.orderName}`)
  expect(service.current.control.ordersByApiGuid(sent!.apiGuid)).toHaveLength(1)
  await shot('5-sent')

  // The next order is rejected by the supplier: the message sits on its line; the rep fixes it.
  await page.goto(`${bridge.url}#/customers/${world.customer.guid}`)
  await page.getByRole('button', { name: 'New order' }).click()
  await expect(page).toHaveURL(/#\/drafts\/\d+/)
  await sku.fill(first!.sku)
  await sku.press('Enter')
  await sku.fill(second!.sku)
  await sku.press('Enter')
  await expect(page.getByRole('spinbutton', { name: `Quantity for ${second!.sku}`, exact: true })).toHaveValue('1')
  refuseOrders(service, [
    { type: 'ITEM_INACTIVE', line: 1, sku: second!.sku, message: `${second!.sku} is no longer active` },
  ])
  await page.getByRole('button', { name: 'Send order' }).click()
  await expect(page.getByTestId('rejected-lines')).toContainText(`${second!.sku} is no longer active`, {
    timeout: 30_000,
  })
  await page.getByRole('link', { name: /need attention/ }).click()
  await expect(page).toHaveURL(/#\/outbox$/)
  await expect(page.getByText(`${second!.sku} is no longer active`)).toBeVisible()
  await shot('6-rejected-in-outbox')
  await page.getByRole('button', { name: 'Edit' }).first().click()
  await expect(page).toHaveURL(/#\/drafts\/\d+/)
  await page.getByRole('button', { name: `Remove ${second!.sku}` }).click()
  await page.getByRole('button', { name: 'Send order' }).click()
  await expect(page.getByTestId('send-headline')).toHaveText(/^Sent as \S+/, { timeout: 30_000 })
  const entries = await call(core.handlers, 'listOutbox')
  expect(entries.map((e) => e.state)).toEqual(['sent', 'sent'])
  for (const entry of entries) expect(service.current.control.ordersByApiGuid(entry.apiGuid)).toHaveLength(1)
  await shot('7-fixed-and-sent')
  expect(pageErrors).toEqual([])
})
