/**
 * Helpers for the rep's-day e2e specs (frame, customers, outbox): connect the core behind the
 * bridge to the double without the UI, find an orderable customer and items, queue orders, watch
 * the page's console, and save screenshots.
 */
import { join } from 'node:path'
import type { Page } from '@playwright/test'
import { call } from '../../src/main/core/handlers'
import type { MethodInput, MethodOutput } from '../../src/shared/contract'
import type { MethodName } from '../../src/shared/channels'
import { findOrderable, type Orderable } from '../support/orderable'
import type { TestCore } from '../support/core'
import { expect, screenshotDir, type ServiceHandle } from './fixtures'

export async function coreApi<M extends MethodName>(
  core: TestCore,
  method: M,
  argument?: MethodInput<M>,
): Promise<MethodOutput<M>> {
  const result = await call(core.handlers, method, argument)
  if (!result.ok) throw new Error(`${method} failed: ${result.error.code} ${result.error.message}`)
  return result.value
}

/** Saves the double's API key credentials in the core and runs the first sync, as if first run were done. */
export async function connectCore(core: TestCore, service: ServiceHandle): Promise<void> {
  const { apiKey, apiSecret } = service.current.credentials
  await coreApi(core, 'saveConnection', { baseUrl: service.url, auth: { kind: 'apiKey', apiKey, apiSecret } })
  const report = await coreApi(core, 'syncNow', {})
  if (!report.ok) throw new Error(`first sync failed: ${JSON.stringify(report.error)}`)
}

/** The `nth` (from 0) orderable customer and its items, for a spec that needs several. */
export function findOrderableAt(core: TestCore, nth: number, count = 2): Orderable {
  return findOrderable(core.db, count, nth)
}

/** An active customer without a PO rule, and items priced for its group with stock to spare. */
export function orderable(core: TestCore, count = 2): Orderable {
  return findOrderable(core.db, count)
}

/**
 * Like `orderable`, for a spec that sends through the window: a customer whose credit limit leaves
 * room for the order (or who has none), so Send goes at once rather than asking "Send anyway".
 */
export async function orderableWithCreditRoom(core: TestCore, count = 2, room = 5_000): Promise<Orderable> {
  for (let nth = 0; nth < 50; nth++) {
    const target = findOrderable(core.db, count, nth)
    const customer = await coreApi(core, 'getCustomer', { guid: target.customerGuid })
    if (customer.creditLimit === null || customer.creditLimit - (customer.openBalance ?? 0) >= room) return target
  }
  throw new Error('no orderable customer with credit room in the seeded data')
}

/** A draft for the target with one of each SKU, sent to the outbox; answers the entry's apiGuid. */
export async function queueOrder(core: TestCore, target: Orderable): Promise<string> {
  const check = await coreApi(core, 'createDraft', {
    customerGuid: target.customerGuid,
    catalogGuid: target.catalogGuid,
  })
  await coreApi(core, 'addDraftLines', { id: check.draft.id, lines: target.skus.map((sku) => ({ sku, qty: 1 })) })
  return (await coreApi(core, 'sendDraft', { id: check.draft.id })).apiGuid
}

export async function settle(core: TestCore): Promise<void> {
  if (!(await core.orders.flusher.waitUntilIdle(10_000))) throw new Error('the outbox flush did not settle')
}

/** Collects console errors and uncaught exceptions; assert the array is empty at the end. */
export function watchConsole(page: Page): string[] {
  const errors: string[] = []
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text())
  })
  page.on('pageerror', (error) => errors.push(error.message))
  return errors
}

export async function shoot(page: Page, name: string): Promise<void> {
  // Let transitions and the virtual list settle so the picture shows what the rep sees.
  await page.waitForTimeout(150)
  await page.screenshot({ path: join(screenshotDir, name), fullPage: false })
}

export { expect }
