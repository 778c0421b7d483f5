/**
 * The limit Satchel's writer is measured against: plain better-sqlite3 inserts of the same
 * catalog items into the simplest schema that still serves the app's reads: an integer rowid table
 * keyed by the service's id, the guid in a unique index, the full record as JSON in a column, and an
 * FTS5 index with prefix indexes over the searched columns. WAL with synchronous NORMAL as Satchel's
 * database, the same rows per transaction as Satchel's writer thread and a 24 MB page cache (the
 * writer's was 24 MB too until it went down to 16; the limit is left no weaker); no checks, no
 * bookkeeping, no secondary indexes.
 *
 * The records are read back from Satchel's own copy (the catalog_items view gives each record whole) a
 * batch at a time and handed over parsed, as the client hands a page over; only the writing is timed,
 * the record's JSON.stringify included.
 */
import { statSync } from 'node:fs'
import BetterSqlite3, { type Database } from 'better-sqlite3'
import { closeDatabase, openDatabase } from '../../src/main/db/database'
import type { CatalogItemRecord } from '../../src/main/ordering-client/schemas'
import { Retention } from '../../src/main/local/retention'
import { LocalCopy } from '../../src/main/local/copy'

const rowsPerTransaction = 2000

export interface PlainInsert {
  rows: number
  ms: number
  rowsPerSecond: number
  megabytes: number
  schema: string
}

interface SourceRow {
  record: unknown
  id: number
  guid: string
  catalog_guid: string
  name: string
  sku: string
  upc: string | null
  description: string | null
  manufacturer: string | null
  json: string
}

export function plainInsert(source: Database, path: string): PlainInsert {
  const db = new BetterSqlite3(path)
  db.pragma('journal_mode = WAL')
  db.pragma('synchronous = NORMAL')
  db.pragma('cache_size = -24576')
  db.pragma('wal_autocheckpoint = 2000')
  db.exec(`
    CREATE TABLE items (
      id INTEGER PRIMARY KEY,
      guid TEXT NOT NULL UNIQUE,
      catalog_guid TEXT NOT NULL,
      name TEXT, sku TEXT, upc TEXT, description TEXT, manufacturer TEXT,
      json TEXT NOT NULL
    ) STRICT;
    CREATE VIRTUAL TABLE item_search USING fts5 (
      name, sku, upc, description, manufacturer, content = 'items', content_rowid = 'id',
      tokenize = 'unicode61 remove_diacritics 2', prefix = '2 3'
    );
  `)
  const insert = db.prepare(
    'INSERT INTO items (id, guid, catalog_guid, name, sku, upc, description, manufacturer, json) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
  )
  const index = db.prepare(
    'INSERT INTO item_search (rowid, name, sku, upc, description, manufacturer) VALUES (?, ?, ?, ?, ?, ?)',
  )
  const write = db.transaction((batch: SourceRow[]) => {
    for (const row of batch) {
      insert.run(
        row.id,
        row.guid,
        row.catalog_guid,
        row.name,
        row.sku,
        row.upc,
        row.description,
        row.manufacturer,
        JSON.stringify(row.record),
      )
      index.run(row.id, row.name, row.sku, row.upc, row.description, row.manufacturer)
    }
  })
  const read = source.prepare<[number], SourceRow>(
    `SELECT id, guid, catalog_guid, name, sku, upc, description, manufacturer, json FROM catalog_items
     WHERE deleted_at IS NULL AND local_id > ? ORDER BY local_id LIMIT ${rowsPerTransaction}`,
  )
  const lastKey = source.prepare<[string], number>('SELECT local_id FROM catalog_item_rows WHERE guid = ?').pluck()
  let rows = 0
  let ms = 0
  for (let after = 0; ;) {
    const batch = read.all(after)
    if (batch.length === 0) break
    for (const row of batch) row.record = JSON.parse(row.json)
    after = lastKey.get(batch.at(-1)!.guid)!
    const started = performance.now()
    write(batch)
    ms += performance.now() - started
    rows += batch.length
  }
  db.pragma('wal_checkpoint(TRUNCATE)')
  db.close()
  return {
    rows,
    ms: Math.round(ms),
    rowsPerSecond: Math.round(rows / (ms / 1000)),
    megabytes: +(statSync(path).size / 2 ** 20).toFixed(1),
    schema: 'id key, unique guid, JSON, FTS5 prefix 2 3',
  }
}

/**
 * Satchel's writer alone on the same records, in this process, as plainInsert runs: the writer
 * thread's LocalCopy and settings, a first listing (fresh), 2,000 rows per transaction, the deferred
 * indexes built at the end; no network, no thread hand-over. Against plainInsert this isolates the
 * write path from what the rest of a sync costs on a shared machine.
 */
export function satchelInsert(source: Database, path: string): PlainInsert {
  const db = openDatabase(path)
  const store = new LocalCopy(db, new Retention(db))
  store.beginBulkWrite()
  db.pragma('wal_autocheckpoint = 2000')
  const listingId = store.newListingId('bench')
  const read = source.prepare<[number], { local_id: number; catalog_guid: string; json: string }>(
    `SELECT local_id, catalog_guid, json FROM catalog_items WHERE deleted_at IS NULL AND local_id > ? ORDER BY local_id LIMIT ${rowsPerTransaction}`,
  )
  const write = db.transaction((batch: { catalogGuid: string; record: CatalogItemRecord }[]) => {
    for (let start = 0; start < batch.length; start += 100) {
      const page = batch.slice(start, start + 100)
      for (const catalogGuid of new Set(page.map((row) => row.catalogGuid))) {
        const rows = page.filter((row) => row.catalogGuid === catalogGuid).map((row) => row.record)
        store.applyCatalogItems(catalogGuid, rows, { listingId, serverTime: '2026-11-01T00:00:00.000Z', fresh: true })
      }
    }
  })
  let rows = 0
  let ms = 0
  for (let after = 0; ;) {
    const batch = read.all(after)
    if (batch.length === 0) break
    after = batch.at(-1)!.local_id
    const records = batch.map((row) => ({
      catalogGuid: row.catalog_guid,
      record: JSON.parse(row.json) as CatalogItemRecord,
    }))
    const started = performance.now()
    write(records)
    ms += performance.now() - started
    rows += batch.length
  }
  const started = performance.now()
  store.finishBulk()
  const indexMs = performance.now() - started
  ms += indexMs
  if (process.env.BENCH_DEBUG)
    process.stderr.write(`writer alone: deferred indexes built in ${Math.round(indexMs)} ms of ${Math.round(ms)} ms\n`)
  db.pragma('wal_checkpoint(TRUNCATE)')
  closeDatabase(db)
  return {
    rows,
    ms: Math.round(ms),
    rowsPerSecond: Math.round(rows / (ms / 1000)),
    megabytes: +(statSync(path).size / 2 ** 20).toFixed(1),
    schema: 'catalog_item_rows, fresh listing, indexes built at the end',
  }
}
