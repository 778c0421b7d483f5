/**
 * The scan box says each scan's outcome under the box, replacing the last one: a success with its
 * quantity and what the line holds now ("SKU ×4 — line now 8"); a quantity that is not a whole
 * number above zero as a quantity problem, in plain words, not a code the catalog lacks and not the
 * core's words at the top of the screen. Scan sounds can be turned off in Settings.
 */
import { expect, test, call, watchConsole, findOrderWorld } from './harness'

test.describe.configure({ timeout: 90_000 })
test.use({ viewport: { width: 1280, height: 720 } })

test('a scan says what it added and what the line holds; a refused quantity is said at the box', async ({
  page,
  bridge,
  core,
}) => {
  const pageErrors = watchConsole(page)
  const world = await findOrderWorld(core.handlers)
  const code = world.plain[0]!.sku
  const { draft } = await call(core.handlers, 'createDraft', {
    customerGuid: world.customer.guid,
    catalogGuid: world.catalogGuid,
  })
  await page.goto(`${bridge.url}#/drafts/${draft.id}`)
  const sku = page.getByLabel('SKU or barcode')
  const message = page.getByTestId('scan-message')
  const scan = async (typed: string) => {
    await sku.fill(typed)
    await sku.press('Enter')
  }

  await scan(`${code} 4`)
  await expect(message).toHaveText(`${code} ×4 — new line.`)
  await scan(`${code} x 4`)
  await expect(message).toHaveText(`${code} ×4 — line now 8.`)
  await expect(message).toHaveAttribute('data-tone', 'ok')

  for (const [typed, words] of [
    [`${code} -1`, `${code} not added: the quantity “-1” — enter a quantity above zero.`],
    [`${code} 1.5`, `${code} not added: the quantity “1.5” — enter a whole number: items are ordered in whole units.`],
    [`${code} x`, `${code} not added: the quantity “x” — enter the quantity as a number.`],
  ] as const) {
    await scan(typed)
    await expect(message).toHaveText(words)
    await expect(message).toHaveAttribute('role', 'alert')
    await expect(message).toHaveAttribute('data-tone', 'error')
    await expect(message).not.toContainText('is not in this catalog')
    await expect(sku).toHaveValue(typed)
    await sku.fill('')
  }
  // Nothing at the top of the screen in the core's words, and the line is as it was.
  await expect(page.locator('.order > p.error')).toHaveCount(0)
  await expect(page.getByRole('spinbutton', { name: `Quantity for ${code}`, exact: true })).toHaveValue('8')

  // Scan sounds off in Settings, for this laptop: the box says so to the tone it would have played.
  await expect(message).toHaveAttribute('data-sound', 'on')
  await page.goto(`${bridge.url}#/settings`)
  const sounds = page.getByRole('checkbox', { name: /Scan sounds/ })
  await expect(sounds).toBeChecked()
  await sounds.uncheck()
  await page.goto(`${bridge.url}#/drafts/${draft.id}`)
  await scan(`${code} 0`)
  await expect(message).toHaveText(`${code} not added: the quantity “0” — enter a quantity above zero.`)
  await expect(message).toHaveAttribute('data-sound', 'off')
  await page.reload()
  await expect(page.getByTestId('scan-message')).toHaveAttribute('data-sound', 'off')
  expect(pageErrors).toEqual([])
})
