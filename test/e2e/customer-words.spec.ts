/**
 * What customers and reps read: order states in words (lists, the order page, documents), a draft
 * document's sentence with one full stop, an email that wraps only between its parts, and the
 * outbox's links apart from each other.
 */
import { join } from 'node:path'
import { screenshotDir, test, call, expect, orderable, watchConsole, sendOrder } from './harness'

test.describe.configure({ timeout: 90_000 })

test('states in words, one full stop, emails and links that read right', async ({ page, bridge, core }) => {
  const errors = watchConsole(page)
  const target = orderable(core)
  await sendOrder(core, target)
  await page.setViewportSize({ width: 1280, height: 720 })

  // The Orders list and an order's page: "Submitted", never "SUBMITTED".
  await page.goto(`${bridge.url}#/orders`)
  const tags = page.locator('main .tag')
  await expect(tags.first()).toBeVisible()
  const shown = await tags.allTextContents()
  expect(shown.filter((text) => /^[A-Z_ ]{4,}$/.test(text.trim()))).toEqual([])
  const options = await page.getByLabel('State', { exact: true }).locator('option').allTextContents()
  expect(options.filter((text) => /^[A-Z_]{4,} \(/.test(text.trim()))).toEqual([])
  const { orders } = await call(core.handlers, 'listOrders', { limit: 1 })
  await page.goto(`${bridge.url}#/orders/${orders[0]!.guid}`)
  await expect(page.getByRole('heading', { level: 1 })).toBeVisible()
  const orderTags = await page.locator('main .tag').allTextContents()
  expect(orderTags.filter((text) => /^[A-Z_ ]{4,}$/.test(text.trim()))).toEqual([])

  // A draft's document: "Not yet confirmed by Harbor Point Supply Co.", one full stop.
  const draft = await call(core.handlers, 'createDraft', {
    customerGuid: target.customerGuid,
    catalogGuid: target.catalogGuid,
  })
  await page.goto(`${bridge.url}#/documents/draft/${draft.draft.id}`)
  const unconfirmed = page.getByTestId('document-unconfirmed')
  await expect(unconfirmed).toHaveText(/^Not yet confirmed by .+\.$/)
  expect(await unconfirmed.textContent()).not.toContain('..')

  // The outbox's links of a sent order stand apart: "View order" and "Document", not "View orderDocument".
  await page.goto(`${bridge.url}#/outbox`)
  const view = page.getByRole('link', { name: 'View order' }).first()
  const documentLink = view.locator('xpath=following-sibling::a[1]')
  await expect(documentLink).toHaveText('Document')
  const [left, right] = [(await view.boundingBox())!, (await documentLink.boundingBox())!]
  expect(right.x - (left.x + left.width)).toBeGreaterThanOrEqual(6)

  // An email wraps between its parts, never inside one, at 320 px.
  await page.setViewportSize({ width: 320, height: 640 })
  const customer = await call(core.handlers, 'getCustomer', { guid: target.customerGuid })
  expect(customer.email).toBeTruthy()
  await page.goto(`${bridge.url}#/customers/${target.customerGuid}`)
  const email = page.getByTestId('customer-email')
  await expect(email).toHaveText(customer.email!)
  const brokenInside = await email.evaluate((cell) =>
    [...cell.childNodes]
      .filter((node) => node.nodeType === Node.TEXT_NODE && node.textContent!.trim() !== '')
      .some((node) => {
        const range = document.createRange()
        range.selectNodeContents(node)
        return new Set([...range.getClientRects()].map((rect) => Math.round(rect.top))).size > 1
      }),
  )
  await page.screenshot({ path: join(screenshotDir, 'words-320-customer-email.png') })
  expect(brokenInside).toBe(false)
  expect(errors).toEqual([])
})
