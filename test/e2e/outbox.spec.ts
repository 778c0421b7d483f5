/**
 * The outbox as the rep sees it: needs attention with the service's message on its line, retrying
 * with the next attempt, sent with the server's order number; retry now, and discard after a
 * confirmation. Entries are made through the core (order entry is another screen's business).
 */
import { test, call, expect, orderable, queueOrder, shoot, watchConsole, refuseOrders, sendOrder } from './harness'

test.describe.configure({ timeout: 30_000 })
const orderRoute = 'POST /v1/orderWithItems'

test('every state on its line; retry now sends it; discard asks first', async ({ page, bridge, service, core }) => {
  const errors = watchConsole(page)
  const target = orderable(core)
  const control = service.current.control

  refuseOrders(service)
  await sendOrder(core, target)
  await sendOrder(core, target)
  const outage = control.addFault({ route: orderRoute, type: 'status', status: 503 })
  const retryingKey = await sendOrder(core, target)

  const states = (await call(core.handlers, 'listOutbox')).map((entry) => entry.state).sort()
  expect(states).toEqual(['needsAttention', 'retrying', 'sent'])

  await page.goto(`${bridge.url}#/outbox`)
  const entries = page.getByRole('list', { name: 'Outbox entries' })
  const attention = entries.getByRole('article', { name: `${target.customerName}: Needs attention` })
  const retrying = entries.getByRole('article', { name: `${target.customerName}: Retrying` })
  const sent = entries.getByRole('article', { name: `${target.customerName}: Sent` })
  await expect(attention).toContainText('Line 1')
  await expect(attention).toContainText('Item is inactive')
  await expect(retrying).toContainText('Next attempt')
  await expect(sent).toContainText(/as order \S+/)
  const sentName = (await call(core.handlers, 'listOutbox')).find((entry) => entry.state === 'sent')?.orderName
  expect(sentName).toBeTruthy()
  await expect(sent).toContainText(sentName!)
  await expect(page.getByRole('contentinfo', { name: 'Status' })).toContainText('1 need attention')
  await shoot(page, 'outbox.png')
  await page.emulateMedia({ colorScheme: 'dark' })
  await shoot(page, 'outbox-dark.png')
  await page.emulateMedia({ colorScheme: 'light' })

  // The service is back: Retry now sends the retrying one. The app also sends it by itself the moment
  // it sees the service answer again (it looks every half second here), so on a busy machine that may
  // come first and take the button away: either way it goes, and goes once.
  control.removeFault(outage)
  await retrying
    .getByRole('button', { name: 'Retry now' })
    .click({ timeout: 3_000 })
    .catch(() => undefined)
  await expect(retrying).toBeHidden({ timeout: 10_000 })
  await expect(entries.getByRole('article', { name: `${target.customerName}: Sent` })).toHaveCount(2)
  expect(control.ordersByApiGuid(retryingKey)).toHaveLength(1)

  // Discard asks first; "Keep it" keeps it, "Discard order" removes it.
  await attention.getByRole('button', { name: 'Discard' }).click()
  const dialog = page.getByRole('dialog', { name: 'Discard this order?' })
  await expect(dialog).toBeVisible()
  await expect(dialog.getByRole('button', { name: 'Keep it' })).toBeFocused()
  await shoot(page, 'outbox-discard.png')
  await dialog.getByRole('button', { name: 'Keep it' }).click()
  await expect(dialog).toBeHidden()
  await expect(attention).toBeVisible()
  await attention.getByRole('button', { name: 'Discard' }).click()
  await dialog.getByRole('button', { name: 'Discard order' }).click()
  await expect(attention).toBeHidden()
  await expect(page.getByRole('contentinfo', { name: 'Status' })).toContainText('0 need attention')
  expect(errors).toEqual([])
})

test('an order queued while the service is down waits, then goes with its number when it returns', async ({
  page,
  bridge,
  service,
  core,
}) => {
  const errors = watchConsole(page)
  const target = orderable(core)
  await page.goto(`${bridge.url}#/outbox`)
  await expect(page.getByRole('status', { name: 'Connection' })).toHaveText('Online')

  await service.stop()
  await expect(page.getByRole('status', { name: 'Connection' })).toHaveText('Offline', { timeout: 10_000 })
  await queueOrder(core, target)
  const status = page.getByRole('contentinfo', { name: 'Status' })
  await expect(status).toContainText('1 waiting to send')
  const entries = page.getByRole('list', { name: 'Outbox entries' })
  await expect(
    entries.getByRole('article', { name: new RegExp(`${target.customerName}: (Queued|Retrying)`) }),
  ).toBeVisible()

  await service.start()
  await expect(entries.getByRole('article', { name: `${target.customerName}: Sent` })).toBeVisible({ timeout: 15_000 })
  await expect(status).toContainText('0 waiting to send')
  expect(errors).toEqual([])
})
