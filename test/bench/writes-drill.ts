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
 * Then the slow phase (issue 51), on a database and double of its own: the service holds each submit
 * and each new customer 20 to 60 s before it acts, and acts even when the client is gone; each round
 * a flush is SIGKILLed while they are held and the rep flushes again at once (killed too). Its
 * customers include two of one name without an email, with different phones, each with an order.
 * After the rounds the held requests are let finish, and flushes run until every entry is sent (an
 * attempt killed before its request left is sent again only once it can no longer be in flight, five
 * minutes on), the drill answering "which customer is this?" as the rep would, by the phone entered.
 * It counts duplicate submits, duplicate customers (by name and phone), orders on a customer the rep
 * did not choose, and lost writes; each must be 0.
 *
 * Options: --kills N (SIGKILLs that landed on a live flush, default 60), --slow-kills N (the slow
 * phase's, default 40), --phase lost|slow|both (default both), --seed N.
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
import { writeInFlightMs, type WriteDetail } from '../../src/main/orders/outbox/write-kinds'
import { startService } from '../service/index'
import { findOrderable } from '../support/orderable'
import { seededBetween, sleep, startCli, untilOpen } from './drill-support'
import { openLocalData } from '../../src/main/local/data'

const { values } = parseArgs({
  options: {
    kills: { type: 'string', default: '60' },
    'slow-kills': { type: 'string', default: '40' },
    phase: { type: 'string', default: 'both' },
    seed: { type: 'string', default: '1' },
  },
})
const kills = Number(values.kills)
const slowKills = Number(values['slow-kills'])

const between = seededBetween(Number(values.seed))

interface Expected {
  submits: string[]
  changes: { apiGuid: string; po: string }[]
  orders: string[]
  customers: string[]
  forCustomer: { apiGuid: string; customer: string }[]
}

/** A double, a synced database signed in as a user, and the core's own writers on it for queueing. */
async function setUp(name: string) {
  const service = await startService({ size: 'tiny', seed: Number(values.seed) })
  const scratch = mkdtempSync(join(tmpdir(), `satchel-writes-drill-${name}-`))
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
  const desk = new OrderDesk(db, new LocalOrderLookup(openLocalData(db)), systemClock, () => ({
    remainInPreliminary: false,
  }))
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
  const orderWrites = new SentOrderWrites(desk.outbox, orderTargets(openLocalData(db), desk.outbox))
  const customers = new CustomerEdits(desk.outbox, () => null)

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
  const close = async () => {
    closeDatabase(db)
    await service.close()
    rmSync(scratch, { recursive: true, force: true })
  }
  return { service, databasePath, env, db, desk, orderWrites, customers, queueOrder, close }
}

async function lostReplies(): Promise<boolean> {
  const { service, databasePath, env, db, desk, orderWrites, customers, queueOrder, close } = await setUp('lost')
  const expected: Expected = { submits: [], changes: [], orders: [], customers: [], forCustomer: [] }

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
  await close()

  process.stdout.write(
    `\n${round} rounds, ${landed} SIGKILLs on live flushes; ${expected.submits.length} submits, ${expected.changes.length} changes, ${expected.customers.length} new customers, ${expected.orders.length} orders\n`,
  )
  process.stdout.write(
    `duplicate submits: ${duplicateSubmits}; duplicate customers: ${duplicateCustomers}; lost writes: ${lost}\n`,
  )
  for (const problem of problems) process.stdout.write(`PROBLEM ${problem}\n`)
  return duplicateSubmits + duplicateCustomers + lost === 0 && finished
}

/** Digits only: how the drill, like the rule, compares phones. */
const digits = (value: unknown) => (typeof value === 'string' ? value.replace(/\D/g, '') : '')

async function slowService(): Promise<boolean> {
  const { service, databasePath, env, db, desk, orderWrites, customers, queueOrder, close } = await setUp('slow')
  const submits: string[] = []
  const orders: string[] = []
  /** Each customer made on the laptop (name and phone), and the orders queued for it. */
  const made: { name: string; phone: string; orders: string[] }[] = []
  const started = Date.now()
  const held = ['POST /v1/order/submit', 'POST /vendors']

  let landed = 0
  let round = 0
  let lastHoldMs = 0
  while (landed < slowKills && round < slowKills * 3) {
    round += 1
    // Each round's requests are held this long before the service acts on them (and it acts, client or not).
    service.control.clearFaults()
    lastHoldMs = between(20_000, 60_000)
    for (const route of held) service.control.addFault({ route, type: 'latency', phase: 'request', ms: lastHoldMs })

    const review = queueOrder({ remainInPreliminary: true }).commit()
    orders.push(review.apiGuid)
    submits.push(review.apiGuid)
    orderWrites.submit(review.apiGuid, 'partial')
    // A customer without an email, and two of one name without one, told apart only by their phones.
    for (const [name, phone] of [
      [`Slow Diner ${round}`, `(503) 555-${String(1000 + round)}`],
      [`Slow Twin ${round}`, `(503) 555-${String(2000 + round)}`],
      [`Slow Twin ${round}`, `(971) 555-${String(3000 + round)}`],
    ] as const) {
      const entry = customers.add({ name, phone })
      const forIt = queueOrder({ newCustomer: { name } }).commit(desk.outbox.writes.newCustomer(entry.apiGuid)!.id)
      orders.push(forIt.apiGuid)
      made.push({ name, phone, orders: [forIt.apiGuid] })
    }

    // The rep's flush is killed while the service holds the requests, and the rep flushes again at once.
    for (let attempt = 0; attempt < 2 && landed < slowKills; attempt++) {
      const flush = startCli(['flush', '--json'], env)
      await untilOpen(flush.child, databasePath)
      await sleep(between(500, attempt === 0 ? 6_000 : 20_000))
      if (flush.child.exitCode === null && flush.child.signalCode === null && flush.child.kill('SIGKILL')) landed += 1
      await flush.ended
    }
    process.stdout.write(`round ${round}: ${landed} SIGKILLs so far (held ${(lastHoldMs / 1000).toFixed(0)} s)\n`)
  }

  // New requests go at once now; the held ones finish at the service on their own time.
  service.control.clearFaults()
  process.stdout.write(`letting the held requests finish (${(lastHoldMs / 1000).toFixed(0)} s)\n`)
  await sleep(lastHoldMs + 5_000)

  // Flushes until every entry is sent: an attempt killed before its request left waits out its
  // in-flight window first. The drill answers "which customer is this?" as the rep would.
  let asked = 0
  const deadline = Date.now() + writeInFlightMs + 3 * 60_000
  const unsent = () => db.prepare<[], { n: number }>("SELECT count(*) AS n FROM outbox WHERE state <> 'sent'").get()!.n
  let flushes = 0
  while (unsent() > 0 && Date.now() < deadline) {
    await startCli(['flush', '--json'], env).ended
    flushes += 1
    const asking = db
      .prepare<[], { api_guid: string; detail: string; request: string }>(
        `SELECT o.api_guid, o.detail, p.request FROM outbox o JOIN outbox_payloads p ON p.entry_id = o.id
         WHERE o.kind = 'newCustomer' AND o.state = 'conflict'`,
      )
      .all()
    for (const entry of asking) {
      asked += 1
      const candidates = (JSON.parse(entry.detail) as WriteDetail).candidates ?? []
      const entered = digits((JSON.parse(entry.request) as { newVendor: { phone?: string } }).newVendor.phone)
      const mine = candidates.find((candidate) => digits(candidate.phone) === entered)
      desk.outbox.writes.chooseCustomer(entry.api_guid, mine?.guid ?? null)
    }
    if (unsent() > 0) await sleep(10_000)
  }

  const problems: string[] = []
  let duplicateSubmits = 0
  let duplicateCustomers = 0
  let wrongCustomer = 0
  let lost = 0
  const onService = (apiGuid: string) => service.control.ordersByApiGuid(apiGuid)
  const serviceOrders = service.control.orders()
  for (const apiGuid of orders) {
    const found = onService(apiGuid)
    if (found.length !== 1) {
      lost += 1
      problems.push(`order ${apiGuid} is on the service ${found.length} times`)
    }
  }
  for (const apiGuid of submits) {
    const order = serviceOrders.find((each) => each.guid === onService(apiGuid)[0]?.guid)
    if (order?.order_state_id !== 2) {
      if ((order?.order_state_id as number) > 2) duplicateSubmits += 1
      else lost += 1
      problems.push(`the order ${apiGuid} sent for review is in state ${String(order?.order_state_id)}, not SUBMITTED`)
    }
  }
  const live = service.control.customers().filter((customer) => customer.deleted_at === null)
  for (const customer of made) {
    const theirs = live.filter(
      (each) =>
        each.name === customer.name &&
        [each.phone, (each.Bill_To as { phone?: unknown } | undefined)?.phone].some(
          (phone) => digits(phone) === digits(customer.phone),
        ),
    )
    if (theirs.length > 1) duplicateCustomers += theirs.length - 1
    if (theirs.length === 0) lost += 1
    if (theirs.length !== 1)
      problems.push(`the customer ${customer.name} ${customer.phone} is on the service ${theirs.length} times`)
    for (const apiGuid of customer.orders) {
      const [order] = onService(apiGuid)
      if (order && theirs.length > 0 && !theirs.some((each) => each.id === order.vendor_id)) {
        wrongCustomer += 1
        problems.push(`the order ${apiGuid} went to another customer than ${customer.name} ${customer.phone}`)
      }
    }
  }
  const left = db
    .prepare<[], { api_guid: string; kind: string; state: string; last_error: string | null }>(
      "SELECT api_guid, kind, state, last_error FROM outbox WHERE state <> 'sent'",
    )
    .all()
  for (const entry of left) {
    lost += 1
    problems.push(`outbox entry ${entry.api_guid} (${entry.kind}) ended ${entry.state}: ${entry.last_error ?? ''}`)
  }
  await close()

  process.stdout.write(
    `\n${round} rounds, ${landed} SIGKILLs on live flushes while the service held requests; ${submits.length} submits, ${made.length} new customers without an email (${round} pairs of one name), ${orders.length} orders; ${flushes} flushes after, ${((Date.now() - started) / 60_000).toFixed(1)} min in all\n`,
  )
  process.stdout.write(
    `duplicate submits: ${duplicateSubmits}; duplicate customers: ${duplicateCustomers}; orders on a customer the rep did not choose: ${wrongCustomer}; lost writes: ${lost}; asked the rep which customer: ${asked}\n`,
  )
  for (const problem of problems) process.stdout.write(`PROBLEM ${problem}\n`)
  return duplicateSubmits + duplicateCustomers + wrongCustomer + lost === 0
}

async function main(): Promise<void> {
  const phase = values.phase
  if (!['lost', 'slow', 'both'].includes(phase)) throw new Error('--phase is lost, slow or both')
  let ok = true
  if (phase !== 'slow') {
    process.stdout.write('== replies lost after the service acted\n')
    ok = (await lostReplies()) && ok
  }
  if (phase !== 'lost') {
    process.stdout.write('\n== a slow service: submits and new customers held 20-60 s before it acts\n')
    ok = (await slowService()) && ok
  }
  process.exitCode = ok ? 0 : 1
}

void main()
