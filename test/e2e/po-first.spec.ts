/**
 * For a customer who requires a PO, the PO and notes come before "Send order": earlier in the tab
 * order, and in view at 1280×720 with the draft's lines on screen.
 */
import { expect, test, call, watchConsole } from './harness'

test.describe.configure({ timeout: 90_000 })
test.use({ viewport: { width: 1280, height: 720 } })

test('PO and notes come before Send, in view at 1280×720, for a customer who requires a PO', async ({
  page,
  bridge,
  core,
}) => {
  const pageErrors = watchConsole(page)
  const { customers } = await call(core.handlers, 'searchCustomers', { limit: 200 })
  let customerGuid: string | null = null
  for (const summary of customers) {
    if (!summary.active) continue
    const customer = await call(core.handlers, 'getCustomer', { guid: summary.guid })
    if (customer.requirePo && !customer.hidePricing) {
      customerGuid = customer.guid
      break
    }
  }
  expect(customerGuid, 'a customer who requires a PO').not.toBeNull()
  const { draft } = await call(core.handlers, 'createDraft', { customerGuid: customerGuid! })
  const items = await call(core.handlers, 'searchCatalogItems', {
    catalogGuid: draft.catalogGuid!,
    customerGuid: customerGuid!,
    limit: 50,
  })
  const lines = items.items
    .filter((item) => item.offered && !item.familyOf && item.active)
    .slice(0, 3)
    .map((item) => ({ catalogItemGuid: item.guid, qty: 1 }))
  await call(core.handlers, 'addDraftLines', { id: draft.id, lines })

  await page.goto(`${bridge.url}#/drafts/${draft.id}`)
  const po = page.getByLabel(/PO number/)
  const notes = page.getByRole('textbox', { name: 'Notes', exact: true })
  const send = page.getByRole('button', { name: 'Send order' })
  await expect(po).toBeVisible()
  await expect(po).toBeInViewport({ ratio: 1 })
  await expect(notes).toBeInViewport({ ratio: 1 })
  // Tab order is document order here (no positive tabindex): PO and notes before Send.
  const before = async (field: typeof po) =>
    field.evaluate(
      (element, other) => !!(element.compareDocumentPosition(other!) & Node.DOCUMENT_POSITION_FOLLOWING),
      await send.elementHandle(),
    )
  expect(await before(po)).toBe(true)
  expect(await before(notes)).toBe(true)
  expect(await page.locator('[tabindex]:not([tabindex="0"]):not([tabindex="-1"])').count()).toBe(0)
  // One PO field on the screen, not two.
  await expect(page.getByLabel(/PO number/)).toHaveCount(1)
  expect(pageErrors).toEqual([])
})
