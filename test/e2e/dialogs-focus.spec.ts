/**
 * Every dialog of the window keeps the keyboard user's place (dialog-focus.ts): it opens on one of
 * its controls, Tab and Shift+Tab go round inside it, and Escape or its close and cancel buttons put
 * focus back on what opened it. Each at 1280×720, 320 px and 200% (Tab and Shift+Tab go round at
 * 1280, the dialog driver's trap being the same at every size), read by axe while open (light at each
 * size, dark at 1280: a scheme changes colours, not layout), and saved as
 * test-results/screenshots/dialog-*.png. The dialogs: the keyboard
 * shortcuts, New order's open-draft choice, New customer, Edit customer, Delete draft (the drafts
 * list and the order), Over the credit limit, Change… and Submit… on a sent order, the Outbox's
 * Discard, Delete quote, and Remove profile.
 */
import type { Page } from '@playwright/test'
import type { TestCore } from '../support/core'
import { test, call, expect, orderable, refuseOrders, sendOrder, type ServiceHandle } from './harness'
import { dialogFocusProblems } from './dialog-focus'
import { axeProblems, layouts, shootAs } from './looks'
import { startProfilesWorld } from './profiles-world'
import { sentAndSynced, startWrites } from './writes-world'

test.describe.configure({ timeout: 180_000 })

type Under = Parameters<typeof dialogFocusProblems>[1] & { url: string }

/** Each dialog at each layout: its focus, then axe in light and dark and a picture, all while open. */
async function checkEach(page: Page, dialogs: (page: Page) => Under[]): Promise<void> {
  const problems: string[] = []
  for (const layout of layouts) {
    await page.setViewportSize(layout.viewport)
    for (const under of dialogs(page)) {
      await page.goto(under.url)
      await expect(page.getByRole('heading', { level: 1 })).toBeVisible()
      const where = `${layout.name} ${under.name}`
      const goRound = layout === layouts[0]
      for (const problem of await dialogFocusProblems(page, under, { goRound }))
        problems.push(`${layout.name} ${problem}`)
      // Opened once more, to be looked at.
      await under.before?.()
      await under.opener.click()
      if (!(await under.dialog.isVisible())) await under.open?.(page)
      await expect(under.dialog).toBeVisible()
      // Dark changes colours, not layout: its contrast is read at the first size, light at each.
      for (const scheme of goRound ? (['light', 'dark'] as const) : (['light'] as const)) {
        await page.emulateMedia({ colorScheme: scheme })
        for (const problem of await axeProblems(page, scheme, 'dialog[open]'))
          problems.push(`${where} ${scheme} axe: ${problem}`)
        await shootAs(page, `dialog-${under.name.replaceAll(' ', '-').toLowerCase()}-${layout.name}-${scheme}.png`)
      }
      await page.emulateMedia({ colorScheme: 'light' })
      await page.keyboard.press('Escape')
      await expect(under.dialog).toBeHidden()
    }
  }
  for (const problem of problems) console.log(`dialogs: ${problem}`)
  expect(problems).toEqual([])
}

test('the keyboard shortcuts and New order’s open-draft choice keep focus', async ({ page, bridge, core }) => {
  const target = orderable(core)
  await call(core.handlers, 'createDraft', { customerGuid: target.customerGuid, catalogGuid: target.catalogGuid })
  const customer = `${bridge.url}#/customers/${target.customerGuid}`
  await checkEach(page, (p) => [
    {
      name: 'Keyboard shortcuts',
      url: `${bridge.url}#/orders`,
      dialog: p.getByRole('dialog', { name: 'Keyboard shortcuts' }),
      // Any control of the page: "?" opens the overlay from wherever the rep is.
      opener: p.getByRole('main').getByRole('link').first(),
      open: (each) => each.keyboard.press('?'),
      closers: ['Close'],
    },
    {
      name: 'Open draft choice',
      url: customer,
      dialog: p.getByRole('dialog', { name: /already has an open draft/ }),
      opener: p.getByRole('button', { name: 'New order' }),
      closers: ['Cancel'],
    },
  ])
})

test('New customer and Edit customer keep focus', async ({ page, bridge, core }) => {
  const target = orderable(core)
  const customer = `${bridge.url}#/customers/${target.customerGuid}`
  await checkEach(page, (p) => [
    {
      name: 'New customer',
      url: `${bridge.url}#/customers`,
      dialog: p.getByRole('dialog', { name: 'New customer' }),
      opener: p.getByRole('button', { name: 'New customer', exact: true }),
      closers: ['Cancel'],
    },
    {
      name: 'Edit customer',
      url: customer,
      dialog: p.getByRole('dialog', { name: /^Edit / }),
      opener: p.getByRole('button', { name: 'Edit', exact: true }),
      closers: ['Cancel'],
    },
  ])
})

/** A customer whose open balance is past their credit limit, free to order from any catalog. */
function overTheLimit(core: TestCore): string {
  return core.db
    .prepare<[], string>(
      `SELECT guid FROM customers WHERE active = 1 AND deleted_at IS NULL AND require_po = 0 AND lock_catalog_id IS NULL
         AND json ->> '$.open_balance' > json ->> '$.credit_limit' ORDER BY id LIMIT 1`,
    )
    .pluck()
    .get()!
}

test('Delete draft on the drafts list and on the order, and Over the credit limit, keep focus', async ({
  page,
  bridge,
  core,
}) => {
  const target = orderable(core)
  const customerGuid = overTheLimit(core)
  const draft = await call(core.handlers, 'createDraft', { customerGuid, catalogGuid: target.catalogGuid })
  await call(core.handlers, 'addDraftLines', { id: draft.draft.id, lines: [{ sku: target.skus[0]!, qty: 1 }] })
  const id = draft.draft.id
  await checkEach(page, (p) => [
    {
      name: 'Delete draft from the list',
      url: `${bridge.url}#/drafts`,
      dialog: p.getByRole('dialog', { name: 'Delete this draft?' }),
      opener: p.getByRole('button', { name: `Delete draft #${id}` }),
      closers: ['Cancel'],
    },
    {
      name: 'Delete draft on the order',
      url: `${bridge.url}#/drafts/${id}`,
      dialog: p.getByRole('dialog', { name: 'Delete this draft?' }),
      opener: p.getByRole('button', { name: 'Delete draft', exact: true }),
      closers: ['Cancel'],
    },
    {
      name: 'Over the credit limit',
      url: `${bridge.url}#/drafts/${id}`,
      dialog: p.getByRole('dialog', { name: 'Over the credit limit' }),
      opener: p.getByRole('button', { name: 'Send order' }),
      closers: ['Cancel'],
    },
  ])
})

async function refusedOrder(core: TestCore, service: ServiceHandle): Promise<void> {
  refuseOrders(service)
  await sendOrder(core, orderable(core))
}

test('Change… and Submit… on a sent order, and the Outbox’s Discard, keep focus', async ({
  page,
  bridge,
  service,
  core,
}) => {
  await startWrites(page, core, service)
  const order = await sentAndSynced(core, service, { inReview: true })
  await refusedOrder(core, service)
  const orderPage = `${bridge.url}#/orders/${order.guid}`
  await checkEach(page, (p) => [
    {
      name: 'Change order',
      url: orderPage,
      dialog: p.getByRole('dialog', { name: /Change order/ }),
      opener: p.getByRole('button', { name: 'Change…' }),
      closers: ['Cancel'],
    },
    {
      name: 'Submit order',
      url: orderPage,
      dialog: p.getByRole('dialog', { name: /Submit order/ }),
      opener: p.getByRole('button', { name: 'Submit…' }),
      closers: ['Cancel'],
    },
    {
      name: 'Discard order',
      url: `${bridge.url}#/outbox`,
      dialog: p.getByRole('dialog', { name: 'Discard this order?' }),
      opener: p.getByRole('button', { name: 'Discard', exact: true }),
      closers: ['Keep it'],
    },
  ])
})

test('Delete quote keeps focus', async ({ page, bridge, core }) => {
  const target = orderable(core)
  const draft = await call(core.handlers, 'createDraft', {
    customerGuid: target.customerGuid,
    catalogGuid: target.catalogGuid,
  })
  await call(core.handlers, 'addDraftLines', { id: draft.draft.id, lines: [{ sku: target.skus[0]!, qty: 1 }] })
  const quote = await call(core.handlers, 'saveDraftAsQuote', { draftId: draft.draft.id })
  await checkEach(page, (p) => [
    {
      name: 'Delete quote',
      url: `${bridge.url}#/quotes/${quote.id}`,
      dialog: p.getByRole('dialog', { name: `Delete quote ${quote.number}?` }),
      opener: p.getByRole('button', { name: 'Delete quote' }),
      closers: ['Cancel'],
    },
  ])
})

test('Remove profile keeps focus', async ({ page }) => {
  const world = await startProfilesWorld()
  try {
    await checkEach(page, (p) => [
      {
        name: 'Remove profile',
        url: `${world.bridge.url}#/settings`,
        dialog: p.getByRole('dialog', { name: 'Remove the profile Coastal?' }),
        opener: p.getByRole('button', { name: 'Remove the profile Coastal' }),
        closers: ['Keep it'],
      },
    ])
  } finally {
    await world.close()
  }
})
