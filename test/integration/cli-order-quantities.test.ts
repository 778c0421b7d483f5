/**
 * A command that fails leaves nothing behind. `order queue --file` with an absurd quantity
 * used to exit 1 after the outbox transaction had committed (the human reply was computed afterwards
 * and threw), so the next `flush` created the order. A real child process against the double.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import BetterSqlite3 from 'better-sqlite3'
import { startService } from '../service/index'
import type { RunningService } from '../service/types'
import { cli, json } from '../support/cli'
import { findOrderable, type Orderable } from '../support/orderable'

let service: RunningService
let directory: string
let db: string
let env: Record<string, string>
let target: Orderable

function draftFile(name: string, draft: unknown): string {
  const path = join(directory, name)
  writeFileSync(path, typeof draft === 'string' ? draft : JSON.stringify(draft))
  return path
}

function counts(): { drafts: number; outbox: number } {
  const local = new BetterSqlite3(db, { readonly: true })
  try {
    return {
      drafts: local.prepare<[], number>('SELECT count(*) FROM drafts').pluck().get()!,
      outbox: local.prepare<[], number>('SELECT count(*) FROM outbox').pluck().get()!,
    }
  } finally {
    local.close()
  }
}

beforeAll(async () => {
  service = await startService({ size: 'tiny', seed: 5 })
  directory = mkdtempSync(join(tmpdir(), 'satchel-cli-qty-'))
  db = join(directory, 'satchel.db')
  env = {
    SATCHEL_DB: db,
    SATCHEL_BASE_URL: service.url,
    SATCHEL_API_KEY: service.credentials.apiKey,
    SATCHEL_API_SECRET: service.credentials.apiSecret,
  }
  expect((await cli(['sync', '--json'], env)).code).toBe(0)
  const local = new BetterSqlite3(db, { readonly: true })
  target = findOrderable(local, 2)
  local.close()
})

afterAll(async () => {
  await service.close()
  rmSync(directory, { recursive: true, force: true })
})

describe('order queue refuses quantities it cannot send, and leaves nothing behind', () => {
  it('"qty": 1e308 exits 2 naming lines.0.qty; the outbox stays empty and a flush sends nothing', async () => {
    const apiGuid = '5d0f6a52-1b7e-4c3a-9f0e-2a6b8c4d1e11'
    const file = draftFile('huge.json', {
      customerGuid: target.customerGuid,
      catalogGuid: target.catalogGuid,
      apiGuid,
      lines: [{ sku: target.skus[0], qty: 1e308 }],
    })
    const run = await cli(['order', 'queue', '--file', file, '--json'], env)
    expect(run.code).toBe(2)
    expect(json(run)).toEqual({ errors: [{ path: 'lines.0.qty', message: expect.any(String) }] })
    expect(counts()).toEqual({ drafts: 0, outbox: 0 })
    expect(json(await cli(['outbox', '--json'], env))).toEqual({ entries: [] })

    const flush = await cli(['flush', '--json'], env)
    expect(flush.code).toBe(0)
    expect(json(flush)).toEqual({ sent: 0, needsAttention: 0, retrying: 0 })
    expect(service.control.ordersByApiGuid(apiGuid)).toHaveLength(0)
  })

  it('zero, negative, fractional, above 1,000,000, infinite and non-numeric quantities are each refused with their path', async () => {
    const [a, b] = target.skus
    const lines = [
      { sku: a, qty: 0 },
      { sku: b, qty: -1 },
      { sku: a, qty: 1.5 },
      { sku: b, qty: 1_000_001 },
      { sku: a, qty: 'NaN' },
      { sku: b, qty: null },
      { sku: a, qty: 1e308 },
    ]
    // JSON has no NaN or Infinity; 1e999 is what a file can say, and JSON.parse reads it as Infinity.
    const text = JSON.stringify({ customerGuid: target.customerGuid, catalogGuid: target.catalogGuid, lines }).replace(
      '"qty":1e+308',
      '"qty":1e999',
    )
    expect(text).toContain('1e999')
    const run = await cli(['order', 'queue', '--file', draftFile('bad-quantities.json', text), '--json'], env)
    expect(run.code).toBe(2)
    const { errors } = json(run) as { errors: { path: string; message: string }[] }
    expect(errors.map((e) => e.path)).toEqual(lines.map((_, index) => `lines.${index}.qty`))
    expect(errors[2]!.message).toMatch(/whole number/)
    expect(errors[3]!.message).toMatch(/1,000,000/)
    expect(counts()).toEqual({ drafts: 0, outbox: 0 })
  })

  it('a whole quantity up to 1,000,000 is queued, and the reply names it', async () => {
    const file = draftFile('max.json', {
      customerGuid: target.customerGuid,
      catalogGuid: target.catalogGuid,
      lines: [{ sku: target.skus[0], qty: 1_000_000 }],
    })
    const run = await cli(['order', 'queue', '--file', file, '--json'], env)
    expect(run.code).toBe(0)
    expect(json(run)).toEqual({ apiGuid: expect.any(String), state: 'queued' })
    expect(counts()).toEqual({ drafts: 0, outbox: 1 })
    const human = await cli(['order', 'queue', '--file', file], env)
    expect(human.code).toBe(0)
    expect(human.stdout).toMatch(/^Queued order [0-9a-f-]{36} for .+ \(1 line, \$[\d,]+\.\d{2}\)\.$/m)
    expect(counts()).toEqual({ drafts: 0, outbox: 2 })
  })
})
