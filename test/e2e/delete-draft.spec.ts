/**
 * Delete draft asks in the app's own dialog, as every other confirmation does, never the browser's
 * window.confirm; each dialog on a screen is named by its own title.
 */
import { expect, test, call, watchConsole, findOrderWorld } from './harness'

test.describe.configure({ timeout: 90_000 })
test.use({ viewport: { width: 1280, height: 720 } })

test('Delete draft asks in the app’s dialog, on the order screen and in the drafts list', async ({
  page,
  bridge,
  core,
}) => {
  const pageErrors = watchConsole(page)
  const nativeDialogs: string[] = []
  page.on('dialog', (dialog) => {
    nativeDialogs.push(dialog.message())
    void dialog.dismiss()
  })
  const world = await findOrderWorld(core.handlers)
  const open = async () => {
    const { draft } = await call(core.handlers, 'createDraft', {
      customerGuid: world.customer.guid,
      catalogGuid: world.catalogGuid,
    })
    await call(core.handlers, 'addDraftLines', { id: draft.id, lines: [{ sku: world.plain[0]!.sku, qty: 1 }] })
    return draft.id
  }
  const first = await open()
  const second = await open()

  await page.goto(`${bridge.url}#/drafts/${first}`)
  await expect(page.getByRole('button', { name: 'Send order' })).toBeVisible()
  // Every dialog on the screen is labelled by its own, existing title.
  const labels = await page
    .locator('dialog')
    .evaluateAll((dialogs) =>
      dialogs.map((dialog) => [
        dialog.getAttribute('aria-labelledby'),
        document.getElementById(dialog.getAttribute('aria-labelledby') ?? '')?.closest('dialog') === dialog,
      ]),
    )
  expect(labels.length).toBeGreaterThanOrEqual(2)
  expect(new Set(labels.map(([id]) => id)).size).toBe(labels.length)
  expect(labels.every(([, own]) => own === true)).toBe(true)

  await page.getByRole('button', { name: 'Delete draft' }).click()
  const dialog = page.getByRole('dialog', { name: 'Delete this draft?' })
  await expect(dialog).toBeVisible()
  await expect(dialog).toContainText(`The draft for ${world.customer.name} and its 1 line will be lost.`)
  await expect(dialog.getByRole('button', { name: 'Cancel' })).toBeFocused()
  await page.keyboard.press('Escape')
  await expect(dialog).toBeHidden()
  expect((await call(core.handlers, 'getDraft', { id: first })).draft.id).toBe(first)

  await page.getByRole('button', { name: 'Delete draft' }).click()
  await dialog.getByRole('button', { name: 'Delete draft' }).click()
  await expect(page).toHaveURL(/#\/drafts$/)
  expect((await call(core.handlers, 'listDrafts')).map((draft) => draft.id)).toEqual([second])

  await page.getByRole('button', { name: `Delete draft #${second}` }).click()
  await expect(dialog).toBeVisible()
  await dialog.getByRole('button', { name: 'Delete draft' }).click()
  await expect(dialog).toBeHidden()
  await expect(page.getByText('No open drafts.')).toBeVisible()
  expect(await call(core.handlers, 'listDrafts')).toEqual([])
  expect(nativeDialogs).toEqual([])
  expect(pageErrors).toEqual([])
})
