/**
 * `npm run drill:writes`: the SIGKILL drill of the writes after Send. Each round queues, on one
 * database, orders sent for review with a submit waiting for each, orders with a change waiting for
 * each (hold and PO), and new customers (one with an email, one without, and an order for the one
 * made offline); then real `satchel flush` processes, signed in as a user, are SIGKILLed at random
 * moments once they have the database open, while the double answers each write a little late (so a
 * kill often lands after the service applied a write and before its answer arrived). After the
 * rounds, flushes run to the end, as the rep's next start would, and the double is read:
 *
 * - duplicate submits: an order submitted more than once moved past SUBMITTED (a second submit
 *   ships it);
 * - duplicate customers: a customer made more than once (by name);
 * - lost writes: an entry not sent at the end, a change not on the order, an order not on the
 *   service (or more than once), an order for a customer made offline not for that customer.
 *
 * Each must be 0. Options: --kills N (SIGKILLs that landed on a live flush, default 60), --seed N.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { closeDatabase, openDatabase } from '../../src/main/db/database'
import { OrderDesk } from '../../src/main/orders/desk'
import { CustomerEdits } from '../../src/main/orders/customer-writes'
import { LocalOrderLookup } from '../../src/main/orders/local-lookup'
import { systemClock } from '../../src/main/ports'
import { orderTargets } from '../../src/main/tracking/order-targets'
import { SentOrderWrites } from '../../src/main/tracking/order-writes'
import { startService } from '../service/index'
import { findOrderable } from '../support/orderable'
import { seededBetween, sleep, startCli, untilOpen } from './drill-support'

const { values } = parseArgs({
  options: { kills: { type: 'string', default: '60' }, seed: { type: 'string', default: '1' } },
})
const kills = Number(values.kills)

const between = seededBetween(Number(values.seed))

interface Expected {
  submits: string[]
  changes: { apiGuid: string; po: string }[]
  orders: string[]
  customers: string[]
  forCustomer: { apiGuid: string; customer: string }[]
}

async function main(): Promise<void> {
  const service = await startService({ size: 'tiny', seed: Number(values.seed) })
  const scratch = mkdtempSync(join(tmpdir(), 'satchel-writes-drill-'))
  const databasePath = join(scratch, 'satchel.db')
  const env = {
    SATCHEL_DB: databasePath,
    SATCHEL_BASE_URL: service.url,
    SATCHEL_USER_TOKEN: service.credentials.userToken,
    SATCHEL_USER_GUID: service.credentials.userGuid,
    SATCHEL_SUPPLIER_GUID: service.credentials.supplierGuid,
  }
  const synced = await startCli(['sync', '--json'], env).ended
  if (synced.code !== 0) throw new Error(`the first sync failed: ${synced.stderr}`)
  const db = openDatabase(databasePath)
  const desk = new OrderDesk(db, new LocalOrderLookup(db), systemClock, () => ({ remainInPreliminary: false }))
  const orderable = findOrderable(db, 4)
  // A new customer's order is priced by the same group (the rep chooses it), so its items are offered.
  const priceGroupGuid = db
    .prepare<[string, string], string>(
      `SELECT pg.guid FROM price_groups pg JOIN customers c ON c.price_group_id = pg.id
       WHERE c.guid = ? AND pg.catalog_guid = ?`,
    )
    .pluck()
    .get(orderable.customerGuid, orderable.catalogGuid)!
  let line = 0
  const orderWrites = new SentOrderWrites(desk.outbox, orderTargets(db, desk.outbox))
  const customers = new CustomerEdits(desk.outbox, () => null)
  const expected: Expected = { submits: [], changes: [], orders: [], customers: [], forCustomer: [] }

  const queueOrder = (extra: { remainInPreliminary?: boolean; newCustomer?: { name: string; email?: string } }) => {
    const composed = desk.composeOrder(
      {
        ...(extra.newCustomer ? { newCustomer: extra.newCustomer } : { customerGuid: orderable.customerGuid }),
        catalogGuid: orderable.catalogGuid,
        priceGroupGuid,
        ...(extra.remainInPreliminary ? { remainInPreliminary: true } : {}),
      },
      // Round the items, so the stock of none runs out over the rounds.
      [{ sku: orderable.skus[line++ % orderable.skus.length]!, qty: 1 }],
    )
    return composed.prepareSend()
  }

  // Each write is answered late, after the service applied it: where most kills land.
  for (const route of [
    'POST /v1/order/submit',
    'PUT /v1/orders/:orderGuid',
    'POST /vendors',
    'POST /v1/orderWithItems',
  ])
    service.control.addFault({ route, type: 'latency', phase: 'reply', ms: 250 })

  let landed = 0
  let round = 0
  while (landed < kills && round < kills * 3) {
    round += 1
    for (let i = 0; i < 2; i++) {
      const review = queueOrder({ remainInPreliminary: true }).commit()
      expected.orders.push(review.apiGuid)
      expected.submits.push(review.apiGuid)
      orderWrites.submit(review.apiGuid, i === 0 ? 'partial' : 'available')
      const plain = queueOrder({}).commit()
      expected.orders.push(plain.apiGuid)
      const po = `PO-${round}-${i}`
      orderWrites.change(plain.apiGuid, { onHold: true, poNo: po })
      expected.changes.push({ apiGuid: plain.apiGuid, po })
    }
    const withEmail = `Drill Deli ${round}`
    const withoutEmail = `Drill Diner ${round}`
    customers.add({ name: withEmail, email: `deli${round}@drill.example` })
    const offline = customers.add({ name: withoutEmail })
    expected.customers.push(withEmail, withoutEmail)
    const made = desk.outbox.writes.newCustomer(offline.apiGuid)!
    const forIt = queueOrder({ newCustomer: { name: withoutEmail } }).commit(made.id)
    expected.orders.push(forIt.apiGuid)
    expected.forCustomer.push({ apiGuid: forIt.apiGuid, customer: withoutEmail })

    for (let attempt = 0; attempt < 3 && landed < kills; attempt++) {
      const flush = startCli(['flush', '--json'], env)
      await untilOpen(flush.child, databasePath)
      await sleep(between(0, 2_500))
      if (flush.child.exitCode === null && flush.child.signalCode === null && flush.child.kill('SIGKILL')) landed += 1
      await flush.ended
    }
    process.stdout.write(`round ${round}: ${landed} SIGKILLs so far\n`)
  }
  service.control.clearFaults()
  let finished = false
  for (let attempt = 0; attempt < 10 && !finished; attempt++)
    finished = (await startCli(['flush', '--json'], env).ended).code === 0

  const problems: string[] = []
  const orders = service.control.orders()
  let duplicateSubmits = 0
  let duplicateCustomers = 0
  let lost = 0
  const onService = (apiGuid: string) => service.control.ordersByApiGuid(apiGuid)
  for (const apiGuid of expected.orders) {
    const found = onService(apiGuid)
    if (found.length !== 1) {
      lost += 1
      problems.push(`order ${apiGuid} is on the service ${found.length} times`)
    }
  }
  for (const apiGuid of expected.submits) {
    const order = orders.find((each) => each.guid === onService(apiGuid)[0]?.guid)
    if (order?.order_state_id !== 2) {
      if ((order?.order_state_id as number) > 2) duplicateSubmits += 1
      else lost += 1
      problems.push(`the order ${apiGuid} sent for review is in state ${String(order?.order_state_id)}, not SUBMITTED`)
    }
  }
  for (const change of expected.changes) {
    const order = orders.find((each) => each.guid === onService(change.apiGuid)[0]?.guid)
    if (order?.is_on_hold !== true || order.po_no !== change.po) {
      lost += 1
      problems.push(
        `the change to ${change.apiGuid} is not on the order (hold ${String(order?.is_on_hold)}, PO ${String(order?.po_no)})`,
      )
    }
  }
  const live = service.control.customers().filter((customer) => customer.deleted_at === null)
  for (const name of expected.customers) {
    const count = live.filter((customer) => customer.name === name).length
    if (count > 1) duplicateCustomers += count - 1
    if (count === 0) lost += 1
    if (count !== 1) problems.push(`the customer ${name} is on the service ${count} times`)
  }
  for (const { apiGuid, customer } of expected.forCustomer) {
    const [order] = onService(apiGuid)
    const vendor = live.find((each) => each.name === customer)
    if (order && vendor && order.vendor_id !== vendor.id) {
      lost += 1
      problems.push(`the order ${apiGuid} is not for ${customer}, the customer made offline`)
    }
  }
  const unsent = db
    .prepare<[], { api_guid: string; kind: string; state: string }>(
      "SELECT api_guid, kind, state FROM outbox WHERE state <> 'sent'",
    )
    .all()
  for (const entry of unsent) {
    lost += 1
    problems.push(`outbox entry ${entry.api_guid} (${entry.kind}) ended ${entry.state}`)
  }
  closeDatabase(db)
  await service.close()
  rmSync(scratch, { recursive: true, force: true })

  process.stdout.write(
    `\n${round} rounds, ${landed} SIGKILLs on live flushes; ${expected.submits.length} submits, ${expected.changes.length} changes, ${expected.customers.length} new customers, ${expected.orders.length} orders\n`,
  )
  process.stdout.write(
    `duplicate submits: ${duplicateSubmits}; duplicate customers: ${duplicateCustomers}; lost writes: ${lost}\n`,
  )
  for (const problem of problems) process.stdout.write(`PROBLEM ${problem}\n`)
  process.exitCode = duplicateSubmits + duplicateCustomers + lost === 0 && finished ? 0 : 1
}

void main()
