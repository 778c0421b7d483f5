/**
 * WCAG 2.2 AA on every main screen, light and dark, so every rep can use them: axe-core runs over
 * each one, with the data a rep would have (synced catalog, orders, an outbox with a sent, a
 * retrying and a rejected order, a draft with a problem, a sent order shipped in part and marked
 * changed), and fails on any serious or critical violation.
 */
import AxeBuilder from '@axe-core/playwright'
import type { Page } from '@playwright/test'
import { join } from 'node:path'
import type { TestCore } from '../support/core'
import { screenshotDir, test, call, expect, orderable, type ServiceHandle, refuseOrders, sendOrder } from './harness'
import { startProfilesWorld } from './profiles-world'
import { openUpgradedLaptop } from './upgraded-laptop'
import { eachWritesDialog, writesWorld } from './writes-world'

test.describe.configure({ timeout: 120_000 })

const tags = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa']

interface Finding {
  screen: string
  scheme: string
  rule: string
  impact: string
  nodes: number
  example: string
}

/**
 * Light runs every WCAG A/AA rule; dark only the rules a colour scheme can change (structure and
 * names are the same markup), which halves the time axe takes on a shared CI machine.
 */
async function audit(page: Page, screen: string, scheme: 'light' | 'dark'): Promise<Finding[]> {
  const builder = new AxeBuilder({ page })
  const result = await (
    scheme === 'dark' ? builder.withRules(['color-contrast', 'link-in-text-block']) : builder.withTags(tags)
  ).analyze()
  return result.violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map((violation) => ({
      screen,
      scheme,
      rule: violation.id,
      impact: violation.impact ?? '',
      nodes: violation.nodes.length,
      example: `${violation.nodes[0]?.target.join(' ')} — ${violation.nodes[0]?.failureSummary?.split('\n').slice(1, 2).join('').trim() ?? ''}`,
    }))
}

// The first-run screen, before any connection.
test.describe('from first run', () => {
  test.use({ database: 'empty' })

  test('the Connect screen passes axe (no serious or critical violation) in light and dark', async ({
    page,
    bridge,
  }) => {
    const findings: Finding[] = []
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme })
      await page.goto(`${bridge.url}#/connect`)
      await expect(page.getByRole('heading', { level: 1 })).toBeVisible()
      findings.push(...(await audit(page, 'connect', scheme)))
    }
    expectNoFindings(findings)
  })
})

/**
 * The world every main screen is audited in: an outbox with every state a rep meets (rejected,
 * sent, retrying), a draft with a problem, and a sent order shipped in part, marked changed. Each
 * test builds its own, so the screens spread over the workers instead of one test auditing 24 pages.
 */
async function mainScreensWorld(core: TestCore, service: ServiceHandle): Promise<[string, string][]> {
  const target = orderable(core)
  const control = service.current.control
  refuseOrders(service)
  await sendOrder(core, target)
  await sendOrder(core, target)
  // A draft with a line the core flags, so the order screen shows its problem and its disabled Send.
  const draft = await call(core.handlers, 'createDraft', {
    customerGuid: target.customerGuid,
    catalogGuid: target.catalogGuid,
  })
  await call(core.handlers, 'addDraftLines', { id: draft.draft.id, lines: [{ sku: target.skus[0]!, qty: 1 }] })
  const { orders } = await call(core.handlers, 'listOrders', { limit: 1 })
  // After Send: the sent order fetched in full, then shipped in part with the rest backordered and put
  // on hold, so the order screen has its per-line figures, timeline and related order, and the Orders
  // list a mark.
  expect((await call(core.handlers, 'syncNow', {})).ok).toBe(true)
  const sent = orders[0]!
  control.fulfilOrder(sent.guid, { kind: 'ship', lines: [{ itemNo: 1, qty: 1 }], backorderRest: sent.lineCount > 1 })
  control.fulfilOrder(sent.guid, { kind: 'hold', onHold: true })
  expect((await call(core.handlers, 'syncNow', {})).ok).toBe(true)
  expect((await call(core.handlers, 'listChangedOrders')).map((change) => change.guid)).toContain(sent.guid)
  return [
    ['customers', '#/customers'],
    ['customer', `#/customers/${target.customerGuid}`],
    ['customer brief', `#/customers/${target.customerGuid}/brief`],
    ['new customer', '#/customers/new'],
    ['catalog', `#/catalog`],
    ['orders', '#/orders'],
    // Before the order itself is opened: opening it clears its mark.
    ['orders changed', '#/orders?changed=1'],
    ['order', `#/orders/${sent.guid}`],
    ['order document', `#/documents/order/${sent.guid}`],
    ['outbox', '#/outbox'],
    ['drafts', '#/drafts'],
    ['order entry', `#/drafts/${draft.draft.id}`],
    ['settings', '#/settings'],
  ]
}

function expectNoFindings(findings: Finding[]): void {
  for (const finding of findings)
    console.log(
      `a11y: ${finding.scheme} ${finding.screen}: ${finding.impact} ${finding.rule} ×${finding.nodes} (${finding.example})`,
    )
  expect(findings.map((finding) => `${finding.scheme} ${finding.screen}: ${finding.rule} ×${finding.nodes}`)).toEqual(
    [],
  )
}

for (const scheme of ['light', 'dark'] as const) {
  for (const [half, pick] of [
    ['first half', (index: number) => index < 6],
    ['second half', (index: number) => index >= 6],
  ] as const) {
    test(`every main screen passes axe (no serious or critical violation) in ${scheme}: the ${half}`, async ({
      page,
      bridge,
      service,
      core,
    }) => {
      const screens = (await mainScreensWorld(core, service)).filter((_, index) => pick(index))
      await page.emulateMedia({ colorScheme: scheme })
      const findings: Finding[] = []
      for (const [screen, hash] of screens) {
        await page.goto(`${bridge.url}${hash}`)
        await expect(page.getByRole('heading', { level: 1 })).toBeVisible()
        // Lists and records load after the heading; audit what the rep actually sees.
        await page.waitForLoadState('networkidle')
        await page.waitForTimeout(300)
        findings.push(...(await audit(page, screen, scheme)))
      }
      expectNoFindings(findings)
    })
  }
}

test('the profile switcher, open and closed, and Settings’ profiles pass axe in light and dark', async ({ page }) => {
  const world = await startProfilesWorld()
  try {
    const findings: Finding[] = []
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme })
      await page.goto(`${world.bridge.url}#/settings`)
      await expect(page.getByTestId('profiles-panel')).toContainText('Coastal')
      findings.push(...(await audit(page, 'settings with profiles', scheme)))
      const switcher = page.getByRole('button', { name: /^Profile:/ })
      await switcher.focus()
      await page.keyboard.press('ArrowDown')
      await expect(page.getByRole('listbox', { name: 'Profiles' })).toBeVisible()
      findings.push(...(await audit(page, 'profile switcher open', scheme)))
      await page.keyboard.press('Escape')
    }
    for (const finding of findings)
      console.log(
        `a11y: ${finding.scheme} ${finding.screen}: ${finding.impact} ${finding.rule} ×${finding.nodes} (${finding.example})`,
      )
    expect(findings.map((finding) => `${finding.scheme} ${finding.screen}: ${finding.rule} ×${finding.nodes}`)).toEqual(
      [],
    )
  } finally {
    await world.close()
  }
})

test('the family entry grid passes axe in light and dark: a table of labelled quantity fields', async ({
  page,
  bridge,
  core,
}) => {
  const parent = core.db
    .prepare<[], { guid: string; sku: string; catalog_guid: string }>(
      `SELECT guid, sku, catalog_guid FROM catalog_items WHERE deleted_at IS NULL AND json ->> '$.is_product_group' = 1
         AND json ->> '$.product_group_type' = 'Color/Size' ORDER BY id LIMIT 1`,
    )
    .get()!
  // A customer of a group that is not the catalog's main one: the grid then has a refused cell too.
  const customer = core.db
    .prepare<[string], { guid: string }>(
      `SELECT c.guid FROM customers c JOIN price_groups p ON p.id = c.price_group_id AND p.catalog_guid = ?
       WHERE c.active = 1 AND c.deleted_at IS NULL AND p.is_main = 0 AND c.lock_catalog_id IS NULL ORDER BY c.id LIMIT 1`,
    )
    .get(parent.catalog_guid)!
  const draft = await call(core.handlers, 'createDraft', {
    customerGuid: customer.guid,
    catalogGuid: parent.catalog_guid,
  })
  const findings: Finding[] = []
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme })
    await page.goto(`${bridge.url}#/drafts/${draft.draft.id}`)
    await expect(page.getByRole('heading', { level: 1 })).toBeVisible()
    await page.getByLabel('SKU or barcode').fill(parent.sku)
    await page.getByLabel('SKU or barcode').press('Enter')
    const grid = page.getByTestId('family-grid').getByRole('table')
    await expect(grid.getByRole('textbox').first()).toBeFocused()
    await expect(grid.locator('.reason').first()).toBeVisible()
    // Every field is named by its place in the grid, its SKU, price and stock.
    for (const field of await grid.getByRole('textbox').all())
      await expect(field).toHaveAccessibleName(/^Quantity of .+ \([A-Z]{3}-\d+\)/)
    findings.push(...(await audit(page, 'family grid', scheme)))
    await page.getByRole('button', { name: 'Close the family grid' }).click()
  }
  for (const finding of findings)
    console.log(
      `a11y: ${finding.scheme} ${finding.screen}: ${finding.impact} ${finding.rule} ×${finding.nodes} (${finding.example})`,
    )
  expect(findings.map((finding) => `${finding.scheme} ${finding.screen}: ${finding.rule} ×${finding.nodes}`)).toEqual(
    [],
  )
})

test.describe('at 320 px', () => {
  test.use({ viewport: { width: 320, height: 640 } })

  test('the family grid in the catalog, no order open, passes axe in light and dark and scrolls by keyboard', async ({
    page,
    bridge,
    core,
  }) => {
    const parent = core.db
      .prepare<[], { guid: string; sku: string; catalog_guid: string }>(
        `SELECT guid, sku, catalog_guid FROM catalog_items WHERE deleted_at IS NULL AND json ->> '$.is_product_group' = 1
           AND json ->> '$.product_group_type' = 'Color/Size' ORDER BY id LIMIT 1`,
      )
      .get()!
    const findings: Finding[] = []
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme })
      await page.goto(`${bridge.url}#/catalog?catalog=${parent.catalog_guid}`)
      await expect(page.getByRole('heading', { level: 1 })).toBeVisible()
      await page.getByLabel('Search catalog').fill(parent.sku)
      const scroller = page.getByTestId('catalog-scroller')
      await expect(scroller).toHaveAttribute('data-results-for', parent.sku)
      await scroller.getByRole('button', { name: `Open the grid of ${parent.sku}` }).click()
      const table = page.getByTestId('family-grid').getByRole('table')
      await expect(table).toBeVisible()
      // No order open: nothing to type, so no field that looks editable, and the grid, wider than
      // the screen, is a region the keyboard reaches and scrolls.
      await expect(table.getByRole('textbox')).toHaveCount(0)
      const region = page.getByTestId('family-grid').getByRole('region')
      await expect(region).toHaveAttribute('tabindex', '0')
      await region.focus()
      await expect(region).toBeFocused()
      const scrolled = await region.evaluate((box) => box.scrollWidth > box.clientWidth)
      if (scrolled) {
        await page.keyboard.press('ArrowRight')
        await expect.poll(() => region.evaluate((box) => box.scrollLeft)).toBeGreaterThan(0)
      }
      await page.screenshot({ path: join(screenshotDir, `a11y-320-${scheme}-family-grid-catalog.png`) })
      findings.push(...(await audit(page, 'family grid in the catalog at 320 px', scheme)))
    }
    for (const finding of findings)
      console.log(
        `a11y: ${finding.scheme} ${finding.screen}: ${finding.impact} ${finding.rule} ×${finding.nodes} (${finding.example})`,
      )
    expect(findings.map((finding) => `${finding.scheme} ${finding.screen}: ${finding.rule} ×${finding.nodes}`)).toEqual(
      [],
    )
  })
})

test('the catalog update after an upgrade, and a sync waiting for it, pass axe in light and dark', async ({ page }) => {
  const app = await openUpgradedLaptop()
  try {
    const { core, bridge, hold, laptop } = app
    // Part-way: one slice copied, so the list has rows and the bar a value; a sync waits for the rest.
    hold.let(1)
    await expect.poll(async () => (await call(core.handlers, 'getCatalogUpdate')).percent).toBeGreaterThan(0)
    const syncing = call(core.handlers, 'syncNow', {})
    const findings: Finding[] = []
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme })
      await page.goto(`${bridge.url}#/catalog?catalog=${laptop.catalogGuids[0]}`)
      await expect(page.getByRole('progressbar', { name: 'Catalog update' })).toBeVisible()
      await expect(page.getByRole('contentinfo', { name: 'Status' })).toContainText(
        'Sync waits for the catalog update…',
      )
      await expect(page.getByTestId('catalog-scroller').getByRole('row').first()).toBeVisible()
      findings.push(...(await audit(page, 'catalog update', scheme)))
    }
    hold.release()
    expect((await syncing).ok).toBe(true)
    for (const finding of findings)
      console.log(
        `a11y: ${finding.scheme} ${finding.screen}: ${finding.impact} ${finding.rule} ×${finding.nodes} (${finding.example})`,
      )
    expect(findings.map((finding) => `${finding.scheme} ${finding.screen}: ${finding.rule} ×${finding.nodes}`)).toEqual(
      [],
    )
  } finally {
    await app.close()
  }
})

test('the writes-after-Send dialogs and the Outbox with a conflict pass axe in light and dark', async ({
  page,
  bridge,
  service,
  core,
}) => {
  const world = await writesWorld(core, service)
  const findings: Finding[] = []
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme })
    await eachWritesDialog(page, bridge.url, world, async (name) => {
      await page.waitForTimeout(200)
      findings.push(...(await audit(page, name, scheme)))
    })
  }
  for (const finding of findings)
    console.log(
      `a11y: ${finding.scheme} ${finding.screen}: ${finding.impact} ${finding.rule} ×${finding.nodes} (${finding.example})`,
    )
  expect(findings.map((finding) => `${finding.scheme} ${finding.screen}: ${finding.rule} ×${finding.nodes}`)).toEqual(
    [],
  )
})
