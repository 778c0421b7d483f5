/**
 * Remove line can be undone for a few seconds, by its Undo button or Ctrl+Z: the line comes back in
 * its place with its quantity and its note.
 */
import { expect, test, call, watchConsole, findOrderWorld } from './harness'

test.describe.configure({ timeout: 90_000 })
test.use({ viewport: { width: 1280, height: 720 } })

test('Remove line offers Undo, and Ctrl+Z, that bring the line back with its note', async ({ page, bridge, core }) => {
  const pageErrors = watchConsole(page)
  const world = await findOrderWorld(core.handlers)
  const [first, second] = world.plain
  const { draft } = await call(core.handlers, 'createDraft', {
    customerGuid: world.customer.guid,
    catalogGuid: world.catalogGuid,
  })
  const added = await call(core.handlers, 'addDraftLines', {
    id: draft.id,
    lines: [
      { sku: first!.sku, qty: 3 },
      { sku: second!.sku, qty: 2 },
    ],
  })
  await call(core.handlers, 'updateDraftLine', {
    id: draft.id,
    lineId: added.check.draft.lines[0]!.lineId,
    note: 'Top shelf only',
  })
  await page.goto(`${bridge.url}#/drafts/${draft.id}`)
  const lines = page.locator('tbody.line')
  await expect(lines).toHaveCount(2)

  await page.getByRole('button', { name: `Remove ${first!.sku}` }).click()
  await expect(lines).toHaveCount(1)
  const undo = page.getByTestId('undo-remove')
  await expect(undo).toContainText(`Removed ${first!.sku} (3).`)
  await undo.getByRole('button', { name: 'Undo' }).click()
  await expect(lines).toHaveCount(2)
  await expect(undo).toHaveCount(0)
  await expect(lines.first()).toContainText(first!.sku)
  await expect(page.getByLabel(`Note for ${first!.sku}`)).toHaveValue('Top shelf only')
  await expect(page.getByRole('spinbutton', { name: `Quantity for ${first!.sku}`, exact: true })).toHaveValue('3')

  await page.getByRole('button', { name: `Remove ${first!.sku}` }).click()
  await expect(lines).toHaveCount(1)
  await page.locator('body').click({ position: { x: 5, y: 5 } })
  await page.keyboard.press('Control+z')
  await expect(lines).toHaveCount(2)
  await expect(page.getByLabel(`Note for ${first!.sku}`)).toHaveValue('Top shelf only')
  const stored = await call(core.handlers, 'getDraft', { id: draft.id })
  expect(stored.draft.lines.map((line) => [line.sku, line.qty, line.note])).toEqual([
    [first!.sku, 3, 'Top shelf only'],
    [second!.sku, 2, ''],
  ])
  expect(pageErrors).toEqual([])
})
