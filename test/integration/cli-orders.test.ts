/**
 * `satchel order queue`, `flush` and `outbox` as a user runs them: a real child process against the
 * ordering-service double, with the database a real first sync filled.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import BetterSqlite3 from 'better-sqlite3'
import { startService } from '../service/index'
import type { RunningService } from '../service/types'
import { cli, json } from '../support/cli'

let service: RunningService
let directory: string
let db: string
let env: Record<string, string>
let customerGuid: string
let catalogGuid: string
let skus: string[]
let notOffered: string

function draftFile(name: string, draft: unknown): string {
  const path = join(directory, name)
  writeFileSync(path, typeof draft === 'string' ? draft : JSON.stringify(draft))
  return path
}

beforeAll(async () => {
  service = await startService({ size: 'tiny', seed: 5 })
  directory = mkdtempSync(join(tmpdir(), 'satchel-cli-orders-'))
  db = join(directory, 'satchel.db')
  env = {
    SATCHEL_DB: db,
    SATCHEL_BASE_URL: service.url,
    SATCHEL_API_KEY: service.credentials.apiKey,
    SATCHEL_API_SECRET: service.credentials.apiSecret,
  }
  expect((await cli(['sync', '--json'], env)).code).toBe(0)
  const local = new BetterSqlite3(db, { readonly: true })
  catalogGuid = local
    .prepare<[], string>('SELECT guid FROM catalogs WHERE active = 1 ORDER BY id LIMIT 1')
    .pluck()
    .get()!
  const priced = `typeof(json_extract(pricing, '$."' || ? || '"'))`
  // A price group with at least one item it is not offered, and a plain customer in that group.
  const groups = local
    .prepare<[string], { id: number; name: string }>(
      'SELECT id, name FROM price_groups WHERE catalog_guid = ? AND deleted_at IS NULL ORDER BY id',
    )
    .all(catalogGuid)
  for (const group of groups) {
    const na = local
      .prepare<[string, string], string>(
        `SELECT sku FROM catalog_items WHERE catalog_guid = ? AND active = 1 AND ${priced} = 'text' LIMIT 1`,
      )
      .pluck()
      .get(catalogGuid, group.name)
    const customer = local
      .prepare<[number], string>(
        'SELECT guid FROM customers WHERE active = 1 AND require_po = 0 AND lock_catalog_id IS NULL AND deleted_at IS NULL AND price_group_id = ? ORDER BY id LIMIT 1',
      )
      .pluck()
      .get(group.id)
    if (!na || !customer) continue
    notOffered = na
    customerGuid = customer
    skus = local
      .prepare<[string, string], string>(
        `SELECT sku FROM catalog_items WHERE catalog_guid = ? AND active = 1 AND deleted_at IS NULL AND ${priced} IN ('integer', 'real')
         AND (has_inventory = 0 OR allow_backorder = 1) AND coalesce(min_order_qty, 0) <= 1 AND coalesce(json_extract(json, '$.qty_break'), 0) = 0 ORDER BY id LIMIT 2`,
      )
      .pluck()
      .all(catalogGuid, group.name)
    break
  }
  local.close()
  expect(skus).toHaveLength(2)
  expect(notOffered).toBeTruthy()
})

afterAll(async () => {
  await service.close()
  rmSync(directory, { recursive: true, force: true })
})

describe('satchel order queue / flush / outbox', () => {
  it('order queue --json queues a valid draft file and prints { apiGuid, state: "queued" }', async () => {
    const apiGuid = '0b6c2f1e-4d7a-4c55-9a1e-7f3b2d9c8e01'
    const file = draftFile('good.json', {
      customerGuid,
      catalogGuid,
      apiGuid,
      poNo: 'PO-1',
      lines: [
        { sku: skus[0], qty: 3 },
        { sku: skus[1], qty: 1, note: 'gift wrap' },
      ],
    })
    const run = await cli(['order', 'queue', '--file', file, '--json'], env)
    expect(run.code).toBe(0)
    expect(json(run)).toEqual({ apiGuid, state: 'queued' })
  })

  it('order queue exits 2 with { errors: [ { path, message } ] } for each problem, and keeps nothing', async () => {
    const file = draftFile('bad.json', {
      customerGuid,
      catalogGuid,
      lines: [
        { sku: skus[0], qty: 1 },
        { sku: 'NO-SUCH-SKU', qty: 1 },
        { sku: notOffered, qty: 2 },
      ],
    })
    const run = await cli(['order', 'queue', '--file', file, '--json'], env)
    expect(run.code).toBe(2)
    expect(json(run)).toEqual({
      errors: [
        { path: 'lines.1.sku', message: 'NO-SUCH-SKU is not in this catalog' },
        { path: 'lines.2', message: expect.stringContaining('not offered to price group') },
      ],
    })
    const outbox = json(await cli(['outbox', '--json'], env)) as { entries: unknown[] }
    expect(outbox.entries).toHaveLength(1)
    const local = new BetterSqlite3(db, { readonly: true })
    expect(local.prepare('SELECT count(*) FROM drafts').pluck().get()).toBe(0)
    local.close()
  })

  it("order queue refuses a family's SKU or guid, saying it is a family that is not ordered itself and how to order its members", async () => {
    const local = new BetterSqlite3(db, { readonly: true })
    const family = local
      .prepare<[string], { guid: string; sku: string; title: string }>(
        "SELECT guid, sku, json ->> '$.group_title' AS title FROM catalog_items WHERE catalog_guid = ? AND deleted_at IS NULL AND json ->> '$.is_product_group' = 1 ORDER BY id LIMIT 1",
      )
      .get(catalogGuid)!
    local.close()
    const run = await cli(
      [
        'order',
        'queue',
        '--file',
        draftFile('family.json', {
          customerGuid,
          catalogGuid,
          lines: [
            { sku: skus[0], qty: 1 },
            { sku: family.sku, qty: 2 },
          ],
        }),
        '--json',
      ],
      env,
    )
    expect(run.code).toBe(2)
    const refused = (code: string) =>
      `${code} is the family ${family.title}, which is not ordered itself: order its members (items family ${family.guid} lists them)`
    expect(json(run)).toEqual({ errors: [{ path: 'lines.1.sku', message: refused(family.sku) }] })
    const byGuid = await cli(
      [
        'order',
        'queue',
        '--file',
        draftFile('family-guid.json', {
          customerGuid,
          catalogGuid,
          lines: [
            { sku: skus[0], qty: 1 },
            { catalogItemGuid: family.guid, qty: 2 },
          ],
        }),
        '--json',
      ],
      env,
    )
    expect(byGuid.code).toBe(2)
    expect(json(byGuid)).toEqual({ errors: [{ path: 'lines.1.catalogItemGuid', message: refused(family.guid) }] })
  })

  it('order queue exits 2 on a file that is not JSON, a wrong shape, or a missing --file', async () => {
    const notJson = await cli(['order', 'queue', '--file', draftFile('x.json', '{ nope'), '--json'], env)
    expect(notJson.code).toBe(2)
    expect(json(notJson)).toEqual({ errors: [{ path: 'file', message: expect.stringContaining('not valid JSON') }] })
    const shape = await cli(
      ['order', 'queue', '--file', draftFile('y.json', { catalogGuid, lines: [{ sku: skus[0], qty: -1 }] }), '--json'],
      env,
    )
    expect(shape.code).toBe(2)
    expect((json(shape) as { errors: { path: string }[] }).errors.map((e) => e.path).sort()).toEqual([
      'customerGuid',
      'lines.0.qty',
    ])
    const missing = await cli(['order', 'queue'], env)
    expect(missing.code).toBe(2)
    expect(missing.stderr).toContain('--file')
  })

  it('flush --json sends what is queued and exits 0 when nothing is left waiting', async () => {
    const run = await cli(['flush', '--json'], env)
    expect(run.code).toBe(0)
    expect(json(run)).toEqual({ sent: 1, needsAttention: 0, retrying: 0 })
    expect(service.control.ordersByApiGuid('0b6c2f1e-4d7a-4c55-9a1e-7f3b2d9c8e01')).toHaveLength(1)
  })

  it('outbox --json lists every entry with the documented fields', async () => {
    const run = await cli(['outbox', '--json'], env)
    expect(run.code).toBe(0)
    const [order] = service.control.ordersByApiGuid('0b6c2f1e-4d7a-4c55-9a1e-7f3b2d9c8e01')
    expect(json(run)).toEqual({
      entries: [
        {
          apiGuid: '0b6c2f1e-4d7a-4c55-9a1e-7f3b2d9c8e01',
          kind: 'order',
          state: 'sent',
          customerGuid,
          orderGuid: order!.guid,
          orderName: order!.name,
          attempts: 1,
          lastError: null,
          errors: [],
          mayBeWithSupplier: false,
        },
      ],
    })
  })

  it('flush exits 1 with one line on stderr while the service cannot be reached, and the order waits', async () => {
    const file = draftFile('later.json', { customerGuid, catalogGuid, lines: [{ sku: skus[0], qty: 1 }] })
    const { apiGuid } = json(await cli(['order', 'queue', '--file', file, '--json'], env)) as { apiGuid: string }
    const down = await cli(['flush', '--json'], { ...env, SATCHEL_BASE_URL: 'http://127.0.0.1:9' })
    expect(down.code).toBe(1)
    expect(json(down)).toEqual({ sent: 0, needsAttention: 0, retrying: 1 })
    expect(down.stderr.trim().split('\n')).toHaveLength(1)
    expect(down.stderr).toContain('cannot be reached')
    const entries = (
      json(await cli(['outbox', '--json'], env)) as {
        entries: { apiGuid: string; state: string; lastError: string | null }[]
      }
    ).entries
    expect(entries.find((e) => e.apiGuid === apiGuid)).toMatchObject({
      state: 'retrying',
      lastError: expect.stringContaining('cannot be reached'),
    })
    expect(json(await cli(['flush', '--json'], env))).toEqual({ sent: 1, needsAttention: 0, retrying: 0 })
  })

  it('queueing the same apiGuid twice is refused with exit 2', async () => {
    const file = draftFile('again.json', {
      customerGuid,
      catalogGuid,
      apiGuid: '0b6c2f1e-4d7a-4c55-9a1e-7f3b2d9c8e01',
      lines: [{ sku: skus[0], qty: 1 }],
    })
    const run = await cli(['order', 'queue', '--file', file, '--json'], env)
    expect(run.code).toBe(2)
    expect(json(run)).toEqual({
      errors: [{ path: 'apiGuid', message: expect.stringContaining('already in the outbox (sent)') }],
    })
  })

  it('order queue reads a file that starts with a UTF-8 byte order mark, as editors on Windows save it', async () => {
    const apiGuid = '0b6c2f1e-4d7a-4c55-9a1e-7f3b2d9c8e02'
    const file = draftFile(
      'bom.json',
      `\uFEFF${JSON.stringify({ customerGuid, catalogGuid, apiGuid, lines: [{ sku: skus[0], qty: 1 }] })}`,
    )
    const run = await cli(['order', 'queue', '--file', file, '--json'], env)
    expect(run.stderr).toBe('')
    expect(run.code).toBe(0)
    expect(json(run)).toEqual({ apiGuid, state: 'queued' })
  })
})
