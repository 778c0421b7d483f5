/**
 * Writes the service cannot deduplicate, against a service that is only slow: it holds the request
 * (latency before it acts), the rep's `flush` is killed or gives up meanwhile, and the rep flushes
 * again at once. `api_guid` makes an order's resend safe; a submit has no such key, so reading
 * "still in review" cannot see a submit the service has not finished. Real processes, a real kill.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { RunningService } from '../service/types'
import { cli, cliEntry, json, root } from '../support/cli'
import type { Orderable } from '../support/orderable'
import { startCliSession, type CliSession } from '../support/cli-session'
import { until } from '../support/until'

const submitRoute = 'POST /v1/order/submit'
/** Longer than the outbox lease a killed flush leaves behind (15 s), so the next flush runs while it is held. */
const heldMs = 20_000

let service: RunningService
let directory: string
let env: Record<string, string>
let orderable: Orderable
let drafts = 0
let session: CliSession
const children = new Set<ChildProcess>()

beforeAll(async () => {
  session = await startCliSession(47)
  ;({ service, directory, env, orderable } = session)
}, 60_000)

afterAll(async () => {
  await session?.close()
})

beforeEach(() => {
  service.control.clearFaults()
  service.control.clearRequestLog()
})

afterEach(() => {
  for (const child of children) child.kill('SIGKILL')
  children.clear()
})

async function queueInReview(): Promise<string> {
  const file = join(directory, `draft-${++drafts}.json`)
  writeFileSync(
    file,
    JSON.stringify({
      customerGuid: orderable.customerGuid,
      catalogGuid: orderable.catalogGuid,
      lines: [{ sku: orderable.skus[0], qty: 1 }],
      remainInPreliminary: true,
    }),
  )
  const queued = await cli(['order', 'queue', '--file', file, '--json'], env)
  expect(queued.code, queued.stderr).toBe(0)
  const apiGuid = json(queued).apiGuid as string
  expect((await cli(['flush', '--json'], env)).code).toBe(0)
  return apiGuid
}

async function submitOf(order: string): Promise<string> {
  const run = await cli(['orders', 'submit', order, '--json'], env)
  expect(run.code, run.stderr).toBe(0)
  return json(run).apiGuid as string
}

interface Entry {
  apiGuid: string
  state: string
  lastError: string | null
  outcome?: string
}

async function entry(key: string): Promise<Entry> {
  const entries = json(await cli(['outbox', '--json'], env)).entries as Entry[]
  return entries.find((each) => each.apiGuid === key)!
}

function orderState(apiGuid: string): unknown {
  const [order] = service.control.ordersByApiGuid(apiGuid)
  return service.control.orders().find((each) => each.guid === order!.guid)!.order_state_id
}

const submits = () => service.control.requestLog().filter((each) => each.route === submitRoute).length

/**
 * `satchel flush` as a process, killed (SIGKILL) once `arrived` says its request reached the service,
 * which holds it: what is left is a request the service is still working on, and a dead sender's lease.
 */
async function flushKilledWhileHeld(arrived: () => boolean, what: string): Promise<void> {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('SATCHEL_')))
  const child = spawn(process.execPath, [cliEntry, 'flush', '--json'], { cwd: root, env: { ...clean, ...env } })
  children.add(child)
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()))
  await until(arrived, what, { timeoutMs: 15_000 })
  child.kill('SIGKILL')
  await exited
}

describe('a submit the service is still working on', () => {
  it('is not sent again when its flush was killed and the rep flushes again at once', async () => {
    const order = await queueInReview()
    const submit = await submitOf(order)
    service.control.addFault({ route: submitRoute, type: 'latency', ms: heldMs, times: 1 })
    await flushKilledWhileHeld(() => submits() === 1, 'the submit to reach the service')

    // After the dead sender's lease, this flush reads the order: still in review, since the service
    // has not finished the first submit. It must not submit again.
    const again = await cli(['flush', '--json'], env)
    expect(submits()).toBe(1)
    expect(again.stderr).toMatch(/Checking with the supplier/)
    expect(await entry(submit)).toMatchObject({
      state: 'retrying',
      lastError: expect.stringMatching(/^Checking with the supplier/),
    })

    // The held submit lands; the next flush finds it done, and the order moved one step only.
    await until(() => orderState(order) === 2, 'the held submit to land', { timeoutMs: heldMs + 10_000 })
    const settled = await cli(['flush', '--json'], env)
    expect(settled.code, settled.stderr).toBe(0)
    expect(submits()).toBe(1)
    expect(orderState(order)).toBe(2)
    expect(await entry(submit)).toMatchObject({ state: 'sent', outcome: 'Submitted; the order is now SUBMITTED.' })
  }, 60_000)

  it('is not sent again when its flush gave up waiting for the answer and the rep flushes again', async () => {
    const order = await queueInReview()
    const submit = await submitOf(order)
    // Longer than Satchel waits for an answer (30 s): the flush gives up while the service still works.
    service.control.addFault({ route: submitRoute, type: 'latency', ms: 35_000, times: 1 })
    const gaveUp = await cli(['flush', '--json'], env)
    expect(gaveUp.code).toBe(1)
    expect(submits()).toBe(1)

    const again = await cli(['flush', '--json'], env)
    expect(submits()).toBe(1)
    expect(again.stderr).toMatch(/Checking with the supplier/)

    await until(() => orderState(order) === 2, 'the held submit to land', { timeoutMs: 20_000 })
    expect((await cli(['flush', '--json'], env)).code).toBe(0)
    expect(submits()).toBe(1)
    expect(orderState(order)).toBe(2)
    expect(await entry(submit)).toMatchObject({ state: 'sent', outcome: 'Submitted; the order is now SUBMITTED.' })
  }, 90_000)
})

const createRoute = 'POST /vendors'
const creates = () => service.control.requestLog().filter((each) => each.route === createRoute).length
const named = (name: string) => service.control.customers().filter((customer) => customer.name === name)

async function addCustomer(args: string[]): Promise<string> {
  const run = await cli(['customers', 'add', ...args, '--json'], env)
  expect(run.code, run.stderr).toBe(0)
  return json(run).customerLocalId as string
}

describe('a new customer without an email, the service still working on it', () => {
  it('is not made twice when its flush was killed and the rep flushes again at once', async () => {
    const key = await addCustomer(['--name', 'Held Counter Cafe', '--phone', '(503) 555-0142'])
    service.control.addFault({ route: createRoute, type: 'latency', ms: heldMs, times: 1 })
    await flushKilledWhileHeld(() => creates() === 1, 'the new customer to reach the service')

    const again = await cli(['flush', '--json'], env)
    expect(creates()).toBe(1)
    expect(again.stderr).toMatch(/Checking with the supplier/)
    expect(await entry(key)).toMatchObject({ state: 'retrying', lastError: expect.stringMatching(/^Checking/) })

    await until(() => named('Held Counter Cafe').length === 1, 'the held customer to be made', {
      timeoutMs: heldMs + 10_000,
    })
    expect((await cli(['flush', '--json'], env)).code).toBe(0)
    expect(creates()).toBe(1)
    expect(named('Held Counter Cafe')).toHaveLength(1)
    expect(await entry(key)).toMatchObject({ state: 'sent' })
  }, 60_000)

  it('two of one name whose replies were both lost each take their own customer, by the phone the rep entered', async () => {
    const first = await addCustomer(['--name', 'Precise Cafe 2', '--phone', '(503) 555-0101'])
    service.control.addFault({ route: createRoute, type: 'commitThenDrop', times: 1 })
    expect((await cli(['flush', '--json'], env)).code).toBe(1)
    const second = await addCustomer(['--name', 'Precise Cafe 2', '--phone', '(503) 555-0202'])
    service.control.addFault({ route: createRoute, type: 'commitThenDrop', times: 1 })
    await cli(['flush', '--json'], env)
    expect(named('Precise Cafe 2')).toHaveLength(2)

    for (let run = 0; run < 3; run++) await cli(['flush', '--json'], env)
    expect(creates()).toBe(2)
    expect(named('Precise Cafe 2')).toHaveLength(2)
    const byPhone = new Map(named('Precise Cafe 2').map((customer) => [String(customer.phone), String(customer.guid)]))
    const results = json(await cli(['outbox', '--json'], env)).entries as (Entry & { customerGuid?: string })[]
    const guidOf = (key: string) => results.find((each) => each.apiGuid === key)?.customerGuid
    expect(guidOf(first)).toBe(byPhone.get('(503) 555-0101'))
    expect(guidOf(second)).toBe(byPhone.get('(503) 555-0202'))
  })
})
