/**
 * Customers made or changed on this laptop, through the one outbox, as a user runs them:
 * `customers add`, `customers change`, `order queue` with `customerLocalId`, `flush`, real processes
 * against the double. A new customer is made once however its answers are lost (with an email or
 * without), an order for a customer made offline goes after it with its new guid, a change the
 * supplier overtook is a conflict, and with an API key the supplier has not granted the customer
 * endpoints a 403 keeps the entry and says what to do.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { RunningService } from '../service/types'
import { cli, json } from '../support/cli'
import type { Orderable } from '../support/orderable'
import { startCliSession, type CliSession } from '../support/cli-session'

let service: RunningService
let directory: string
let dbPath: string
let session: Record<string, string>
let orderable: Orderable
/** The orderable customer's price group: a new customer's order is priced by it, as the rep would choose. */
let priceGroupGuid: string

interface Entry {
  apiGuid: string
  kind: string
  state: string
  lastError: string | null
  conflict?: { field: string; theirs: unknown; mine: unknown }[]
}

async function entry(key: string): Promise<Entry> {
  const entries = json(await cli(['outbox', '--json'], session)).entries as Entry[]
  return entries.find((each) => each.apiGuid === key)!
}

async function add(args: string[], env = session): Promise<string> {
  const run = await cli(['customers', 'add', ...args, '--json'], env)
  expect(run.code, run.stderr).toBe(0)
  return json(run).customerLocalId as string
}

function named(name: string): Record<string, unknown>[] {
  return service.control.customers().filter((customer) => customer.name === name && customer.deleted_at === null)
}

let world: CliSession

beforeAll(async () => {
  world = await startCliSession(47, (db, orderable) => {
    priceGroupGuid = db
      .prepare<[string, string], string>(
        `SELECT pg.guid FROM price_groups pg JOIN customers c ON c.price_group_id = pg.id
         WHERE c.guid = ? AND pg.catalog_guid = ?`,
      )
      .pluck()
      .get(orderable.customerGuid, orderable.catalogGuid)!
  })
  ;({ service, directory, dbPath, env: session, orderable } = world)
}, 60_000)

afterAll(async () => {
  await world?.close()
})

beforeEach(() => {
  service.control.clearFaults()
  service.control.clearRequestLog()
})

describe('a new customer', () => {
  it('without an email, whose answer is dropped after the service made it, exists once after any number of flushes', async () => {
    const key = await add(['--name', 'Lost Reply Deli', '--phone', '555-0101'])
    service.control.addFault({ route: 'POST /vendors', type: 'commitThenDrop', times: 2 })
    for (let run = 0; run < 4; run++) await cli(['flush', '--json'], session)
    expect(named('Lost Reply Deli')).toHaveLength(1)
    expect(service.control.requestLog().filter((each) => each.route === 'POST /vendors')).toHaveLength(1)
    expect((await entry(key)).state).toBe('sent')
  })

  it('with an email, whose answer is dropped, exists once too', async () => {
    const key = await add(['--name', 'Lost Reply Bakery', '--email', 'orders@lostreply.example'])
    service.control.addFault({ route: 'POST /vendors', type: 'commitThenDrop', times: 2 })
    for (let run = 0; run < 4; run++) await cli(['flush', '--json'], session)
    expect(named('Lost Reply Bakery')).toHaveLength(1)
    expect((await entry(key)).state).toBe('sent')
  })

  it('an order for a customer made offline is sent after the customer, with its new guid', async () => {
    const key = await add(['--name', 'Offline Made Cafe', '--email', 'hello@offlinemade.example'])
    const apiGuid = await queueFor(key, 'for-offline.json')
    const flushed = await cli(['flush', '--json'], session)
    expect(flushed.code, flushed.stderr).toBe(0)
    const [customer] = named('Offline Made Cafe')
    expect(named('Offline Made Cafe')).toHaveLength(1)
    const log = service.control.requestLog()
    const createdAt = log.findIndex((each) => each.route === 'POST /vendors')
    const orderedAt = log.findIndex((each) => each.route === 'POST /v1/orderWithItems')
    expect(createdAt).toBeGreaterThanOrEqual(0)
    expect(orderedAt).toBeGreaterThan(createdAt)
    expect(log[orderedAt]!.headers['vendorguid']).toBe(customer!.guid)
    expect(log[orderedAt]!.body).not.toHaveProperty('newVendor')
    const [order] = service.control.ordersByApiGuid(apiGuid)
    expect(order?.vendor_id).toBe(customer!.id)
  })
})

describe('a new customer the supplier may already have twice', () => {
  it('`outbox` lists the candidates with what tells them apart; `customers choose` takes one, and the order goes to it', async () => {
    const key = await add(['--name', 'Twin Harbor Cafe', '--phone', '(503) 555-0707'])
    const apiGuid = await queueFor(key, 'for-twin.json')
    service.control.addFault({ route: 'POST /vendors', type: 'commitThenDrop', times: 1 })
    await cli(['flush', '--json'], session)
    const office = service.control.insertCustomer({ name: 'Twin Harbor Cafe', phone: '(503) 555-0707' })

    const flushed = await cli(['flush'], session)
    expect(flushed.stdout).toMatch(/1 new customer\(s\) the supplier may already have/)
    expect(flushed.stderr).toMatch(/Waits for the new customer “Twin Harbor Cafe”: say in the Outbox which/)
    const listed = await cli(['outbox'], session)
    expect(listed.stdout).toContain(
      `Twin Harbor Cafe (${key}) may already be at the supplier. You entered: (503) 555-0707.`,
    )
    for (const customer of named('Twin Harbor Cafe'))
      expect(listed.stdout).toContain(`  ${String(customer.guid)}  Twin Harbor Cafe: (503) 555-0707`)
    expect(listed.stdout).toContain(`satchel customers choose ${key} <customer guid>`)
    expect(service.control.ordersByApiGuid(apiGuid)).toHaveLength(0)

    const wrong = await cli(['customers', 'choose', key, orderable.customerGuid], session)
    expect(wrong.code).toBe(2)
    expect(wrong.stderr).toMatch(/not one of the candidates/)
    const usage = await cli(['customers', 'choose', key], session)
    expect(usage.code).toBe(2)

    const chosen = await cli(['customers', 'choose', key, String(office.guid), '--json'], session)
    expect(chosen.code, chosen.stderr).toBe(0)
    const after = await cli(['flush', '--json'], session)
    expect(after.code, after.stderr).toBe(0)
    expect(service.control.ordersByApiGuid(apiGuid)[0]?.vendor_id).toBe(office.id)
    expect(named('Twin Harbor Cafe')).toHaveLength(2)
  })
})

describe('a new customer the supplier refuses', () => {
  it('keeps the supplier’s reason, and its order says it waits for that customer, not "queued"', async () => {
    const key = await add(['--name', 'Blocked Domain Deli', '--email', 'orders@blocked.example'])
    const apiGuid = await queueFor(key, 'for-blocked.json')
    service.control.addFault({
      route: 'POST /vendors',
      type: 'status',
      status: 400,
      body: {
        message: 'Customer could not be reconciled',
        code: 'RECONCILE_ERRORS',
        errors: [{ type: 'INVALID_EMAIL', message: 'email domain is blocked' }],
      },
    })
    const flushed = await cli(['flush'], session)
    expect(flushed.code).toBe(1)
    expect(flushed.stderr).toMatch(
      /Waits for the new customer “Blocked Domain Deli”, which the supplier refused: Customer could not be reconciled: email domain is blocked\. Fix or discard it in the Outbox\./,
    )
    expect(flushed.stderr).not.toMatch(/did not take them/)
    expect((await entry(key)).lastError).toBe('Customer could not be reconciled: email domain is blocked')
    expect((await entry(apiGuid)).lastError).toMatch(
      /^Waits for the new customer “Blocked Domain Deli”, which the supplier refused/,
    )
  })
})

/** An order for a customer made on this laptop (by its key), queued; answers the order's api_guid. */
async function queueFor(customerKey: string, name: string): Promise<string> {
  const file = join(directory, name)
  writeFileSync(
    file,
    JSON.stringify({
      customerLocalId: customerKey,
      catalogGuid: orderable.catalogGuid,
      priceGroupGuid,
      lines: [{ sku: orderable.skus[0], qty: 1 }],
    }),
  )
  const queued = await cli(['order', 'queue', '--file', file, '--json'], session)
  expect(queued.code, queued.stderr).toBe(0)
  return json(queued).apiGuid as string
}

describe('a customer change', () => {
  it('a field the supplier changed meanwhile is a conflict with both values; apply mine sends it', async () => {
    const guid = orderable.customerGuid
    const key = await (async () => {
      const run = await cli(['customers', 'change', guid, '--name', 'Rep Renamed', '--json'], session)
      expect(run.code, run.stderr).toBe(0)
      return json(run).apiGuid as string
    })()
    service.control.update('customer', guid, { name: 'Supplier Renamed' })
    await cli(['flush', '--json'], session)
    expect(await entry(key)).toMatchObject({
      kind: 'customerChange',
      state: 'conflict',
      conflict: [{ field: 'name', theirs: 'Supplier Renamed', mine: 'Rep Renamed' }],
    })
    expect((await cli(['orders', 'apply-mine', key, '--json'], session)).code).toBe(0)
    await cli(['flush', '--json'], session)
    expect((await entry(key)).state).toBe('sent')
    const put = service.control.requestLog().filter((each) => each.route === 'PUT /v1/vendors/:vendorGuid')
    expect(put).toHaveLength(1)
    expect(put[0]!.body).toMatchObject({ name: 'Rep Renamed' })
    expect(put[0]!.body).toHaveProperty('email')
  })
})

describe('a customer changed twice between syncs', () => {
  it('the second change starts from the rep’s first, sent or still waiting: never a conflict with the rep’s own value', async () => {
    const guid = service.control
      .customers()
      .find((each) => each.deleted_at === null && each.guid !== orderable.customerGuid)!.guid as string
    const change = async (phone: string) => {
      const run = await cli(['customers', 'change', guid, '--phone', phone, '--json'], session)
      expect(run.code, run.stderr).toBe(0)
      return json(run).apiGuid as string
    }
    // Sent, and not synced back yet.
    // flush's exit code is the whole outbox's, which other tests of this file leave entries in: each
    // entry's own state is what this test reads.
    const first = await change('(503) 555-7001')
    await cli(['flush', '--json'], session)
    expect((await entry(first)).state).toBe('sent')
    const second = await change('(503) 555-7002')
    // Both waiting: the third starts from the second.
    const third = await change('(503) 555-7003')
    await cli(['flush', '--json'], session)
    for (const key of [second, third]) expect(await entry(key)).toMatchObject({ state: 'sent' })
    const customer = service.control.customers().find((each) => each.guid === guid)!
    expect((customer.Bill_To as { phone?: string }).phone).toBe('(503) 555-7003')
    // Asking again for what the supplier already has after the rep's own changes queues nothing.
    const again = await cli(['customers', 'change', guid, '--phone', '(503) 555-7003', '--json'], session)
    expect(again.code).toBe(2)
    expect(again.stderr).toMatch(/already says so/)
  })
})

describe('with an API key only', () => {
  it('a customer write is tried with the key; a 403 keeps it and says to sign in or ask for the grant', async () => {
    const keyOnly = {
      SATCHEL_DB: dbPath,
      SATCHEL_BASE_URL: service.url,
      SATCHEL_API_KEY: service.credentials.apiKey,
      SATCHEL_API_SECRET: service.credentials.apiSecret,
    }
    const key = await add(['--name', 'Key Only Grocer', '--email', 'keyonly@example.com'], keyOnly)
    await cli(['flush', '--json'], keyOnly)
    const refused = await entry(key)
    expect(refused.state).toBe('refused')
    expect(refused.lastError).toMatch(/sign in as a user, or ask the supplier/)
    expect(named('Key Only Grocer')).toHaveLength(0)
  })
})

describe('outbox --export, the rescue path of a damaged database', () => {
  it('saves each unsent order as a draft file and lists a refused new customer with what it would have done', async () => {
    service.control.addFault({ route: 'POST /vendors', type: 'status', status: 400 })
    const key = await add(['--name', 'Refused Export Deli'])
    // An order left unsent beside it: the service turns orders away for now.
    service.control.addFault({ route: 'POST /v1/orderWithItems', type: 'status', status: 503 })
    const file = join(directory, 'export-draft.json')
    writeFileSync(
      file,
      JSON.stringify({
        customerGuid: orderable.customerGuid,
        catalogGuid: orderable.catalogGuid,
        lines: [{ sku: orderable.skus[0], qty: 2 }],
      }),
    )
    const queued = await cli(['order', 'queue', '--file', file, '--json'], session)
    expect(queued.code, queued.stderr).toBe(0)
    const order = json(queued).apiGuid as string
    await cli(['flush', '--json'], session)
    expect((await entry(key)).state).toBe('refused')

    const folder = join(directory, 'rescued')
    const run = await cli(['outbox', '--export', folder, '--json'], session)
    expect(run.code, run.stderr).toBe(0)
    const out = json(run)
    // Every unsent order is a file; every other unsent entry (this file's other tests leave some) is
    // listed, none as a file.
    const exported = out.exported as { apiGuid: string; file: string }[]
    expect(exported).toContainEqual({ apiGuid: order, state: expect.any(String), file: join(folder, `${order}.json`) })
    const notExported = out.notExported as { apiGuid: string; kind: string }[]
    expect(notExported).toContainEqual(
      expect.objectContaining({
        apiGuid: key,
        kind: 'newCustomer',
        state: 'refused',
        title: 'New customer Refused Export Deli',
      }),
    )
    expect(notExported.every((write) => write.kind !== 'order')).toBe(true)
    expect(exported.some((each) => each.apiGuid === key)).toBe(false)
    expect(JSON.parse(readFileSync(join(folder, `${order}.json`), 'utf8'))).toMatchObject({
      apiGuid: order,
      customerGuid: orderable.customerGuid,
      lines: [{ qty: 2 }],
    })
    const human = await cli(['outbox', '--export', folder], session)
    expect(human.code, human.stderr).toBe(0)
    expect(human.stdout).toContain('New customer Refused Export Deli')
  })
})
