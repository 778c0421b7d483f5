/**
 * Helpers for the specs that check the workspace tells the truth: the laptop sizes reps
 * use, a customer free to order from every catalog, and money as the screens write it.
 */
import { join } from 'node:path'
import type { Page } from '@playwright/test'
import type { CustomerDetail } from '../../src/shared/synced'
import { screenshotDir, call } from './harness'
import type { TestCore } from '../support/core'

/** The two laptop sizes every changed screen is looked at in. */
const laptopSizes = [
  { width: 1280, height: 720 },
  { width: 1366, height: 768 },
] as const

/** Screenshots at both laptop sizes (`name-1280x720.png`, `name-1366x768.png`); the page ends at 1280×720. */
export async function shootAtLaptopSizes(page: Page, name: string): Promise<void> {
  for (const size of [...laptopSizes].reverse()) {
    await page.setViewportSize(size)
    // Let the layout and the virtual list settle so the picture shows what the rep sees.
    await page.waitForTimeout(150)
    await page.screenshot({ path: join(screenshotDir, `${name}-${size.width}x${size.height}.png`) })
  }
}

export function money(amount: number): string {
  return new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' }).format(amount)
}

/** Active customers not locked to a catalog, without hidden prices or a PO rule, in name order. */
export async function unlockedCustomers(core: TestCore, count: number): Promise<CustomerDetail[]> {
  const { customers } = await call(core.handlers, 'searchCustomers', { limit: 200 })
  const found: CustomerDetail[] = []
  for (const summary of customers) {
    if (!summary.active) continue
    const customer = await call(core.handlers, 'getCustomer', { guid: summary.guid })
    if (customer.lockCatalogId || customer.hidePricing || customer.requirePo || !customer.priceGroup) continue
    found.push(customer)
    if (found.length === count) return found
  }
  throw new Error(`fewer than ${count} unlocked customers in the seeded data`)
}
