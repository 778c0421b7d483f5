/**
 * Feedback matches the outcome, so a rep scanning without looking hears a problem as one: a scanned
 * line with a problem is announced as a problem (error tone, an assertive live region), a good one
 * as added; the "Fix N problems" box follows the fixes as they happen; counting words agree
 * ("1 line").
 */
import { expect, test, call, watchConsole, findOrderWorld } from './harness'
import { shootAtLaptopSizes } from './workspace'

test.describe.configure({ timeout: 60_000 })
test.use({ viewport: { width: 1280, height: 720 } })

test('scanning a not-offered SKU sounds and reads as a problem and adds no line; the fix box updates live', async ({
  page,
  bridge,
  core,
}) => {
  const pageErrors = watchConsole(page)
  const world = await findOrderWorld(core.handlers)
  const created = await call(core.handlers, 'createDraft', {
    customerGuid: world.customer.guid,
    catalogGuid: world.catalogGuid,
  })
  const id = created.draft.id
  await page.goto(`${bridge.url}#/drafts/${id}`)
  const sku = page.getByLabel('SKU or barcode')
  const message = page.getByTestId('scan-message')

  await sku.fill(world.notOffered.sku)
  await sku.press('Enter')
  await expect(message).toHaveAttribute('data-tone', 'error')
  await expect(message).toHaveAttribute('role', 'alert')
  // Refused at the scan: why, and what to do; the code comes back into the box to be corrected.
  await expect(message).toHaveText(
    `${world.notOffered.sku} is not offered to price group ${world.priceGroupName}: it cannot be ordered for this customer; ask the supplier, or choose another item.`,
  )
  await expect(page.locator(`tbody[data-line="${world.notOffered.sku}"]`)).toHaveCount(0)
  await expect(sku).toHaveValue(world.notOffered.sku)
  expect((await call(core.handlers, 'getDraft', { id })).draft.lines).toEqual([])
  await shootAtLaptopSizes(page, 'order-scan-problem')

  await sku.fill(world.plain[0]!.sku)
  await sku.press('Enter')
  await expect(message).toHaveAttribute('data-tone', 'ok')
  await expect(message).toHaveText(`${world.plain[0]!.sku} ×1 — new line.`)

  // One typed after the SKU is below the minimum (a scan alone starts at it).
  await sku.fill(`${world.minimum.sku} 1`)
  await sku.press('Enter')
  await expect(message).toHaveAttribute('data-tone', 'error')
  await expect(message).toContainText(`The minimum order quantity for ${world.minimum.sku}`)

  // The box counts what is left to fix as the rep fixes it.
  await page.getByRole('button', { name: 'Send order' }).click()
  const problem = page.getByTestId('send-problem')
  await expect(problem).toContainText('Fix 1 problem before sending')
  const minimumQty = page.getByRole('spinbutton', { name: `Quantity for ${world.minimum.sku}`, exact: true })
  await minimumQty.fill(String(world.minimum.minOrderQty))
  await minimumQty.press('Enter')
  await expect(problem).toHaveCount(0)
  await expect(page.locator('#send-summary')).toContainText(/^\s*2 lines\b/)
  expect(pageErrors).toEqual([])
})
