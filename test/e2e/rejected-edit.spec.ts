/**
 * A rejected order keeps its reasons while it is fixed, so the rep knows what to change: Outbox →
 * Edit opens the same order (same number, same api_guid) with the supplier's message on the line it
 * names, until that line is changed; the order-level message stays at the top; Send asks the
 * supplier again.
 */
import { expect, test, call, watchConsole, findOrderWorld, refuseOrders } from './harness'
import { shootAtLaptopSizes } from './workspace'

test.describe.configure({ timeout: 60_000 })
test.use({ viewport: { width: 1280, height: 720 } })

test('the supplier’s line message survives Edit and goes when the line is fixed', async ({
  page,
  bridge,
  core,
  service,
}) => {
  const pageErrors = watchConsole(page)
  const world = await findOrderWorld(core.handlers)
  const [first, second] = world.plain
  const created = await call(core.handlers, 'createDraft', {
    customerGuid: world.customer.guid,
    catalogGuid: world.catalogGuid,
  })
  const id = created.draft.id
  const apiGuid = created.draft.apiGuid
  await call(core.handlers, 'addDraftLines', {
    id,
    lines: [
      { sku: first!.sku, qty: 2 },
      { sku: second!.sku, qty: 1 },
    ],
  })

  const lineMessage = `${second!.sku} is not offered to price group ${world.priceGroupName}`
  refuseOrders(service, [{ type: 'ITEM_NOT_OFFERED', line: 1, sku: second!.sku, message: lineMessage }])
  await call(core.handlers, 'sendDraft', { id })
  await call(core.handlers, 'flushOutbox')
  await expect.poll(async () => (await call(core.handlers, 'listOutbox'))[0]?.state).toBe('needsAttention')

  await page.goto(`${bridge.url}#/outbox`)
  const entry = page.getByRole('article', { name: `${world.customer.name}: Needs attention` })
  await expect(entry).toContainText('2 lines')
  await shootAtLaptopSizes(page, 'outbox-rejected')
  await entry.getByRole('button', { name: 'Edit' }).click()

  // The same order: its number and its api_guid.
  await expect(page).toHaveURL(new RegExp(`#/drafts/${id}$`))
  await expect(page.getByRole('heading', { name: new RegExp(`Order #${id} for`) })).toBeVisible()
  expect((await call(core.handlers, 'getDraft', { id })).draft.apiGuid).toBe(apiGuid)

  // The supplier's words on the line they name, and the order-level one at the top.
  const rejectedLine = page.locator(`tbody[data-line="${second!.sku}"]`)
  await expect(rejectedLine.getByTestId('supplier-issue')).toContainText(lineMessage)
  await expect(page.locator(`tbody[data-line="${first!.sku}"]`).getByTestId('supplier-issue')).toHaveCount(0)
  await expect(page.getByRole('list', { name: 'Problems with the order' })).toContainText(
    'Order could not be reconciled',
  )
  await shootAtLaptopSizes(page, 'order-rejected-edit')

  // Changing the line the supplier objected to takes its message away.
  const qty = page.getByRole('spinbutton', { name: `Quantity for ${second!.sku}`, exact: true })
  await qty.fill('3')
  await qty.press('Enter')
  await expect(qty).toHaveValue('3')
  await expect(rejectedLine.getByTestId('supplier-issue')).toHaveCount(0)

  // Every line fixed, the order's own message stays, said as what it is: about the version sent.
  const orderLevel = page.getByRole('list', { name: 'Problems with the order' })
  await expect(orderLevel).toContainText('Order could not be reconciled')
  await expect(orderLevel).toContainText(
    'The supplier said this about the version that was sent. Sending again asks them again.',
  )
  await expect(page.locator('#send-summary')).toContainText('1 message from the supplier about the version sent')

  // Send asks the supplier again, with the same key: one order on the service.
  await page.getByRole('button', { name: 'Send order' }).click()
  await expect(page.getByTestId('send-headline')).toHaveText(/^Sent as \S+/, { timeout: 30_000 })
  const entries = await call(core.handlers, 'listOutbox')
  expect(entries.map((e) => e.apiGuid)).toEqual([apiGuid])
  expect(service.current.control.ordersByApiGuid(apiGuid)).toHaveLength(1)
  expect(pageErrors).toEqual([])
})
