/**
 * The `satchel` CLI as a user runs it: a real child process against the ordering-service double.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startService } from '../service/index'
import type { RunningService } from '../service/types'
import { cli, json } from '../support/cli'

let service: RunningService
let directory: string
let db: string
let env: Record<string, string>

beforeAll(async () => {
  service = await startService({ size: 'tiny', seed: 11 })
  directory = mkdtempSync(join(tmpdir(), 'satchel-cli-'))
  db = join(directory, 'nested', 'satchel.db')
  env = {
    SATCHEL_BASE_URL: service.url,
    SATCHEL_API_KEY: service.credentials.apiKey,
    SATCHEL_API_SECRET: service.credentials.apiSecret,
  }
})

afterAll(async () => {
  await service.close()
  rmSync(directory, { recursive: true, force: true })
})

const counts = { fetched: expect.any(Number), upserted: expect.any(Number), deleted: expect.any(Number) }

describe('satchel CLI', () => {
  it('sync --json prints one result object and fills the database', async () => {
    const run = await cli(['sync', '--db', db, '--json'], env)
    expect(run.code).toBe(0)
    const result = json(run)
    expect(Object.keys(result).sort()).toEqual(['durationMs', 'ok', 'orderDetails', 'resources'])
    // Each order of the last 90 days is fetched in full once.
    const since = service.control.now().getTime() - 90 * 86_400_000
    const recentOrders = service.control
      .orders()
      .filter((o) => o.deleted_at === null && Date.parse(String(o.created_at)) >= since).length
    expect(result).toEqual({
      ok: true,
      resources: { catalogs: counts, priceGroups: counts, customers: counts, catalogItems: counts, orders: counts },
      durationMs: expect.any(Number),
      orderDetails: { fetched: recentOrders, failed: 0, waiting: 0 },
    })
    const liveItems = service.control
      .catalogs()
      .filter((c) => c.deleted_at === null)
      .flatMap((c) => service.control.catalogItems(String(c.guid)))
      .filter((i) => i.deleted_at === null)
    expect((result.resources as Record<string, { upserted: number }>).catalogItems?.upserted).toBe(liveItems.length)
  })

  it('sync takes credentials from options as well as the environment, and --full lists everything again', async () => {
    const c = service.credentials
    const run = await cli([
      '--db',
      db,
      'sync',
      '--full',
      '--base-url',
      service.url,
      '--api-key',
      c.apiKey,
      '--api-secret',
      c.apiSecret,
      '--json',
    ])
    expect(run.code).toBe(0)
    const result = json(run) as { ok: boolean; resources: Record<string, { fetched: number; upserted: number }> }
    expect(result.ok).toBe(true)
    expect(result.resources.catalogItems!.fetched).toBeGreaterThan(0)
    expect(result.resources.catalogItems!.upserted).toBe(0)
  })

  it('status --json reports live counts, the outbox and the last sync', async () => {
    const run = await cli(['status', '--json'], { SATCHEL_DB: db })
    expect(run.code).toBe(0)
    const result = json(run)
    const control = service.control
    const liveCatalogs = control.catalogs().filter((c) => c.deleted_at === null)
    expect(result).toEqual({
      counts: {
        catalogs: liveCatalogs.length,
        priceGroups: liveCatalogs
          .flatMap((c) => control.priceGroups(String(c.guid)))
          .filter((g) => g.deleted_at === null).length,
        customers: control.customers().filter((c) => c.deleted_at === null).length,
        catalogItems: liveCatalogs
          .flatMap((c) => control.catalogItems(String(c.guid)))
          .filter((i) => i.deleted_at === null).length,
        orders: control.orders().filter((o) => o.deleted_at === null).length,
      },
      outbox: { queued: 0, sending: 0, retrying: 0, needsAttention: 0, sent: 0, conflict: 0, refused: 0, attention: 0 },
      lastSyncAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
      catalogUpdate: null,
    })
  })

  it('items search --json prices for the customer, with N/A as price null and offered false', async () => {
    const control = service.control
    const catalog = control.catalogs().find((c) => c.deleted_at === null)!
    const group = control.priceGroups(String(catalog.guid)).find((g) => g.deleted_at === null && !g.is_main)!
    const customer = control.customers().find((c) => c.deleted_at === null)!
    control.update('customer', String(customer.guid), { price_group_id: group.id })
    const [hidden, shown] = control.catalogItems(String(catalog.guid)).filter((i) => i.deleted_at === null)
    control.update('catalogItem', String(hidden!.guid), { name: 'Quixotic Widget Alpha' })
    control.update('catalogItem', String(shown!.guid), { name: 'Quixotic Widget Beta' })
    control.setPrice(String(hidden!.guid), String(group.value), 'N/A')
    control.setPrice(String(shown!.guid), String(group.value), 12.25)
    expect((await cli(['sync', '--db', db, '--json'], env)).code).toBe(0)

    const run = await cli([
      'items',
      'search',
      'quixotic wid',
      '--catalog',
      String(catalog.guid),
      '--customer',
      String(customer.guid),
      '--limit',
      '5',
      '--db',
      db,
      '--json',
    ])
    expect(run.code).toBe(0)
    const result = json(run) as { items: Record<string, unknown>[] }
    expect(result.items).toHaveLength(2)
    for (const item of result.items)
      expect(Object.keys(item).sort()).toEqual([
        'available',
        'family',
        'familyOf',
        'guid',
        'incoming',
        'name',
        'offered',
        'price',
        'sku',
        'upc',
      ])
    expect(result.items.find((item) => item.guid === hidden!.guid)).toMatchObject({
      price: null,
      offered: false,
      sku: hidden!.sku,
    })
    expect(result.items.find((item) => item.guid === shown!.guid)).toMatchObject({ price: 12.25, offered: true })

    const human = await cli([
      'items',
      'search',
      'quixotic',
      '--catalog',
      String(catalog.guid),
      '--customer',
      String(customer.guid),
      '--db',
      db,
    ])
    expect(human.code).toBe(0)
    expect(human.stdout).toContain('not offered')
    expect(human.stdout).toContain('12.25')
  })

  it('items search finds a UPC from its EAN-13, GTIN-14 and GS1 spellings, and says a bad check digit is a mis-scan', async () => {
    const catalog = service.control.catalogs().find((c) => c.deleted_at === null)!
    const item = service.control
      .catalogItems(String(catalog.guid))
      .find((i) => i.deleted_at === null && /^\d{12}$/.test(String(i.upc)))!
    const gtin14 = `00${String(item.upc)}`
    for (const query of [`0${String(item.upc)}`, gtin14, `(01)${gtin14}(10)LOT42`]) {
      const run = await cli(['items', 'search', query, '--catalog', String(catalog.guid), '--db', db, '--json'])
      expect(run.code, query).toBe(0)
      expect(
        (json(run) as { items: { sku: string }[] }).items.map((found) => found.sku),
        query,
      ).toEqual([item.sku])
    }
    const misScanned = gtin14.slice(0, 13) + String((Number(gtin14.at(-1)) + 1) % 10)
    const human = await cli(['items', 'search', misScanned, '--catalog', String(catalog.guid), '--db', db])
    expect(human.code).toBe(0)
    expect(human.stdout).toContain(`${misScanned} is not a valid barcode (its check digit is wrong)`)
  })

  it("items family --json prints a family's grid for the customer; items search names a member's family and its stock", async () => {
    const control = service.control
    const catalog = control.catalogs().find((c) => c.deleted_at === null)!
    const items = control.catalogItems(String(catalog.guid)).filter((i) => i.deleted_at === null)
    const parent = items.find((i) => i.is_product_group === true && i.product_group_type === 'Color/Size')!
    const members = items.filter((i) => i.group_parent_catalog_item_id === parent.id)
    const member = members[0]!
    control.update('catalogItem', String(member.guid), {
      has_inventory: true,
      qty_on_hand: 50,
      reserved_qty_on_hand: 8,
      qty_incoming: 24,
    })
    expect((await cli(['sync', '--db', db, '--json'], env)).code).toBe(0)
    const customer = control.customers().find((c) => c.deleted_at === null && c.lock_catalog_id === 0)!

    const run = await cli([
      'items',
      'family',
      String(member.guid),
      '--customer',
      String(customer.guid),
      '--db',
      db,
      '--json',
    ])
    expect(run.code).toBe(0)
    const { family } = json(run) as {
      family: {
        guid: string
        rowAxis: string
        columnAxis: string
        cells: { sku: string; available: number | null; incoming: number }[]
      }
    }
    expect(family).toMatchObject({ guid: parent.guid, rowAxis: 'Color', columnAxis: 'Size' })
    expect(family.cells.map((cell) => cell.sku)).toEqual(members.map((m) => m.sku))
    expect(family.cells[0]).toMatchObject({ available: 42, incoming: 24 })

    const search = json(
      await cli(['items', 'search', String(member.sku), '--catalog', String(catalog.guid), '--db', db, '--json']),
    ) as { items: Record<string, unknown>[] }
    expect(search.items.find((item) => item.guid === member.guid)).toMatchObject({
      upc: member.upc,
      available: 42,
      incoming: 24,
      family: { guid: parent.guid, title: parent.group_title },
    })

    const unknown = await cli(['items', 'family', '00000000-0000-4000-8000-000000000000', '--db', db])
    expect(unknown.code).toBe(2)
  })

  it('customers search --json finds customers by word prefix', async () => {
    const customer = service.control.customers().find((c) => c.deleted_at === null)!
    const word = String(customer.name).split(/\s+/)[0]!.slice(0, 4)
    const run = await cli(['customers', 'search', word, '--db', db, '--json'])
    expect(run.code).toBe(0)
    const result = json(run) as { customers: Record<string, unknown>[] }
    expect(result.customers.map((c) => c.guid)).toContain(customer.guid)
    for (const found of result.customers) expect(Object.keys(found).sort()).toEqual(['active', 'guid', 'name'])
  })

  it('exits 2 on invalid input, with one JSON object under --json', async () => {
    const cases = [
      ['frobnicate', '--db', db],
      ['items', 'search', 'x', '--db', db],
      ['items', 'search', 'x', '--catalog', 'c', '--limit', 'lots', '--db', db],
      ['status', '--full', '--db', db],
      ['status', '--colour', '--db', db],
      ['customers', 'search', '--db', db],
      ['sync', '--db', db, '--api-key', 'k'],
    ]
    for (const args of cases) {
      const run = await cli([...args, '--json'])
      expect(run.code, args.join(' ')).toBe(2)
      expect(json(run)).toEqual({ error: { code: 'INVALID_ARGUMENT', message: expect.any(String) } })
      expect(run.stderr.trim().split('\n')).toHaveLength(1)
    }
    const human = await cli(['frobnicate'])
    expect(human.code).toBe(2)
    expect(human.stdout).toBe('')
  })

  it('exits 1 with one clear line when the service refuses the credentials or cannot be reached', async () => {
    const refused = await cli(['sync', '--db', db, '--json'], { ...env, SATCHEL_API_SECRET: 'wrong' })
    expect(refused.code).toBe(1)
    expect(json(refused)).toMatchObject({ ok: false, error: { code: 'UNAUTHORIZED' } })
    expect(refused.stderr.trim().split('\n')).toHaveLength(1)
    expect(refused.stderr).toMatch(/401/)

    const unreachable = await cli(['sync', '--db', db], { ...env, SATCHEL_BASE_URL: 'http://127.0.0.1:9' })
    expect(unreachable.code).toBe(1)
    expect(unreachable.stderr.trim().split('\n')).toEqual([expect.stringMatching(/cannot be reached/)])

    const missing = await cli(['status', '--db', join(directory, 'none.db')])
    expect(missing.code).toBe(1)
    expect(missing.stderr).toMatch(/No Satchel database/)
  })

  it('prints a human summary without a progress bar when stderr is not a terminal', async () => {
    const run = await cli(['sync', '--db', db], env)
    expect(run.code).toBe(0)
    expect(run.stdout).toMatch(/Catalog items/)
    expect(run.stderr).toBe('')
  })
})
