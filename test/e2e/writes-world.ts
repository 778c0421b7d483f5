/**
 * The writes after Send as the e2e specs set them up: signed in as a user, an order sent and synced,
 * the service back after an outage, a dialog of the order page opened. And the data the dialogs are
 * looked at with (a11y, reflow): an order in review sent and synced, and a PO change to it the
 * supplier overtook, so the Outbox shows a conflict with both values; a customer made here still
 * waiting to be sent. Each dialog is opened the way the rep opens it.
 */
import type { Locator, Page } from '@playwright/test'
import type { ServiceHandle } from './harness'
import { call, expect, orderable, settle, watchConsole } from './harness'
import type { TestCore } from '../support/core'

export interface WritesWorld {
  orderGuid: string
  customerGuid: string
}

/** The connection the writes need: a user session on the double. */
async function signInAsUser(core: TestCore, service: ServiceHandle): Promise<void> {
  const { userGuid, userToken, supplierGuid } = service.current.credentials
  await call(core.handlers, 'saveConnection', {
    baseUrl: service.url,
    auth: { kind: 'session', userGuid, userToken, supplierGuid },
  })
}

/**
 * What every writes test starts from: synced (the fixture's database), signed in as a user (unless `apiKeyOnly`),
 * and the page's console watched; answers the console's errors, to be asserted empty at the end.
 */
export async function startWrites(
  page: Page,
  core: TestCore,
  service: ServiceHandle,
  options: { apiKeyOnly?: boolean } = {},
): Promise<string[]> {
  const errors = watchConsole(page)
  if (!options.apiKeyOnly) await signInAsUser(core, service)
  return errors
}

/** An order sent, confirmed and synced in full, so its page shows it as the supplier has it. */
export async function sentAndSynced(
  core: TestCore,
  service: ServiceHandle,
  options: { inReview?: boolean; poNo?: string } = {},
): Promise<{ guid: string; name: string }> {
  const target = orderable(core)
  const check = await call(core.handlers, 'createDraft', {
    customerGuid: target.customerGuid,
    catalogGuid: target.catalogGuid,
  })
  const changes = {
    ...(options.inReview ? { remainInPreliminary: true } : {}),
    ...(options.poNo ? { poNo: options.poNo } : {}),
  }
  if (Object.keys(changes).length > 0) await call(core.handlers, 'updateDraft', { id: check.draft.id, changes })
  await call(core.handlers, 'addDraftLines', { id: check.draft.id, lines: target.skus.map((sku) => ({ sku, qty: 1 })) })
  const { apiGuid } = await call(core.handlers, 'sendDraft', { id: check.draft.id })
  await call(core.handlers, 'flushOutbox')
  await settle(core)
  expect((await call(core.handlers, 'syncNow', {})).ok).toBe(true)
  const [order] = service.current.control.ordersByApiGuid(apiGuid)
  return { guid: String(order!.guid), name: String(order!.name) }
}

/** The service answers again: what waited is sent now rather than at its next scheduled attempt. */
export async function backOnline(core: TestCore, service: ServiceHandle): Promise<void> {
  service.current.control.clearFaults()
  await call(core.handlers, 'retryOutbox', {})
  await call(core.handlers, 'flushOutbox')
  await settle(core)
}

/** The order's page with one of its dialogs opened by its button ("Change…", "Submit…"). */
export async function openOrderDialog(
  page: Page,
  url: string,
  orderGuid: string,
  button: 'Change…' | 'Submit…',
): Promise<Locator> {
  await page.goto(`${url}#/orders/${orderGuid}`)
  await page.getByRole('button', { name: button }).click()
  const dialog = page.getByRole('dialog', { name: button === 'Change…' ? /Change order/ : /Submit order/ })
  await expect(dialog).toBeVisible()
  return dialog
}

export async function writesWorld(core: TestCore, service: ServiceHandle): Promise<WritesWorld> {
  await signInAsUser(core, service)
  const order = await sentAndSynced(core, service, { inReview: true, poNo: 'FIRST-PO' })
  service.current.control.editOrderHeader(order.guid, { po_no: 'SUPPLIER-PO' })
  await call(core.handlers, 'changeSentOrder', { order: order.guid, changes: { poNo: 'REP-PO' } })
  await call(core.handlers, 'flushOutbox')
  await settle(core)
  // A customer made here whose sending waits (the service refuses every new customer for now).
  service.current.control.addFault({ route: 'POST /vendors', type: 'status', status: 503 })
  await call(core.handlers, 'addCustomer', { name: 'Harbourside Delicatessen and Fine Provisions Co-operative' })
  await call(core.handlers, 'flushOutbox')
  await settle(core)
  return { orderGuid: order.guid, customerGuid: orderable(core).customerGuid }
}

/** Each dialog and the Outbox's conflict, opened as the rep opens them; `look` runs on each. */
export async function eachWritesDialog(
  page: Page,
  url: string,
  world: WritesWorld,
  look: (name: string) => Promise<void>,
): Promise<void> {
  const change = await openOrderDialog(page, url, world.orderGuid, 'Change…')
  await change.getByRole('checkbox', { name: 'Ship to another address' }).check()
  await look('change-dialog')
  await page.keyboard.press('Escape')
  await expect(change).toBeHidden()
  await page.getByRole('button', { name: 'Submit…' }).click()
  await expect(page.getByRole('dialog', { name: /Submit order/ })).toBeVisible()
  await look('submit-dialog')
  await page.keyboard.press('Escape')
  await page.goto(`${url}#/customers`)
  await page.getByRole('button', { name: 'New customer', exact: true }).click()
  await expect(page.getByRole('dialog', { name: 'New customer' })).toBeVisible()
  await look('new-customer-dialog')
  await page.keyboard.press('Escape')
  // A customer made here is a row of the list itself, first, marked while its entry waits.
  await expect(
    page.getByRole('list', { name: 'Customers' }).getByRole('link').filter({ hasText: 'Waiting to send' }).first(),
  ).toContainText('Made on this laptop')
  await look('customers-made-here')
  await page.goto(`${url}#/customers/${world.customerGuid}`)
  await page.getByRole('button', { name: 'Edit', exact: true }).click()
  await expect(page.getByRole('dialog', { name: /^Edit / })).toBeVisible()
  await look('edit-customer-dialog')
  await page.keyboard.press('Escape')
  await page.goto(`${url}#/outbox`)
  await expect(page.getByRole('article').filter({ hasText: 'Order change' })).toContainText('The supplier now says')
  await look('outbox-conflict')
}
