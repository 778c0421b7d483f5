/**
 * Customers: find one by typing, open the page, start a new order, reorder; the new-customer form
 * with the core's messages; order history and an order's detail.
 */
import { test, call, expect, orderable, shoot, watchConsole } from './harness'

test.describe.configure({ timeout: 30_000 })

test('find a customer by typing, open the page, and New order lands on a draft', async ({ page, bridge, core }) => {
  const errors = watchConsole(page)
  const target = orderable(core)
  const word = target.customerName.split(/\s+/)[0]!

  await page.goto(`${bridge.url}#/customers`)
  const search = page.getByLabel('Search customers')
  await expect(search).toBeFocused()
  await expect(page.getByRole('list', { name: 'Customers' }).getByRole('link').first()).toBeVisible()
  await shoot(page, 'customers.png')
  await page.emulateMedia({ colorScheme: 'dark' })
  await shoot(page, 'customers-dark.png')
  await page.emulateMedia({ colorScheme: 'light' })

  await search.pressSequentially(word, { delay: 20 })
  const hit = page
    .getByRole('list', { name: 'Customers' })
    .getByRole('link', { name: new RegExp(target.customerName.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')) })
  await expect(hit).toBeVisible()
  await hit.click()

  await expect(page).toHaveURL(new RegExp(`#/customers/${target.customerGuid}$`))
  await expect(page.getByRole('heading', { level: 1, name: target.customerName })).toBeVisible()
  await expect(page.getByRole('heading', { name: 'Account' })).toBeVisible()
  await expect(page.getByText('Credit limit')).toBeVisible()
  await expect(page.getByRole('heading', { name: 'Recent orders' })).toBeVisible()
  await shoot(page, 'customer.png')

  await expect(page.getByRole('button', { name: 'New order' })).toHaveAttribute('aria-keyshortcuts', /N$/)
  await page.getByRole('button', { name: 'New order' }).click()
  await expect(page).toHaveURL(/#\/drafts\/\d+$/)
  expect(errors).toEqual([])
})

test('Reorder copies a past order into a new draft and says what was not copied', async ({ page, bridge, core }) => {
  const errors = watchConsole(page)
  const { orders } = await call(core.handlers, 'listOrders', { limit: 50 })
  const past = orders.find((order) => order.customerGuid && order.lineCount > 0)
  if (!past?.customerGuid) throw new Error('the seeded data has no order with lines')

  await page.goto(`${bridge.url}#/customers/${past.customerGuid}`)
  const reorder = page.getByRole('button', { name: `Reorder ${past.name ?? 'this order'}` })
  await expect(reorder).toBeVisible()
  await reorder.click()
  await expect(page).toHaveURL(/#\/drafts\/\d+$/)
  await expect(page.getByText(/(were|was) not copied|Every line of .* was copied/)).toBeVisible()
  expect(errors).toEqual([])
})

test('a new customer in the field: the core’s messages per field, then a draft', async ({ page, bridge }) => {
  const errors = watchConsole(page)
  await page.goto(`${bridge.url}#/customers`)
  await page.keyboard.press('Control+Shift+N')
  await expect(page).toHaveURL(/#\/customers\/new$/)

  await page.getByLabel('Email').first().fill('not-an-email')
  await page.getByRole('group', { name: 'Bill-to address' }).getByLabel('Street', { exact: true }).fill('12 Market St')
  await page.getByRole('button', { name: 'Start order' }).click()
  await expect(page.getByRole('alert')).toContainText('Some fields need attention.')
  await expect(page.getByText('Enter the customer’s name')).toBeVisible()
  await expect(page.getByText('Enter a valid email address')).toBeVisible()
  await expect(page.getByText('Enter the city')).toBeVisible()
  await shoot(page, 'new-customer.png')

  await page.getByLabel('Name', { exact: true }).fill('Corner Deli of Tomorrow')
  await page.getByLabel('Email').first().fill('owner@cornerdeli.example')
  await page.getByRole('group', { name: 'Bill-to address' }).getByLabel('City').fill('Springfield')
  await page.getByRole('button', { name: 'Start order' }).click()
  await expect(page).toHaveURL(/#\/drafts\/\d+$/)
  expect(errors).toEqual([])
})

test('order history across customers, per customer, and an order’s lines', async ({ page, bridge }) => {
  const errors = watchConsole(page)
  await page.goto(`${bridge.url}#/orders`)
  await expect(page.getByRole('heading', { name: 'Orders', exact: true })).toBeVisible()
  const rows = page.getByRole('table').getByRole('row')
  await expect(rows.nth(1)).toBeVisible()
  await shoot(page, 'orders.png')

  await page.getByRole('table').getByRole('row').nth(1).getByRole('link').nth(1).click()
  await expect(page).toHaveURL(/#\/orders\?customer=/)
  await expect(page.getByRole('heading', { name: /^Orders — / })).toBeVisible()

  await page.getByRole('table').getByRole('row').nth(1).getByRole('link').first().click()
  await expect(page).toHaveURL(/#\/orders\/[^?]+$/)
  await expect(page.getByRole('heading', { name: /^Order / })).toBeVisible()
  await expect(page.getByRole('columnheader', { name: 'SKU' })).toBeVisible()
  await shoot(page, 'order.png')
  expect(errors).toEqual([])
})
