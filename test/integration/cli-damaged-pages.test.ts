/**
 * A database with one damaged page, as a disk or a copy gone wrong leaves it: once a command meets
 * the damage, the whole file is checked once and every command after tells the same story (what is
 * damaged, what can still be read, how to keep the unsent orders), and the unsent orders are kept.
 * An intact file is never checked whole. The files are made the same way each time: a real sync
 * against the double, three orders queued, then one page of a chosen table overwritten with garbage.
 * Each run counts its whole-file checks through test/support/quick-check-count.mjs.
 */
import {
  closeSync,
  copyFileSync,
  existsSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import BetterSqlite3 from 'better-sqlite3'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startService } from '../service/index'
import type { RunningService } from '../service/types'
import { cli, json, root, type Run } from '../support/cli'

let service: RunningService
let directory: string
let template: string
let env: Record<string, string>
const queued: string[] = []
let draft: Record<string, unknown> | undefined
let catalog: string

beforeAll(async () => {
  service = await startService({ size: 'tiny', seed: 5 })
  directory = mkdtempSync(join(tmpdir(), 'satchel-damaged-'))
  template = join(directory, 'template.db')
  env = {
    SATCHEL_BASE_URL: service.url,
    SATCHEL_API_KEY: service.credentials.apiKey,
    SATCHEL_API_SECRET: service.credentials.apiSecret,
  }
  expect((await cli(['sync', '--db', template, '--json'], env)).code).toBe(0)
  const local = new BetterSqlite3(template, { readonly: true })
  const catalogGuid = local
    .prepare<[], string>('SELECT guid FROM catalogs WHERE active = 1 ORDER BY id LIMIT 1')
    .pluck()
    .get()!
  const priced = `typeof(json_extract(pricing, '$."' || ? || '"'))`
  for (const group of local
    .prepare<[string], { id: number; name: string }>(
      'SELECT id, name FROM price_groups WHERE catalog_guid = ? AND deleted_at IS NULL ORDER BY id',
    )
    .all(catalogGuid)) {
    const customerGuid = local
      .prepare<[number], string>(
        'SELECT guid FROM customers WHERE active = 1 AND require_po = 0 AND lock_catalog_id IS NULL AND deleted_at IS NULL AND price_group_id = ? ORDER BY id LIMIT 1',
      )
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
  catalog = catalogGuid
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
  const pages = db
    .prepare<[string], { pageno: number; pagetype: string }>(
      'SELECT pageno, pagetype FROM dbstat WHERE name = ? ORDER BY pageno',
    )
    .all(table)
  db.close()
  const chosen = (page === 'leaf' ? pages.filter((each) => each.pagetype === 'leaf').at(-1) : undefined) ?? pages[0]!
  const fd = openSync(path, 'r+')
  writeSync(fd, Buffer.alloc(pageSize, 0x5a), 0, pageSize, (chosen.pageno - 1) * pageSize)
  closeSync(fd)
  return path
}

const counter = join(root, 'test/support/quick-check-count.mjs')

/** The CLI on `db` under --json, logging its quick_checks beside the file. */
function run(db: string, args: string[]): Promise<Run> {
  const nodeOptions = `${process.env.NODE_OPTIONS ?? ''} --import ${counter}`.trim()
  return cli([...args, '--db', db, '--json'], {
    ...env,
    NODE_OPTIONS: nodeOptions,
    TEST_QUICK_CHECK_LOG: `${db}.checks`,
  })
}

/** How many times the commands on `db` read the whole file (the per-table checks that name the damage aside). */
function wholeFileChecks(db: string): number {
  if (!existsSync(`${db}.checks`)) return 0
  return readFileSync(`${db}.checks`, 'utf8')
    .split('\n')
    .filter((line) => line === 'quick_check').length
}

/** An item whose row is on the damaged page of `path`: what a rep searching for it meets. */
function itemOnDamagedPage(path: string): { sku: string; catalog: string } {
  const whole = new BetterSqlite3(template, { readonly: true })
  const broken = new BetterSqlite3(path, { readonly: true })
  try {
    const ids = whole.prepare<[], number>('SELECT local_id FROM catalog_item_rows ORDER BY local_id DESC').pluck().all()
    const lost = ids.find((id) => {
      try {
        broken.prepare('SELECT sku FROM catalog_item_rows WHERE local_id = ?').get(id)
        return false
      } catch {
        return true
      }
    })
    expect(lost).toBeDefined()
    const row = whole
      .prepare<[number], { sku: string; catalog_guid: string }>(
        'SELECT sku, catalog_guid FROM catalog_item_rows WHERE local_id = ?',
      )
      .get(lost!)!
    return { sku: row.sku, catalog: row.catalog_guid }
  } finally {
    whole.close()
    broken.close()
  }
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
  let story: string
  let lost: { sku: string; catalog: string }
  beforeAll(() => {
    db = damaged('items', 'catalog_item_rows')
    lost = itemOnDamagedPage(db)
  })

  it('is not checked until a command meets the damage; the search that does checks it once and tells the story', async () => {
    expect((await run(db, ['customers', 'search', 'a'])).code).toBe(0)
    expect(wholeFileChecks(db)).toBe(0)
    const { code, message } = failure(await run(db, ['items', 'search', lost.sku, '--catalog', lost.catalog]))
    expect(code).toBe('NOT_A_DATABASE')
    expect(message).toContain('catalog items')
    expect(message).toContain('3 unsent orders')
    expect(wholeFileChecks(db)).toBe(1)
    expect(existsSync(`${db}-health`)).toBe(true)
    story = message
  })

  it('status then tells the same story without checking again, still showing the 3 unsent orders and how to keep them first', async () => {
    const { code, message, result } = failure(await run(db, ['status']))
    expect(code).toBe('NOT_A_DATABASE')
    expect(message).toBe(story)
    expect(message).toContain('satchel outbox --export')
    expect(message.indexOf('satchel outbox --export')).toBeLessThan(message.indexOf('move the file aside'))
    expect(result.outbox).toMatchObject({ queued: 3 })
    expect(result.health).toMatchObject({ ok: false, outboxReadable: true })
    const again = failure(await run(db, ['customers', 'search', 'a']))
    expect(again.message).toBe(story)
    expect(wholeFileChecks(db)).toBe(1)
  })

  it('outbox --export writes the unsent orders as draft files that order queue takes back, in a new database', async () => {
    const out = join(directory, 'kept')
    const exported = await run(db, ['outbox', '--export', out])
    expect(failure(exported).message).toBe(story)
    expect((json(exported).exported as { apiGuid: string }[]).map((each) => each.apiGuid).sort()).toEqual(
      [...queued].sort(),
    )
    const fresh = join(directory, 'fresh.db')
    expect((await run(fresh, ['sync'])).code).toBe(0)
    for (const file of readdirSync(out)) {
      const again = await run(fresh, ['order', 'queue', '--file', join(out, file)])
      expect(again.code, again.stderr).toBe(0)
    }
    expect(json(await run(fresh, ['status'])).outbox).toMatchObject({ queued: 3 })
    expect(wholeFileChecks(fresh)).toBe(0)
  })

  it('sync and order queue refuse to write into it, with the same story', async () => {
    const before = syncRuns(db)
    const sync = failure(await run(db, ['sync']))
    expect(sync.code).toBe('NOT_A_DATABASE')
    expect(sync.message).toBe(story)
    expect(syncRuns(db)).toBe(before)
    const queue = failure(await run(db, ['order', 'queue', '--file', join(directory, 'PO-1.json')]))
    expect(queue.message).toBe(story)
    expect(json(await run(db, ['outbox'])).entries).toHaveLength(3)
    expect(wholeFileChecks(db)).toBe(1)
  })

  it('flush sends the unsent orders, which saves them, and still says the file is damaged', async () => {
    const { code, message, result } = failure(await run(db, ['flush']))
    expect(code).toBe('NOT_A_DATABASE')
    expect(result.sent).toBe(3)
    expect(message).toContain('catalog items')
    expect(message).toContain('holds no unsent orders')
    for (const apiGuid of queued) expect(service.control.ordersByApiGuid(apiGuid)).toHaveLength(1)
    expect(wholeFileChecks(db)).toBe(1)
  })
})

describe('an outbox page damaged', () => {
  let db: string
  beforeAll(() => {
    db = damaged('outbox', 'outbox')
  })

  it('outbox meets the damage: the file is checked once, and the story says the outbox is damaged', async () => {
    const { code, message } = failure(await run(db, ['outbox']))
    expect(code).toBe('NOT_A_DATABASE')
    expect(message).toContain('the outbox')
    expect(message).toContain('nothing is sent or queued')
    expect(wholeFileChecks(db)).toBe(1)
  })

  it('status does not count orders it cannot read, flush sends nothing, and both tell the same story', async () => {
    const before = service.control.requestLog().length
    const outbox = failure(await run(db, ['outbox']))
    const status = failure(await run(db, ['status']))
    const flush = failure(await run(db, ['flush']))
    expect(status.result.outbox).toBeNull()
    expect(status.result.health).toMatchObject({ ok: false, outboxReadable: false })
    expect(outbox.message).toBe(status.message)
    expect(flush.message).toBe(status.message)
    expect(
      service.control
        .requestLog()
        .slice(before)
        .filter((entry) => entry.method === 'POST'),
    ).toEqual([])
    expect(wholeFileChecks(db)).toBe(1)
  })
})

describe('a search index page damaged', () => {
  let db: string
  beforeAll(() => {
    // Its root: every search reads it.
    db = damaged('search', 'catalog_item_search_data', 'root')
  })

  it('a search meets the damage, and status then warns with the same story while the outbox can be read', async () => {
    const search = failure(await run(db, ['items', 'search', 'a', '--catalog', catalog]))
    expect(search.code).toBe('NOT_A_DATABASE')
    expect(search.message).toContain('search index')
    const status = failure(await run(db, ['status']))
    expect(status.message).toBe(search.message)
    expect(status.result.outbox).toMatchObject({ queued: 3 })
    expect(wholeFileChecks(db)).toBe(1)
  })

  it('a new file in its place (the damaged one moved aside) is not judged by the old verdict', async () => {
    expect(existsSync(`${db}-health`)).toBe(true)
    renameSync(db, `${db}.aside`)
    copyFileSync(template, `${db}.new`)
    renameSync(`${db}.new`, db)
    const status = await run(db, ['status'])
    expect(status.code, status.stderr).toBe(0)
    expect(existsSync(`${db}-health`)).toBe(false)
    expect(wholeFileChecks(db)).toBe(1)
  })
})

describe('an intact file', () => {
  it('is never checked whole, whatever the command, and no verdict is kept beside it', async () => {
    const db = join(directory, 'intact.db')
    copyFileSync(template, db)
    const file = join(directory, 'PO-4.json')
    const fd = openSync(file, 'w')
    writeSync(fd, JSON.stringify({ ...draft, poNo: 'PO-4' }))
    closeSync(fd)
    const commands = [
      ['status'],
      ['outbox'],
      ['items', 'search', 'a', '--catalog', catalog],
      ['customers', 'search', 'a'],
      ['orders', 'list'],
      ['quotes'],
      ['order', 'queue', '--file', file],
      ['sync'],
      ['flush'],
    ]
    for (const args of commands) {
      const each = await run(db, args)
      expect(each.code, `${args.join(' ')}: ${each.stderr}`).toBe(0)
    }
    expect(existsSync(`${db}.checks`)).toBe(false)
    expect(existsSync(`${db}-health`)).toBe(false)
  })
})
