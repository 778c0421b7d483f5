/**
 * How a spec looks at a screen: the three layouts a rep meets (a 1280×720 laptop, a 320 px window,
 * 200% zoom), light and dark, each in a browser context of its own; axe's serious and critical
 * findings; text a box cuts off; and every look at once (lookEverywhere), screenshots saved.
 */
import AxeBuilder from '@axe-core/playwright'
import type { Browser, Page } from '@playwright/test'
import { join } from 'node:path'
import { screenshotDir, watchConsole } from './harness'
import { reflowProblems } from './reflow-problems'

const tags = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa']

export const layouts = [
  { name: '1280', viewport: { width: 1280, height: 720 }, deviceScaleFactor: 1 },
  { name: '320', viewport: { width: 320, height: 640 }, deviceScaleFactor: 1 },
  // 200% zoom of a 1280×720 laptop: 640×360 CSS px, two device pixels each.
  { name: 'zoom200', viewport: { width: 640, height: 360 }, deviceScaleFactor: 2 },
] as const

type Layout = (typeof layouts)[number]
type Scheme = 'light' | 'dark'

/** A page in `layout` and `scheme`, closed after `look`. */
export async function inLayout(
  browser: Browser,
  layout: Layout,
  scheme: Scheme,
  look: (page: Page) => Promise<void>,
): Promise<void> {
  const context = await browser.newContext({
    viewport: layout.viewport,
    deviceScaleFactor: layout.deviceScaleFactor,
    colorScheme: scheme,
  })
  try {
    await look(await context.newPage())
  } finally {
    await context.close()
  }
}

/**
 * Serious or critical axe findings, as "rule: target" lines; dark checks only what a colour scheme
 * changes. `within` (a CSS selector) audits that part alone: an open modal dialog, the page behind it inert.
 */
export async function axeProblems(page: Page, scheme: Scheme, within?: string): Promise<string[]> {
  const builder = within ? new AxeBuilder({ page }).include(within) : new AxeBuilder({ page })
  const result = await (
    scheme === 'dark' ? builder.withRules(['color-contrast', 'link-in-text-block']) : builder.withTags(tags)
  ).analyze()
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id}: ${v.nodes[0]?.target.join(' ')}`)
}

/**
 * Each element matching `selector` whose text does not all show: wider than its own box, past the
 * right edge of the window, or outside a box around it that hides or scrolls its overflow. As
 * "“text” (why)".
 */
export async function clippedText(page: Page, selector: string): Promise<string[]> {
  return page.locator(selector).evaluateAll((elements) => {
    const tolerance = 1
    const problems: string[] = []
    const width = document.documentElement.clientWidth
    for (const element of elements as HTMLElement[]) {
      if (!element.checkVisibility()) continue
      const text = (element.textContent ?? '').trim()
      const rect = element.getBoundingClientRect()
      if (element.scrollWidth > element.clientWidth + tolerance)
        problems.push(`“${text}” (wider than its box: ${element.scrollWidth} > ${element.clientWidth})`)
      if (rect.right > width + tolerance || rect.left < -tolerance)
        problems.push(`“${text}” (past the window: ${Math.round(rect.left)}–${Math.round(rect.right)} of ${width})`)
      for (let box = element.parentElement; box && box !== document.body; box = box.parentElement) {
        if (getComputedStyle(box).overflowX === 'visible') continue
        const outer = box.getBoundingClientRect()
        if (rect.left < outer.left - tolerance || rect.right > outer.right + tolerance)
          problems.push(`“${text}” (outside ${box.tagName.toLowerCase()}.${[...box.classList].join('.')})`)
      }
    }
    return problems
  })
}

export async function shootAs(page: Page, name: string): Promise<void> {
  await page.waitForTimeout(150)
  await page.screenshot({ path: join(screenshotDir, name) })
}

/**
 * One screen looked at as every changed screen must be: each layout and scheme, saved as
 * test-results/screenshots/<name>-<layout>-<scheme>.png, with axe's findings, the reflow check's
 * problems (reflow-problems.ts) and console errors collected, as brief.spec.ts does for the brief.
 * `open` brings the screen up in a fresh page and waits until it shows what is looked at. Answers
 * every problem found, each "layout scheme what: where".
 */
export async function lookEverywhere(
  browser: Browser,
  name: string,
  open: (page: Page) => Promise<void>,
): Promise<string[]> {
  const problems: string[] = []
  for (const layout of layouts)
    for (const scheme of ['light', 'dark'] as const)
      await inLayout(browser, layout, scheme, async (page) => {
        const errors = watchConsole(page)
        await open(page)
        // Let transitions settle so the picture shows what the rep sees.
        await page.waitForTimeout(150)
        await page.screenshot({ path: join(screenshotDir, `${name}-${layout.name}-${scheme}.png`) })
        const where = `${layout.name} ${scheme}`
        for (const problem of await axeProblems(page, scheme)) problems.push(`${where} axe: ${problem}`)
        for (const problem of await reflowProblems(page)) problems.push(`${where} reflow: ${problem}`)
        for (const error of errors) problems.push(`${where} console: ${error}`)
      })
  return problems
}
