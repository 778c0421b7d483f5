/**
 * Reflow (WCAG 1.4.10) and resize text (1.4.4), which axe does not test: every main screen, with the
 * data a rep has (lines with problems, a rejected order, a quote, a document, an order shipped in
 * part and marked changed), at 320 CSS px wide, at
 * 200% zoom of a 1280×720 laptop (640×360 CSS px at two device pixels each), at 900 px and at
 * 1280×720, in light and dark, with a long status line (a last sync minutes ago, two-digit counts in
 * both outbox slots). Nothing scrolls sideways, no text is cut off, the frame
 * (top bar and status bar) leaves the screen to the content, 80 CSS px at most in the compact
 * frame, and each state is saved as test-results/screenshots/reflow-*.png to be looked at.
 */
import { join } from 'node:path'
import type { Page } from '@playwright/test'
import {
  screenshotDir,
  test,
  call,
  findOrderWorld,
  lineNoLongerOffered,
  expect,
  orderable,
  queueOrder,
  settle,
  refuseOrders,
  sendOrder,
} from './harness'
import { reflowProblems } from './reflow-problems'
import { eachWritesDialog, writesWorld } from './writes-world'

test.describe.configure({ timeout: 180_000 })

interface Layout {
  name: string
  viewport: { width: number; height: number }
  deviceScaleFactor: number
  /** Narrow enough that the sidebar gives its width to the content. */
  compact: boolean
  /**
   * The most CSS px the fixed frame (the top bar and the status bar) may take: at 200% zoom, 80 of
   * 360; at 320 px, the status bar may wrap to a second line (96 of 640).
   */
  frameMax: number
}

const layouts: Layout[] = [
  { name: '320', viewport: { width: 320, height: 640 }, deviceScaleFactor: 1, compact: true, frameMax: 96 },
  { name: 'zoom200', viewport: { width: 640, height: 360 }, deviceScaleFactor: 2, compact: true, frameMax: 80 },
  { name: '900', viewport: { width: 900, height: 720 }, deviceScaleFactor: 1, compact: false, frameMax: 720 },
  { name: '1280', viewport: { width: 1280, height: 720 }, deviceScaleFactor: 1, compact: false, frameMax: 720 },
]

/** How much of the window the frame leaves to the screen's own content, and the status bar's height. */
async function contentShare(page: Page): Promise<{ width: number; height: number; status: number; header: number }> {
  return page.evaluate(() => {
    const main = document.getElementById('main')!.getBoundingClientRect()
    const status = document.querySelector('footer.statusbar')?.getBoundingClientRect().height ?? 0
    // The sidebar is a bar above the content only in the compact frame; beside it, it takes no height.
    const nav = document.querySelector('nav.sidebar')!.getBoundingClientRect()
    const header = nav.width >= window.innerWidth - 2 ? nav.height : 0
    return { width: main.width / window.innerWidth, height: main.height / window.innerHeight, status, header }
  })
}

for (const layout of layouts) {
  test.describe(`at ${layout.name}`, () => {
    test.use({ viewport: layout.viewport, deviceScaleFactor: layout.deviceScaleFactor })

    test(`every main screen reflows at ${layout.name}, light and dark`, async ({ page, bridge, service, core }) => {
      const target = orderable(core)
      // The outbox holds a rejected order, with the supplier's reason, and a sent one.
      refuseOrders(service)
      await sendOrder(core, target)
      await sendOrder(core, target)
      // Nine more rejected: "10 need attention", two digits in that slot of the status bar.
      refuseOrders(service, [{ type: 'ITEM_INACTIVE', line: 0, message: 'Item is inactive' }], 9)
      for (let count = 0; count < 9; count++) await sendOrder(core, target)
      await call(core.handlers, 'syncNow', {})
      const { orders } = await call(core.handlers, 'listOrders', { limit: 1 })
      // After Send: the order shipped in part, the rest backordered, so its page has every column,
      // the timeline and a related order, and the Orders list a changed mark.
      service.current.control.fulfilOrder(orders[0]!.guid, {
        kind: 'ship',
        lines: [{ itemNo: 1, qty: 1 }],
        backorderRest: true,
      })
      await call(core.handlers, 'syncNow', {})

      // A draft whose lines show every column and every kind of problem: a line not offered to the
      // customer's group, one under its minimum, and plain ones with notes.
      const world = await findOrderWorld(core.handlers)
      const draft = await call(core.handlers, 'createDraft', {
        customerGuid: world.customer.guid,
        catalogGuid: world.catalogGuid,
      })
      await call(core.handlers, 'addDraftLines', {
        id: draft.draft.id,
        lines: world.plain.slice(0, 3).map((item, index) => ({ catalogItemGuid: item.guid, qty: 1 + index * 40 })),
      })
      await lineNoLongerOffered(core, service, world, draft.draft.id, 2)
      await call(core.handlers, 'addDraftLines', {
        id: draft.draft.id,
        lines: [{ catalogItemGuid: world.minimum.guid, qty: 1 }],
      })
      const quoteDraft = await call(core.handlers, 'createDraft', {
        customerGuid: world.customer.guid,
        catalogGuid: world.catalogGuid,
      })
      await call(core.handlers, 'addDraftLines', {
        id: quoteDraft.draft.id,
        lines: world.plain.slice(0, 3).map((item) => ({ catalogItemGuid: item.guid, qty: 12 })),
      })
      const quote = await call(core.handlers, 'saveDraftAsQuote', { draftId: quoteDraft.draft.id })

      // The longest status line the bar can show: "Main · Online · 59 minutes ago · 2 sync warnings ·
      // 10 waiting · 10 need attention". The warning first: an item the supplier changed comes back
      // with an impossible price, so the delta stores nothing of it and the last sync says so.
      const onLines = new Set([...world.plain, world.notOffered, world.minimum].map((item) => item.guid))
      const changed = service.current.control
        .catalogItems(world.catalogGuid)
        .map((item) => ({ guid: String(item.guid), name: String(item.name) }))
        .find((item) => !onLines.has(item.guid))!
      service.current.control.update('catalogItem', changed.guid, { name: `${changed.name} (new label)` })
      service.current.control.addFault({
        route: 'GET /v1/catalog/:catalogGuid/catalog_items',
        type: 'badPricing',
        values: ['negative'],
        keys: [],
      })
      await call(core.handlers, 'syncNow', {})
      // Then ten orders wait, the supplier asking for an hour's patience (which holds the next sync
      // back too, so the warning stays the last sync's word).
      service.current.control.addFault({
        route: 'POST /v1/orderWithItems',
        type: 'rateLimit',
        retryAfterSeconds: 3600,
        times: 1000,
      })
      for (let count = 0; count < 10; count++) await queueOrder(core, target)
      await settle(core)
      // The page's clock an hour on, less a minute: "59 minutes ago".
      await page.clock.setFixedTime(new Date(Date.now() + 59 * 60_000 + 20_000))

      const screens: [string, string][] = [
        ['customers', '#/customers'],
        ['customer', `#/customers/${world.customer.guid}`],
        ['customer-brief', `#/customers/${world.customer.guid}/brief`],
        ['new-customer', '#/customers/new'],
        ['catalog', `#/catalog?customer=${world.customer.guid}&catalog=${world.catalogGuid}`],
        ['catalog-adding', `#/catalog?draft=${draft.draft.id}`],
        ['order-entry', `#/drafts/${draft.draft.id}`],
        ['orders', '#/orders'],
        ['orders-changed', '#/orders?changed=1'],
        ['order', `#/orders/${orders[0]!.guid}`],
        ['outbox', '#/outbox'],
        ['drafts', '#/drafts'],
        ['quotes', '#/quotes'],
        ['quote', `#/quotes/${quote.id}`],
        ['settings', '#/settings'],
        ['document', `#/documents/order/${orders[0]!.guid}`],
        ['quote-document', `#/documents/quote/${quote.id}`],
      ]
      const problems: string[] = []
      for (const scheme of ['light', 'dark'] as const) {
        await page.emulateMedia({ colorScheme: scheme })
        for (const [screen, hash] of screens) {
          await page.goto(`${bridge.url}${hash}`)
          await expect(page.getByRole('heading', { level: 1 })).toBeVisible()
          // Lists and records load after the heading; check what the rep actually sees.
          await page.waitForLoadState('networkidle')
          await page.waitForTimeout(300)
          if (screen === 'customers') {
            const bar = page.locator('footer.statusbar')
            await expect(bar).toContainText(/59 minutes ago/)
            await expect(bar).toContainText(/10 waiting/)
            await expect(bar).toContainText('10 need attention')
            await expect(bar).toContainText(/\d+ sync warnings?/)
          }
          for (const problem of await reflowProblems(page)) problems.push(`${scheme} ${screen}: ${problem}`)
          const share = await contentShare(page)
          // At 200% the status bar took 66 px of 360 and the sidebar 200 of 640: the frame is chrome,
          // the screen is the work.
          if (layout.compact && share.width < 0.97)
            problems.push(`${scheme} ${screen}: the content has ${Math.round(share.width * 100)}% of the width`)
          // The fixed frame, the top bar and the status bar together, leaves the rest to the work.
          if (share.header + share.status > layout.frameMax)
            problems.push(
              `${scheme} ${screen}: the top bar and status bar take ${Math.round(share.header + share.status)} px, more than ${layout.frameMax}`,
            )
          if (share.height < 0.6)
            problems.push(`${scheme} ${screen}: the content has ${Math.round(share.height * 100)}% of the height`)
          await page.screenshot({ path: join(screenshotDir, `reflow-${layout.name}-${scheme}-${screen}.png`) })
          // The lines of a draft, an order or a quote are below the fold in a small window: look at them too.
          const lines = page.locator('main table, main [role="table"]').first()
          if (await lines.count()) {
            await lines.scrollIntoViewIfNeeded()
            await page.screenshot({ path: join(screenshotDir, `reflow-${layout.name}-${scheme}-${screen}-lines.png`) })
          }
        }
      }
      for (const problem of problems) console.log(`reflow ${layout.name}: ${problem}`)
      expect(problems).toEqual([])
    })
  })
}

test('the writes-after-Send dialogs and the Outbox with a conflict reflow at every layout, light and dark', async ({
  page,
  bridge,
  service,
  core,
}) => {
  const world = await writesWorld(core, service)
  const problems: string[] = []
  // 200% is its CSS size here (640×360): the layout is the same whatever the device pixels.
  for (const layout of layouts) {
    await page.setViewportSize(layout.viewport)
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme })
      await eachWritesDialog(page, bridge.url, world, async (name) => {
        await page.waitForTimeout(200)
        for (const problem of await reflowProblems(page)) problems.push(`${layout.name} ${scheme} ${name}: ${problem}`)
        // The dialog's buttons are in view however long the form: sticky at its foot.
        const dialog = page.getByRole('dialog')
        if (await dialog.count()) await expect(dialog.locator('button[type="submit"]')).toBeInViewport()
        await page.screenshot({ path: join(screenshotDir, `reflow-${layout.name}-${scheme}-${name}.png`) })
      })
    }
  }
  for (const problem of problems) console.log(`reflow: ${problem}`)
  expect(problems).toEqual([])
})

test.describe('the compact frame', () => {
  test.use({ viewport: { width: 640, height: 360 }, deviceScaleFactor: 2 })

  test('at 200% the sections sit behind a menu button that works by keyboard', async ({ page, bridge }) => {
    await page.goto(`${bridge.url}#/customers`)
    await expect(page.getByRole('heading', { level: 1, name: 'Customers' })).toBeVisible()
    const nav = page.getByRole('navigation', { name: 'Main' })
    const menu = nav.getByRole('button', { name: 'Menu' })
    await expect(menu).toHaveAttribute('aria-expanded', 'false')
    await expect(nav.getByRole('link', { name: /^Outbox/ })).toBeHidden()

    await menu.focus()
    await page.keyboard.press('Enter')
    await expect(menu).toHaveAttribute('aria-expanded', 'true')
    const outbox = nav.getByRole('link', { name: /^Outbox/ })
    await expect(outbox).toBeVisible()
    await page.screenshot({ path: join(screenshotDir, 'reflow-zoom200-menu-open.png') })
    // Escape closes it and gives focus back to the button.
    await page.keyboard.press('Escape')
    await expect(menu).toHaveAttribute('aria-expanded', 'false')
    await expect(menu).toBeFocused()

    // Tab reaches the sections in order; choosing one goes there and folds the menu away.
    await page.keyboard.press('Enter')
    await page.keyboard.press('Tab')
    await expect(nav.getByRole('link', { name: /^Customers/ })).toBeFocused()
    await outbox.focus()
    await page.keyboard.press('Enter')
    await expect(page.getByRole('heading', { level: 1, name: 'Outbox' })).toBeVisible()
    await expect(menu).toHaveAttribute('aria-expanded', 'false')
    await expect(outbox).toBeHidden()
  })
})

test.describe('a long SKU at 320 px', () => {
  test.use({ viewport: { width: 320, height: 640 } })

  test('breaks in its own cell and does not run under Remove', async ({ page, bridge, service, core }) => {
    const world = await findOrderWorld(core.handlers)
    const item = world.plain[0]!
    const sku = 'BCF-COLOMBIAN-SUPREMO-WHOLE-BEAN-5LB-CASE-0001'
    service.current.control.update('catalogItem', item.guid, { sku })
    expect((await call(core.handlers, 'syncNow', {})).ok).toBe(true)
    const draft = await call(core.handlers, 'createDraft', {
      customerGuid: world.customer.guid,
      catalogGuid: world.catalogGuid,
    })
    await call(core.handlers, 'addDraftLines', { id: draft.draft.id, lines: [{ catalogItemGuid: item.guid, qty: 1 }] })
    await page.goto(`${bridge.url}#/drafts/${draft.draft.id}`)
    const line = page.locator(`tbody.line[data-line="${sku}"]`)
    const cell = line.locator('td.sku')
    const remove = line.getByRole('button', { name: `Remove ${sku}` })
    await expect(cell).toHaveText(sku)
    await cell.scrollIntoViewIfNeeded()
    const [text, button] = [await cell.evaluate(textBox), (await remove.boundingBox())!]
    const overlaps =
      text.left < button.x + button.width &&
      button.x < text.right &&
      text.top < button.y + button.height &&
      button.y < text.bottom
    await page.screenshot({ path: join(screenshotDir, 'reflow-320-long-sku.png') })
    expect(overlaps, `SKU text ${JSON.stringify(text)} against Remove ${JSON.stringify(button)}`).toBe(false)
    expect(await reflowProblems(page)).toEqual([])
  })
})

/** Where a cell's text is drawn, which may run past the cell's own box. */
function textBox(cell: Element): { left: number; right: number; top: number; bottom: number } {
  const range = document.createRange()
  range.selectNodeContents(cell)
  const rect = range.getBoundingClientRect()
  return { left: rect.left, right: rect.right, top: rect.top, bottom: rect.bottom }
}

test.describe('lines at 1280×720', () => {
  test.use({ viewport: { width: 1280, height: 720 } })

  test('an order page keeps each SKU on one line', async ({ page, bridge, core }) => {
    const target = orderable(core, 3)
    await sendOrder(core, target)
    expect((await call(core.handlers, 'syncNow', {})).ok).toBe(true)
    const { orders } = await call(core.handlers, 'listOrders', { limit: 1 })
    await page.goto(`${bridge.url}#/orders/${orders[0]!.guid}`)
    // The full order as the supplier has it: the table with every column, the narrowest for its SKUs.
    await expect(page.getByRole('columnheader', { name: 'Backordered' })).toBeVisible()
    for (const sku of target.skus) {
      const cell = page.getByRole('cell', { name: sku, exact: true })
      await expect(cell).toBeVisible()
      expect(await cell.evaluate(lineBoxes), `${sku} is drawn on one line`).toBe(1)
    }
    await page.screenshot({ path: join(screenshotDir, 'reflow-1280-order-skus.png') })
  })

  test('a quote page keeps each SKU, and each column name, on one line', async ({ page, bridge, core }) => {
    const target = orderable(core, 3)
    const draft = await call(core.handlers, 'createDraft', {
      customerGuid: target.customerGuid,
      catalogGuid: target.catalogGuid,
    })
    const added = await call(core.handlers, 'addDraftLines', {
      id: draft.draft.id,
      lines: target.skus.map((sku) => ({ sku, qty: 12 })),
    })
    // A line's note as a rep writes them: long enough that the table gives the item column all it can.
    const note = 'Deliver to the side door before 7 am; the kitchen closes for cleaning at noon on Fridays, call ahead'
    await call(core.handlers, 'updateDraftLine', { id: draft.draft.id, lineId: added.lineIds[0]!, note })
    const quote = await call(core.handlers, 'saveDraftAsQuote', { draftId: draft.draft.id })
    await page.goto(`${bridge.url}#/quotes/${quote.id}`)
    for (const sku of target.skus) {
      const cell = page.getByRole('cell', { name: sku, exact: true })
      await expect(cell).toBeVisible()
      expect(await cell.evaluate(lineBoxes), `${sku} is drawn on one line`).toBe(1)
    }
    for (const name of ['Qty', 'Unit price', 'Line total']) {
      const header = page.getByRole('columnheader', { name, exact: true })
      expect(await header.evaluate(lineBoxes), `the column "${name}" is named on one line`).toBe(1)
    }
    await page.screenshot({ path: join(screenshotDir, 'reflow-1280-quote-skus.png') })
  })
})

/** How many lines a cell's text is drawn on. */
function lineBoxes(cell: Element): number {
  const range = document.createRange()
  range.selectNodeContents(cell)
  return new Set([...range.getClientRects()].map((rect) => Math.round(rect.top))).size
}
