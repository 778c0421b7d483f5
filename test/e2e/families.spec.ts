/**
 * Selling from the catalog in the window: a colour × size family entered on its grid by keyboard
 * alone, a member scanned by its UPC, and a customer over their credit limit warned on Send and
 * still able to send. Screenshots at the two common laptop sizes.
 */
import type { Page } from '@playwright/test'
import { test, call, expect, settle, shoot } from './harness'
import type { TestCore } from '../support/core'

test.describe.configure({ timeout: 120_000 })

type Json = Record<string, unknown>

function records(
  core: TestCore,
  where: string,
  ...params: unknown[]
): (Json & { guid: string; catalog_guid: string })[] {
  return core.db
    .prepare<unknown[], { guid: string; catalog_guid: string; json: string }>(
      `SELECT guid, catalog_guid, json FROM catalog_items WHERE ${where}`,
    )
    .all(...params)
    .map((row) => ({ ...(JSON.parse(row.json) as Json), guid: row.guid, catalog_guid: row.catalog_guid }))
}

/** The double's first colour × size family, and a customer of its catalog's main group with room on their account. */
function world(core: TestCore) {
  const parent = records(
    core,
    "deleted_at IS NULL AND json ->> '$.is_product_group' = 1 AND json ->> '$.product_group_type' = 'Color/Size' ORDER BY id",
  )[0]!
  const members = records(
    core,
    "json ->> '$.group_parent_catalog_item_id' = ? AND deleted_at IS NULL ORDER BY json ->> '$.group_sequence'",
    parent.id,
  )
  const customer = core.db
    .prepare<[string], { guid: string }>(
      `SELECT c.guid FROM customers c JOIN price_groups p ON p.id = c.price_group_id AND p.catalog_guid = ?
       WHERE c.active = 1 AND c.deleted_at IS NULL AND c.require_po = 0 AND p.is_main = 1 AND c.lock_catalog_id IS NULL
         AND c.json ->> '$.open_balance' < c.json ->> '$.credit_limit' * 0.5
       ORDER BY c.id LIMIT 1`,
    )
    .get(parent.catalog_guid)!
  return { parent, members, customerGuid: customer.guid }
}

async function openDraft(page: Page, bridgeUrl: string, id: number): Promise<void> {
  await page.goto(`${bridgeUrl}#/drafts/${id}`)
  await expect(page.getByLabel('SKU or barcode')).toBeVisible()
  await page.keyboard.press('F2')
  await expect(page.getByLabel('SKU or barcode')).toBeFocused()
}

test('a colour × size family entered by keyboard alone: 6 quantities, one Enter, 6 lines at the customer’s prices', async ({
  page,
  bridge,
  core,
}) => {
  const { parent, members, customerGuid } = world(core)
  const grid = await call(core.handlers, 'getItemFamily', { guid: parent.guid, customerGuid })
  expect(grid.rows.length).toBeGreaterThanOrEqual(2)
  const draft = await call(core.handlers, 'createDraft', { customerGuid, catalogGuid: parent.catalog_guid })

  // The two common laptop sizes, a 900 px window, and 1280×720 at 200% zoom (640×360 CSS px).
  for (const [width, height] of [
    [1280, 720],
    [1366, 768],
    [900, 720],
    [640, 360],
  ] as const) {
    await page.setViewportSize({ width, height })
    await openDraft(page, bridge.url, draft.draft.id)
    // The family's SKU in the scan box opens its grid, the cursor in its first field.
    await page.keyboard.type(String(parent.sku))
    await page.keyboard.press('Enter')
    const table = page.getByRole('table', { name: `Quantities of ${grid.title}` })
    await expect(table).toBeVisible()
    const first = grid.cells.find((cell) => cell.refused === null)!
    await expect(table.getByRole('textbox').first()).toBeFocused()
    await expect(page.getByTestId('scan-message')).toContainText(`is the family ${grid.title}`)
    // A member that cannot be ordered is shown with why, and has no field.
    const refused = grid.cells.filter((cell) => cell.refused !== null)
    for (const cell of refused) await expect(table.locator(`.reason[data-sku="${cell.sku}"]`)).toHaveText(cell.refused!)
    await expect(table.locator(`input[data-sku="${first.sku}"]`)).toBeFocused()
    await shoot(page, `family-grid-${width}x${height}.png`)
    await page.keyboard.press('Escape')
    await expect(table).toHaveCount(0)
    await expect(page.getByLabel('SKU or barcode')).toBeFocused()
  }

  // Keyboard only: type, Tab and the arrows between cells, then one Enter.
  await page.setViewportSize({ width: 1280, height: 720 })
  await openDraft(page, bridge.url, draft.draft.id)
  await page.keyboard.type(String(parent.sku))
  await page.keyboard.press('Enter')
  const table = page.getByRole('table', { name: `Quantities of ${grid.title}` })
  await expect(table.getByRole('textbox').first()).toBeFocused()
  const typed: { sku: string; qty: number }[] = []
  const focusedSku = () => page.evaluate(() => (document.activeElement as HTMLElement | null)?.dataset.sku ?? '')
  const keys = ['Tab', 'Tab', 'ArrowDown', 'ArrowLeft', 'ArrowLeft']
  for (let step = 0; step < 6; step++) {
    const qty = step + 2
    await page.keyboard.type(String(qty))
    typed.push({ sku: await focusedSku(), qty })
    if (step < 5) await page.keyboard.press(keys[step]!)
  }
  expect(new Set(typed.map((entry) => entry.sku)).size).toBe(6)
  await page.keyboard.press('Enter')
  await expect(page.getByTestId('family-message')).toHaveText('Added 6 lines.')
  const check = await call(core.handlers, 'getDraft', { id: draft.draft.id })
  const priced = new Map(check.lines.map((line) => [line.lineId, line.unitPrice]))
  // One line per cell typed in, in the grid's order (its members' sequence), at the grid's price.
  const inGridOrder = grid.cells.flatMap((cell) => typed.filter((entry) => entry.sku === cell.sku))
  expect(check.draft.lines.map((line) => ({ sku: line.sku, qty: line.qty, price: priced.get(line.lineId) }))).toEqual(
    inGridOrder.map((entry) => ({ ...entry, price: grid.cells.find((cell) => cell.sku === entry.sku)!.price })),
  )
  await expect(page.getByTestId('order-lines').getByRole('row')).toHaveCount(7)
  await shoot(page, 'family-grid-added-1280x720.png')

  // A member scanned by its UPC goes in as that member.
  const scanned = members.find((member) => member.active === true && !typed.some((entry) => entry.sku === member.sku))!
  await page.getByLabel('SKU or barcode').fill(String(scanned.upc))
  await page.getByLabel('SKU or barcode').press('Enter')
  await expect(page.getByTestId('scan-message')).toHaveText(`${String(scanned.sku)} ×1 — new line.`)
  expect((await call(core.handlers, 'getDraft', { id: draft.draft.id })).draft.lines.map((line) => line.sku)).toContain(
    scanned.sku,
  )
})

test("order entry: the family's title typed in Find an item offers the family, not its members, and opens its grid", async ({
  page,
  bridge,
  core,
}) => {
  const { parent, members, customerGuid } = world(core)
  const grid = await call(core.handlers, 'getItemFamily', { guid: parent.guid, customerGuid })
  const draft = await call(core.handlers, 'createDraft', { customerGuid, catalogGuid: parent.catalog_guid })
  await page.setViewportSize({ width: 1280, height: 720 })
  await openDraft(page, bridge.url, draft.draft.id)
  const find = page.getByRole('combobox', { name: 'Find an item' })
  await find.fill(grid.title)
  const options = page.getByRole('listbox', { name: 'Matching items' })
  const family = options.getByRole('option').filter({ hasText: String(parent.sku) })
  await expect(family).toContainText(`Family of ${grid.cells.length}:`)
  // Every member matches the title; none is offered on its own.
  for (const member of members)
    await expect(options.getByRole('option').filter({ hasText: String(member.sku) })).toHaveCount(0)
  await shoot(page, 'family-typeahead-1280x720.png')
  // By keyboard: down the list to the family, Enter.
  for (let step = 0; step < 8 && (await family.getAttribute('aria-selected')) !== 'true'; step++)
    await find.press('ArrowDown')
  await expect(family).toHaveAttribute('aria-selected', 'true')
  await find.press('Enter')
  const table = page.getByRole('table', { name: `Quantities of ${grid.title}` })
  await expect(
    table.locator(`input[data-sku="${grid.cells.find((cell) => cell.refused === null)!.sku}"]`),
  ).toBeFocused()
  expect((await call(core.handlers, 'getDraft', { id: draft.draft.id })).draft.lines).toEqual([])
})

test('a customer over their credit limit is warned on Send, and can still send', async ({ page, bridge, core }) => {
  const over = core.db
    .prepare<[], { guid: string; name: string }>(
      `SELECT guid, name FROM customers WHERE active = 1 AND deleted_at IS NULL AND require_po = 0 AND lock_catalog_id IS NULL
         AND json ->> '$.open_balance' > json ->> '$.credit_limit' ORDER BY id LIMIT 1`,
    )
    .get()!
  const { parent, members } = world(core)
  const draft = await call(core.handlers, 'createDraft', { customerGuid: over.guid, catalogGuid: parent.catalog_guid })
  const member = members.find((m) => m.active === true)!
  await call(core.handlers, 'addDraftLines', { id: draft.draft.id, lines: [{ catalogItemGuid: member.guid, qty: 1 }] })
  await page.setViewportSize({ width: 1366, height: 768 })
  await openDraft(page, bridge.url, draft.draft.id)
  await expect(page.getByTestId('account')).toContainText('Credit limit')
  await page.getByRole('button', { name: 'Send order' }).click()
  const dialog = page.getByRole('dialog', { name: 'Over the credit limit' })
  await expect(dialog).toBeVisible()
  await expect(dialog.getByTestId('credit-warning')).toContainText(over.name)
  await shoot(page, 'credit-warning-1366x768.png')
  await dialog.getByRole('button', { name: 'Send anyway' }).click()
  await expect(page.getByTestId('send-result')).toBeVisible()
  await settle(core)
  await expect(page.getByTestId('send-headline')).toContainText('Sent as')
})

test('in the catalog a family is a row with its price range and member count, and its grid adds to the order', async ({
  page,
  bridge,
  core,
}) => {
  const { parent, customerGuid } = world(core)
  const grid = await call(core.handlers, 'getItemFamily', { guid: parent.guid, customerGuid })
  const draft = await call(core.handlers, 'createDraft', { customerGuid, catalogGuid: parent.catalog_guid })
  await page.setViewportSize({ width: 1280, height: 720 })
  await page.goto(
    `${bridge.url}#/catalog?draft=${draft.draft.id}&customer=${customerGuid}&catalog=${parent.catalog_guid}`,
  )
  await page.getByLabel('Search catalog').fill(String(parent.sku))
  const scroller = page.getByTestId('catalog-scroller')
  await expect(scroller).toHaveAttribute('data-results-for', String(parent.sku))
  const row = scroller
    .getByRole('row')
    .filter({ hasText: String(parent.sku) })
    .first()
  await expect(row).toContainText('Family')
  await expect(row).toContainText(`${grid.cells.length} items`)
  const money = (n: number | null) => `$${n!.toFixed(2)}`
  await expect(row.getByRole('cell').nth(2)).toHaveText(`${money(grid.priceMin)}to ${money(grid.priceMax)}`)
  await shoot(page, 'catalog-family-row-1280x720.png')
  await row.getByRole('button', { name: `Open the grid of ${String(parent.sku)}` }).click()
  const table = page.getByRole('table', { name: `Quantities of ${grid.title}` })
  await expect(table.getByRole('textbox').first()).toBeFocused()
  await page.keyboard.type('3')
  await page.keyboard.press('Enter')
  await expect(page.getByTestId('adding-to-draft')).toContainText('Added 1 line to the order.')
  const lines = (await call(core.handlers, 'getDraft', { id: draft.draft.id })).draft.lines
  expect(lines.map((line) => [line.sku, line.qty])).toEqual([
    [grid.cells.find((cell) => cell.refused === null)!.sku, 3],
  ])
  await shoot(page, 'catalog-family-grid-1280x720.png')
})

test("screenshots: the catalog's family row and its grid at 1280×720 and 1366×768, light and dark", async ({
  page,
  bridge,
  core,
}) => {
  const { parent, customerGuid } = world(core)
  const grid = await call(core.handlers, 'getItemFamily', { guid: parent.guid, customerGuid })
  const draft = await call(core.handlers, 'createDraft', { customerGuid, catalogGuid: parent.catalog_guid })
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme })
    for (const [width, height] of [
      [1280, 720],
      [1366, 768],
    ] as const) {
      await page.setViewportSize({ width, height })
      await page.goto(
        `${bridge.url}#/catalog?draft=${draft.draft.id}&customer=${customerGuid}&catalog=${parent.catalog_guid}`,
      )
      // The family's title: the family row among the items that share its words, its members folded into it.
      await page.getByLabel('Search catalog').fill(grid.title)
      const scroller = page.getByTestId('catalog-scroller')
      await expect(scroller).toHaveAttribute('data-results-for', grid.title)
      const row = scroller.getByRole('row').filter({ hasText: String(parent.sku) })
      await expect(row).toHaveCount(1)
      await expect(row).toContainText('Family')
      await shoot(page, `catalog-family-row-${width}x${height}-${scheme}.png`)
      await row.getByRole('button', { name: `Open the grid of ${String(parent.sku)}` }).click()
      const table = page.getByRole('table', { name: `Quantities of ${grid.title}` })
      await expect(table.getByRole('textbox').first()).toBeFocused()
      await shoot(page, `catalog-family-grid-${width}x${height}-${scheme}.png`)
      await page.getByRole('button', { name: 'Close the family grid' }).click()
    }
  }
})
