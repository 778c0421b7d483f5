/**
 * Helpers for the specs that check the workspace tells the truth: the laptop sizes reps
 * use, a customer free to order from every catalog, and money as the screens write it.
 */
import { join } from 'node:path'
import AxeBuilder from '@axe-core/playwright'
import type { Locator, Page } from '@playwright/test'
import type { CustomerDetail } from '../../src/shared/synced'
import { screenshotDir, call } from './harness'
import type { TestCore } from '../support/core'
import { reflowProblems } from './reflow-problems'

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

/** The window sizes a changed screen is read at: a laptop, a narrow window, and 200% zoom of a small one. */
const readingSizes = [
  { name: '1280', width: 1280, height: 720, zoom: 1 },
  { name: '320', width: 320, height: 640, zoom: 1 },
  { name: 'zoom200', width: 640, height: 360, zoom: 2 },
] as const

/**
 * The screen as it stands at each reading size, light and dark: a screenshot of each
 * (`name-<size>-<scheme>.png`, with `focus` scrolled into view), and what a rep could not read there
 * (reflow problems, axe's serious or critical findings), as "scheme size: problem" lines. The page
 * ends light, at 1280×720 and 100%.
 */
export async function readEveryWay(page: Page, name: string, focus: Locator): Promise<string[]> {
  const problems: string[] = []
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme })
    for (const size of readingSizes) {
      await page.setViewportSize({ width: size.width, height: size.height })
      await page.evaluate((zoom) => (document.documentElement.style.zoom = String(zoom)), size.zoom)
      await focus.scrollIntoViewIfNeeded()
      await page.waitForTimeout(150)
      await page.screenshot({ path: join(screenshotDir, `${name}-${size.name}-${scheme}.png`) })
      for (const problem of await reflowProblems(page)) problems.push(`${scheme} ${size.name}: ${problem}`)
    }
    await page.evaluate(() => (document.documentElement.style.zoom = '1'))
    await page.setViewportSize({ width: 1280, height: 720 })
    const axe = await new AxeBuilder({ page })
      .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'])
      .analyze()
    for (const violation of axe.violations)
      if (violation.impact === 'serious' || violation.impact === 'critical')
        problems.push(`${scheme} axe: ${violation.id}: ${violation.nodes[0]?.target.join(' ')}`)
  }
  await page.emulateMedia({ colorScheme: 'light' })
  return problems
}
