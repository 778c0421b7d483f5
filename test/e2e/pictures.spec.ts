/**
 * Item pictures on screen: catalog rows show their thumbnails from the cache with the service
 * stopped, a row whose picture is missing keeps its placeholder, the panel says a picture is not
 * downloaded yet, and no request leaves the page for an image host.
 */
import { expect, test, call, watchConsole } from './harness'

test.describe.configure({ timeout: 120_000 })

test('catalog rows show thumbnails offline, a missing one its placeholder, and nothing reaches an image host', async ({
  page,
  bridge,
  core,
  service,
}) => {
  const pageErrors = watchConsole(page)
  const [catalog] = await call(core.handlers, 'listCatalogs', {})
  const first = await call(core.handlers, 'searchCatalogItems', { catalogGuid: catalog!.guid, limit: 6 })
  const [missing, shown] = first.items.filter((item) => !item.familyOf)
  service.current.control.imageFault(missing!.guid, 'missing')
  // On screen, so fetched now (the background's reads for the rest of the catalog are few an hour).
  await call(core.handlers, 'setPicturesOnScreen', { itemGuids: first.items.map((item) => item.guid) })
  await expect
    .poll(() => core.pictures!.status().failed === 1 && core.pictures!.read(shown!.guid, 'thumb') !== null, {
      timeout: 30_000,
    })
    .toBe(true)
  await service.stop()

  const requests: string[] = []
  page.on('request', (request) => requests.push(request.url()))
  await page.goto(`${bridge.url}#/catalog?catalog=${catalog!.guid}`)
  const scroller = page.getByTestId('catalog-scroller')
  await expect(scroller).toHaveAttribute('data-results-for', '')
  const rowOf = (sku: string) => scroller.getByRole('row').filter({ hasText: sku }).first()

  // Beside the item's name, the thumbnail is decorative: an empty alt, hidden from screen readers.
  const picture = rowOf(shown!.sku).locator('[data-picture]')
  await expect(picture).toHaveAttribute('data-picture', 'shown')
  await expect(picture.locator('img')).toHaveAttribute('alt', '')
  await expect(picture).toHaveAttribute('aria-hidden', 'true')
  const placeholder = rowOf(missing!.sku).locator('[data-picture]')
  await expect(placeholder).toHaveAttribute('data-picture', 'placeholder')
  // The same box either way: nothing moves when a picture comes or does not.
  expect(await placeholder.boundingBox()).toMatchObject({ width: 32, height: 32 })
  expect(await picture.boundingBox()).toMatchObject({ width: 32, height: 32 })

  // The panel: the picture, its text alternative the item's name; or, where there is none, words.
  await rowOf(shown!.sku)
    .getByRole('button', { name: `${shown!.name}, ${shown!.sku}: show details` })
    .click()
  const gallery = page.getByTestId('item-gallery')
  await expect(gallery.getByRole('img', { name: shown!.name })).toBeVisible()
  await rowOf(missing!.sku)
    .getByRole('button', { name: `${missing!.name}, ${missing!.sku}: show details` })
    .click()
  await expect(gallery).toContainText('Picture not downloaded yet')

  const bridgeHost = new URL(bridge.url).host
  const elsewhere = requests.filter((url) => !url.startsWith('data:') && new URL(url).host !== bridgeHost)
  expect(elsewhere).toEqual([])
  expect(requests.some((url) => url.includes('/satchel-picture/thumb/'))).toBe(true)
  expect(pageErrors).toEqual([])
})
