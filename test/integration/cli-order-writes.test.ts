/**
 * Writes after Send through the one outbox, as a user runs them: `order queue` with
 * remainInPreliminary (in review), `orders submit`, `orders change`, `orders apply-mine`, `flush`
 * and `outbox`, real processes signed in as a user against the double. Each write is in effect once:
 * a submit whose answer was lost is not made twice, a change the supplier overtook is a conflict
 * showing both values, a 403 is refused after one attempt and holds back nothing else, and an entry
 * waits for the one it depends on.
 */
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { RunningService } from '../service/types'
import { cli, json } from '../support/cli'
import type { Orderable } from '../support/orderable'
import { startCliSession, type CliSession } from '../support/cli-session'

let service: RunningService
let directory: string
let env: Record<string, string>
let orderable: Orderable
let drafts = 0

interface Entry {
  apiGuid: string
  kind: string
  state: string
  title?: string
  waitsFor?: string
  lastError: string | null
  outcome?: string
  conflict?: { field: string; label: string; was: unknown; theirs: unknown; mine: unknown }[]
}

async function outbox(): Promise<Entry[]> {
  return json(await cli(['outbox', '--json'], env)).entries as Entry[]
}

async function entry(key: string): Promise<Entry> {
  return (await outbox()).find((each) => each.apiGuid === key)!
}

async function queueOrder(extra: Record<string, unknown> = {}): Promise<string> {
  const file = join(directory, `draft-${++drafts}.json`)
  writeFileSync(
    file,
    JSON.stringify({
      customerGuid: orderable.customerGuid,
      catalogGuid: orderable.catalogGuid,
      lines: [{ sku: orderable.skus[0], qty: 1 }],
      ...extra,
    }),
  )
  const queued = await cli(['order', 'queue', '--file', file, '--json'], env)
  expect(queued.code, queued.stderr).toBe(0)
  return json(queued).apiGuid as string
}

async function write(args: string[]): Promise<string> {
  const run = await cli([...args, '--json'], env)
  expect(run.code, run.stderr).toBe(0)
  return json(run).apiGuid as string
}

function serviceOrder(apiGuid: string): Record<string, unknown> {
  const [order] = service.control.ordersByApiGuid(apiGuid)
  expect(order).toBeDefined()
  return service.control.orders().find((each) => each.guid === order!.guid)!
}

function requests(route: string): number {
  return service.control.requestLog().filter((each) => each.route === route).length
}

let session: CliSession

beforeAll(async () => {
  session = await startCliSession(43)
  ;({ service, directory, env, orderable } = session)
}, 60_000)

afterAll(async () => {
  await session?.close()
})

beforeEach(() => {
  service.control.clearFaults()
  service.control.clearRequestLog()
})

describe('submitting an order sent for review', () => {
  it('waits for its order, then submits it once and shows what was filled', async () => {
    const order = await queueOrder({ remainInPreliminary: true })
    const submit = await write(['orders', 'submit', order, '--partial'])
    expect(await entry(submit)).toMatchObject({ kind: 'submit', state: 'queued', waitsFor: order })
    const flushed = await cli(['flush', '--json'], env)
    expect(flushed.code, flushed.stderr).toBe(0)
    expect(serviceOrder(order).order_state_id).toBe(2)
    expect(requests('POST /v1/order/submit')).toBe(1)
    const done = await entry(submit)
    expect(done.state).toBe('sent')
    expect(done.outcome).toMatch(/^Submitted; the order is now SUBMITTED\./)
    const submitted = service.control.requestLog().find((each) => each.route === 'POST /v1/order/submit')
    expect(submitted?.body).toMatchObject({ allowPartialFulfillment: true })
  })

  it('is not applied twice when its answer is dropped after the service applied it', async () => {
    const order = await queueOrder({ remainInPreliminary: true })
    expect((await cli(['flush', '--json'], env)).code).toBe(0)
    expect(serviceOrder(order).order_state_id).toBe(1)
    const submit = await write(['orders', 'submit', order])
    service.control.addFault({ route: 'POST /v1/order/submit', type: 'commitThenDrop', times: 1 })
    const lost = await cli(['flush', '--json'], env)
    expect(lost.code).toBe(1)
    expect((await entry(submit)).state).toBe('retrying')
    for (let run = 0; run < 3; run++) await cli(['flush', '--json'], env)
    expect(requests('POST /v1/order/submit')).toBe(1)
    expect(serviceOrder(order).order_state_id).toBe(2)
    expect(await entry(submit)).toMatchObject({ state: 'sent', outcome: 'Submitted; the order is now SUBMITTED.' })
    const submitted = service.control.requestLog().find((each) => each.route === 'POST /v1/order/submit')
    expect(submitted?.body).not.toHaveProperty('allowPartialFulfillment')
  })

  it('is refused at once for an order that is not in review', async () => {
    const order = await queueOrder()
    expect((await cli(['flush', '--json'], env)).code).toBe(0)
    const run = await cli(['orders', 'submit', order, '--json'], env)
    expect(run.code).toBe(1)
    expect(run.stderr).toContain('not in review')
  })
})

describe('changing a sent order', () => {
  it('a field the supplier changed meanwhile is not sent, shows both values, and "apply mine" sends it', async () => {
    const order = await queueOrder({ poNo: 'FIRST-PO' })
    expect((await cli(['flush', '--json'], env)).code).toBe(0)
    const change = await write(['orders', 'change', order, '--po', 'REP-PO'])
    service.control.editOrderHeader(String(serviceOrder(order).guid), { po_no: 'SUPPLIER-PO' })
    expect((await cli(['flush', '--json'], env)).code).toBe(0)
    expect(requests('PUT /v1/orders/:orderGuid')).toBe(0)
    const conflicted = await entry(change)
    expect(conflicted).toMatchObject({
      kind: 'orderChange',
      state: 'conflict',
      conflict: [{ field: 'po_no', label: 'PO number', was: 'FIRST-PO', theirs: 'SUPPLIER-PO', mine: 'REP-PO' }],
    })
    const listed = await cli(['outbox'], env)
    expect(listed.stdout).toContain('the supplier now says SUPPLIER-PO, you said REP-PO')

    expect((await cli(['orders', 'apply-mine', change, '--json'], env)).code).toBe(0)
    expect((await cli(['flush', '--json'], env)).code).toBe(0)
    expect(requests('PUT /v1/orders/:orderGuid')).toBe(1)
    expect(serviceOrder(order).po_no).toBe('REP-PO')
    expect((await entry(change)).state).toBe('sent')
  })

  it('sends only the fields changed, when they still hold what the rep changed them from', async () => {
    const order = await queueOrder({ poNo: 'KEEP-PO' })
    expect((await cli(['flush', '--json'], env)).code).toBe(0)
    const change = await write(['orders', 'change', order, '--hold', '--ship-after', '2027-01-15'])
    expect((await cli(['flush', '--json'], env)).code).toBe(0)
    const put = service.control.requestLog().filter((each) => each.route === 'PUT /v1/orders/:orderGuid')
    expect(put.map((each) => each.body)).toEqual([{ is_on_hold: true, do_not_ship_before_date: '2027-01-15' }])
    expect(serviceOrder(order)).toMatchObject({ is_on_hold: true, po_no: 'KEEP-PO' })
    expect((await entry(change)).state).toBe('sent')
  })

  it('a 403 is refused after one attempt, with the service’s words, and does not block other entries', async () => {
    const locked = await queueOrder()
    const open = await queueOrder()
    expect((await cli(['flush', '--json'], env)).code).toBe(0)
    service.control.lockOrderStep(String(serviceOrder(locked).guid))
    const refused = await write(['orders', 'change', locked, '--hold'])
    const other = await write(['orders', 'change', open, '--note', 'Leave at the back door'])
    expect((await cli(['flush', '--json'], env)).code).toBe(0)
    await cli(['flush', '--json'], env)
    expect(requests('PUT /v1/orders/:orderGuid')).toBe(2)
    expect(await entry(refused)).toMatchObject({ state: 'refused', lastError: expect.stringContaining('read-only') })
    expect((await entry(other)).state).toBe('sent')
    expect(serviceOrder(open).note).toBe('Leave at the back door')
    expect(serviceOrder(locked).is_on_hold).not.toBe(true)
  })

  it('one refused entry holds back only what depends on it', async () => {
    const rejected = await queueOrder({ remainInPreliminary: true })
    const fine = await queueOrder()
    service.control.addFault({
      route: 'POST /v1/orderWithItems',
      type: 'status',
      status: 400,
      times: 1,
      body: { message: 'Order could not be reconciled', code: 'RECONCILE_ERRORS', errors: [{ message: 'no' }] },
    })
    const held = await write(['orders', 'submit', rejected])
    const change = await write(['orders', 'change', fine, '--note', 'Call first'])
    await cli(['flush', '--json'], env)
    expect((await entry(rejected)).state).toBe('needsAttention')
    expect(await entry(held)).toMatchObject({ state: 'queued', waitsFor: rejected })
    expect((await entry(change)).state).toBe('sent')
    expect(requests('POST /v1/order/submit')).toBe(0)
  })

  it('with an API key only, changes and submits say to sign in as a user', async () => {
    const order = await queueOrder()
    const { SATCHEL_USER_TOKEN: _t, ...keyOnly } = env
    const run = await cli(['orders', 'change', order, '--hold'], {
      ...keyOnly,
      SATCHEL_API_KEY: service.credentials.apiKey,
      SATCHEL_API_SECRET: service.credentials.apiSecret,
    })
    expect(run.code).toBe(2)
    expect(run.stderr).toContain('signed in as a user')
  })
})
