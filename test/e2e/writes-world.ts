/**
 * The data the writes-after-Send dialogs are looked at with (a11y, reflow): signed in as a user, an
 * order in review sent and synced, and a PO change to it the supplier overtook, so the Outbox shows
 * a conflict with both values; a customer made here still waiting to be sent. Each dialog is opened
 * the way the rep opens it.
 */
import type { Page } from '@playwright/test'
import type { ServiceHandle } from './fixtures'
import { coreApi, expect, orderable, settle } from './rep'
import type { TestCore } from '../support/core'

export interface WritesWorld {
  orderGuid: string
  customerGuid: string
}

export async function writesWorld(core: TestCore, service: ServiceHandle): Promise<WritesWorld> {
  const { userGuid, userToken, supplierGuid } = service.current.credentials
  await coreApi(core, 'saveConnection', {
    baseUrl: service.url,
    auth: { kind: 'session', userGuid, userToken, supplierGuid },
  })
  const target = orderable(core)
  const check = await coreApi(core, 'createDraft', {
    customerGuid: target.customerGuid,
    catalogGuid: target.catalogGuid,
  })
  await coreApi(core, 'updateDraft', { id: check.draft.id, changes: { remainInPreliminary: true, poNo: 'FIRST-PO' } })
  await coreApi(core, 'addDraftLines', { id: check.draft.id, lines: target.skus.map((sku) => ({ sku, qty: 1 })) })
  const { apiGuid } = await coreApi(core, 'sendDraft', { id: check.draft.id })
  await coreApi(core, 'flushOutbox')
  await settle(core)
  expect((await coreApi(core, 'syncNow', {})).ok).toBe(true)
  const orderGuid = String(service.current.control.ordersByApiGuid(apiGuid)[0]!.guid)
  service.current.control.editOrderHeader(orderGuid, { po_no: 'SUPPLIER-PO' })
  await coreApi(core, 'changeSentOrder', { order: orderGuid, changes: { poNo: 'REP-PO' } })
  await coreApi(core, 'flushOutbox')
  await settle(core)
  // A customer made here whose sending waits (the service refuses every new customer for now).
  service.current.control.addFault({ route: 'POST /vendors', type: 'status', status: 503 })
  await coreApi(core, 'addCustomer', { name: 'Harbourside Delicatessen and Fine Provisions Co-operative' })
  await coreApi(core, 'flushOutbox')
  await settle(core)
  return { orderGuid, customerGuid: target.customerGuid }
}

/** Each dialog and the Outbox's conflict, opened as the rep opens them; `look` runs on each. */
export async function eachWritesDialog(
  page: Page,
  url: string,
  world: WritesWorld,
  look: (name: string) => Promise<void>,
): Promise<void> {
  await page.goto(`${url}#/orders/${world.orderGuid}`)
  await page.getByRole('button', { name: 'Change…' }).click()
  const change = page.getByRole('dialog', { name: /Change order/ })
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
  await expect(page.getByRole('region', { name: 'Made on this laptop' })).toContainText('Waiting to send')
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
