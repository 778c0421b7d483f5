/**
 * Switching profiles never shows one profile's screens under the other (issue 54): the window used to
 * pass through Settings while the old profile still answered, so its Settings page, its connection's
 * address with it, flashed by. Every heading and field the page shows during the switch is recorded.
 */
import { test as base } from '@playwright/test'
import { expect, watchConsole } from './harness'
import { lookEverywhere } from './looks'
import { startProfilesWorld, type ProfilesWorld } from './profiles-world'

const test = base.extend<{ world: ProfilesWorld }>({
  // eslint-disable-next-line no-empty-pattern
  world: async ({}, use) => {
    const world = await startProfilesWorld()
    await use(world)
    await world.close()
  },
})

test.describe.configure({ timeout: 120_000 })

test('a switch from Main to Coastal shows no Settings page and nothing of Main’s on the way', async ({
  page,
  world,
  browser,
}) => {
  const errors = watchConsole(page)
  await page.setViewportSize({ width: 1280, height: 720 })
  await page.goto(`${world.bridge.url}#/customers`)
  const switcher = page.getByRole('button', { name: /^Profile:/ })
  await expect(switcher).toContainText('Main')
  await expect(page.getByRole('heading', { name: 'Customers', level: 1 })).toBeVisible()

  // Each heading and each field's value, as the page changes.
  await page.evaluate(() => {
    const seen: string[] = []
    ;(window as unknown as { seen: string[] }).seen = seen
    const record = () => {
      for (const heading of document.querySelectorAll('h1, h2')) seen.push(`heading: ${heading.textContent?.trim()}`)
      for (const field of document.querySelectorAll('input')) if (field.value) seen.push(`field: ${field.value}`)
    }
    new MutationObserver(record).observe(document.body, { childList: true, subtree: true, characterData: true })
  })
  await switcher.click()
  await page.getByRole('option', { name: /Coastal/ }).click()
  await expect(switcher).toContainText('Coastal')
  await expect(page).toHaveURL(/#\/customers$/)
  await expect(page.getByRole('heading', { name: 'Customers', level: 1 })).toBeVisible()

  const seen = await page.evaluate(() => (window as unknown as { seen: string[] }).seen)
  expect(seen.filter((entry) => entry === 'heading: Settings')).toEqual([])
  // The wait has a name of its own, and the switch ends on Coastal's Customers.
  expect(seen).toContain('heading: Switching profiles…')
  expect(seen.filter((entry) => entry.includes(world.main.service.url))).toEqual([])
  expect(errors).toEqual([])

  // Where the switch lands, in every layout and scheme; the wait's own address, reached by hand,
  // has nothing to wait for and goes on to Customers.
  const problems = await lookEverywhere(browser, 'profile-switched', async (look) => {
    await look.goto(`${world.bridge.url}#/switching`)
    await expect(look).toHaveURL(/#\/customers$/)
    await expect(look.getByRole('button', { name: /^Profile:/ })).toContainText('Coastal')
    await expect(look.getByRole('heading', { name: 'Customers', level: 1 })).toBeVisible()
  })
  expect(problems).toEqual([])
})
