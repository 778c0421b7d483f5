/**
 * Two suppliers on one laptop: the switcher in the frame, from the keyboard, in the middle of a
 * draft; the draft as typed when the rep comes back; each profile's unsent count; removal refused
 * while an order waits.
 */
import { test as base } from '@playwright/test'
import { expect, shoot, watchConsole } from './harness'
import { startProfilesWorld, type ProfilesWorld } from './profiles-world'

const test = base.extend<{ world: ProfilesWorld }>({
  // eslint-disable-next-line no-empty-pattern
  world: async ({}, use) => {
    const world = await startProfilesWorld()
    await use(world)
    await world.close()
  },
})

test.describe.configure({ timeout: 60_000 })

test('switch profiles from the keyboard mid-draft; the draft is intact on return; counts; removal refused', async ({
  page,
  world,
}) => {
  const errors = watchConsole(page)
  await page.setViewportSize({ width: 1280, height: 720 })
  // An order waits in Coastal: its double is away.
  await world.api('switchProfile', { id: world.second.id })
  await world.second.service.stop()
  const coastalTarget = world.orderable()
  const coastalDraft = await world.api('createDraft', {
    customerGuid: coastalTarget.customerGuid,
    catalogGuid: coastalTarget.catalogGuid,
  })
  await world.api('addDraftLines', {
    id: coastalDraft.draft.id,
    lines: coastalTarget.skus.map((sku) => ({ sku, qty: 1 })),
  })
  await world.api('sendDraft', { id: coastalDraft.draft.id })
  await world.api('switchProfile', { id: world.main.id })

  // A draft in Main, open on screen.
  const target = world.orderable()
  const draft = await world.api('createDraft', { customerGuid: target.customerGuid, catalogGuid: target.catalogGuid })
  await world.api('addDraftLines', { id: draft.draft.id, lines: [{ sku: target.skus[0]!, qty: 2 }] })
  await page.goto(`${world.bridge.url}#/drafts/${draft.draft.id}`)
  const status = page.getByTestId('status-profile')
  await expect(status).toContainText('Main')
  const switcher = page.getByRole('button', { name: /^Profile:/ })
  await expect(switcher).toContainText('Main')
  // The supplier by the name its service gives, not the service's address.
  await expect(switcher).toContainText('Harbor Point Supply Co.')
  await expect(switcher).not.toContainText('127.0.0.1')

  // Typing, and straight to the switcher before the typing's debounce has passed.
  const notes = page.getByLabel('Notes')
  await notes.fill('Deliver to the back door, ring twice')
  await switcher.focus()
  await page.keyboard.press('ArrowDown')
  const listbox = page.getByRole('listbox', { name: 'Profiles' })
  await expect(listbox).toBeVisible()
  await expect(listbox.getByRole('option', { name: /Coastal/ })).toContainText('1 unsent')
  await expect(listbox.getByRole('option', { name: /Main/ })).toHaveAttribute('aria-selected', 'true')
  await shoot(page, 'profiles-switcher-open.png')
  await page.keyboard.press('ArrowDown')
  await page.keyboard.press('Enter')

  await expect(status).toContainText('Coastal')
  await expect(switcher).toContainText('Coastal')
  await expect(switcher).toBeFocused()
  await expect(page).toHaveURL(/#\/customers$/)
  await expect(page.getByRole('status', { name: 'Connection' })).toBeVisible()
  // The Coastal outbox: its waiting order, not Main's.
  await page.goto(`${world.bridge.url}#/outbox`)
  await expect(page.getByText(coastalTarget.customerName).first()).toBeVisible()
  await shoot(page, 'profiles-coastal-outbox.png')

  // Removing Coastal from Main's Settings is refused while its order waits.
  await switcher.click()
  await page.getByRole('option', { name: /Main/ }).click()
  await expect(status).toContainText('Main')
  // Back where the rep left Main: the draft, with the note as typed.
  await expect(page).toHaveURL(new RegExp(`#/drafts/${draft.draft.id}$`))
  await expect(page.getByLabel('Notes')).toHaveValue('Deliver to the back door, ring twice')
  expect((await world.api('getDraft', { id: draft.draft.id })).draft.note).toBe('Deliver to the back door, ring twice')
  await shoot(page, 'profiles-back-in-main.png')

  await page.goto(`${world.bridge.url}#/settings`)
  const panel = page.getByTestId('profiles-panel')
  await expect(panel).toContainText('Coastal')
  await expect(panel).toContainText('1 unsent, 0 need attention')
  await panel.getByRole('button', { name: 'Remove the profile Coastal' }).click()
  const dialog = page.getByRole('dialog', { name: 'Remove the profile Coastal?' })
  await expect(dialog).toBeVisible()
  await shoot(page, 'profiles-remove-confirm.png')
  await dialog.getByRole('button', { name: 'Remove profile' }).click()
  await expect(page.getByTestId('profiles-error')).toContainText(
    "The profile 'Coastal' still has 1 unsent order; send or discard it first",
  )
  await expect(panel).toContainText('Coastal')
  await shoot(page, 'profiles-remove-refused.png')

  // The same frame, dark and compact.
  await page.emulateMedia({ colorScheme: 'dark' })
  await page.setViewportSize({ width: 900, height: 720 })
  await switcher.focus()
  await page.keyboard.press('ArrowDown')
  await expect(listbox).toBeVisible()
  await shoot(page, 'profiles-switcher-dark-900.png')
  await page.keyboard.press('Escape')
  await expect(listbox).toBeHidden()
  await expect(switcher).toBeFocused()
  // 200% zoom of a 1280-wide laptop: the compact frame, the switcher beside the Menu button.
  await page.setViewportSize({ width: 640, height: 360 })
  await switcher.focus()
  await page.keyboard.press('ArrowDown')
  await expect(listbox).toBeVisible()
  await shoot(page, 'profiles-switcher-compact.png')
  await page.keyboard.press('Escape')
  expect(errors).toEqual([])
})

test('a profile added in Settings comes on screen to be connected; one without orders is removed after confirmation', async ({
  page,
  world,
}) => {
  const errors = watchConsole(page)
  await page.goto(`${world.bridge.url}#/settings`)
  const panel = page.getByTestId('profiles-panel')
  await panel.getByLabel('New profile’s name').fill('Harbor Foods')
  await panel.getByRole('button', { name: 'Add profile' }).click()
  // Nothing synced yet: the first-run screen, with the switcher to go back.
  await expect(page).toHaveURL(/#\/connect$/)
  const switcher = page.getByRole('button', { name: /^Profile:/ })
  await expect(switcher).toContainText('Harbor Foods')
  await expect(switcher).toContainText('No connection yet')
  await shoot(page, 'profiles-added.png')

  await switcher.click()
  await page.getByRole('option', { name: /Main/ }).click()
  await expect(switcher).toContainText('Main')
  await page.goto(`${world.bridge.url}#/settings`)
  await panel.getByRole('button', { name: 'Remove the profile Harbor Foods' }).click()
  const dialog = page.getByRole('dialog', { name: 'Remove the profile Harbor Foods?' })
  // The safe choice has focus: a stray Enter keeps the profile.
  await expect(dialog.getByRole('button', { name: 'Keep it' })).toBeFocused()
  await dialog.getByRole('button', { name: 'Remove profile' }).click()
  await expect(panel).toContainText('Removed the profile Harbor Foods.')
  await expect(panel).not.toContainText('No connection yet')
  expect((await world.api('listProfiles')).profiles.map((profile) => profile.name)).toEqual(['Main', 'Coastal'])
  expect(errors).toEqual([])
})
