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
import type { TestCore } from '../support/core'
import { expect, screenshotDir, type ServiceHandle } from './fixtures'

export async function coreApi<M extends MethodName>(core: TestCore, method: M, argument?: MethodInput<M>): Promise<MethodOutput<M>> {
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

export interface Orderable {
  customerGuid: string
  customerName: string
  catalogGuid: string
  skus: string[]
}

/** An active customer without a PO rule, and items priced for its group with stock to spare. */
export function orderable(core: TestCore, count = 2): Orderable {
  const db = core.db
  const customers = db
    .prepare<[], { guid: string; name: string; price_group_id: number; lock_catalog_id: number | null }>(
      `SELECT guid, name, price_group_id, lock_catalog_id FROM customers
       WHERE active = 1 AND deleted_at IS NULL AND require_po = 0 AND price_group_id IS NOT NULL ORDER BY id`,
    )
    .all()
  for (const customer of customers) {
    const catalog = db
      .prepare<[number, number], { guid: string }>('SELECT guid FROM catalogs WHERE active = 1 AND deleted_at IS NULL AND (id = ? OR ? = 0) ORDER BY id LIMIT 1')
      .get(customer.lock_catalog_id ?? 0, customer.lock_catalog_id ?? 0)
    if (!catalog) continue
    const group = db.prepare<[string, number], { name: string }>('SELECT name FROM price_groups WHERE catalog_guid = ? AND id = ?').get(catalog.guid, customer.price_group_id)
    if (!group) continue
    const items = db
      .prepare<[string], { sku: string; json: string }>('SELECT sku, json FROM catalog_items WHERE catalog_guid = ? AND active = 1 AND deleted_at IS NULL ORDER BY id')
      .all(catalog.guid)
      .filter((row) => {
        const item = JSON.parse(row.json) as Record<string, unknown>
        const price = (item.pricing as Record<string, unknown>)[group.name]
        const spare = item.has_inventory !== true || item.allow_backorder === true || Number(item.qty_on_hand) - Number(item.reserved_qty_on_hand ?? 0) >= 50
        return typeof price === 'number' && spare && Number(item.min_order_qty ?? 0) <= 1 && Number(item.qty_break ?? 0) === 0
      })
      .slice(0, count)
    if (items.length === count) return { customerGuid: customer.guid, customerName: customer.name, catalogGuid: catalog.guid, skus: items.map((item) => item.sku) }
  }
  throw new Error('no orderable customer in the seeded data')
}

/** A draft for the target with one of each SKU, sent to the outbox; answers the entry's apiGuid. */
export async function queueOrder(core: TestCore, target: Orderable): Promise<string> {
  const check = await coreApi(core, 'createDraft', { customerGuid: target.customerGuid, catalogGuid: target.catalogGuid })
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
