import { join } from 'node:path'
import { expect, screenshotDir, test, call, watchConsole, findOrderWorld, refuseOrders } from './harness'

test.describe.configure({ timeout: 120_000 })
// Tall enough that the screenshots show the whole order: the frame scrolls inside, not the page.
test.use({ viewport: { width: 1280, height: 1200 } })

test('a rep scans, pastes, fixes what the core flags, sends while offline and sees the order sent', async ({
  page,
  bridge,
  core,
  service,
}) => {
  const pageErrors = watchConsole(page)
  const world = await findOrderWorld(core.handlers)
  const [first, second, third] = world.plain
  const draft = await call(core.handlers, 'createDraft', {
    customerGuid: world.customer.guid,
    catalogGuid: world.catalogGuid,
  })
  const id = draft.draft.id

  await page.goto(`${bridge.url}#/drafts/${id}`)
  await expect(page.getByRole('heading', { name: new RegExp(`Order #${id} for`) })).toContainText(world.customer.name)
  await expect(page.getByTestId('order-facts')).toContainText(world.priceGroupName)

  // Scanning: SKU then Enter, twice for the same box → quantity 2; the field is cleared and keeps focus.
  const sku = page.getByLabel('SKU or barcode')
  await sku.fill(first!.sku)
  await sku.press('Enter')
  await expect(page.getByRole('spinbutton', { name: `Quantity for ${first!.sku}`, exact: true })).toHaveValue('1')
  await expect(sku).toHaveValue('')
  await expect(sku).toBeFocused()
  await sku.pressSequentially(first!.sku, { delay: 5 })
  await sku.press('Enter')
  await expect(page.getByRole('spinbutton', { name: `Quantity for ${first!.sku}`, exact: true })).toHaveValue('2')
  await expect(sku).toBeFocused()

  // An unknown SKU is said plainly.
  await sku.fill('NO-SUCH-SKU-42')
  await sku.press('Enter')
  // The service was asked too, and the rep is told when the laptop's copy was made.
  await expect(page.getByTestId('scan-message')).toHaveText(
    /^NO-SUCH-SKU-42 is not in this catalog as of the last sync \(.+\), and the supplier’s service does not have it either\.$/,
  )

  // A pasted list: tab, comma and space separated; unknown ones are listed.
  await page.getByLabel('Paste SKUs and quantities').fill(`${second!.sku}\t3\n${third!.sku}, 4\nBOGUS-1 2\n`)
  await page.getByRole('button', { name: 'Add pasted lines' }).click()
  await expect(page.getByRole('spinbutton', { name: `Quantity for ${second!.sku}`, exact: true })).toHaveValue('3')
  await expect(page.getByRole('spinbutton', { name: `Quantity for ${third!.sku}`, exact: true })).toHaveValue('4')
  await expect(page.getByTestId('paste-message')).toContainText(
    /^Added 2 of 3 pasted lines\. Not in this catalog as of the last sync \(.+\), nor on the supplier’s service: BOGUS-1\.$/,
  )

  // The core's rules, inline on their lines: below the minimum. An item not offered ("N/A") is
  // refused at the scan: no line, and why.
  // One typed after the SKU is below the minimum (a scan alone starts at it).
  await sku.fill(`${world.minimum.sku} 1`)
  await sku.press('Enter')
  const minimumLine = page.locator(`tbody[data-line="${world.minimum.sku}"]`)
  await expect(minimumLine.locator('[data-severity="error"]')).toContainText(
    `The minimum order quantity for ${world.minimum.sku} is`,
  )
  await sku.fill(world.notOffered.sku)
  await sku.press('Enter')
  await expect(page.getByTestId('scan-message')).toHaveText(
    `${world.notOffered.sku} is not offered to price group ${world.priceGroupName}: it cannot be ordered for this customer; ask the supplier, or choose another item.`,
  )
  await expect(page.locator(`tbody[data-line="${world.notOffered.sku}"]`)).toHaveCount(0)

  // Send refuses while errors stand, and says why.
  await page.getByRole('button', { name: 'Send order' }).click()
  await expect(page.getByTestId('send-problem')).toContainText('Fix 1 problem before sending')
  await page.screenshot({ path: join(screenshotDir, 'order-entry-issues.png'), fullPage: true })

  // Fix: raise the quantity by direct entry, remove the N/A line.
  const minimumQty = page.getByRole('spinbutton', { name: `Quantity for ${world.minimum.sku}`, exact: true })
  await minimumQty.fill(String(world.minimum.minOrderQty))
  await minimumQty.press('Enter')
  await expect(minimumLine.locator('[data-severity="error"]')).toHaveCount(0)

  // Steppers, a line note, and the order's fields: every change is in the core at once.
  await page.getByRole('button', { name: `Increase quantity for ${third!.sku}` }).click()
  await expect(page.getByRole('spinbutton', { name: `Quantity for ${third!.sku}`, exact: true })).toHaveValue('5')
  await page.getByLabel(`Note for ${second!.sku}`).fill('Leave at the back door')
  await page.getByLabel(`Note for ${second!.sku}`).press('Tab')
  await page.getByLabel('PO number').fill('PO-E2E-1')
  await page.getByLabel('Notes', { exact: true }).fill('Deliver before noon')
  await page.getByLabel('Shipping instructions').fill('Dock 3')
  await page.getByLabel('Shipping instructions').press('Tab')
  await expect
    .poll(async () => {
      const saved = (await call(core.handlers, 'getDraft', { id })).draft
      return [saved.poNo, saved.note, saved.shippingInstructions, saved.lines.find((l) => l.sku === second!.sku)?.note]
    })
    .toEqual(['PO-E2E-1', 'Deliver before noon', 'Dock 3', 'Leave at the back door'])
  const checked = await call(core.handlers, 'getDraft', { id })
  expect(checked.sendable).toBe(true)
  await expect(page.getByTestId('subtotal')).toHaveText(
    new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' }).format(checked.subTotal),
  )
  await page.screenshot({ path: join(screenshotDir, 'order-entry.png'), fullPage: true })

  // Offline: the order is queued, and the screen says it will go when the laptop is online.
  await service.stop()
  await expect.poll(async () => (await call(core.handlers, 'getConnectivity')).online, { timeout: 15_000 }).toBe(false)
  await page.keyboard.press('Control+Enter')
  await expect(page.getByTestId('send-headline')).toHaveText('Order queued — it will be sent when you’re online', {
    timeout: 20_000,
  })
  const queued = await call(core.handlers, 'listOutbox')
  expect(queued).toHaveLength(1)
  expect(queued[0]!.state).not.toBe('sent')

  // Back online: the outbox sends it, and the screen names the supplier's order number.
  await service.start()
  await expect(page.getByTestId('send-headline')).toHaveText(/^Sent as \S+/, { timeout: 45_000 })
  const [sent] = await call(core.handlers, 'listOutbox')
  expect(sent!.state).toBe('sent')
  await expect(page.getByTestId('send-headline')).toHaveText(`Sent as ${sent!.orderName}`)
  expect(service.current.control.ordersByApiGuid(sent!.apiGuid)).toHaveLength(1)
  await page.screenshot({ path: join(screenshotDir, 'order-entry-sent.png'), fullPage: true })

  await page.goto(`${bridge.url}#/drafts`)
  await expect(page.getByRole('heading', { name: 'Drafts' })).toBeVisible()
  expect(pageErrors).toEqual([])
})

test('a reconcile rejection shows on its line; the rep edits the order and it is sent', async ({
  page,
  bridge,
  core,
  service,
}) => {
  const pageErrors = watchConsole(page)
  const world = await findOrderWorld(core.handlers)
  const [first, second] = world.plain
  const draft = await call(core.handlers, 'createDraft', {
    customerGuid: world.customer.guid,
    catalogGuid: world.catalogGuid,
  })
  const id = draft.draft.id
  await call(core.handlers, 'addDraftLines', {
    id,
    lines: [
      { sku: first!.sku, qty: 2 },
      { sku: second!.sku, qty: 1 },
    ],
  })

  refuseOrders(service, [
    { type: 'ITEM_INACTIVE', line: 1, sku: second!.sku, message: `${second!.sku} is no longer active` },
  ])

  await page.goto(`${bridge.url}#/drafts/${id}`)
  await expect(page.getByRole('spinbutton', { name: `Quantity for ${second!.sku}`, exact: true })).toHaveValue('1')
  await page.getByRole('button', { name: 'Send order' }).click()
  await expect(page.getByTestId('send-headline')).toHaveText('The supplier did not accept this order', {
    timeout: 30_000,
  })
  await expect(page.getByTestId('rejected-lines')).toContainText(`${second!.sku}`)
  await expect(page.getByTestId('rejected-lines')).toContainText(`${second!.sku} is no longer active`)

  // Edit: the order comes back as the same draft (same number, same api_guid), the rep removes the line and sends again.
  await page.getByRole('button', { name: 'Edit and fix the order' }).click()
  await expect(page).toHaveURL(new RegExp(`#/drafts/${id}$`))
  await expect(page.locator(`tbody[data-line="${second!.sku}"]`).getByTestId('supplier-issue')).toContainText(
    `${second!.sku} is no longer active`,
  )
  await expect(page.getByRole('spinbutton', { name: `Quantity for ${second!.sku}`, exact: true })).toHaveValue('1')
  await page.getByRole('button', { name: `Remove ${second!.sku}` }).click()
  await expect(page.getByRole('spinbutton', { name: `Quantity for ${second!.sku}`, exact: true })).toHaveCount(0)
  await page.getByRole('button', { name: 'Send order' }).click()
  await expect(page.getByTestId('send-headline')).toHaveText(/^Sent as \S+/, { timeout: 30_000 })
  const entries = await call(core.handlers, 'listOutbox')
  expect(entries).toHaveLength(1)
  expect(service.current.control.ordersByApiGuid(entries[0]!.apiGuid)).toHaveLength(1)
  expect(pageErrors).toEqual([])
})

test('keyboard: F2 focuses the SKU field, Ctrl+Enter sends, and a changed price must be accepted first', async ({
  page,
  bridge,
  core,
  service,
}) => {
  const world = await findOrderWorld(core.handlers)
  const [first] = world.plain
  const draft = await call(core.handlers, 'createDraft', {
    customerGuid: world.customer.guid,
    catalogGuid: world.catalogGuid,
  })
  const id = draft.draft.id
  await call(core.handlers, 'addDraftLines', { id, lines: [{ sku: first!.sku, qty: 1 }] })

  // The supplier changes the price after the line was drafted; the core re-reads it before sending.
  service.current.control.setPrice(first!.guid, world.priceGroupName, Math.round((first!.price! + 3.5) * 100) / 100)

  await page.goto(`${bridge.url}#/drafts/${id}`)
  await expect(page.getByRole('spinbutton', { name: `Quantity for ${first!.sku}`, exact: true })).toHaveValue('1')
  await page.getByLabel('PO number').focus()
  await page.keyboard.press('F2')
  await expect(page.getByLabel('SKU or barcode')).toBeFocused()
  await expect(page.getByLabel('SKU or barcode')).toHaveAttribute('aria-keyshortcuts', /F2/)
  await expect(page.getByRole('button', { name: 'Send order' })).toHaveAttribute('aria-keyshortcuts', 'Control+Enter')

  await page.keyboard.press('Control+Enter')
  await expect(page.getByTestId('send-problem')).toContainText('Prices changed since drafting')
  await expect(page.getByTestId('send-problem')).toContainText(first!.sku)
  await expect(page.locator(`tbody[data-line="${first!.sku}"]`)).toContainText('Price changed')
  await page.getByRole('button', { name: 'Accept new prices' }).click()
  await expect(page.getByTestId('send-problem')).toHaveCount(0)
  await page.keyboard.press('Control+Enter')
  await expect(page.getByTestId('send-headline')).toHaveText(/^(Sent as \S+|Order queued.*)$/, { timeout: 30_000 })
  await expect(page.getByTestId('send-headline')).toHaveText(/^Sent as \S+/, { timeout: 30_000 })
})
