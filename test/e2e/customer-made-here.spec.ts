/**
 * A customer made on this laptop is a customer at once (issue 54), in Chromium through the bridge
 * against the double: made while the supplier is unreachable, it is a row of the Customers list, a
 * search finds it ("Walk Test"), it has its own page and takes an order; once sent, its page is the
 * supplier's customer under the guid the answer gave, with no sync, and the draft made for it follows.
 * One the supplier refused is listed with its problem and never offered as a real customer. "New
 * customer with an order" opens on the catalog the supplier puts new customers on, and says so.
 * The screens at 1280×720, 320 px and 200%, light and dark, read by axe, with no sideways scrolling;
 * each saved as test-results/screenshots/made-here-*.png.
 */
import AxeBuilder from '@axe-core/playwright'
import type { Page } from '@playwright/test'
import { join } from 'node:path'
import type { TestCore } from '../support/core'
import { call, expect, screenshotDir, settle, shoot, test, watchConsole } from './harness'
import { reflowProblems } from './reflow-problems'
import { backOnline, startWrites } from './writes-world'

test.describe.configure({ timeout: 120_000 })

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

const customerList = (page: Page) => page.getByRole('list', { name: 'Customers' })

test('made offline, it is listed, found and has its page at once; once sent, its page is the supplier’s customer', async ({
  page,
  bridge,
  service,
  core,
}) => {
  await page.setViewportSize({ width: 1280, height: 720 })
  const errors = await startWrites(page, core, service)
  service.current.control.addFault({ route: '*', type: 'destroySocket' })

  await page.goto(`${bridge.url}#/customers`)
  await page.getByRole('button', { name: 'New customer', exact: true }).click()
  const dialog = page.getByRole('dialog', { name: 'New customer' })
  await dialog.getByLabel('Name').fill('Walk Test Grocer')
  await dialog.getByLabel('Email').fill('orders@walktest.example')
  await dialog.getByRole('button', { name: 'Make the customer' }).click()
  await expect(dialog).toBeHidden()

  await page.getByLabel('Search customers').fill('Walk Test')
  const row = customerList(page).getByRole('link', { name: /Walk Test Grocer/ })
  await expect(row).toContainText('Waiting to send')
  await expect(row).toContainText('Made on this laptop')
  await expect(page.getByTestId('customers-count')).toHaveText('1 customer')
  await shoot(page, 'made-here-list-waiting.png')

  await row.click()
  await expect(page.getByRole('heading', { level: 1, name: 'Walk Test Grocer' })).toBeVisible()
  const status = page.getByTestId('made-here')
  await expect(status).toContainText('The supplier makes this customer when the outbox sends it')
  await expect(status).toContainText(/Its orders start on .+ at the .+ price group/)
  await shoot(page, 'made-here-page-waiting.png')
  const key = /#\/customers\/([^/?]+)$/.exec(page.url())![1]!

  await page.getByRole('button', { name: 'New order' }).click()
  await expect(page).toHaveURL(/#\/drafts\/\d+$/)
  await expect(page.getByRole('heading', { level: 1 })).toContainText('for Walk Test Grocer')
  const draftId = Number(/#\/drafts\/(\d+)/.exec(page.url())![1])

  // Back on its page when the supplier answers: the page becomes the supplier's customer, no sync.
  await page.goto(`${bridge.url}#/customers/${key}`)
  await expect(status).toBeVisible()
  await backOnline(core, service)
  const made = service.current.control.customers().filter((customer) => customer.name === 'Walk Test Grocer')
  expect(made).toHaveLength(1)
  const guid = String(made[0]!.guid)
  await expect(page).toHaveURL(new RegExp(`#/customers/${guid}$`))
  await expect(page.getByRole('heading', { level: 1, name: 'Walk Test Grocer' })).toBeVisible()
  await expect(status).toHaveCount(0)
  await expect(page.getByRole('link', { name: 'Order history' })).toBeVisible()
  await shoot(page, 'made-here-page-sent.png')

  await page.goto(`${bridge.url}#/customers`)
  await page.getByLabel('Search customers').fill('Walk Test')
  await expect(customerList(page).getByRole('link')).toHaveCount(1)
  await expect(customerList(page).getByRole('link')).not.toContainText('Waiting to send')
  await expect(customerList(page).getByRole('link')).toHaveAttribute('href', `#/customers/${guid}`)
  const draft = await call(core.handlers, 'getDraft', { id: draftId })
  expect(draft.draft).toMatchObject({ customerGuid: guid, customerLocalId: null })
  expect(errors).toEqual([])
})

test('refused by the supplier, it is listed with its problem and takes no orders', async ({
  page,
  bridge,
  service,
  core,
}) => {
  await page.setViewportSize({ width: 1280, height: 720 })
  // An API key the supplier has not granted customers: the supplier refuses to make it.
  const errors = await startWrites(page, core, service, { apiKeyOnly: true })
  await call(core.handlers, 'addCustomer', { name: 'Refused Walk Deli', email: 'orders@refusedwalk.example' })
  await call(core.handlers, 'flushOutbox')
  await settle(core)

  await page.goto(`${bridge.url}#/customers`)
  await page.getByLabel('Search customers').fill('Refused Walk')
  const row = customerList(page).getByRole('link', { name: /Refused Walk Deli/ })
  await expect(row).toContainText('Refused by the supplier')
  await row.click()
  const status = page.getByTestId('made-here')
  await expect(status).toContainText('The supplier refused to make this customer')
  await expect(status).toContainText('sign in as a user')
  await expect(status.getByRole('link', { name: 'Open the Outbox' })).toBeVisible()
  await expect(page.getByRole('button', { name: 'New order' })).toHaveCount(0)
  await shoot(page, 'made-here-page-refused.png')
  expect(errors).toEqual([])
})

/** The catalog the supplier puts new customers on, as the core names it. */
async function newCustomersCatalog(core: TestCore): Promise<{ guid: string; name: string }> {
  const catalogs = await call(core.handlers, 'listCatalogs', {})
  const theirs = catalogs.find((catalog) => catalog.forNewCustomers)
  if (!theirs) throw new Error('no catalog for new customers')
  return theirs
}

test('“New customer with an order” opens on the catalog the supplier gives new customers, says so, and is listed once sent offline', async ({
  page,
  bridge,
  service,
  core,
}) => {
  await page.setViewportSize({ width: 1280, height: 720 })
  const errors = watchConsole(page)
  const theirs = await newCustomersCatalog(core)
  await page.goto(`${bridge.url}#/customers/new`)
  await expect(page.getByLabel('Catalog')).toHaveValue(theirs.guid)
  await expect(page.locator('#catalog-hint')).toContainText(`The supplier puts new customers on ${theirs.name}`)
  await page.getByLabel('Name', { exact: true }).fill('Catalog Walk Cafe')
  await page.getByRole('button', { name: 'Start order' }).click()
  await expect(page).toHaveURL(/#\/drafts\/\d+$/)
  const id = Number(/#\/drafts\/(\d+)/.exec(page.url())![1])
  expect((await call(core.handlers, 'getDraft', { id })).draft.catalogGuid).toBe(theirs.guid)

  // Sent while the supplier is away: the customer is listed from its order, with a page of its own.
  service.current.control.addFault({ route: '*', type: 'destroySocket' })
  const { items } = await call(core.handlers, 'searchCatalogItems', { catalogGuid: theirs.guid, limit: 20 })
  const item = items.find((each) => each.offered && each.price !== null)!
  await call(core.handlers, 'addDraftLines', { id, lines: [{ sku: item.sku, qty: 1 }] })
  await call(core.handlers, 'sendDraft', { id })
  await page.goto(`${bridge.url}#/customers`)
  await page.getByLabel('Search customers').fill('Catalog Walk')
  const row = customerList(page).getByRole('link', { name: /Catalog Walk Cafe/ })
  await expect(row).toContainText('Waiting to send')
  await row.click()
  await expect(page.getByTestId('made-here')).toContainText('with its first order')
  await expect(page.getByRole('button', { name: 'New order' })).toHaveCount(0)
  await shoot(page, 'made-here-page-with-order.png')
  expect(errors).toEqual([])
})

const layouts = [
  { name: '1280', viewport: { width: 1280, height: 720 }, deviceScaleFactor: 1 },
  { name: '320', viewport: { width: 320, height: 640 }, deviceScaleFactor: 1 },
  // 200% zoom of a 1280×720 laptop: 640×360 CSS px, two device pixels each.
  { name: 'zoom200', viewport: { width: 640, height: 360 }, deviceScaleFactor: 2 },
] as const

for (const layout of layouts) {
  test(`made-here customers at ${layout.name}, light and dark: read by axe, no sideways scrolling`, async ({
    browser,
    bridge,
    service,
    core,
  }) => {
    // One the supplier refused (the key is not granted customers), then one waiting while it is away.
    const refused = await call(core.handlers, 'addCustomer', { name: 'Refused Layout Deli' })
    await call(core.handlers, 'flushOutbox')
    await settle(core)
    service.current.control.addFault({ route: '*', type: 'destroySocket' })
    const waiting = await call(core.handlers, 'addCustomer', {
      name: 'Waiting Layout Grocer With A Rather Long Name',
      email: 'orders@waiting-layout-grocer.example',
      billTo: { address_line_one: '12 Harbor St', city: 'Portland', state: 'OR', postal_code: '97201' },
    })
    const problems: string[] = []
    for (const scheme of ['light', 'dark'] as const) {
      const context = await browser.newContext({
        viewport: layout.viewport,
        deviceScaleFactor: layout.deviceScaleFactor,
        colorScheme: scheme,
      })
      const page = await context.newPage()
      const errors = watchConsole(page)
      const look = async (screen: string): Promise<void> => {
        await page.screenshot({ path: join(screenshotDir, `made-here-${screen}-${layout.name}-${scheme}.png`) })
        for (const problem of await accessibilityProblems(page, scheme))
          problems.push(`${screen} ${scheme} axe: ${problem}`)
        for (const problem of await reflowProblems(page)) problems.push(`${screen} ${scheme} reflow: ${problem}`)
      }
      await page.goto(`${bridge.url}#/customers`)
      await page.getByLabel('Search customers').fill('Layout')
      await expect(customerList(page).getByRole('link')).toHaveCount(2)
      await look('list')
      await page.goto(`${bridge.url}#/customers/${waiting.apiGuid}`)
      await expect(page.getByTestId('made-here')).toContainText('Its orders start on')
      await look('waiting')
      await page.goto(`${bridge.url}#/customers/${refused.apiGuid}`)
      await expect(page.getByTestId('made-here')).toContainText('refused')
      await look('refused')
      await page.goto(`${bridge.url}#/customers/new`)
      await expect(page.locator('#catalog-hint')).toBeVisible()
      await page.locator('#catalog-hint').scrollIntoViewIfNeeded()
      await look('new-customer')
      expect(errors).toEqual([])
      await context.close()
    }
    for (const problem of problems) console.log(`made-here ${layout.name}: ${problem}`)
    expect(problems).toEqual([])
  })
}
