/**
 * A database with one damaged page, as a disk or a copy gone wrong leaves it: every command tells the
 * same story (what is damaged, what can still be read, how to keep the unsent orders), and the
 * unsent orders are kept. The files are made the same way each time: a real sync against the double,
 * three orders queued, then one page of a chosen table overwritten with garbage.
 */
import { closeSync, copyFileSync, mkdtempSync, openSync, readdirSync, rmSync, writeSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import BetterSqlite3 from 'better-sqlite3'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startService } from '../service/index'
import type { RunningService } from '../service/types'
import { cli, json, type Run } from '../support/cli'

let service: RunningService
let directory: string
let template: string
let env: Record<string, string>
const queued: string[] = []

beforeAll(async () => {
  service = await startService({ size: 'tiny', seed: 5 })
  directory = mkdtempSync(join(tmpdir(), 'satchel-damaged-'))
  template = join(directory, 'template.db')
  env = { SATCHEL_BASE_URL: service.url, SATCHEL_API_KEY: service.credentials.apiKey, SATCHEL_API_SECRET: service.credentials.apiSecret }
  expect((await cli(['sync', '--db', template, '--json'], env)).code).toBe(0)
  const local = new BetterSqlite3(template, { readonly: true })
  const catalogGuid = local.prepare<[], string>('SELECT guid FROM catalogs WHERE active = 1 ORDER BY id LIMIT 1').pluck().get()!
  const priced = `typeof(json_extract(pricing, '$."' || ? || '"'))`
  let draft: Record<string, unknown> | undefined
  for (const group of local.prepare<[string], { id: number; name: string }>('SELECT id, name FROM price_groups WHERE catalog_guid = ? AND deleted_at IS NULL ORDER BY id').all(catalogGuid)) {
    const customerGuid = local
      .prepare<[number], string>('SELECT guid FROM customers WHERE active = 1 AND require_po = 0 AND lock_catalog_id IS NULL AND deleted_at IS NULL AND price_group_id = ? ORDER BY id LIMIT 1')
      .pluck()
      .get(group.id)
    const sku = local
      .prepare<[string, string], string>(
        `SELECT sku FROM catalog_items WHERE catalog_guid = ? AND active = 1 AND deleted_at IS NULL AND ${priced} IN ('integer', 'real')
         AND (has_inventory = 0 OR allow_backorder = 1) AND coalesce(min_order_qty, 0) <= 1 AND coalesce(json_extract(json, '$.qty_break'), 0) = 0 ORDER BY id LIMIT 1`,
      )
      .pluck()
      .get(catalogGuid, group.name)
    if (customerGuid && sku) {
      draft = { customerGuid, catalogGuid, lines: [{ sku, qty: 2 }] }
      break
    }
  }
  local.close()
  expect(draft).toBeDefined()
  for (const po of ['PO-1', 'PO-2', 'PO-3']) {
    const file = join(directory, `${po}.json`)
    const fd = openSync(file, 'w')
    writeSync(fd, JSON.stringify({ ...draft, poNo: po }))
    closeSync(fd)
    const run = await cli(['order', 'queue', '--file', file, '--db', template, '--json'], env)
    expect(run.code).toBe(0)
    queued.push(json(run).apiGuid as string)
  }
})

afterAll(async () => {
  await service.close()
  rmSync(directory, { recursive: true, force: true })
})

/** A copy of the template with one page of `table` (its last leaf, or its root) overwritten with garbage. */
function damaged(name: string, table: string, page: 'leaf' | 'root' = 'leaf'): string {
  const path = join(directory, `${name}.db`)
  copyFileSync(template, path)
  const db = new BetterSqlite3(path, { readonly: true })
  const pageSize = db.pragma('page_size', { simple: true }) as number
  const pages = db.prepare<[string], { pageno: number; pagetype: string }>('SELECT pageno, pagetype FROM dbstat WHERE name = ? ORDER BY pageno').all(table)
  db.close()
  const chosen = (page === 'leaf' ? pages.filter((each) => each.pagetype === 'leaf').at(-1) : undefined) ?? pages[0]!
  const fd = openSync(path, 'r+')
  writeSync(fd, Buffer.alloc(pageSize, 0x5a), 0, pageSize, (chosen.pageno - 1) * pageSize)
  closeSync(fd)
  return path
}

function failure(run: Run): { code: string; message: string; result: Record<string, unknown> } {
  expect(run.code).toBe(1)
  const result = json(run)
  const error = result.error as { code: string; message: string }
  return { ...error, result }
}

function syncRuns(path: string): number {
  const db = new BetterSqlite3(path, { readonly: true })
  try {
    return db.prepare<[], number>('SELECT count(*) FROM sync_runs').pluck().get()!
  } finally {
    db.close()
  }
}

describe('a catalog item page damaged', () => {
  let db: string
  beforeAll(() => {
    db = damaged('items', 'catalog_item_rows')
  })

  it('status names the damage, still shows the 3 unsent orders, and says how to keep them before moving the file aside', async () => {
    const { code, message, result } = failure(await cli(['status', '--db', db, '--json'], env))
    expect(code).toBe('NOT_A_DATABASE')
    expect(message).toContain('catalog items')
    expect(message).toContain('3 unsent orders')
    expect(message).toContain('satchel outbox --export')
    expect(message.indexOf('satchel outbox --export')).toBeLessThan(message.indexOf('move the file aside'))
    expect(result.outbox).toMatchObject({ queued: 3 })
    expect(result.health).toMatchObject({ ok: false, outboxReadable: true })
  })

  it('outbox --export writes the unsent orders as draft files that order queue takes back, in a new database', async () => {
    const out = join(directory, 'kept')
    const run = await cli(['outbox', '--export', out, '--db', db, '--json'], env)
    expect(failure(run).code).toBe('NOT_A_DATABASE')
    expect((json(run).exported as { apiGuid: string }[]).map((each) => each.apiGuid).sort()).toEqual([...queued].sort())
    const fresh = join(directory, 'fresh.db')
    expect((await cli(['sync', '--db', fresh, '--json'], env)).code).toBe(0)
    for (const file of readdirSync(out)) {
      const again = await cli(['order', 'queue', '--file', join(out, file), '--db', fresh, '--json'], env)
      expect(again.code, again.stderr).toBe(0)
    }
    const status = json(await cli(['status', '--db', fresh, '--json'], env))
    expect(status.outbox).toMatchObject({ queued: 3 })
  })

  it('sync refuses to write into it, with the same story', async () => {
    const before = syncRuns(db)
    const { code, message } = failure(await cli(['sync', '--db', db, '--json'], env))
    expect(code).toBe('NOT_A_DATABASE')
    expect(message).toContain('catalog items')
    expect(message).toContain('satchel outbox --export')
    expect(syncRuns(db)).toBe(before)
  })

  it('flush sends the unsent orders, which saves them, and still says the file is damaged', async () => {
    const run = await cli(['flush', '--db', db, '--json'], env)
    const { code, message, result } = failure(run)
    expect(code).toBe('NOT_A_DATABASE')
    expect(result.sent).toBe(3)
    expect(message).toContain('catalog items')
    for (const apiGuid of queued) expect(service.control.ordersByApiGuid(apiGuid)).toHaveLength(1)
  })
})

describe('an outbox page damaged', () => {
  let db: string
  beforeAll(() => {
    db = damaged('outbox', 'outbox')
  })

  it('status does not count orders it cannot read, and says the outbox is damaged', async () => {
    const { code, message, result } = failure(await cli(['status', '--db', db, '--json'], env))
    expect(code).toBe('NOT_A_DATABASE')
    expect(message).toContain('the outbox')
    expect(result.outbox).toBeNull()
    expect(result.health).toMatchObject({ ok: false, outboxReadable: false })
  })

  it('outbox and flush tell the same story, and flush sends nothing', async () => {
    const before = service.control.requestLog().length
    const outbox = failure(await cli(['outbox', '--db', db, '--json'], env))
    const flush = failure(await cli(['flush', '--db', db, '--json'], env))
    const status = failure(await cli(['status', '--db', db, '--json'], env))
    expect(outbox.message).toBe(status.message)
    expect(flush.message).toBe(status.message)
    expect(service.control.requestLog().slice(before).filter((entry) => entry.method === 'POST')).toEqual([])
  })
})

describe('a search index page damaged', () => {
  let db: string
  beforeAll(() => {
    // Its root: every search reads it.
    db = damaged('search', 'catalog_item_search_data', 'root')
  })

  it('status warns, naming the search index, while the outbox can be read', async () => {
    const { code, message, result } = failure(await cli(['status', '--db', db, '--json'], env))
    expect(code).toBe('NOT_A_DATABASE')
    expect(message).toContain('search index')
    expect(result.outbox).toMatchObject({ queued: 3 })
  })

  it('a search that meets the damage tells the same story as status', async () => {
    const status = failure(await cli(['status', '--db', db, '--json'], env))
    const catalog = new BetterSqlite3(db, { readonly: true }).prepare<[], string>('SELECT guid FROM catalogs ORDER BY id LIMIT 1').pluck().get()!
    const search = failure(await cli(['items', 'search', 'a', '--catalog', catalog, '--db', db, '--json'], env))
    expect(search.message).toBe(status.message)
  })
})
