/**
 * One screen looked at as every changed screen must be: at 1280×720, 320 px and 200% zoom, light and
 * dark, each saved as test-results/screenshots/<name>-<layout>-<scheme>.png, with axe's serious and
 * critical findings and the reflow check's problems (reflow-problems.ts) collected, as brief.spec.ts
 * does for the brief.
 */
import AxeBuilder from '@axe-core/playwright'
import type { Browser, Page } from '@playwright/test'
import { join } from 'node:path'
import { screenshotDir, watchConsole } from './harness'
import { reflowProblems } from './reflow-problems'

const tags = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa']

const layouts = [
  { name: '1280', viewport: { width: 1280, height: 720 }, deviceScaleFactor: 1 },
  { name: '320', viewport: { width: 320, height: 640 }, deviceScaleFactor: 1 },
  // 200% zoom of a 1280×720 laptop: 640×360 CSS px, two device pixels each.
  { name: 'zoom200', viewport: { width: 640, height: 360 }, deviceScaleFactor: 2 },
] as const

/** Serious or critical findings, as "rule: target" lines; dark checks only what a colour scheme changes. */
async function axeProblems(page: Page, scheme: 'light' | 'dark'): Promise<string[]> {
  const builder = new AxeBuilder({ page })
  const result = await (
    scheme === 'dark' ? builder.withRules(['color-contrast', 'link-in-text-block']) : builder.withTags(tags)
  ).analyze()
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id}: ${v.nodes[0]?.target.join(' ')}`)
}

/**
 * `open` brings the screen up in a fresh page and waits until it shows what is looked at. Answers
 * every problem found (axe, reflow, console errors), each "layout scheme what: where".
 */
export async function lookEverywhere(
  browser: Browser,
  name: string,
  open: (page: Page) => Promise<void>,
): Promise<string[]> {
  const problems: string[] = []
  for (const layout of layouts)
    for (const scheme of ['light', 'dark'] as const) {
      const context = await browser.newContext({
        viewport: layout.viewport,
        deviceScaleFactor: layout.deviceScaleFactor,
        colorScheme: scheme,
      })
      try {
        const page = await context.newPage()
        const errors = watchConsole(page)
        await open(page)
        // Let transitions settle so the picture shows what the rep sees.
        await page.waitForTimeout(150)
        await page.screenshot({ path: join(screenshotDir, `${name}-${layout.name}-${scheme}.png`) })
        const where = `${layout.name} ${scheme}`
        for (const problem of await axeProblems(page, scheme)) problems.push(`${where} axe: ${problem}`)
        for (const problem of await reflowProblems(page)) problems.push(`${where} reflow: ${problem}`)
        for (const error of errors) problems.push(`${where} console: ${error}`)
      } finally {
        await context.close()
      }
    }
  return problems
}
