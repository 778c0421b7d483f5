/**
 * After Send, the rep can say where an order is without a network: a sent order the supplier shipped
 * in part, with the rest backordered into a related order, is marked "changed" on the Orders list
 * (and counted in the navigation) after the next sync; its page shows per line what shipped and what
 * is backordered, the timeline and the backorder's link; opening it clears the mark. The CLI reads the
 * same figures from the same database.
 */
import { test, call, expect, orderable, settle, shoot, watchConsole } from './harness'
import { execFile } from 'node:child_process'
import { join, resolve } from 'node:path'

const root = resolve(__dirname, '../..')

/** `satchel <args> --json` as a user runs it, against the core's database: its one JSON object. */
function cliJson(args: string[], db: string): Promise<unknown> {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('SATCHEL_')))
  return new Promise((done, fail) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', join(root, 'src/main/cli/index.ts'), ...args, '--json'],
      { cwd: root, env: { ...clean, SATCHEL_DB: db }, timeout: 60_000 },
      (error, stdout, stderr) => {
        if (error) fail(new Error(`satchel ${args.join(' ')}: ${stderr}`))
        else done(JSON.parse(stdout))
      },
    )
  })
}

test.describe.configure({ timeout: 120_000 })

type Json = Record<string, unknown> & {
  Order_Items: { item_no: number; qty: number; qty_shipped: number; qty_backordered: number; sku: string }[]
}

test('a shipped-in-part order is marked changed, shows shipped and backordered per line, and opening it clears the mark', async ({
  page,
  bridge,
  service,
  core,
}) => {
  const errors = watchConsole(page)
  const target = orderable(core, 3)
  const check = await call(core.handlers, 'createDraft', {
    customerGuid: target.customerGuid,
    catalogGuid: target.catalogGuid,
  })
  await call(core.handlers, 'addDraftLines', {
    id: check.draft.id,
    lines: target.skus.map((sku, index) => ({ sku, qty: index + 2 })),
  })
  const { apiGuid } = await call(core.handlers, 'sendDraft', { id: check.draft.id })
  await call(core.handlers, 'flushOutbox')
  await settle(core)
  // The sync after Send fetches the sent order in full: what the rep compares later changes against.
  expect((await call(core.handlers, 'syncNow', {})).ok).toBe(true)
  const control = service.current.control
  const sent = control.ordersByApiGuid(apiGuid)[0] as Json
  const guid = String(sent.guid)
  expect(await call(core.handlers, 'listChangedOrders')).toEqual([])

  // The supplier ships lines 1 and 2 in full and backorders line 3 into a related order.
  control.fulfilOrder(guid, {
    kind: 'ship',
    lines: [
      { itemNo: 1, qty: 2 },
      { itemNo: 2, qty: 3 },
    ],
    backorderRest: true,
  })
  const report = await call(core.handlers, 'syncNow', {})
  expect(report.ok).toBe(true)
  expect(report.orderDetails?.fetched).toBe(2)
  const served = control.orders().find((order) => order.guid === guid) as Json
  const backorder = `${String(sent.name)}-BO1`

  const listedBefore = (await cliJson(['orders', 'list', '--changed'], core.db.name)) as { orders: { guid: string }[] }
  expect(listedBefore.orders.map((order) => order.guid)).toEqual([guid])

  await page.setViewportSize({ width: 1280, height: 720 })
  await page.goto(`${bridge.url}#/orders`)
  const nav = page.getByRole('navigation', { name: 'Main' })
  await expect(nav.getByRole('link', { name: /Orders\s+1 changed/ })).toBeVisible()
  const rowOf = (name: string) => page.getByRole('row').filter({ has: page.getByRole('link', { name, exact: true }) })
  const row = rowOf(String(sent.name))
  await expect(row).toContainText('Changed: Shipped 2 of 3 lines, 1 backordered')
  await shoot(page, 'after-send-orders.png')
  await page.getByRole('checkbox', { name: /Changed since I last looked \(1\)/ }).check()
  const changedTable = page.getByRole('table')
  await expect(changedTable.getByRole('row')).toHaveCount(2)
  await expect(changedTable).toContainText('Shipped 2 of 3 lines, 1 backordered')
  await shoot(page, 'after-send-orders-changed.png')

  await changedTable.getByRole('link', { name: String(sent.name) }).click()
  await expect(page.getByRole('heading', { level: 1 })).toContainText(String(sent.name))
  const lines = page.getByRole('table')
  await expect(lines.getByRole('columnheader')).toHaveText([
    '#',
    'SKU',
    'Item',
    'Unit price',
    'Ordered',
    'Shipped',
    'Backordered',
    'Pending',
    'Line total',
  ])
  for (const line of served.Order_Items) {
    const cells = lines.getByRole('row').filter({ hasText: line.sku }).getByRole('cell')
    await expect(cells.nth(4)).toHaveText(String(line.qty))
    await expect(cells.nth(5)).toHaveText(String(line.qty_shipped))
    await expect(cells.nth(6)).toHaveText(String(line.qty_backordered))
  }
  await expect(page.getByTestId('order-summary')).toHaveText('Shipped 2 of 3 lines, 1 backordered')
  const timeline = page.getByRole('region', { name: 'Timeline' })
  await expect(timeline.getByRole('listitem')).toHaveCount(5)
  await expect(timeline).toContainText('Shipped')
  await expect(timeline).toContainText('Seen on this laptop: Shipped 2 of 3 lines, 1 backordered')
  const related = page.getByRole('region', { name: 'Related orders' })
  await expect(related.getByRole('link', { name: backorder })).toBeVisible()
  await shoot(page, 'after-send-order.png')
  await related.scrollIntoViewIfNeeded()
  await shoot(page, 'after-send-order-timeline.png')
  await page.emulateMedia({ colorScheme: 'dark' })
  await shoot(page, 'after-send-order-dark.png')
  await page.emulateMedia({ colorScheme: 'light' })

  // Opened: the mark and the count are gone, here and for the CLI.
  await expect(nav.getByRole('link', { name: /changed/ })).toHaveCount(0)
  const shown = (await cliJson(['orders', 'show', String(sent.name)], core.db.name)) as {
    lines: { qtyShipped: number; qtyBackordered: number }[]
    related: { name: string }[]
  }
  expect(shown.lines.map((line) => [line.qtyShipped, line.qtyBackordered])).toEqual(
    served.Order_Items.map((line) => [line.qty_shipped, line.qty_backordered]),
  )
  expect(shown.related.map((other) => other.name)).toEqual([backorder])
  expect(((await cliJson(['orders', 'list', '--changed'], core.db.name)) as { orders: unknown[] }).orders).toEqual([])

  // The backorder opens offline, and links back to its parent.
  await related.getByRole('link', { name: backorder }).click()
  await expect(page.getByRole('heading', { level: 1 })).toContainText(backorder)
  await expect(
    page.getByRole('region', { name: 'Related orders' }).getByRole('link', { name: String(sent.name) }),
  ).toBeVisible()

  await page.goto(`${bridge.url}#/orders`)
  await expect(rowOf(String(sent.name))).toBeVisible()
  await expect(rowOf(String(sent.name))).not.toContainText('Changed')
  await page.goto(`${bridge.url}#/documents/order/${guid}`)
  const document = page.getByRole('table')
  await expect(document.getByRole('columnheader', { name: 'Backordered' })).toBeVisible()
  await expect(
    document.getByRole('row').filter({ hasText: served.Order_Items[2]!.sku }).getByRole('cell').nth(4),
  ).toHaveText(String(served.Order_Items[2]!.qty_backordered))
  await shoot(page, 'after-send-document.png')

  // The customer page lists the customer's open orders: the backorder is open, the shipped order is not.
  await page.goto(`${bridge.url}#/customers/${target.customerGuid}`)
  const open = page.getByRole('region', { name: 'Open orders' })
  await expect(open.getByRole('link', { name: backorder })).toBeVisible()
  await expect(open.getByRole('link', { name: String(sent.name), exact: true })).toHaveCount(0)
  await shoot(page, 'after-send-customer.png')
  expect(errors).toEqual([])
})

test('a supplier’s copy that differs from what was sent is marked line by line; one with impossible figures is refused, the last good copy marked', async ({
  page,
  bridge,
  service,
  core,
}) => {
  const errors = watchConsole(page)
  const target = orderable(core, 3)
  const check = await call(core.handlers, 'createDraft', {
    customerGuid: target.customerGuid,
    catalogGuid: target.catalogGuid,
  })
  await call(core.handlers, 'addDraftLines', {
    id: check.draft.id,
    lines: target.skus.map((sku, index) => ({ sku, qty: index + 2 })),
  })
  const { apiGuid } = await call(core.handlers, 'sendDraft', { id: check.draft.id })
  await call(core.handlers, 'flushOutbox')
  await settle(core)
  expect((await call(core.handlers, 'syncNow', {})).ok).toBe(true)
  const control = service.current.control
  const guid = String((control.ordersByApiGuid(apiGuid)[0] as Json).guid)
  const route = 'GET /v1/orders/:orderGuid'

  // The supplier's copy: line 2 replaced by an item never ordered, line 3 at another quantity.
  control.update('order', guid, { note: 'Gate code 4411' })
  const altered = structuredClone(control.orders().find((order) => order.guid === guid)) as Json &
    Record<string, unknown>
  const items = altered.Order_Items as unknown as Record<string, unknown>[]
  Object.assign(items[1]!, {
    catalog_item_guid: '0f0e0d0c-0b0a-4909-8807-060504030201',
    sku: 'NEVER-ORDERED',
    name: 'Something else',
    Catalog_Item: null,
  })
  items[2]!.qty = 14
  control.addFault({ route, type: 'status', status: 200, body: { order: altered, relatedOrders: [] }, times: 1 })
  expect((await call(core.handlers, 'syncNow', {})).orderDetails?.fetched).toBe(1)

  await page.setViewportSize({ width: 1280, height: 720 })
  await page.goto(`${bridge.url}#/orders/${guid}`)
  const rowOf = (sku: string) => page.getByRole('row').filter({ hasText: sku })
  await expect(rowOf('NEVER-ORDERED').getByTestId('line-not-as-sent')).toHaveText(
    'Differs from what was sent: not on the order as sent.',
  )
  await expect(rowOf(target.skus[2]!).getByTestId('line-not-as-sent')).toHaveText(
    'Differs from what was sent: sent as 4.',
  )
  await expect(rowOf(target.skus[0]!).getByTestId('line-not-as-sent')).toHaveCount(0)
  await expect(page.getByTestId('sent-missing')).toContainText(`${target.skus[1]} × 3`)

  // A later copy with more shipped than ordered is not shown: the copy above stays, marked.
  control.update('order', guid, { note: 'Gate code 4412' })
  const impossible = structuredClone(control.orders().find((order) => order.guid === guid)) as Json
  impossible.Order_Items[0]!.qty_shipped = impossible.Order_Items[0]!.qty + 0.5
  control.addFault({ route, type: 'status', status: 200, body: { order: impossible, relatedOrders: [] }, times: 1 })
  expect((await call(core.handlers, 'syncNow', {})).orderDetails?.unreadable).toEqual([
    { guid, reason: expect.stringContaining('qty_shipped') },
  ])
  await page.reload()
  await expect(page.getByTestId('order-unreadable')).toContainText("The supplier's latest copy could not be read")
  await expect(rowOf('NEVER-ORDERED')).toHaveCount(1)
  expect(errors).toEqual([])
})
