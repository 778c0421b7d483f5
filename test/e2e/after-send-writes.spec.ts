/**
 * What the rep does to an order after Send, and to customers, through the window against the real
 * core and the double: a hold made while the service is unreachable (the double's destroySocket) is
 * said to be waiting and reaches the supplier once it answers; an order in review is submitted in
 * plain words; a customer made offline is ordered for at once and both reach the supplier in order;
 * with an API key alone the writes are not offered; a conflict shows both values and "Apply mine"
 * sends; a customer is edited.
 */
import type { Page } from '@playwright/test'
import { test, call, expect, orderable, settle, shoot } from './harness'
import { backOnline, openOrderDialog, sentAndSynced, startWrites } from './writes-world'

test.describe.configure({ timeout: 120_000 })
test.use({ viewport: { width: 1280, height: 720 } })

async function screens(page: Page, name: string): Promise<void> {
  for (const [width, height, label] of [
    [1280, 720, '1280'],
    [900, 720, '900'],
  ] as const) {
    await page.setViewportSize({ width, height })
    await shoot(page, `${name}-${label}.png`)
  }
  // 200% zoom: the same page in half the CSS pixels.
  await page.setViewportSize({ width: 640, height: 360 })
  await shoot(page, `${name}-200.png`)
  await page.setViewportSize({ width: 1280, height: 720 })
}

test('a hold made offline waits in words, and after the next sync the order says On hold', async ({
  page,
  bridge,
  service,
  core,
}) => {
  const errors = await startWrites(page, core, service)
  const order = await sentAndSynced(core, service)
  service.current.control.addFault({ route: '*', type: 'destroySocket' })

  const dialog = await openOrderDialog(page, bridge.url, order.guid, 'Change…')
  await dialog.getByRole('checkbox', { name: /On hold/ }).check()
  await screens(page, 'change-dialog')
  await dialog.getByRole('button', { name: 'Queue the change' }).click()
  await expect(dialog).toBeHidden()
  await expect(page.getByTestId('order-pending')).toContainText('Hold requested — waiting to send')
  await expect(page.locator('.page-head .tag-warn', { hasText: 'On hold' })).toHaveCount(0)
  // Opened again, the dialog starts from the hold that waits: ticked, so it is not asked for twice.
  await page.getByRole('button', { name: 'Change…' }).click()
  await expect(dialog.getByRole('checkbox', { name: /On hold/ })).toBeChecked()
  await dialog.getByRole('button', { name: 'Queue the change' }).click()
  await expect(dialog.getByRole('alert')).toContainText('Change at least one thing')
  await page.keyboard.press('Escape')

  await page.goto(`${bridge.url}#/orders`)
  const row = page.getByRole('row').filter({ has: page.getByRole('link', { name: order.name, exact: true }) })
  await expect(row).toContainText('Hold requested — waiting to send')

  await backOnline(core, service)
  expect(service.current.control.orders().find((each) => each.guid === order.guid)?.is_on_hold).toBe(true)
  // Sent, but the page's figures are from before it: it says so rather than showing nothing.
  await page.goto(`${bridge.url}#/orders/${order.guid}`)
  await expect(page.getByTestId('order-pending')).toContainText('Hold requested — sent; shows here after the next sync')
  // The page the rep is on reads the order again once the sync has it.
  expect((await call(core.handlers, 'syncNow', {})).ok).toBe(true)
  await expect(page.locator('.page-head').getByText('On hold', { exact: true })).toBeVisible()
  await expect(page.getByTestId('order-pending')).toHaveCount(0)
  expect(errors).toEqual([])
})

test('the Change… dialog opens with its title in view at 320 px and at 200%, the second time too', async ({
  page,
  bridge,
  service,
  core,
}) => {
  await startWrites(page, core, service)
  const order = await sentAndSynced(core, service)
  // 200% zoom of 1280×720 is 640×360 CSS px: the layout is the same whatever the device pixels.
  for (const viewport of [
    { width: 320, height: 640 },
    { width: 640, height: 360 },
  ]) {
    await page.setViewportSize(viewport)
    const dialog = await openOrderDialog(page, bridge.url, order.guid, 'Change…')
    const title = dialog.getByRole('heading', { name: /Change order/ })
    await expect(title).toBeInViewport({ ratio: 1 })
    // Scrolled down to the address and closed: opened again, it starts from its title, not from there.
    await dialog.getByRole('checkbox', { name: 'Ship to another address' }).check()
    await dialog.getByLabel('Postal code').scrollIntoViewIfNeeded()
    await page.keyboard.press('Escape')
    await expect(dialog).toBeHidden()
    await page.getByRole('button', { name: 'Change…' }).click()
    await expect(title).toBeInViewport({ ratio: 1 })
    await page.keyboard.press('Escape')
    await expect(dialog).toBeHidden()
  }
})

test('an order in review is submitted with "Ship what is there and backorder the rest"', async ({
  page,
  bridge,
  service,
  core,
}) => {
  const errors = await startWrites(page, core, service)
  const order = await sentAndSynced(core, service, { inReview: true })
  service.current.control.addFault({ route: '*', type: 'destroySocket' })

  const dialog = await openOrderDialog(page, bridge.url, order.guid, 'Submit…')
  await dialog.getByRole('radio', { name: 'Ship what is there and backorder the rest' }).check()
  await expect(dialog.getByRole('radio')).toHaveCount(3)
  await screens(page, 'submit-dialog')
  await dialog.getByRole('button', { name: 'Queue the submit' }).click()
  await expect(page.getByTestId('order-pending')).toContainText('Submit — waiting to send')

  await backOnline(core, service)
  const submits = service.current.control.requestLog().filter((each) => each.route === 'POST /v1/order/submit')
  expect(submits).toHaveLength(1)
  expect(submits[0]!.body).toMatchObject({ allowPartialFulfillment: true })
  await expect(page.getByTestId('order-write-outcome')).toContainText('Submitted')
  expect(errors).toEqual([])
})

test('a customer made offline is ordered for at once; both reach the supplier, the order with its guid', async ({
  page,
  bridge,
  service,
  core,
}) => {
  const errors = await startWrites(page, core, service)
  const target = orderable(core)
  service.current.control.addFault({ route: '*', type: 'destroySocket' })

  await page.goto(`${bridge.url}#/customers`)
  await page.getByRole('button', { name: 'New customer', exact: true }).click()
  const dialog = page.getByRole('dialog', { name: 'New customer' })
  await dialog.getByLabel('Name').fill('Offline Corner Deli')
  await dialog.getByLabel('Email').fill('orders@offlinecorner.example')
  await dialog.getByRole('button', { name: 'Make the customer' }).click()
  await expect(dialog).toBeHidden()
  const made = page.getByRole('list', { name: 'Customers' }).getByRole('link', { name: /Offline Corner Deli/ })
  await expect(made).toContainText('Made on this laptop')
  await expect(made).toContainText('Waiting to send')
  await made.click()
  await expect(page.getByRole('heading', { level: 1, name: 'Offline Corner Deli' })).toBeVisible()
  await page.getByRole('button', { name: 'New order' }).click()
  await expect(page).toHaveURL(/#\/drafts\/\d+/)
  await expect(page.getByRole('heading', { level: 1 })).toContainText('for Offline Corner Deli')
  await expect(page.getByTestId('order-facts')).toContainText('Made on this laptop')
  const id = Number(/#\/drafts\/(\d+)/.exec(page.url())![1])
  const draft = await call(core.handlers, 'getDraft', { id })
  expect(draft.draft.customerLocalId).toBeTruthy()
  await call(core.handlers, 'updateDraft', { id, changes: { catalogGuid: target.catalogGuid } })
  await call(core.handlers, 'addDraftLines', { id, lines: [{ sku: target.skus[0]!, qty: 1 }] })
  const { apiGuid } = await call(core.handlers, 'sendDraft', { id })

  await backOnline(core, service)
  await call(core.handlers, 'flushOutbox')
  await settle(core)
  const control = service.current.control
  const customers = control.customers().filter((customer) => customer.name === 'Offline Corner Deli')
  expect(customers).toHaveLength(1)
  const [sent] = control.ordersByApiGuid(apiGuid)
  expect(sent?.vendor_id).toBe(customers[0]!.id)
  const ordered = control.requestLog().find((each) => each.route === 'POST /v1/orderWithItems')
  expect(ordered?.headers['vendorguid']).toBe(customers[0]!.guid)
  expect(errors).toEqual([])
})

test('with an API key only, Change… and Submit… are not offered and the sign-in words are shown', async ({
  page,
  bridge,
  service,
  core,
}) => {
  const errors = await startWrites(page, core, service, { apiKeyOnly: true })
  const order = await sentAndSynced(core, service, { inReview: true })
  await page.goto(`${bridge.url}#/orders/${order.guid}`)
  await expect(page.getByTestId('sign-in-as-user')).toContainText('need you signed in as a user')
  await expect(page.getByRole('button', { name: 'Change…' })).toHaveCount(0)
  await expect(page.getByRole('button', { name: 'Submit…' })).toHaveCount(0)
  await page.getByRole('link', { name: 'Sign in as a user' }).click()
  await expect(page).toHaveURL(/#\/connect/)
  expect(errors).toEqual([])
})

test('the Outbox shows a conflict with both values, and Apply mine sends the rep’s', async ({
  page,
  bridge,
  service,
  core,
}) => {
  const errors = await startWrites(page, core, service)
  const order = await sentAndSynced(core, service)
  // The supplier changes the PO after this laptop's last sync: the rep changes it from the old one.
  service.current.control.editOrderHeader(order.guid, { po_no: 'SUPPLIER-PO' })

  const dialog = await openOrderDialog(page, bridge.url, order.guid, 'Change…')
  await dialog.getByLabel('PO number').fill('REP-PO')
  await dialog.getByRole('button', { name: 'Queue the change' }).click()
  await call(core.handlers, 'flushOutbox')
  await settle(core)
  await expect(page.getByTestId('order-pending')).toContainText('Change needs your choice')

  await page.goto(`${bridge.url}#/outbox`)
  const entry = page.getByRole('article').filter({ hasText: 'Order change' })
  await expect(entry).toContainText('The supplier now says SUPPLIER-PO; you said REP-PO')
  await screens(page, 'outbox-conflict')
  await entry.getByRole('button', { name: 'Apply mine' }).click()
  await call(core.handlers, 'flushOutbox')
  await settle(core)
  expect(service.current.control.orders().find((each) => each.guid === order.guid)?.po_no).toBe('REP-PO')
  await expect(page.getByRole('article').filter({ hasText: 'Order change' })).toContainText('Sent')
  expect(errors).toEqual([])
})

test('a customer is edited from their page and the change reaches the supplier', async ({
  page,
  bridge,
  service,
  core,
}) => {
  const errors = await startWrites(page, core, service)
  const target = orderable(core)
  await page.goto(`${bridge.url}#/customers/${target.customerGuid}`)
  await page.getByRole('button', { name: 'Edit', exact: true }).click()
  const dialog = page.getByRole('dialog', { name: /^Edit / })
  await expect(dialog.getByLabel('Name')).toHaveValue(target.customerName)
  await dialog.getByLabel('Name').fill('Renamed At The Counter')
  await dialog.getByRole('button', { name: 'Queue the change' }).click()
  await expect(dialog).toBeHidden()
  await call(core.handlers, 'flushOutbox')
  await settle(core)
  const put = service.current.control.requestLog().filter((each) => each.route === 'PUT /v1/vendors/:vendorGuid')
  expect(put).toHaveLength(1)
  expect(put[0]!.body).toMatchObject({ name: 'Renamed At The Counter' })
  expect(errors).toEqual([])
})

test('a refused change says so in the supplier’s words and Drop mine lets theirs stand; an expired session says Sign in again', async ({
  page,
  bridge,
  service,
  core,
}) => {
  const errors = await startWrites(page, core, service)
  const order = await sentAndSynced(core, service)
  // The order's workflow step is read-only for the rep's user: the supplier refuses the change.
  service.current.control.lockOrderStep(order.guid)
  await call(core.handlers, 'changeSentOrder', { order: order.guid, changes: { poNo: 'LOCKED-PO' } })
  await call(core.handlers, 'flushOutbox')
  await settle(core)

  await page.goto(`${bridge.url}#/orders/${order.guid}`)
  await expect(page.getByTestId('order-pending')).toContainText('Change refused')
  await page.goto(`${bridge.url}#/outbox`)
  const entry = page.getByRole('article').filter({ hasText: 'Order change' })
  await expect(entry).toContainText('The supplier refused this:')
  await expect(entry.getByRole('button', { name: 'Retry now' })).toBeVisible()
  await entry.getByRole('button', { name: 'Drop mine' }).click()
  await expect(page.getByRole('article').filter({ hasText: 'Order change' })).toHaveCount(0)

  service.current.control.lockOrderStep(order.guid, false)
  service.current.control.expireSession()
  await call(core.handlers, 'changeSentOrder', { order: order.guid, changes: { onHold: true } })
  await call(core.handlers, 'flushOutbox')
  await settle(core)
  const paused = page.getByRole('alert').filter({ hasText: 'Sending is paused.' })
  await expect(paused.getByRole('link', { name: 'Sign in again' })).toHaveAttribute('href', '#/connect')
  expect(errors).toEqual([])
})
