/**
 * `satchel order queue` with a large draft file: the whole order is built and checked once, in
 * memory, and written in the one transaction that queues it, so its cost grows with the lines (not
 * with their square) and a command that fails or is killed leaves no draft behind. An order holds at
 * most `maxOrderLines` lines; the refusal names the cap.
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import BetterSqlite3 from 'better-sqlite3'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { runOrderQueue } from '../../src/main/cli/orders'
import type { Output } from '../../src/main/cli/errors'
import { DraftRepository } from '../../src/main/orders/drafts'
import { LocalOrderLookup } from '../../src/main/orders/local-lookup'
import * as validation from '../../src/main/orders/validation'
import { maxOrderLines } from '../../src/shared/orders'
import { startService } from '../service/index'
import type { RunningService } from '../service/types'
import { cli, cliEntry, json, root } from '../support/cli'

/** Counts the full checks of a draft: each one walks every line. */
const checks = { count: 0 }
vi.mock('../../src/main/orders/validation', async (importOriginal) => {
  const actual = await importOriginal<typeof validation>()
  return {
    ...actual,
    checkDraft: (...args: Parameters<typeof actual.checkDraft>) => {
      checks.count++
      return actual.checkDraft(...args)
    },
  }
})

let service: RunningService
let directory: string
let db: string
let env: Record<string, string>
let customerGuid: string
let catalogGuid: string
/** More plain items than an order may hold: priced for every group, no stock rule, no minimum, no break. */
const bulkSkus = Array.from({ length: 5001 }, (_, i) => `BULK-${String(i).padStart(5, '0')}`)

function draftFile(name: string, lines: { sku: string; qty: number }[], extra: Record<string, unknown> = {}): string {
  const path = join(directory, name)
  writeFileSync(path, JSON.stringify({ customerGuid, catalogGuid, ...extra, lines }))
  return path
}

function local<T>(read: (db: BetterSqlite3.Database) => T): T {
  const handle = new BetterSqlite3(db, { readonly: true })
  try {
    return read(handle)
  } finally {
    handle.close()
  }
}

const draftCount = () => local((h) => h.prepare('SELECT count(*) FROM drafts').pluck().get() as number)
const outboxCount = () => local((h) => h.prepare('SELECT count(*) FROM outbox').pluck().get() as number)

beforeAll(async () => {
  service = await startService({ size: 'tiny', seed: 11 })
  const catalog = service.control.catalogs().find((c) => c.active === true && c.deleted_at === null)!
  catalogGuid = catalog.guid as string
  const groups = service.control.priceGroups(catalogGuid).map((g) => g.value as string)
  const pricing = Object.fromEntries(groups.map((name) => [name, 2.5]))
  for (const sku of bulkSkus) {
    service.control.insertCatalogItem(catalogGuid, {
      sku,
      pricing,
      has_inventory: false,
      allow_backorder: true,
      min_order_qty: 1,
      qty_break: 0,
      qty_break_price: 0,
      is_product_group: false,
    })
  }
  directory = mkdtempSync(join(tmpdir(), 'satchel-cli-order-size-'))
  db = join(directory, 'satchel.db')
  env = {
    SATCHEL_DB: db,
    SATCHEL_BASE_URL: service.url,
    SATCHEL_API_KEY: service.credentials.apiKey,
    SATCHEL_API_SECRET: service.credentials.apiSecret,
  }
  expect((await cli(['sync', '--json'], env)).code).toBe(0)
  customerGuid = local((h) =>
    h
      .prepare<[string], string>(
        `SELECT c.guid FROM customers c JOIN price_groups g ON g.id = c.price_group_id AND g.catalog_guid = ?
           WHERE c.active = 1 AND c.require_po = 0 AND c.lock_catalog_id IS NULL AND c.deleted_at IS NULL ORDER BY c.id LIMIT 1`,
      )
      .pluck()
      .get(catalogGuid)!,
  )
  expect(customerGuid).toBeTruthy()
}, 120_000)

afterAll(async () => {
  await service.close()
  rmSync(directory, { recursive: true, force: true })
})

afterEach(() => {
  vi.restoreAllMocks()
})

describe('order queue with many lines', () => {
  it(`queues ${maxOrderLines.toLocaleString('en-US')} lines in one command`, async () => {
    expect(maxOrderLines).toBe(5000)
    const apiGuid = '5f0c7a52-1d3e-4b8a-9c61-0a2b3c4d5e6f'
    const file = draftFile(
      'big.json',
      bulkSkus.slice(0, maxOrderLines).map((sku) => ({ sku, qty: 2 })),
      { apiGuid },
    )
    const started = performance.now()
    const run = await cli(['order', 'queue', '--file', file, '--json'], env)
    const elapsed = performance.now() - started
    console.log(
      `order queue: ${maxOrderLines} lines queued in ${(elapsed / 1000).toFixed(2)} s (the whole command: node start-up, checks, the commit)`,
    )
    // The double's customers all have credit limits of at most $25,000: an order this size warns (it is
    // not refused: the supplier decides), and says nothing else.
    expect(run.stderr.split('\n').filter((line) => line !== '' && !/past their credit limit/.test(line))).toEqual([])
    expect(run.code).toBe(0)
    expect(json(run)).toEqual({ apiGuid, state: 'queued' })
    const entry = local((h) =>
      h.prepare<[string], { rep_totals: string }>('SELECT rep_totals FROM outbox WHERE api_guid = ?').get(apiGuid),
    )
    expect(JSON.parse(entry!.rep_totals)).toMatchObject({ lineCount: maxOrderLines, subTotal: 25_000 })
    expect(draftCount()).toBe(0)
  }, 90_000)

  it('refuses one line more than the cap, naming it, and keeps nothing', async () => {
    const before = outboxCount()
    const run = await cli(
      [
        'order',
        'queue',
        '--file',
        draftFile(
          'over.json',
          bulkSkus.map((sku) => ({ sku, qty: 1 })),
        ),
        '--json',
      ],
      env,
    )
    expect(run.code).toBe(2)
    expect(json(run)).toEqual({ errors: [{ path: 'lines', message: expect.stringContaining('5,000 lines') }] })
    expect(run.stderr).toContain('5,000')
    expect(draftCount()).toBe(0)
    expect(outboxCount()).toBe(before)
  }, 90_000)

  it('refuses a file of more lines than the cap with the one line-count error, before looking up any of them', async () => {
    const lines = Array.from({ length: 2 * maxOrderLines + 1 }, (_, i) => ({ sku: `NO-SUCH-${i}`, qty: 1 }))
    const bySku = vi.spyOn(LocalOrderLookup.prototype, 'catalogItemBySku')
    const printed: unknown[] = []
    const output: Output = {
      json: true,
      result: (value) => printed.push(value),
      progress: null,
      endProgress: () => undefined,
    }
    await expect(
      runOrderQueue({ db, json: true }, { file: draftFile('unknown-many.json', lines) }, output),
    ).rejects.toMatchObject({
      json: { errors: [{ path: 'lines', message: expect.stringContaining('at most 5,000 lines') }] },
    })
    expect(bySku).not.toHaveBeenCalled()
    expect(printed).toEqual([])
  }, 90_000)

  it('a queue that fails on its last line leaves no draft behind', async () => {
    const before = outboxCount()
    const lines = [...bulkSkus.slice(0, 1999).map((sku) => ({ sku, qty: 1 })), { sku: 'NO-SUCH-SKU', qty: 1 }]
    const run = await cli(['order', 'queue', '--file', draftFile('bad-last.json', lines), '--json'], env)
    expect(run.code).toBe(2)
    expect(json(run)).toEqual({ errors: [{ path: 'lines.1999.sku', message: 'NO-SUCH-SKU is not in this catalog' }] })
    expect(draftCount()).toBe(0)
    expect(outboxCount()).toBe(before)
  }, 90_000)

  it('a queue killed while it works leaves no draft behind: the order is queued whole or not at all', async () => {
    const apiGuid = '7a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d'
    const file = draftFile(
      'killed.json',
      bulkSkus.slice(0, 3000).map((sku) => ({ sku, qty: 1 })),
      { apiGuid },
    )
    const clean = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('SATCHEL_')))
    const child = spawn(process.execPath, [cliEntry, 'order', 'queue', '--file', file, '--json'], {
      cwd: root,
      env: { ...clean, ...env },
      stdio: 'ignore',
    })
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
    // Long enough for the command to be well into its lines, whatever the machine's speed.
    await new Promise((resolve) => setTimeout(resolve, 2500))
    child.kill('SIGKILL')
    await exited
    expect(draftCount()).toBe(0)
    const queued = local((h) =>
      h.prepare<[string], { rep_totals: string }>('SELECT rep_totals FROM outbox WHERE api_guid = ?').get(apiGuid),
    )
    if (queued) expect(JSON.parse(queued.rep_totals)).toMatchObject({ lineCount: 3000 })
  }, 90_000)

  it('reads and checks the draft a fixed number of times, and looks each item up a fixed number of times, whatever the line count', async () => {
    const output: Output = { json: true, result: () => undefined, progress: null, endProgress: () => undefined }
    const lines = bulkSkus.slice(2000, 2400).map((sku) => ({ sku, qty: 1 }))
    const reads = vi.spyOn(DraftRepository.prototype, 'get')
    const saves = vi.spyOn(DraftRepository.prototype, 'save')
    const byGuid = vi.spyOn(LocalOrderLookup.prototype, 'catalogItem')
    const bySku = vi.spyOn(LocalOrderLookup.prototype, 'catalogItemBySku')
    checks.count = 0
    const code = await runOrderQueue({ db, json: true }, { file: draftFile('counted.json', lines) }, output)
    expect(code).toBe(0)
    expect(checks.count).toBe(1)
    expect(reads.mock.calls.length + saves.mock.calls.length).toBeLessThanOrEqual(1)
    expect(byGuid.mock.calls.length + bySku.mock.calls.length).toBeLessThanOrEqual(2 * lines.length)
  }, 120_000)
})
