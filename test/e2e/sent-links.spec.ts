/**
 * After Send, the panel links the order (once the supplier has numbered it) and its document, and the
 * open-drafts picker names every draft by its customer, the order on screen included.
 */
import { test, call, expect, findOrderableAt, orderableWithCreditRoom, watchConsole } from './harness'

test.describe.configure({ timeout: 90_000 })
test.use({ viewport: { width: 1280, height: 720 } })

test('after Send the panel links the order and its document; the drafts picker names drafts by customer', async ({
  page,
  bridge,
  core,
}) => {
  const errors = watchConsole(page)
  const target = await orderableWithCreditRoom(core, 2)
  const check = await call(core.handlers, 'createDraft', {
    customerGuid: target.customerGuid,
    catalogGuid: target.catalogGuid,
  })
  await call(core.handlers, 'addDraftLines', { id: check.draft.id, lines: target.skus.map((sku) => ({ sku, qty: 2 })) })
  // Two other open drafts, so the picker is there after this one has gone to the outbox.
  const others = [findOrderableAt(core, 1), findOrderableAt(core, 2)]
  for (const other of others)
    await call(core.handlers, 'createDraft', { customerGuid: other.customerGuid, catalogGuid: other.catalogGuid })

  await page.goto(`${bridge.url}#/drafts/${check.draft.id}`)
  const picker = page.getByLabel('Open drafts')
  await expect(picker.locator('option')).toHaveCount(3)
  await expect(picker.locator(`option[value="${check.draft.id}"]`)).toContainText(target.customerName)
  for (const other of others) await expect(picker).toContainText(other.customerName)

  await page.getByRole('button', { name: 'Send order' }).click()
  await expect(page.getByTestId('send-headline')).toHaveText(/^Sent as /, { timeout: 20_000 })
  const entry = (await call(core.handlers, 'listOutbox')).find((e) => e.apiGuid === check.draft.apiGuid)!
  await expect(picker.locator(`option[value="${check.draft.id}"]`)).toContainText(target.customerName)
  await expect(page.getByRole('link', { name: 'Order document' })).toHaveAttribute(
    'href',
    `#/documents/queued/${entry.apiGuid}`,
  )
  await page.getByRole('link', { name: `View order ${entry.orderName!}` }).click()
  await expect(page).toHaveURL(new RegExp(`#/orders/${entry.orderGuid!}$`))
  await expect(page.getByRole('heading', { level: 1 })).toContainText(entry.orderName!)
  expect(errors).toEqual([])
})
