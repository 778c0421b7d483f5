/**
 * A new customer the supplier may already have twice, as the rep meets it on the Outbox: its first
 * attempt's answer was lost, and the supplier's office made a customer of the same name and phone
 * meanwhile. The entry asks "Which customer is this?" with both, beside what the rep entered; the
 * order for it says what it waits for; the rep picks one, and the order goes to that customer. At
 * 1280, 900 and 320 px and 200% zoom, light and dark, with no serious axe finding.
 */
import AxeBuilder from '@axe-core/playwright'
import { test, call, expect, orderable, settle, shoot, watchConsole } from './harness'

test.describe.configure({ timeout: 60_000 })

test('a new customer the supplier may have twice asks which is this one; the order goes to the one the rep picks', async ({
  page,
  bridge,
  service,
  core,
}) => {
  const errors = watchConsole(page)
  const target = orderable(core)
  const control = service.current.control
  control.grantApiKeyCustomers()
  // The supplier's office makes the same customer (with an email the rep did not enter) just before.
  const office = control.insertCustomer({ name: 'Twin Harbor Cafe', phone: '(503) 555-0707' })
  control.addFault({ route: 'POST /vendors', type: 'commitThenDrop', times: 1 })
  const made = await call(core.handlers, 'addCustomer', { name: 'Twin Harbor Cafe', phone: '(503) 555-0707' })
  const draft = await call(core.handlers, 'createDraft', {
    customerLocalId: made.apiGuid,
    catalogGuid: target.catalogGuid,
  })
  await call(core.handlers, 'addDraftLines', { id: draft.draft.id, lines: [{ sku: target.skus[0]!, qty: 1 }] })
  const order = await call(core.handlers, 'sendDraft', { id: draft.draft.id })
  await settle(core)
  const own = control
    .customers()
    .find((customer) => customer.name === 'Twin Harbor Cafe' && customer.guid !== office.guid)!
  await call(core.handlers, 'retryOutbox', {})
  await call(core.handlers, 'flushOutbox')
  await settle(core)

  await page.goto(`${bridge.url}#/outbox`)
  const entries = page.getByRole('list', { name: 'Outbox entries' })
  const asking = entries.getByRole('article', { name: 'Twin Harbor Cafe: Which customer is this?' })
  await expect(asking).toContainText('You entered: Twin Harbor Cafe · (503) 555-0707')
  const candidates = asking.getByRole('list', { name: 'The supplier’s customers named Twin Harbor Cafe' })
  await expect(candidates.getByRole('listitem')).toHaveCount(2)
  await expect(candidates).toContainText(String(office.email))
  const waiting = entries.getByRole('article').filter({ hasText: 'Waits for the new customer “Twin Harbor Cafe”' })
  await expect(waiting).toContainText('say in the Outbox which of the supplier’s customers it is')

  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme })
    for (const [width, height, zoom] of [
      [1280, 720, 1],
      [900, 720, 1],
      [320, 640, 1],
      [640, 360, 2],
    ] as const) {
      await page.setViewportSize({ width, height })
      await page.evaluate((level) => (document.documentElement.style.zoom = String(level)), zoom)
      await asking.scrollIntoViewIfNeeded()
      // Nothing wider than the window: the candidates wrap rather than scroll sideways.
      expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth + 1)).toBe(true)
      await shoot(page, `outbox-customer-choice-${width}${zoom === 2 ? '-zoom200' : ''}-${scheme}.png`)
    }
    await page.evaluate(() => (document.documentElement.style.zoom = '1'))
    await page.setViewportSize({ width: 1280, height: 800 })
    const axe = await new AxeBuilder({ page }).include('main').analyze()
    expect(
      axe.violations
        .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
        .map((violation) => `${scheme}: ${violation.id}`),
    ).toEqual([])
  }

  // The rep recognises the one made from Satchel's own request (not the office's, with its email).
  await candidates
    .getByRole('listitem')
    .filter({ hasNotText: String(office.email) })
    .getByRole('button', { name: /^This is the one: Twin Harbor Cafe/ })
    .click()
  await expect(entries.getByRole('article', { name: 'Twin Harbor Cafe: Sent' }).first()).toBeVisible({
    timeout: 15_000,
  })
  await expect.poll(() => control.ordersByApiGuid(order.apiGuid)[0]?.vendor_id, { timeout: 15_000 }).toBe(own.id)
  expect(control.customers().filter((customer) => customer.name === 'Twin Harbor Cafe')).toHaveLength(2)
  expect(errors).toEqual([])
})
