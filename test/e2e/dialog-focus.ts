/**
 * What a keyboard user needs of every dialog: it opens on one of its own controls, Tab and Shift+Tab
 * go round its controls and never leave it, and on closing (Escape, or each of its close and cancel
 * buttons) focus is back on the control that opened it. Problems come back as lines, so a spec
 * checking many dialogs names every one that fails.
 */
import type { Locator, Page } from '@playwright/test'
import { expect } from './harness'

interface DialogUnderTest {
  /** The dialog's name, as its problems are told. */
  name: string
  dialog: Locator
  /** The control that opens it, focused and pressed from the keyboard (Enter), as a keyboard user does. */
  opener: Locator
  /** Its buttons that close it without doing anything (Cancel, Close, Keep it), by name. */
  closers: string[]
  /** Where the dialog is opened from, visited before each opening (a dialog that navigates away). */
  before?: () => Promise<void>
  /** Opens the dialog another way than Enter on the opener (a key of its own). */
  open?: (page: Page) => Promise<void>
}

const marker = 'data-focus-before-dialog'

async function focusIsInside(dialog: Locator): Promise<boolean> {
  return dialog.evaluate((element) => element !== document.activeElement && element.contains(document.activeElement))
}

async function describeFocus(page: Page): Promise<string> {
  return page.evaluate(() => {
    const active = document.activeElement
    if (!active || active === document.body) return 'nothing (the page)'
    const name = (active.getAttribute('aria-label') ?? active.textContent ?? '').trim().slice(0, 40)
    return `${active.tagName.toLowerCase()} “${name}”`
  })
}

async function openIt(page: Page, under: DialogUnderTest): Promise<void> {
  await under.before?.()
  await under.opener.focus()
  await under.opener.evaluate((element, name) => element.setAttribute(name, ''), marker)
  if (under.open) await under.open(page)
  else await page.keyboard.press('Enter')
  await expect(under.dialog).toBeVisible()
}

/** After a close: the dialog is gone and the opener has focus again. */
async function closedBack(page: Page, under: DialogUnderTest, how: string, problems: string[]): Promise<void> {
  await expect(under.dialog).toBeHidden()
  // Focus goes back once the dialog has closed; give the page its turn.
  await page.waitForFunction(() => document.activeElement !== document.body, null, { timeout: 1_000 }).catch(() => {})
  const back = await page.evaluate((name) => document.activeElement?.hasAttribute(name) ?? false, marker)
  if (!back) problems.push(`${under.name}: after ${how} focus is on ${await describeFocus(page)}, not on its opener`)
  await under.opener.evaluate((element, name) => element.removeAttribute(name), marker).catch(() => {})
}

/**
 * `goRound`: Tab and Shift+Tab once round the dialog. The trap is the dialog driver's (modal.ts), the
 * same at every size, so a spec may go round at one size and check opening and closing at the others,
 * where what has focus before and after does change (a button hidden or disabled at 320 px).
 */
export async function dialogFocusProblems(
  page: Page,
  under: DialogUnderTest,
  { goRound = true }: { goRound?: boolean } = {},
): Promise<string[]> {
  const problems: string[] = []
  await openIt(page, under)
  if (!(await focusIsInside(under.dialog)))
    problems.push(`${under.name}: opens with focus on ${await describeFocus(page)}`)
  if (goRound) await roundProblems(page, under, problems)
  await page.keyboard.press('Escape')
  await closedBack(page, under, 'Escape', problems)
  for (const closer of under.closers) {
    await openIt(page, under)
    await under.dialog.getByRole('button', { name: closer, exact: true }).click()
    await closedBack(page, under, `“${closer}”`, problems)
  }
  return problems
}

async function roundProblems(page: Page, under: DialogUnderTest, problems: string[]): Promise<void> {
  const stops = await under.dialog.evaluate(
    (element) =>
      [...element.querySelectorAll<HTMLElement>('a[href], button, input, select, textarea, [tabindex]')].filter(
        (each) => !(each as HTMLButtonElement).disabled && each.tabIndex >= 0 && each.checkVisibility(),
      ).length,
  )
  // Once round and a step further, each way: every press lands inside.
  for (const key of ['Tab', 'Shift+Tab']) {
    for (let press = 1; press <= stops + 1; press++) {
      await page.keyboard.press(key)
      if (!(await focusIsInside(under.dialog))) {
        problems.push(`${under.name}: ${key} × ${press} of ${stops} stops leaves it, for ${await describeFocus(page)}`)
        break
      }
    }
  }
}
