/**
 * The order screen's "SKU or barcode" box takes what a rep types or scans into it: a UPC, a SKU with
 * a quantity ("SKU 4", "SKU x 4", "SKU*4"), and a scan of an item with a minimum starts at that
 * minimum and says so. What is refused stays in the box to be corrected. A new empty draft is not
 * shown as a problem until the rep tries to send it.
 */
import { expect, test, call, watchConsole, findOrderWorld } from './harness'
import { shootAtLaptopSizes } from './workspace'

test.describe.configure({ timeout: 90_000 })
test.use({ viewport: { width: 1280, height: 720 } })

test('a scanned UPC adds its item, as catalog search finds it', async ({ page, bridge, core }) => {
  const pageErrors = watchConsole(page)
  const world = await findOrderWorld(core.handlers)
  const target = world.plain.find((item) => item.upc)!
  const found = await call(core.handlers, 'searchCatalogItems', {
    catalogGuid: world.catalogGuid,
    query: target.upc!,
    limit: 5,
  })
  expect(found.items.map((item) => item.sku)).toContain(target.sku)
  const { draft } = await call(core.handlers, 'createDraft', {
    customerGuid: world.customer.guid,
    catalogGuid: world.catalogGuid,
  })
  await page.goto(`${bridge.url}#/drafts/${draft.id}`)

  const sku = page.getByLabel('SKU or barcode')
  await sku.fill(target.upc!)
  await sku.press('Enter')
  await expect(page.getByTestId('scan-message')).toHaveText(`${target.sku} ×1 — new line.`)
  await expect(page.getByRole('spinbutton', { name: `Quantity for ${target.sku}`, exact: true })).toHaveValue('1')
  expect(pageErrors).toEqual([])
})

test('a UPC scanned as EAN-13, GTIN-14 or a GS1 label finds its item; a bad check digit is a mis-scan', async ({
  page,
  bridge,
  core,
}) => {
  const pageErrors = watchConsole(page)
  const world = await findOrderWorld(core.handlers)
  const target = world.plain.find((item) => item.upc && /^\d{12}$/.test(item.upc))!
  const gtin14 = `00${target.upc!}`
  const { draft } = await call(core.handlers, 'createDraft', {
    customerGuid: world.customer.guid,
    catalogGuid: world.catalogGuid,
  })
  await page.goto(`${bridge.url}#/drafts/${draft.id}`)
  const sku = page.getByLabel('SKU or barcode')
  const message = page.getByTestId('scan-message')

  await sku.fill(`0${target.upc!}`)
  await sku.press('Enter')
  await expect(message).toHaveText(`${target.sku} ×1 — new line.`)
  await sku.fill(`(01)${gtin14}(17)271231(10)LOT42 3`)
  await sku.press('Enter')
  await expect(message).toHaveText(`${target.sku} ×3 — line now 4.`)
  await sku.fill(`01${gtin14}\x1d10LOT42`)
  await sku.press('Enter')
  await expect(message).toHaveText(`${target.sku} ×1 — line now 5.`)

  const last = Number(gtin14.at(-1))
  const misScanned = gtin14.slice(0, 13) + String((last + 1) % 10)
  await sku.fill(misScanned)
  await sku.press('Enter')
  await expect(message).toHaveText(
    `${misScanned} is not a valid barcode (its check digit is wrong): probably a mis-scan — scan it again.`,
  )
  await expect(page.locator('tbody.line')).toHaveCount(1)

  await page.goto(`${bridge.url}#/catalog?catalog=${world.catalogGuid}`)
  await page.getByLabel('Search catalog').fill(`(01)${gtin14}`)
  const scroller = page.getByTestId('catalog-scroller')
  await expect(scroller).toHaveAttribute('data-results-for', `(01)${gtin14}`)
  await expect(scroller.getByRole('row').filter({ hasText: target.sku })).toHaveCount(1)
  expect(pageErrors).toEqual([])
})

test('“SKU 4”, “SKU x 2” and “SKU*3” add with their quantity; a refused entry stays in the box', async ({
  page,
  bridge,
  core,
}) => {
  const pageErrors = watchConsole(page)
  const world = await findOrderWorld(core.handlers)
  const [first, second, third] = world.plain
  const { draft } = await call(core.handlers, 'createDraft', {
    customerGuid: world.customer.guid,
    catalogGuid: world.catalogGuid,
  })
  await page.goto(`${bridge.url}#/drafts/${draft.id}`)
  const sku = page.getByLabel('SKU or barcode')
  const qtyOf = (code: string) => page.getByRole('spinbutton', { name: `Quantity for ${code}`, exact: true })

  await sku.fill(`${first!.sku} 4`)
  await sku.press('Enter')
  await expect(qtyOf(first!.sku)).toHaveValue('4')
  await expect(sku).toHaveValue('')
  await sku.fill(`${second!.sku} x 2`)
  await sku.press('Enter')
  await expect(qtyOf(second!.sku)).toHaveValue('2')
  await sku.fill(`${third!.sku}*3`)
  await sku.press('Enter')
  await expect(qtyOf(third!.sku)).toHaveValue('3')
  await expect(page.getByTestId('scan-message')).toHaveText(`${third!.sku} ×3 — new line.`)

  await sku.fill('NO-SUCH-SKU 4')
  await sku.press('Enter')
  // The service was asked too (scan-codes.spec.ts reads these messages at every size).
  await expect(page.getByTestId('scan-message')).toHaveText(
    /^NO-SUCH-SKU is not in this catalog as of the last sync \(.+\), and the supplier’s service does not have it either\.$/,
  )
  await expect(sku).toHaveValue('NO-SUCH-SKU 4')
  await expect(sku).toBeFocused()
  await expect(page.locator('tbody.line')).toHaveCount(3)
  expect(pageErrors).toEqual([])
})

test('scanning an item with a minimum adds the minimum and says so', async ({ page, bridge, core }) => {
  const pageErrors = watchConsole(page)
  const world = await findOrderWorld(core.handlers)
  const minimum = world.minimum.minOrderQty!
  const { draft } = await call(core.handlers, 'createDraft', {
    customerGuid: world.customer.guid,
    catalogGuid: world.catalogGuid,
  })
  await page.goto(`${bridge.url}#/drafts/${draft.id}`)
  const sku = page.getByLabel('SKU or barcode')

  await sku.fill(world.minimum.sku)
  await sku.press('Enter')
  const message = page.getByTestId('scan-message')
  await expect(message).toHaveText(`${world.minimum.sku} ×${minimum} — new line, its minimum order quantity.`)
  await expect(message).toHaveAttribute('data-tone', 'ok')
  await expect(page.getByRole('spinbutton', { name: `Quantity for ${world.minimum.sku}`, exact: true })).toHaveValue(
    String(minimum),
  )
  await expect(page.locator(`tbody[data-line="${world.minimum.sku}"] [data-severity="error"]`)).toHaveCount(0)
  expect(pageErrors).toEqual([])
})

test('a new empty draft shows no error until the rep tries to send it', async ({ page, bridge, core }) => {
  const pageErrors = watchConsole(page)
  const world = await findOrderWorld(core.handlers)
  const { draft } = await call(core.handlers, 'createDraft', {
    customerGuid: world.customer.guid,
    catalogGuid: world.catalogGuid,
  })
  await page.goto(`${bridge.url}#/drafts/${draft.id}`)
  await expect(page.getByRole('heading', { name: new RegExp(`Order #${draft.id} for`) })).toBeVisible()

  await expect(page.getByRole('list', { name: 'Problems with the order' })).toHaveCount(0)
  await expect(page.locator('#send-summary')).not.toContainText('to fix')
  await expect(page.getByRole('alert')).toHaveCount(0)
  await shootAtLaptopSizes(page, 'order-empty-draft')

  await page.getByRole('button', { name: 'Send order' }).click()
  await expect(page.getByTestId('send-problem')).toContainText('Add at least one line before sending.')
  const sku = page.getByLabel('SKU or barcode')
  await sku.fill(world.plain[0]!.sku)
  await sku.press('Enter')
  await expect(page.getByTestId('send-problem')).toHaveCount(0)
  expect(pageErrors).toEqual([])
})

test('a SKU names the item it writes exactly; in capitals of neither of two SKUs it is refused, naming both', async ({
  page,
  bridge,
  core,
  service,
}) => {
  const pageErrors = watchConsole(page)
  const world = await findOrderWorld(core.handlers)
  const control = service.current.control
  const pricing = Object.fromEntries(control.priceGroups(world.catalogGuid).map((group) => [group.value as string, 4]))
  for (const code of ['DPR-10001', 'dpr-10001']) {
    control.insertCatalogItem(world.catalogGuid, {
      sku: code,
      name: `Dust pan ${code}`,
      pricing,
      has_inventory: false,
      allow_backorder: true,
      min_order_qty: 1,
      qty_break: 0,
      is_product_group: false,
    })
  }
  const report = await call(core.handlers, 'syncNow', {})
  expect(report.ok).toBe(true)
  const { draft } = await call(core.handlers, 'createDraft', {
    customerGuid: world.customer.guid,
    catalogGuid: world.catalogGuid,
  })
  await page.goto(`${bridge.url}#/drafts/${draft.id}`)
  const sku = page.getByLabel('SKU or barcode')

  await sku.fill('dpr-10001')
  await sku.press('Enter')
  await expect(page.getByTestId('scan-message')).toHaveText('dpr-10001 ×1 — new line.')
  await sku.fill('Dpr-10001')
  await sku.press('Enter')
  await expect(page.getByTestId('scan-message')).toHaveText(
    'Dpr-10001 could be any of 2 items whose SKUs differ only in capitals (DPR-10001, dpr-10001). Type the SKU of the one you mean exactly, capitals and all.',
  )
  await expect(sku).toHaveValue('Dpr-10001')
  await expect(page.locator('tbody.line')).toHaveCount(1)
  expect(pageErrors).toEqual([])
})
