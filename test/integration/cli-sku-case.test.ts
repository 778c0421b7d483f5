/**
 * `satchel order queue` with SKUs that differ only in capitals (issue 37): `DPR-10001` and
 * `dpr-10001` are two items of the catalog; the order names the one written exactly, and a SKU in
 * capitals of neither is refused, naming both, with nothing queued.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import BetterSqlite3 from 'better-sqlite3'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startService } from '../service/index'
import type { RunningService } from '../service/types'
import { cli, json } from '../support/cli'

let service: RunningService
let directory: string
let db: string
let env: Record<string, string>
let catalogGuid: string
let customerGuid: string
const items: Record<string, string> = {}

function draftFile(name: string, draft: unknown): string {
  const path = join(directory, name)
  writeFileSync(path, JSON.stringify(draft))
  return path
}

beforeAll(async () => {
  service = await startService({ size: 'tiny', seed: 13 })
  const catalog = service.control.catalogs().find((c) => c.active === true && c.deleted_at === null)!
  catalogGuid = catalog.guid as string
  const pricing = Object.fromEntries(service.control.priceGroups(catalogGuid).map((g) => [g.value as string, 4]))
  for (const sku of ['DPR-10001', 'dpr-10001']) {
    const fields = {
      sku,
      pricing,
      has_inventory: false,
      allow_backorder: true,
      min_order_qty: 1,
      qty_break: 0,
      qty_break_price: 0,
      is_product_group: false,
    }
    items[sku] = String(service.control.insertCatalogItem(catalogGuid, fields).guid)
  }
  directory = mkdtempSync(join(tmpdir(), 'satchel-cli-sku-case-'))
  db = join(directory, 'satchel.db')
  env = {
    SATCHEL_DB: db,
    SATCHEL_BASE_URL: service.url,
    SATCHEL_API_KEY: service.credentials.apiKey,
    SATCHEL_API_SECRET: service.credentials.apiSecret,
  }
  expect((await cli(['sync', '--json'], env)).code).toBe(0)
  const local = new BetterSqlite3(db, { readonly: true })
  customerGuid = local
    .prepare<[string], string>(
      `SELECT c.guid FROM customers c JOIN price_groups g ON g.id = c.price_group_id AND g.catalog_guid = ?
       WHERE c.active = 1 AND c.require_po = 0 AND c.lock_catalog_id IS NULL AND c.deleted_at IS NULL ORDER BY c.id LIMIT 1`,
    )
    .pluck()
    .get(catalogGuid)!
  local.close()
  expect(customerGuid).toBeTruthy()
}, 120_000)

afterAll(async () => {
  await service.close()
  rmSync(directory, { recursive: true, force: true })
})

describe('order queue with SKUs that differ only in capitals', () => {
  it('sends the item whose SKU the line writes exactly', async () => {
    const apiGuid = '5d1c8f0e-2b7a-4e3c-9f11-0a6b4c2d8e01'
    const queued = await cli(
      [
        'order',
        'queue',
        '--file',
        draftFile('lower.json', { customerGuid, catalogGuid, apiGuid, lines: [{ sku: 'dpr-10001', qty: 1 }] }),
        '--json',
      ],
      env,
    )
    expect(queued.code).toBe(0)
    expect((await cli(['flush', '--json'], env)).code).toBe(0)
    const [order] = service.control.ordersByApiGuid(apiGuid)
    const lines = (order!.Order_Items as { catalog_item_guid: string; sku: string }[]).map((line) => [
      line.catalog_item_guid,
      line.sku,
    ])
    expect(lines).toEqual([[items['dpr-10001'], 'dpr-10001']])
  })

  it('refuses a SKU in capitals of neither, naming both, and queues nothing', async () => {
    const before = json(await cli(['outbox', '--json'], env)) as { entries: unknown[] }
    const run = await cli(
      [
        'order',
        'queue',
        '--file',
        draftFile('mixed.json', { customerGuid, catalogGuid, lines: [{ sku: 'Dpr-10001', qty: 1 }] }),
        '--json',
      ],
      env,
    )
    expect(run.code).toBe(2)
    expect(json(run)).toEqual({
      errors: [
        {
          path: 'lines.0.sku',
          message: expect.stringMatching(
            /^Dpr-10001 could be any of 2 items whose SKUs differ only in capitals \(DPR-10001, dpr-10001\)/,
          ),
        },
      ],
    })
    expect((json(await cli(['outbox', '--json'], env)) as { entries: unknown[] }).entries).toHaveLength(
      before.entries.length,
    )
  })
})
