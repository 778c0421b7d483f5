/**
 * `satchel pictures fetch` and `pictures status` as a user runs them, against the double: a customer's
 * usual items all get a thumbnail; a changed picture is replaced at the next idle pass while an
 * unchanged one costs a 304 and no picture bytes.
 */
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PictureCache, picturesFolder } from '../../src/main/pictures'
import { startService } from '../service/index'
import { itemPng } from '../service/images'
import type { RunningService } from '../service/types'
import { cli, json } from '../support/cli'

let service: RunningService
let directory: string
let db: string
let env: Record<string, string>

beforeAll(async () => {
  service = await startService({ size: 'tiny', seed: 23 })
  directory = mkdtempSync(join(tmpdir(), 'satchel-cli-images-'))
  db = join(directory, 'main.db')
  env = {
    SATCHEL_BASE_URL: service.url,
    SATCHEL_API_KEY: service.credentials.apiKey,
    SATCHEL_API_SECRET: service.credentials.apiSecret,
  }
  expect((await cli(['sync', '--db', db, '--json'], env)).code).toBe(0)
})

afterAll(async () => {
  await service.close()
  rmSync(directory, { recursive: true, force: true })
})

function cached(guid: string): string | null {
  const cache = new PictureCache(picturesFolder(db))
  try {
    return cache.get(guid)?.thumb ?? null
  } finally {
    cache.close()
  }
}

/** A customer with usual items, and those items (guid and SKU). */
async function customerWithUsualItems(): Promise<{ customer: string; items: { guid: string; sku: string }[] }> {
  const guidById = new Map(service.control.customers().map((customer) => [customer.id, String(customer.guid)]))
  const customers = [
    ...new Set(
      service.control
        .orders()
        .filter((order) => order.deleted_at === null && order.vendor_id !== null)
        .map((order) => guidById.get(order.vendor_id)!),
    ),
  ]
  for (const customer of customers) {
    const run = await cli(['customer', 'usual', customer, '--limit', '500', '--db', db, '--json'], env)
    const items = (json(run).items ?? []) as { guid: string; sku: string }[]
    if (items.length >= 2) return { customer, items }
  }
  throw new Error('no customer of the double has two usual items')
}

describe('satchel pictures', () => {
  it('status before any fetch: nothing cached, the default budget, every live item waiting', async () => {
    const status = json(await cli(['pictures', 'status', '--db', db, '--json'], env))
    expect(Object.keys(status).sort()).toEqual(['budget', 'bytes', 'cached', 'failed', 'waiting'])
    expect(status).toMatchObject({ cached: 0, bytes: 0, budget: 1024 * 1024 * 1024, failed: 0 })
    expect(status.waiting).toBeGreaterThan(0)
    // `images`, the commands' first word before round 5, still answers the same (docs/cli.md).
    expect(json(await cli(['images', 'status', '--db', db, '--json'], env))).toEqual(status)
  })

  it('fetch --customer gives every usual item of the customer a thumbnail', async () => {
    const { customer, items } = await customerWithUsualItems()
    const run = await cli(['pictures', 'fetch', '--customer', customer, '--db', db, '--json'], env)
    expect(run.code).toBe(0)
    const result = json(run)
    expect(result).toMatchObject({ fetched: items.length, failed: 0 })
    // The API key's listing carries no image URL: each item's attachments were read once.
    expect(result.serviceReads).toBe(items.length)
    expect(items.filter((item) => cached(item.guid) === null)).toEqual([])
    const status = json(await cli(['pictures', 'status', '--db', db, '--json'], env))
    expect(status).toMatchObject({ cached: items.length, failed: 0 })
    expect(status.bytes).toBeGreaterThan(0)
  })

  it('replaces a changed picture at the next idle pass; an item that moved with the same picture costs a 304', async () => {
    const { items } = await customerWithUsualItems()
    // A whole idle pass first, so every item of the catalog is current.
    expect((await cli(['pictures', 'fetch', '--db', db, '--json'], env)).code).toBe(0)
    const [changed, touched] = items as [{ guid: string; sku: string }, { guid: string; sku: string }]
    const before = cached(changed.guid)
    service.control.changeImage(changed.guid)
    service.control.update('catalogItem', touched.guid, { name: 'Renamed, same picture' })
    expect((await cli(['sync', '--db', db, '--json'], env)).code).toBe(0)

    service.control.clearImageFigures()
    const result = json(await cli(['pictures', 'fetch', '--db', db, '--json'], env))
    expect(result).toMatchObject({ fetched: 1, unchanged: 1, failed: 0, notModified: 1 })
    expect(cached(changed.guid)).not.toBeNull()
    expect(cached(changed.guid)).not.toBe(before)
    // The host sent the one changed picture's bytes, and nothing for the 304.
    expect(service.control.imageFigures()).toEqual({
      requests: 2,
      bytesSent: itemPng(changed.sku, 1).length,
      notModified: 1,
    })
  })

  it('a damaged picture cache is said to be the cache, set aside and rebuilt; the profile’s database is not blamed', async () => {
    const folder = picturesFolder(db)
    const { customer } = await customerWithUsualItems()
    expect((await cli(['pictures', 'fetch', '--customer', customer, '--db', db, '--json'], env)).code).toBe(0)
    for (const extra of ['-wal', '-shm']) rmSync(join(folder, `index.db${extra}`), { force: true })
    writeFileSync(join(folder, 'index.db'), 'not an index: a disk that failed under it. '.repeat(100))

    const status = await cli(['pictures', 'status', '--db', db], env)
    expect(status.code, status.stderr).toBe(0)
    expect(status.stderr).toMatch(/The picture cache was damaged: it was set aside .* and started again empty/)
    expect(status.stdout + status.stderr).not.toMatch(/not a Satchel database|unsent orders|move the file aside/i)
    expect(readdirSync(folder).some((name) => name.startsWith('index.db.damaged-'))).toBe(true)
    // Rebuilt: the next run says nothing of damage, and pictures are fetched again.
    const again = await cli(['pictures', 'status', '--db', db, '--json'], env)
    expect(again.code).toBe(0)
    expect(again.stderr).toBe('')
    expect(json(again)).toMatchObject({ cached: 0 })
    expect((await cli(['pictures', 'fetch', '--customer', customer, '--db', db, '--json'], env)).code).toBe(0)
    expect((await cli(['status', '--db', db, '--json'], env)).code).toBe(0)
  })

  it('refuses options that do not apply and a customer it does not know', async () => {
    expect((await cli(['pictures', 'status', '--customer', 'x', '--db', db], env)).code).toBe(2)
    expect((await cli(['pictures', 'fetch', '--limit', '0', '--db', db], env)).code).toBe(2)
    const unknown = await cli(['pictures', 'fetch', '--customer', 'no-such-customer', '--db', db, '--json'], env)
    expect(unknown.code).toBe(2)
    expect(json(unknown)).toMatchObject({ error: { code: 'INVALID_ARGUMENT' } })
  })
})
