/**
 * A customer's brief (issue #53), in Chromium through the bridge, against a double that serves 24
 * months of orders for a few customers, one of them buying in the summer (test/service/history.ts):
 * the brief on the customer's page at 1280×720, 320 px and 200%, light and dark, with its chart drawn,
 * nothing serious for axe and nothing that needs sideways scrolling, each state saved as
 * test-results/screenshots/brief-*.png; a lapsed item added to the customer's order; the printable
 * brief's PDF with its chart; the new items listed in the catalog; offline, the local brief and its
 * note, then the history read when the service answers.
 */
import AxeBuilder from '@axe-core/playwright'
import type { Page } from '@playwright/test'
import { execFileSync } from 'node:child_process'
import { join } from 'node:path'
import type { TestCore } from '../support/core'
import { call, expect, screenshotDir, test, watchConsole } from './harness'
import { reflowProblems } from './reflow-problems'

test.describe.configure({ timeout: 120_000 })
test.use({ serviceOptions: { history: true } })

const tags = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa']

/** Serious or critical findings, as "rule: target" lines; dark checks only what a colour scheme changes. */
async function accessibilityProblems(page: Page, scheme: 'light' | 'dark'): Promise<string[]> {
  const builder = new AxeBuilder({ page })
  const result = await (
    scheme === 'dark' ? builder.withRules(['color-contrast', 'link-in-text-block']) : builder.withTags(tags)
  ).analyze()
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id}: ${v.nodes[0]?.target.join(' ')}`)
}

/** The customer with the most orders on this laptop: the one who buys in the summer. */
async function seasonalCustomer(core: TestCore): Promise<{ guid: string; name: string }> {
  const { customers } = await call(core.handlers, 'searchCustomers', { limit: 200 })
  let best: { guid: string; name: string; total: number } | null = null
  for (const customer of customers) {
    const { total } = await call(core.handlers, 'listOrders', { customerGuid: customer.guid, limit: 1 })
    if (!best || total > best.total) best = { guid: customer.guid, name: customer.name, total }
  }
  return best!
}

/** The brief on screen with its bars drawn. */
async function briefDrawn(page: Page): Promise<void> {
  await expect(page.getByTestId('customer-brief').getByTestId('sales-chart')).toHaveAttribute('data-drawn', 'true')
}

const layouts = [
  { name: '1280', viewport: { width: 1280, height: 720 }, deviceScaleFactor: 1 },
  { name: '320', viewport: { width: 320, height: 640 }, deviceScaleFactor: 1 },
  // 200% zoom of a 1280×720 laptop: 640×360 CSS px, two device pixels each.
  { name: 'zoom200', viewport: { width: 640, height: 360 }, deviceScaleFactor: 2 },
] as const

for (const layout of layouts) {
  test(`the brief on the customer’s page at ${layout.name}, light and dark: drawn, read by axe, no sideways scrolling`, async ({
    browser,
    bridge,
    core,
  }) => {
    const customer = await seasonalCustomer(core)
    await call(core.handlers, 'refreshCustomerHistory', { customerGuid: customer.guid })
    const problems: string[] = []
    for (const scheme of ['light', 'dark'] as const) {
      const context = await browser.newContext({
        viewport: layout.viewport,
        deviceScaleFactor: layout.deviceScaleFactor,
        colorScheme: scheme,
      })
      const page = await context.newPage()
      const errors = watchConsole(page)
      await page.goto(`${bridge.url}#/customers/${customer.guid}`)
      await briefDrawn(page)
      const brief = page.getByTestId('customer-brief')
      await expect(brief.getByTestId('brief-history-note')).toHaveCount(0)
      await expect(brief.getByTestId('brief-top').getByRole('row')).not.toHaveCount(0)
      await expect(
        brief
          .getByTestId('brief-lapsed')
          .getByRole('button', { name: /to order$/ })
          .first(),
      ).toBeVisible()
      await brief.scrollIntoViewIfNeeded()
      await page.screenshot({ path: join(screenshotDir, `brief-${layout.name}-${scheme}.png`) })
      await brief.screenshot({ path: join(screenshotDir, `brief-${layout.name}-${scheme}-whole.png`) })
      // The same figures as a table, for a screen reader or a keyboard.
      const toggle = brief.getByRole('button', { name: 'Show the figures as a table' })
      await toggle.focus()
      await page.keyboard.press('Enter')
      const table = brief.getByRole('table', { name: /^Sales by month/ })
      await expect(table).toBeVisible()
      await expect(table.getByRole('row')).toHaveCount(14)
      // The month under way says so: its bar is short because the month is.
      await expect(table.getByRole('rowheader', { name: /\(so far\)$/ })).toHaveCount(1)
      await expect(brief.getByRole('button', { name: 'Hide the figures' })).toHaveAttribute('aria-expanded', 'true')
      for (const problem of await accessibilityProblems(page, scheme)) problems.push(`${scheme} axe: ${problem}`)
      for (const problem of await reflowProblems(page)) problems.push(`${scheme} reflow: ${problem}`)
      await table.scrollIntoViewIfNeeded()
      await page.screenshot({ path: join(screenshotDir, `brief-${layout.name}-${scheme}-table.png`) })
      expect(errors).toEqual([])
      await context.close()
    }
    for (const problem of problems) console.log(`brief ${layout.name}: ${problem}`)
    expect(problems).toEqual([])
  })
}

test('Add to order on a lapsed item puts it on the customer’s order', async ({ page, bridge, core }) => {
  const customer = await seasonalCustomer(core)
  await call(core.handlers, 'refreshCustomerHistory', { customerGuid: customer.guid })
  await page.goto(`${bridge.url}#/customers/${customer.guid}`)
  await briefDrawn(page)
  const lapsed = page.getByTestId('customer-brief').getByTestId('brief-lapsed')
  const row = lapsed.locator('tr[data-brief-item]').filter({ has: page.getByRole('button', { name: /to order$/ }) })
  const sku = (await row.first().getAttribute('data-brief-item'))!
  await row
    .first()
    .getByRole('button', { name: `Add ${sku} to order` })
    .click()
  const said = page.getByRole('status').filter({ hasText: `Added ${sku} to` })
  await expect(said).toBeVisible()
  const theirs = (await call(core.handlers, 'listDrafts')).filter((draft) => draft.customerGuid === customer.guid)
  expect(theirs).toHaveLength(1)
  const check = await call(core.handlers, 'getDraft', { id: theirs[0]!.id })
  expect(check.draft.lines.map((line) => line.sku)).toEqual([sku])

  // The order it went on opens from the brief, with the line on it.
  await said.getByRole('link', { name: `Open order #${theirs[0]!.id}` }).click()
  await expect(page.locator(`[data-line="${sku}"]`).first()).toBeVisible()
})

test('“new since their last order” lists in the catalog just the items the supplier added since', async ({
  page,
  bridge,
  core,
  service,
}) => {
  const customer = await seasonalCustomer(core)
  const before = await call(core.handlers, 'refreshCustomerHistory', { customerGuid: customer.guid })
  const catalogGuid = before.newItemsCatalogGuid!
  // Three items of their catalog the supplier adds now, after the last order.
  const { items } = await call(core.handlers, 'searchCatalogItems', { catalogGuid, limit: 3, offset: 40 })
  const now = new Date().toISOString()
  for (const item of items) service.current.control.update('catalogItem', item.guid, { created_at: now })
  expect((await call(core.handlers, 'syncNow', {})).ok).toBe(true)
  const brief = await call(core.handlers, 'getCustomerBrief', { customerGuid: customer.guid })
  expect(brief.newItems).toBe(before.newItems + 3)

  await page.goto(`${bridge.url}#/customers/${customer.guid}`)
  await briefDrawn(page)
  await page
    .getByTestId('brief-new')
    .getByRole('link', { name: `${brief.newItems} new item` })
    .click()
  await expect(page.getByTestId('catalog-newer')).toContainText(`(${brief.newItems} item`)
  const rows = page.getByTestId('catalog-scroller').getByRole('row')
  for (const item of items) await expect(rows.filter({ hasText: item.sku })).toHaveCount(1)
  await page.screenshot({ path: join(screenshotDir, 'brief-new-items.png') })
  // Show every item lifts the filter.
  await page.getByRole('button', { name: 'Show every item' }).click()
  await expect(page.getByTestId('catalog-newer')).toHaveCount(0)
  await expect(page).not.toHaveURL(/newer=/)
})

test('the printable brief saves as a PDF with its chart', async ({ page, bridge, core }) => {
  const customer = await seasonalCustomer(core)
  const brief = await call(core.handlers, 'refreshCustomerHistory', { customerGuid: customer.guid })
  await page.goto(`${bridge.url}#/customers/${customer.guid}`)
  await page.getByRole('link', { name: 'Printable brief' }).click()
  await expect(page.getByRole('heading', { level: 1, name: 'Customer brief' })).toBeVisible()
  await expect(page.locator('.document').getByTestId('sales-chart')).toHaveAttribute('data-drawn', 'true')
  await page.screenshot({ path: join(screenshotDir, 'brief-document.png'), fullPage: true })
  expect(await accessibilityProblems(page, 'light')).toEqual([])

  const pdf = join(screenshotDir, 'brief.pdf')
  await page.pdf({ path: pdf, format: 'A4' })
  // The chart is drawn on a canvas, so it prints as a picture: pdfimages lists it.
  const images = execFileSync('pdfimages', ['-list', pdf], { encoding: 'utf8' }).trim().split('\n').slice(2)
  expect(images.length).toBeGreaterThanOrEqual(1)
  const text = execFileSync('pdftotext', ['-layout', pdf, '-'], { encoding: 'utf8' })
  expect(text).toContain('Customer brief')
  expect(text).toContain(customer.name)
  expect(text).toContain('Sales by month')
  expect(text).toContain(brief.topItems[0]!.sku)
  // The app's frame is not printed: only the document.
  expect(text).not.toContain('Save as PDF')
})

test('offline, the local brief says its history is short, without an error; online again, the history is read and the note goes', async ({
  page,
  bridge,
  core,
  service,
}) => {
  const customer = await seasonalCustomer(core)
  const errors = watchConsole(page)
  await service.stop()
  await expect.poll(async () => (await call(core.handlers, 'checkConnectivity')).online).toBe(false)
  await page.goto(`${bridge.url}#/customers/${customer.guid}`)
  const brief = page.getByTestId('customer-brief')
  await briefDrawn(page)
  await expect(brief.getByTestId('brief-history-note')).toContainText(/connect to read the rest/)
  // The frame says the service is away; the brief says nothing of a failure, and no notice is raised.
  await expect(brief.getByRole('alert')).toHaveCount(0)
  await expect(page.locator('.banner-error')).toHaveCount(0)
  await page.screenshot({ path: join(screenshotDir, 'brief-offline.png') })

  await service.start()
  await expect(brief.getByTestId('brief-history-note')).toHaveCount(0, { timeout: 20_000 })
  await briefDrawn(page)
  // Read in the customer's context.
  const reads = service.current.control
    .requestLog()
    .filter((each) => each.route === 'GET /v1/orders' && each.headers['vendorguid'] === customer.guid)
  expect(reads.length).toBeGreaterThan(0)
  expect(errors).toEqual([])
})
