/**
 * Selling from pictures in the panel and the family grid: every picture of an item in the panel's
 * gallery, fetched when it opens and kept for offline, moved through by arrow keys and buttons and
 * named in words; and a family grid with its picture in the header, each member's name and picture
 * when its cell is pointed at, and its members' pictures fetched because the grid is on screen.
 */
import { execFileSync } from 'node:child_process'
import { join } from 'node:path'
import type { Locator, Page } from '@playwright/test'
import { expect, test, call, watchConsole, findOrderWorld } from './harness'
import type { TestCore } from '../support/core'

test.describe.configure({ timeout: 120_000 })

/** The catalog searched for `text` as the rep types it; answers the list once its results are in. */
async function searchCatalog(page: Page, url: string, catalogGuid: string, text: string): Promise<Locator> {
  await page.goto(`${url}#/catalog?catalog=${catalogGuid}`)
  await page.getByLabel('Search catalog').fill(text)
  const scroller = page.getByTestId('catalog-scroller')
  await expect(scroller).toHaveAttribute('data-results-for', text)
  return scroller
}

/** Waits for the pass to have the items' thumbnails in the cache. */
async function thumbnailsCached(core: TestCore, itemGuids: string[]): Promise<void> {
  await expect
    .poll(() => itemGuids.every((guid) => core.pictures!.read(guid, 'thumb') !== null), { timeout: 30_000 })
    .toBe(true)
}

/** How many pictures a PDF holds (pdfimages -list: a row per image, its transparency masks apart). */
function pdfImages(path: string): number {
  const listed = execFileSync('pdfimages', ['-list', path], { encoding: 'utf8' }).trim().split('\n').slice(2)
  return listed.filter((row) => row.trim().split(/\s+/)[2] === 'image').length
}

test('the panel’s gallery: all of an item’s pictures, fetched on opening and kept, in words, by keys and buttons', async ({
  page,
  bridge,
  core,
  service,
}) => {
  const pageErrors = watchConsole(page)
  const [catalog] = await call(core.handlers, 'listCatalogs', {})
  const first = await call(core.handlers, 'searchCatalogItems', { catalogGuid: catalog!.guid, limit: 6 })
  const item = first.items.find((each) => !each.familyOf)!
  // Three pictures, the third not to be had: it stays the placeholder, in words.
  service.current.control.imageGallery(item.guid, 3, [3])

  const scroller = await searchCatalog(page, bridge.url, catalog!.guid, item.sku)
  const details = scroller.getByRole('button', { name: `${item.name}, ${item.sku}: show details` }).first()
  await details.click()
  const gallery = page.getByTestId('item-gallery')
  const place = gallery.getByTestId('gallery-place')
  await expect(place).toHaveText('picture 1 of 3')
  await expect(gallery.getByRole('img', { name: `${item.name}, picture 1 of 3` })).toBeVisible()
  const large = gallery.locator('[data-picture]')
  await expect(large).toHaveAttribute('data-picture', 'shown')
  const shownBox = await large.boundingBox()

  // The strip: a button per picture, its thumbnail decorative (the button names it).
  const strip = gallery.getByRole('list', { name: 'All pictures' })
  await expect(strip.getByRole('button')).toHaveCount(3)
  await expect(strip.locator('img')).toHaveCount(2)
  for (const img of await strip.locator('img').all()) await expect(img).toHaveAttribute('alt', '')
  await expect(strip.getByRole('button', { name: 'Show picture 1 of 3' })).toHaveAttribute('aria-current', 'true')

  // The arrow keys move; so do the buttons.
  await large.focus()
  await page.keyboard.press('ArrowRight')
  await expect(place).toHaveText('picture 2 of 3')
  await expect(gallery.getByRole('img', { name: `${item.name}, picture 2 of 3` })).toBeVisible()
  await expect(large).toHaveAttribute('data-picture', 'shown')
  await gallery.getByRole('button', { name: 'Next picture' }).click()
  await expect(place).toHaveText('picture 3 of 3')
  await expect(gallery).toContainText('Picture not downloaded yet')
  await expect(large).toHaveAttribute('data-picture', 'placeholder')
  await expect(gallery.getByRole('button', { name: 'Next picture' })).toHaveAttribute('aria-disabled', 'true')
  // The same box, picture or not: nothing moves.
  expect(await large.boundingBox()).toMatchObject({ width: shownBox!.width, height: shownBox!.height })
  await page.keyboard.press('ArrowLeft')
  await expect(place).toHaveText('picture 2 of 3')
  // Each position is its own picture, from the cache; the third has none there (204).
  const served = (path: string) =>
    page.request.get(new URL(`/satchel-picture/panel/${item.guid}${path}`, bridge.url).href)
  const [one, two, three] = await Promise.all([served(''), served('/2'), served('/3')])
  expect(two.status()).toBe(200)
  expect(Buffer.compare(await one.body(), await two.body())).not.toBe(0)
  expect(three.status()).toBe(204)

  // Kept: with the service gone, the panel opened again still has the second picture.
  await service.stop()
  await page.getByRole('button', { name: 'Close item details' }).click()
  await details.click()
  await expect(place).toHaveText('picture 1 of 3')
  await strip.getByRole('button', { name: 'Show picture 2 of 3' }).click()
  await expect(gallery.getByRole('img', { name: `${item.name}, picture 2 of 3` })).toBeVisible()
  await expect(large).toHaveAttribute('data-picture', 'shown')
  expect(pageErrors).toEqual([])
})

test('a family grid: its picture in the header, each member named with its picture when pointed at, and its pictures fetched because it is on screen', async ({
  page,
  bridge,
  core,
}) => {
  const pageErrors = watchConsole(page)
  const parent = core.db
    .prepare<[], { guid: string; sku: string; catalog_guid: string; id: number }>(
      `SELECT guid, sku, catalog_guid, json ->> '$.id' AS id FROM catalog_items WHERE deleted_at IS NULL
         AND json ->> '$.is_product_group' = 1 AND json ->> '$.product_group_type' = 'Color/Size' ORDER BY id LIMIT 1`,
    )
    .get()!
  const members = core.db
    .prepare<[number], { guid: string; sku: string; name: string }>(
      `SELECT guid, sku, name FROM catalog_items WHERE json ->> '$.group_parent_catalog_item_id' = ?
         AND deleted_at IS NULL ORDER BY json ->> '$.group_sequence'`,
    )
    .all(parent.id)
  expect(members.length).toBeGreaterThan(1)
  // No pass has run: the cache is empty until the grid is on screen.
  expect(core.pictures!.read(members[0]!.guid, 'thumb')).toBeNull()

  const scroller = await searchCatalog(page, bridge.url, parent.catalog_guid, parent.sku)
  await scroller.getByRole('button', { name: `Open the grid of ${parent.sku}` }).click()
  const grid = page.getByTestId('family-grid')
  await expect(grid.getByRole('table')).toBeVisible()

  // On screen, so fetched at once, ahead of the rest of the catalog; and the header shows it when it comes.
  await thumbnailsCached(
    core,
    members.map((member) => member.guid),
  )
  const header = grid.getByTestId('family-picture')
  await expect(header).toHaveAttribute('data-picture', 'shown')
  await expect(header).toHaveAttribute('aria-hidden', 'true')
  expect(await header.boundingBox()).toMatchObject({ width: 48, height: 48 })
  // The tiers only, not the idle pass: the rest of the catalog was not fetched with them.
  expect(core.pictures!.status().cached).toBeLessThanOrEqual(members.length + 1)

  // Pointing at a member's cell names it, with its picture.
  const member = members[1]!
  const cell = grid.locator('td').filter({ has: page.locator(`[data-tip-for="${member.sku}"]`) })
  const tip = cell.getByRole('tooltip')
  await expect(tip).toBeHidden()
  await cell.hover()
  await expect(tip).toBeVisible()
  await expect(tip).toContainText(member.name)
  await expect(tip.locator('[data-picture]')).toHaveAttribute('data-picture', 'shown')
  expect(pageErrors).toEqual([])
})

test('printed documents: a quote shows each line’s picture, an order confirmation none, by default', async ({
  page,
  bridge,
  core,
}) => {
  const pageErrors = watchConsole(page)
  const world = await findOrderWorld(core.handlers)
  const items = world.plain.slice(0, 3)
  // Their pictures in the cache, as the pass leaves them for the open quote's lines.
  await call(core.handlers, 'setPicturesOnScreen', { itemGuids: items.map((item) => item.guid) })
  await thumbnailsCached(
    core,
    items.map((item) => item.guid),
  )
  const draftOf = async () => {
    const draft = await call(core.handlers, 'createDraft', {
      customerGuid: world.customer.guid,
      catalogGuid: world.catalogGuid,
    })
    await call(core.handlers, 'addDraftLines', {
      id: draft.draft.id,
      lines: items.map((item) => ({ catalogItemGuid: item.guid, qty: 2 })),
    })
    return draft.draft.id
  }
  const settings = await call(core.handlers, 'getSettings')
  expect(settings).toMatchObject({ picturesOnQuotes: true, picturesOnOrders: false })

  const quote = await call(core.handlers, 'saveDraftAsQuote', { draftId: await draftOf() })
  await page.emulateMedia({ media: 'print' })
  await page.goto(`${bridge.url}#/documents/quote/${quote.id}`)
  await expect(page.getByTestId('document-number')).toHaveText(quote.number)
  const pictures = page.locator('.document tbody [data-picture]')
  await expect(pictures).toHaveCount(items.length)
  for (const picture of await pictures.all()) await expect(picture).toHaveAttribute('data-picture', 'shown')
  const printed = (name: string) => join(core.directory, name)
  await page.pdf({ path: printed('quote.pdf'), format: 'A4' })
  expect(pdfImages(printed('quote.pdf'))).toBe(items.length)
  expect(execFileSync('pdftotext', [printed('quote.pdf'), '-'], { encoding: 'utf8' })).toContain(items[0]!.sku)

  const entry = await call(core.handlers, 'sendDraft', { id: await draftOf() })
  await page.goto(`${bridge.url}#/documents/queued/${entry.apiGuid}`)
  await expect(page.locator('.document tbody tr')).toHaveCount(items.length)
  await expect(page.locator('.document [data-picture]')).toHaveCount(0)
  await expect(page.locator('.document img')).toHaveCount(0)
  await page.pdf({ path: printed('order.pdf'), format: 'A4' })
  expect(pdfImages(printed('order.pdf'))).toBe(0)

  // Turned on, the confirmation has them too.
  await call(core.handlers, 'updateSettings', { picturesOnOrders: true })
  await page.reload()
  await expect(page.locator('.document tbody [data-picture]')).toHaveCount(items.length)
  expect(pageErrors).toEqual([])
})
