/**
 * An order the supplier may already hold, as the rep sees it: an answer lost after the supplier took
 * the order, then a refusal of the retry that cannot be checked yet (the supplier's order list is
 * down). The entry says the supplier may have it and offers neither Edit nor Discard; Retry now sends
 * the same key again, and the supplier answers with the order it already has.
 */
import { test, call, expect, orderable, queueOrder, settle, shoot, watchConsole, refuseOrders } from './harness'

test.describe.configure({ timeout: 60_000 })
const orderRoute = 'POST /v1/orderWithItems'

test('a refused retry of an order whose answer was lost says "may already have it", and offers no Edit or Discard', async ({
  page,
  bridge,
  service,
  core,
}) => {
  const errors = watchConsole(page)
  const target = orderable(core)
  const control = service.current.control

  control.addFault({ route: orderRoute, type: 'commitThenDrop', times: 1 })
  const apiGuid = await queueOrder(core, target)
  await settle(core)
  refuseOrders(service, [{ type: 'INSUFFICIENT_INVENTORY', line: 0, message: 'Only 0 available' }])
  const listDown = control.addFault({ route: 'GET /v1/orders', type: 'status', status: 503 })
  await call(core.handlers, 'retryOutbox', { apiGuid })
  await call(core.handlers, 'flushOutbox')
  await settle(core)

  await page.goto(`${bridge.url}#/outbox`)
  const entry = page
    .getByRole('list', { name: 'Outbox entries' })
    .getByRole('article', { name: `${target.customerName}: Needs attention` })
  await expect(entry.getByRole('note')).toContainText('The supplier may already have this order; checking.')
  await expect(entry.getByRole('button', { name: 'Edit' })).toHaveCount(0)
  await expect(entry.getByRole('button', { name: 'Discard' })).toHaveCount(0)
  await shoot(page, 'outbox-checking.png')

  // Retry now asks the supplier again with the same key: it answers with the order it already has.
  control.removeFault(listDown)
  await entry.getByRole('button', { name: 'Retry now' }).click()
  await expect(
    page.getByRole('list', { name: 'Outbox entries' }).getByRole('article', { name: `${target.customerName}: Sent` }),
  ).toBeVisible({ timeout: 15_000 })
  expect(control.ordersByApiGuid(apiGuid)).toHaveLength(1)
  expect(errors).toEqual([])
})
