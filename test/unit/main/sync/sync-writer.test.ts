import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { closeDatabase, openDatabase, type Database } from '../../../../src/main/db/database'
import { sourceSyncThread, startWorkerWriter, type PageWriter } from '../../../../src/main/sync/page-writer'
import { readyMessage } from '../../../../src/main/sync/thread-data'
import { browseQueries } from '../../../../src/main/browse'
import { Lease } from '../../../../src/main/db/lease'
import { systemClock } from '../../../../src/main/ports'
import { catalogItem } from '../../../support/builders'
import { openLocalData } from '../../../../src/main/local/data'

let directory: string | undefined
let db: Database | undefined
let writer: PageWriter | undefined

afterEach(async () => {
  await writer?.close()
  if (db) closeDatabase(db)
  if (directory) rmSync(directory, { recursive: true, force: true })
  writer = undefined
  db = undefined
  directory = undefined
})

describe('the writer thread', () => {
  it('writes pages on its own connection, visible to the main one once each page is answered', async () => {
    directory = mkdtempSync(join(tmpdir(), 'satchel-writer-'))
    const path = join(directory, 'satchel.db')
    db = openDatabase(path)
    writer = await startWorkerWriter(sourceSyncThread, { databasePath: path })
    const rows = [1, 2, 3].map((n) => catalogItem(n, { name: `Thread-written widget ${n}`, pricing: { Retail: n } }))
    const counts = await writer.applyCatalogItems('cat', rows, {
      listingId: null,
      serverTime: null,
      page: { scope: 'catalogItems:cat', page: 0 },
    })
    expect(counts).toEqual({ fetched: 3, upserted: 3, deleted: 0 })
    const queries = browseQueries(openLocalData(db))
    expect(queries.catalogs.searchCatalogItems({ catalogGuid: 'cat', query: 'thread widg' }).total).toBe(3)
    expect(db.prepare('SELECT page FROM sync_pages WHERE scope = ?').pluck().all('catalogItems:cat')).toEqual([0])
  })

  it('checkpoints on its own thread when asked, after the pages before it', async () => {
    directory = mkdtempSync(join(tmpdir(), 'satchel-writer-'))
    const path = join(directory, 'satchel.db')
    db = openDatabase(path)
    db.pragma('wal_autocheckpoint = 0')
    writer = await startWorkerWriter(sourceSyncThread, { databasePath: path })
    const rows = Array.from({ length: 300 }, (_, n) => ({
      guid: `item-${n}`,
      id: n + 1,
      sku: `SKU-${n}`,
      name: `Widget ${n}`,
      description: 'x'.repeat(2000),
    }))
    await writer.applyCatalogItems('cat', rows, { listingId: null, serverTime: null })
    // The pages are in the WAL until a checkpoint copies them into the database file.
    const before = statSync(path).size
    await writer.checkpoint()
    expect(statSync(path).size - before).toBeGreaterThan(600_000)
    expect(openLocalData(db).counts().catalogItems).toBe(300)
  })

  it('renews the sync lease in the transactions that write pages, and writes none once it is lost', async () => {
    directory = mkdtempSync(join(tmpdir(), 'satchel-writer-'))
    const path = join(directory, 'satchel.db')
    db = openDatabase(path)
    const lease = new Lease(db, 'sync', { label: 'test', clock: systemClock, ttlMs: 15_000 })
    expect(lease.tryAcquire().acquired).toBe(true)
    db.prepare('UPDATE leases SET expires_at = ? WHERE name = ?').run(Date.now() + 1_000, 'sync')
    expect(lease.renewedLately()).toBe(false)
    writer = await startWorkerWriter(sourceSyncThread, { databasePath: path, lease: lease.forWriter() })
    const page = (n: number) => [{ guid: `item-${n}`, id: n, sku: `SKU-${n}`, name: `Widget ${n}` }]
    await writer.applyCatalogItems('cat', page(1), { listingId: null, serverTime: null })
    expect(lease.renewedLately()).toBe(true)
    // Another process took the lease over: the page is not written.
    db.prepare("UPDATE leases SET owner = 'another process' WHERE name = ?").run('sync')
    await expect(writer.applyCatalogItems('cat', page(2), { listingId: null, serverTime: null })).rejects.toThrow(
      /no longer holds the sync lease/,
    )
    expect(openLocalData(db).counts().catalogItems).toBe(1)
  })

  it('refuses to start when the worker cannot open the database, instead of failing pages later', async () => {
    directory = mkdtempSync(join(tmpdir(), 'satchel-writer-'))
    await expect(
      startWorkerWriter(sourceSyncThread, { databasePath: join(directory, 'missing', 'satchel.db') }),
    ).rejects.toThrow()
  })

  it("starts with a small young generation, so its short-lived page values do not grow the app's memory", async () => {
    directory = mkdtempSync(join(tmpdir(), 'satchel-writer-'))
    const path = join(directory, 'satchel.db')
    db = openDatabase(path)
    const worker = sourceSyncThread({ databasePath: path })
    try {
      await new Promise<void>((resolve, reject) => {
        worker.on('message', (message) => message === readyMessage && resolve())
        worker.on('error', reject)
      })
      expect(worker.resourceLimits?.maxYoungGenerationSizeMb).toBe(4)
    } finally {
      await worker.terminate()
    }
  })
})
