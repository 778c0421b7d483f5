/**
 * The writer thread shares the database with the main connection, which writes while a sync runs
 * (the sync lease's renewals, the outbox, drafts). A page must wait for the main connection's write
 * to end and then go in, never fail with "database is locked".
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { closeDatabase, openDatabase, type Database } from '../../../../src/main/db/database'
import { sourceSyncThread, startWorkerWriter, type PageWriter } from '../../../../src/main/sync/page-writer'
import { catalogItem } from '../../../support/builders'

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

const rows = (from: number) =>
  [from, from + 1, from + 2].map((n) => catalogItem(n, { name: `Widget ${n}`, pricing: { Retail: n } }))

describe('the writer thread beside a writing main connection', () => {
  it('waits for a write transaction of the main connection and then applies the page', async () => {
    directory = mkdtempSync(join(tmpdir(), 'satchel-writer-lock-'))
    const path = join(directory, 'satchel.db')
    db = openDatabase(path)
    writer = await startWorkerWriter(sourceSyncThread, { databasePath: path })
    // A first page, so the rows the next page touches exist and are read before they are written.
    await writer.applyCatalogItems('cat', rows(1), {
      listingId: null,
      serverTime: null,
      page: { scope: 'catalogItems:cat', page: 0 },
    })

    db.prepare('BEGIN IMMEDIATE').run()
    db.prepare(
      "INSERT INTO settings (key, value) VALUES ('lock-test', '1') ON CONFLICT(key) DO UPDATE SET value = excluded.value",
    ).run()
    const page = writer.applyCatalogItems('cat', rows(2), {
      listingId: null,
      serverTime: null,
      page: { scope: 'catalogItems:cat', page: 1 },
    })
    await new Promise((resolve) => setTimeout(resolve, 300))
    db.prepare('COMMIT').run()

    await expect(page).resolves.toMatchObject({ fetched: 3 })
    expect(db.prepare('SELECT COUNT(*) FROM catalog_items').pluck().get()).toBe(4)
  })
})
