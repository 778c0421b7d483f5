/**
 * What a scan says when the code is not an item the rep can simply add: one the supplier added since
 * the last sync is read from the service and added, and said to be new; one the service lacks too, or
 * cannot be asked about offline, is "not in this catalog as of the last sync", with when that was; one
 * not offered to the customer's price group adds no line, and says why and what to do. Each read at
 * 1280×720, 320 px and 200%, light and dark, with axe.
 */
import { expect, test, call, watchConsole, findOrderWorld, type OrderWorld, type ServiceHandle } from './harness'
import { readEveryWay } from './workspace'

test.describe.configure({ timeout: 120_000 })
test.use({ viewport: { width: 1280, height: 720 } })

/** An item the supplier adds after the laptop's last sync, priced as an orderable one of the world's catalog. */
function addedSinceSync(service: ServiceHandle, world: OrderWorld, sku: string): void {
  const { control } = service.current
  const like = control.catalogItems(world.catalogGuid).find((item) => item.guid === world.plain[0]!.guid)!
  control.insertCatalogItem(world.catalogGuid, {
    sku,
    upc: null,
    name: `Harbor Blend Coffee ${sku}`,
    pricing: like.pricing,
    min_order_qty: null,
    has_inventory: false,
    is_product_group: false,
    group_parent_catalog_item_id: null,
  })
}

test('a code the supplier added since the last sync is read from the service and added, said to be new', async ({
  page,
  bridge,
  core,
  service,
}) => {
  const pageErrors = watchConsole(page)
  const world = await findOrderWorld(core.handlers)
  addedSinceSync(service, world, 'NEW-77001')
  const draft = await call(core.handlers, 'createDraft', {
    customerGuid: world.customer.guid,
    catalogGuid: world.catalogGuid,
  })
  await page.goto(`${bridge.url}#/drafts/${draft.draft.id}`)
  const sku = page.getByLabel('SKU or barcode')
  const message = page.getByTestId('scan-message')
  await sku.fill('NEW-77001')
  await sku.press('Enter')
  await expect(message).toHaveText(
    'NEW-77001 ×1 — new line (new since the last sync: read from the supplier’s service).',
  )
  await expect(message).toHaveAttribute('data-tone', 'ok')
  await expect(page.getByRole('spinbutton', { name: 'Quantity for NEW-77001', exact: true })).toHaveValue('1')
  await expect(sku).toHaveValue('')
  expect(await readEveryWay(page, 'scan-new-since-sync', message)).toEqual([])
  expect(pageErrors).toEqual([])
})

test('a code neither the laptop nor the service has, then one offline: not in this catalog as of the last sync, and when', async ({
  page,
  bridge,
  core,
  service,
}) => {
  const pageErrors = watchConsole(page)
  const world = await findOrderWorld(core.handlers)
  addedSinceSync(service, world, 'NEW-77002')
  const draft = await call(core.handlers, 'createDraft', {
    customerGuid: world.customer.guid,
    catalogGuid: world.catalogGuid,
  })
  await page.goto(`${bridge.url}#/drafts/${draft.draft.id}`)
  const sku = page.getByLabel('SKU or barcode')
  const message = page.getByTestId('scan-message')
  await sku.fill('NOPE-404')
  await sku.press('Enter')
  await expect(message).toHaveText(
    /^NOPE-404 is not in this catalog as of the last sync \(.+\), and the supplier’s service does not have it either\.$/,
  )
  await expect(message).toHaveAttribute('data-tone', 'error')
  await expect(sku).toHaveValue('NOPE-404')

  // Offline: the one the supplier did add cannot be asked about; the rep is told to try again online.
  await service.stop()
  await expect.poll(async () => (await call(core.handlers, 'getConnectivity')).online, { timeout: 15_000 }).toBe(false)
  await sku.fill('NEW-77002')
  await sku.press('Enter')
  await expect(message).toHaveText(
    /^NEW-77002 is not in this catalog on this laptop as of the last sync \(.+\); the supplier’s service could not be asked\. If the supplier added it since, try again when online\.$/,
  )
  await expect(page.locator('tbody[data-line]')).toHaveCount(0)
  expect(await readEveryWay(page, 'scan-not-on-laptop', message)).toEqual([])
  expect(pageErrors.filter((error) => !/ERR_CONNECTION_REFUSED|Failed to fetch/.test(error))).toEqual([])
})

test('an item not offered to the customer’s price group is refused at the scan, with why and what to do', async ({
  page,
  bridge,
  core,
}) => {
  const pageErrors = watchConsole(page)
  const world = await findOrderWorld(core.handlers)
  const draft = await call(core.handlers, 'createDraft', {
    customerGuid: world.customer.guid,
    catalogGuid: world.catalogGuid,
  })
  await page.goto(`${bridge.url}#/drafts/${draft.draft.id}`)
  const sku = page.getByLabel('SKU or barcode')
  const message = page.getByTestId('scan-message')
  await sku.fill(world.notOffered.sku)
  await sku.press('Enter')
  await expect(message).toHaveText(
    `${world.notOffered.sku} is not offered to price group ${world.priceGroupName}: it cannot be ordered for this customer; ask the supplier, or choose another item.`,
  )
  await expect(message).toHaveAttribute('data-tone', 'error')
  await expect(page.locator('tbody[data-line]')).toHaveCount(0)

  // Pasted with others: the rest go in, and the refused one stays in the box with its reason.
  await page.getByLabel('Paste SKUs and quantities').fill(`${world.plain[0]!.sku}\t2\n${world.notOffered.sku}\t1`)
  await page.getByRole('button', { name: 'Add pasted lines' }).click()
  const pasted = page.getByTestId('paste-message')
  await expect(pasted).toContainText('Added 1 of 2 pasted lines.')
  await expect(pasted).toContainText(`${world.notOffered.sku} is not offered to price group ${world.priceGroupName}`)
  await expect(page.getByLabel('Paste SKUs and quantities')).toHaveValue(`${world.notOffered.sku}\t1`)
  expect(await readEveryWay(page, 'scan-not-offered', message)).toEqual([])
  expect(pageErrors).toEqual([])
})
