/**
 * Adding to an order from the customer's usual items and from search results lands on that
 * customer's draft at that customer's price: the price of their price group as the catalog shows it
 * for them, not the catalog's main price. From the usual items on the customer's page (a new draft)
 * and in order entry (the open draft); from the catalog's search results (a row's "Add to order") and
 * order entry's "Find an item". Then each screen at 1280×720, 320 px and 200%, light and dark: read by
 * axe, nothing cut off, saved as test-results/screenshots/add-to-order-*.png.
 */
import type { Page } from '@playwright/test'
import type { CatalogItemSummary } from '../../src/shared/synced'
import type { TestCore } from '../support/core'
import { test, call, expect, findOrderWorld, settle, watchConsole, type OrderWorld } from './harness'
import { axeProblems, clippedText, inLayout, layouts, shootAs } from './looks'
import { reflowProblems } from './reflow-problems'
import { money } from './workspace'

test.describe.configure({ timeout: 150_000 })
test.use({ viewport: { width: 1280, height: 720 } })

/**
 * Items the customer's group prices apart from the catalog's main group, with no break at one: a line
 * priced at the main price (the wrong customer, or none) would show.
 */
async function pricedApart(core: TestCore, world: OrderWorld): Promise<CatalogItemSummary[]> {
  const main = await call(core.handlers, 'searchCatalogItems', { catalogGuid: world.catalogGuid, limit: 500 })
  const mainPrice = new Map(main.items.map((item) => [item.guid, item.price]))
  const apart = world.plain.filter(
    (item) => mainPrice.get(item.guid) !== item.price && (!item.priceBreak || item.priceBreak.qty > 1),
  )
  expect(apart.length, 'items priced apart for the customer’s group').toBeGreaterThanOrEqual(4)
  return apart
}

/** The price the catalog shows for the customer on the item's row, found by its SKU. */
async function catalogPrice(page: Page, url: string, world: OrderWorld, sku: string): Promise<string> {
  await page.goto(`${url}#/catalog?customer=${world.customer.guid}&catalog=${world.catalogGuid}`)
  await page.getByLabel('Search catalog').fill(sku)
  const scroller = page.getByTestId('catalog-scroller')
  await expect(scroller).toHaveAttribute('data-results-for', sku)
  const row = scroller.getByRole('row').filter({ has: page.getByRole('cell', { name: sku, exact: true }) })
  return (await row.locator('.price > span').first().innerText()).trim()
}

/** The draft's line for `sku`: on that customer's draft, at that quantity, priced `price` on screen and in the core. */
async function expectLine(
  page: Page,
  core: TestCore,
  world: OrderWorld,
  draftId: number,
  sku: string,
  qty: number,
  price: string,
): Promise<void> {
  const check = await call(core.handlers, 'getDraft', { id: draftId })
  expect(check.draft.customerGuid).toBe(world.customer.guid)
  expect(check.priceGroup?.name).toBe(world.priceGroupName)
  const line = check.draft.lines.find((each) => each.sku === sku)
  expect(line?.qty).toBe(qty)
  expect(money(check.lines.find((each) => each.lineId === line!.lineId)!.unitPrice!)).toBe(price)
  await expect(page.getByRole('heading', { level: 1 })).toContainText(`for ${world.customer.name}`)
  const row = page.getByRole('row').filter({ has: page.getByRole('spinbutton', { name: `Quantity for ${sku}` }) })
  await expect(row.locator('td[data-label="Unit price"]')).toHaveText(price)
}

/** The screens of a test at every layout and scheme: axe, tags and text not cut off, sideways scrolling. */
async function lookAtEach(page: Page, name: string, urls: [url: string, shown: string | null][]): Promise<void> {
  const problems: string[] = []
  const browser = page.context().browser()!
  for (const layout of layouts)
    for (const scheme of ['light', 'dark'] as const)
      await inLayout(browser, layout, scheme, async (look) => {
        for (const [index, [url, shown]] of urls.entries()) {
          await look.goto(url)
          await expect(look.getByRole('heading', { level: 1 })).toBeVisible()
          await look.waitForLoadState('networkidle')
          if (shown) {
            // Its rows come after the heading: looked at once they are there.
            // The page draws it again as the customer's record comes in: scrolled to once it stays.
            await expect(async () => {
              await expect(look.getByTestId(shown).getByRole('row').nth(1)).toBeVisible()
              await look.getByTestId(shown).scrollIntoViewIfNeeded({ timeout: 1_000 })
            }).toPass()
          }
          await shootAs(look, `add-to-order-${name}-${index + 1}-${layout.name}-${scheme}.png`)
          const where = `${layout.name} ${scheme} ${url.replace(/^.*#/, '')}`
          for (const problem of await axeProblems(look, scheme)) problems.push(`${where} axe: ${problem}`)
          for (const problem of await clippedText(look, '.tag')) problems.push(`${where} tag cut off: ${problem}`)
          for (const problem of await reflowProblems(look)) problems.push(`${where} reflow: ${problem}`)
        }
      })
  for (const problem of problems) console.log(`add to order: ${problem}`)
  expect(problems).toEqual([])
}

test('the usual items add to that customer’s draft at their price group’s price', async ({ page, bridge, core }) => {
  const errors = watchConsole(page)
  const world = await findOrderWorld(core.handlers)
  const [first, second] = await pricedApart(core, world)
  // Ordered from this laptop today: their usual items, at the quantities sent.
  const sent = await call(core.handlers, 'createDraft', {
    customerGuid: world.customer.guid,
    catalogGuid: world.catalogGuid,
  })
  await call(core.handlers, 'addDraftLines', {
    id: sent.draft.id,
    lines: [
      { catalogItemGuid: first!.guid, qty: 1 },
      { catalogItemGuid: second!.guid, qty: 1 },
    ],
  })
  await call(core.handlers, 'sendDraft', { id: sent.draft.id })
  await call(core.handlers, 'flushOutbox')
  await settle(core)

  const firstPrice = await catalogPrice(page, bridge.url, world, first!.sku)
  const secondPrice = await catalogPrice(page, bridge.url, world, second!.sku)
  expect(firstPrice).toBe(money(first!.price!))

  // On the customer's page: a new draft for them, the line at the price the catalog showed.
  await page.goto(`${bridge.url}#/customers/${world.customer.guid}`)
  const panel = page.getByTestId('usual-items')
  const usualRow = panel.locator(`tr[data-usual="${first!.sku}"]`)
  await expect(usualRow.locator('td[data-label="Price"]')).toHaveText(firstPrice)
  await usualRow.getByRole('button', { name: `Add ${first!.sku} × 1` }).click()
  await expect(page).toHaveURL(/#\/drafts\/\d+$/)
  const draftId = Number(/#\/drafts\/(\d+)$/.exec(page.url())![1])
  await expectLine(page, core, world, draftId, first!.sku, 1, firstPrice)

  // In order entry: onto the draft open on screen, not a new one.
  const inEntry = page.getByTestId('usual-items').locator(`tr[data-usual="${second!.sku}"]`)
  await expect(inEntry.locator('td[data-label="Price"]')).toHaveText(secondPrice)
  await inEntry.getByRole('button', { name: `Add ${second!.sku} × 1` }).click()
  await expect(page.getByRole('spinbutton', { name: `Quantity for ${second!.sku}` })).toHaveValue('1')
  await expectLine(page, core, world, draftId, second!.sku, 1, secondPrice)
  const theirs = (await call(core.handlers, 'listDrafts')).filter((d) => d.customerGuid === world.customer.guid)
  expect(theirs.map((d) => d.id)).toEqual([draftId])
  expect(errors).toEqual([])

  await lookAtEach(page, 'usual', [
    [`${bridge.url}#/customers/${world.customer.guid}`, 'usual-items'],
    [`${bridge.url}#/drafts/${draftId}`, 'usual-items'],
  ])
})

test('search results add to that customer’s draft at their price group’s price', async ({ page, bridge, core }) => {
  const errors = watchConsole(page)
  const world = await findOrderWorld(core.handlers)
  const [, , third, fourth] = await pricedApart(core, world)

  // The catalog's search results for the customer: the row's price, and "Add to order" starts their draft.
  const thirdPrice = await catalogPrice(page, bridge.url, world, third!.sku)
  expect(thirdPrice).toBe(money(third!.price!))
  const scroller = page.getByTestId('catalog-scroller')
  await scroller.getByRole('button', { name: `Add ${third!.sku} to order` }).click()
  await expect(page.getByTestId('adding-to-draft')).toContainText(`Added ${third!.sku} to a new order`)
  const [draft] = (await call(core.handlers, 'listDrafts')).filter((d) => d.customerGuid === world.customer.guid)
  expect(draft).toBeDefined()
  const fourthPrice = await catalogPrice(page, bridge.url, world, fourth!.sku)

  // Order entry's "Find an item": the option at the customer's price, and Enter adds it to this draft.
  await page.goto(`${bridge.url}#/drafts/${draft!.id}`)
  await expectLine(page, core, world, draft!.id, third!.sku, 1, thirdPrice)
  const find = page.getByRole('combobox', { name: 'Find an item' })
  await find.fill(fourth!.sku)
  const option = page.getByRole('option').filter({ hasText: fourth!.sku }).first()
  await expect(option).toContainText(fourthPrice)
  await expect(option).toHaveAttribute('aria-selected', 'true')
  await find.press('Enter')
  await expect(page.getByRole('spinbutton', { name: `Quantity for ${fourth!.sku}` })).toHaveValue('1')
  await expectLine(page, core, world, draft!.id, fourth!.sku, 1, fourthPrice)
  expect(errors).toEqual([])

  await lookAtEach(page, 'search', [
    [`${bridge.url}#/catalog?customer=${world.customer.guid}&catalog=${world.catalogGuid}`, null],
    [`${bridge.url}#/drafts/${draft!.id}`, null],
  ])
})
