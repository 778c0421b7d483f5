/**
 * Quotes, documents and usual items at the customer's counter, in Chromium through the bridge: a draft saved as a quote, found
 * again, converted after the supplier changed a price; a sent order's document saved as a PDF whose
 * text carries the order number, every SKU and the total; a hide_pricing customer's document with no
 * price at all; the customer's usual items.
 */
import AxeBuilder from '@axe-core/playwright'
import type { Page } from '@playwright/test'
import { execFileSync } from 'node:child_process'
import { join } from 'node:path'
import { expect, screenshotDir, test, call, watchConsole, findOrderWorld } from './harness'

test.describe.configure({ timeout: 90_000 })
test.use({ viewport: { width: 1280, height: 1000 }, colorScheme: 'light' })

const money = (amount: number) => new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' }).format(amount)

/** Serious or critical WCAG 2.2 AA findings on the page as it stands, as "rule: target" lines. */
async function accessibilityProblems(page: Page): Promise<string[]> {
  const result = await new AxeBuilder({ page })
    .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'])
    .analyze()
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id}: ${v.nodes[0]?.target.join(' ')}`)
}

function pdfText(path: string): string {
  return execFileSync('pdftotext', ['-layout', path, '-'], { encoding: 'utf8' })
}

test('a draft saved as a quote is found, and converting it after a price change lists the change', async ({
  page,
  bridge,
  core,
  service,
}) => {
  const pageErrors = watchConsole(page)
  const world = await findOrderWorld(core.handlers)
  const [changed, kept] = world.plain
  const draft = await call(core.handlers, 'createDraft', {
    customerGuid: world.customer.guid,
    catalogGuid: world.catalogGuid,
  })
  await call(core.handlers, 'addDraftLines', {
    id: draft.draft.id,
    lines: [
      { catalogItemGuid: changed!.guid, qty: 1 },
      { catalogItemGuid: kept!.guid, qty: 2 },
    ],
  })

  await page.goto(`${bridge.url}#/drafts/${draft.draft.id}`)
  await page.getByRole('button', { name: 'Save as quote' }).click()
  const heading = page.getByRole('heading', { name: /^Quote Q-[A-Z2-9]{4}-0001 for/ })
  await expect(heading).toContainText(world.customer.name)
  const number = (await heading.textContent())!.match(/Q-[A-Z2-9]{4}-0001/)![0]
  await expect(page.locator(`tr[data-line="${changed!.sku}"]`)).toContainText(money(changed!.price!))
  await page.screenshot({ path: join(screenshotDir, 'quote.png'), fullPage: true })
  expect(await accessibilityProblems(page)).toEqual([])

  // Found again from the Quotes list, by a SKU on it.
  await page.getByRole('link', { name: 'Quotes', exact: true }).first().click()
  await page.getByLabel('Search quotes').fill(kept!.sku)
  const row = page.getByRole('row').filter({ hasText: number })
  await expect(row).toContainText(world.customer.name)
  await expect(row).toContainText('Open')
  await page.screenshot({ path: join(screenshotDir, 'quote-list.png'), fullPage: true })
  expect(await accessibilityProblems(page)).toEqual([])
  // And from the customer's page, among that customer's quotes only.
  await page.goto(`${bridge.url}#/customers/${world.customer.guid}`)
  await page.getByRole('main').getByRole('link', { name: 'Quotes', exact: true }).click()
  await expect(page.getByRole('status').filter({ hasText: 'Showing the quotes of' })).toContainText(world.customer.name)
  await page.getByRole('link', { name: number }).click()

  // The supplier raises a price; converting reads it from the service and says so, line by line.
  const newPrice = Math.round((changed!.price! + 1.25) * 100) / 100
  service.current.control.setPrice(changed!.guid, world.priceGroupName, newPrice)
  await page.getByRole('button', { name: 'Convert to order' }).click()
  await expect(page).toHaveURL(/#\/drafts\/\d+$/)
  await expect(page.getByText(`1 line of quote ${number} changed since it was quoted:`)).toBeVisible()
  await expect(
    page.getByText(`${changed!.sku} — ${changed!.name}: ${money(changed!.price!)} → ${money(newPrice)}`),
  ).toBeVisible()
  await expect(page.getByRole('spinbutton', { name: `Quantity for ${kept!.sku}`, exact: true })).toHaveValue('2')
  expect(pageErrors).toEqual([])
})

test('a sent order’s document saves as a PDF with its number, every SKU and the total; usual items offer it again', async ({
  page,
  bridge,
  core,
}) => {
  const world = await findOrderWorld(core.handlers)
  const lines = world.plain.slice(0, 3)
  const draft = await call(core.handlers, 'createDraft', {
    customerGuid: world.customer.guid,
    catalogGuid: world.catalogGuid,
  })
  await call(core.handlers, 'addDraftLines', {
    id: draft.draft.id,
    lines: lines.map((item, index) => ({ catalogItemGuid: item.guid, qty: index + 2 })),
  })
  const entry = await call(core.handlers, 'sendDraft', { id: draft.draft.id })
  let order: Awaited<ReturnType<typeof call<'getOrder'>>> | undefined
  await expect
    .poll(
      async () => {
        const { orders } = await call(core.handlers, 'listOrders', { customerGuid: world.customer.guid, limit: 50 })
        const found = orders.find((o) => o.apiGuid === entry.apiGuid)
        order = found ? await call(core.handlers, 'getOrder', { guid: found.guid }) : undefined
        return order?.name ?? null
      },
      { timeout: 20_000 },
    )
    .not.toBeNull()

  // A sync replaces the order with the history's list projection, which has no line prices: the
  // document still shows the prices it was sent with.
  await call(core.handlers, 'syncNow', {})
  await page.goto(`${bridge.url}#/documents/order/${order!.guid}`)
  await expect(page.getByTestId('document-number')).toHaveText(order!.name!)
  for (const [index, item] of lines.entries()) {
    await expect(page.locator('.document tbody tr', { hasText: item.sku })).toContainText(
      `${money(item.price!)}${money(Math.round(item.price! * (index + 2) * 100) / 100)}`,
    )
  }
  await expect(page.getByTestId('document-prices-note')).toHaveCount(0)
  await expect(page.getByTestId('document-total')).toHaveText(money(order!.grandTotal!))
  // A sent order gives the available figure too: what is available now, as of the last sync.
  expect(lines.some((item) => item.available !== null && item.available !== undefined)).toBe(true)
  await expect(page.locator('.document thead')).toContainText('Available')
  await expect(page.getByTestId('document-stock-as-of')).toContainText(
    /^Available: stock as of .+, not when the order was sent\.$/,
  )
  await page.screenshot({ path: join(screenshotDir, 'document-light.png'), fullPage: true })
  expect(await accessibilityProblems(page)).toEqual([])
  const pdf = join(screenshotDir, 'document-order.pdf')
  await page.pdf({ path: pdf, format: 'A4' })
  const text = pdfText(pdf)
  expect(text).toContain(order!.name!)
  for (const item of lines) expect(text).toContain(item.sku)
  expect(text).toContain(money(order!.grandTotal!))
  // The app's frame is not printed: only the document.
  expect(text).not.toContain('Save as PDF')

  // The customer's page offers what they just ordered, at the quantity they ordered it; in order
  // entry, Enter on one adds it with that quantity.
  await page.goto(`${bridge.url}#/customers/${world.customer.guid}`)
  const panel = page.getByTestId('usual-items')
  for (const [index, item] of lines.entries())
    await expect(panel.locator(`tr[data-usual="${item.sku}"]`)).toContainText(`Add ${index + 2}`)
  await panel.scrollIntoViewIfNeeded()
  await panel.screenshot({ path: join(screenshotDir, 'usual-items.png') })
  await panel.getByRole('button', { name: `Add all available (${lines.length})` }).click()
  await expect(page).toHaveURL(/#\/drafts\/\d+$/)
  for (const [index, item] of lines.entries())
    await expect(page.getByRole('spinbutton', { name: `Quantity for ${item.sku}`, exact: true })).toHaveValue(
      String(index + 2),
    )
  await page.getByRole('button', { name: `Remove ${lines[0]!.sku}` }).click()
  await expect(page.getByRole('spinbutton', { name: `Quantity for ${lines[0]!.sku}`, exact: true })).toHaveCount(0)
  await page
    .getByTestId('usual-items')
    .getByRole('button', { name: `Add ${lines[0]!.sku} × 2` })
    .focus()
  await page.keyboard.press('Enter')
  await expect(page.getByRole('spinbutton', { name: `Quantity for ${lines[0]!.sku}`, exact: true })).toHaveValue('2')
  await page.screenshot({ path: join(screenshotDir, 'order-entry-usual-items.png'), fullPage: true })
})

test('a hide_pricing customer’s document shows no price; a quote is duplicated, and deleted only when the rep confirms', async ({
  page,
  bridge,
  core,
  service,
}) => {
  const world = await findOrderWorld(core.handlers)
  service.current.control.update('customer', world.customer.guid, { hide_pricing: true })
  await call(core.handlers, 'syncNow', {})
  expect((await call(core.handlers, 'getCustomer', { guid: world.customer.guid })).hidePricing).toBe(true)
  const draft = await call(core.handlers, 'createDraft', {
    customerGuid: world.customer.guid,
    catalogGuid: world.catalogGuid,
  })
  await call(core.handlers, 'addDraftLines', {
    id: draft.draft.id,
    lines: world.plain.slice(0, 2).map((item) => ({ catalogItemGuid: item.guid, qty: 3 })),
  })
  const quote = await call(core.handlers, 'saveDraftAsQuote', { draftId: draft.draft.id })

  await page.goto(`${bridge.url}#/documents/quote/${quote.id}`)
  await expect(page.getByTestId('document-number')).toHaveText(quote.number)
  await expect(page.getByRole('columnheader', { name: 'Unit price' })).toHaveCount(0)
  const pdf = join(core.directory, 'quote.pdf')
  await page.pdf({ path: pdf, format: 'A4' })
  const text = pdfText(pdf)
  for (const item of world.plain.slice(0, 2)) {
    expect(text).toContain(item.sku)
    expect(text).not.toContain(money(item.price!))
  }
  expect(text).not.toMatch(/\$\s?\d/)

  // Past its validity it says so; duplicated under the next number, with a fresh validity; deleted
  // only once the rep confirms.
  await call(core.handlers, 'updateQuote', { id: quote.id, changes: { validUntil: '2020-01-31' } })
  await page.goto(`${bridge.url}#/quotes/${quote.id}`)
  await expect(page.getByRole('status').filter({ hasText: 'This quote expired on' })).toBeVisible()
  await page.getByRole('button', { name: 'Duplicate' }).click()
  const copy = quote.number.replace(/0001$/, '0002')
  await expect(page.getByRole('heading', { name: new RegExp(`^Quote ${copy} for`) })).toBeVisible()
  await page.getByRole('button', { name: 'Delete quote' }).click()
  const dialog = page.getByRole('dialog', { name: `Delete quote ${copy}?` })
  await dialog.getByRole('button', { name: 'Cancel' }).click()
  await expect(page.getByRole('heading', { name: new RegExp(`^Quote ${copy} for`) })).toBeVisible()
  await page.getByRole('button', { name: 'Delete quote' }).click()
  await dialog.getByRole('button', { name: 'Delete quote' }).click()
  await expect(page).toHaveURL(/#\/quotes$/)
  await expect(page.getByRole('row').filter({ hasText: quote.number })).toContainText('Expired')
  await expect(page.getByRole('link', { name: copy })).toHaveCount(0)
})
