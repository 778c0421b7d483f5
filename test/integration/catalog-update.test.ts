/**
 * Upgrading a large catalog does no per-item work at start (issue 28): migration 10's copy of schema
 * 9's rows, and migration 17's family columns and index, are left to the catalog update
 * (local/catalog-update-jobs.ts), which does them in slices on the writer's thread and goes on after a
 * crash. The limit is lowered here (largeCatalogItems) so a catalog of 1,500 items takes that path.
 * What it leaves must be what a small catalog's upgrade makes at start: the same rows, search
 * results, indexes and counts; and drafts and the outbox are as they were from the first moment.
 */
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { closeDatabase, latestSchemaVersion, openDatabase, type Database } from '../../src/main/db/database'
import { migrations } from '../../src/main/db/migrations'
import { browseQueries } from '../../src/main/browse'
import { CatalogUpdateJobs, type CatalogUpdateProgress } from '../../src/main/local/catalog-update-jobs'
import { LocalCopy } from '../../src/main/local/copy'
import { Retention } from '../../src/main/local/retention'
import { inlineWriter } from '../../src/main/sync/page-writer'
import { runCatalogUpdate } from '../../src/main/sync/catalog-update'
import { createCore } from '../../src/main/core/compose'
import type { Core } from '../../src/main/core/types'
import { call } from '../../src/main/core/handlers'
import { createConsoleLogger } from '../../src/main/ports'
import type { CatalogUpdate } from '../../src/shared/synced'
import { startHarness, type Harness } from './sync-support'
import { schema9Database, serviceItems } from './schema9-support'
import { openLocalData } from '../../src/main/local/data'

let harness: Harness | undefined
const directories: string[] = []
const open: Database[] = []
afterEach(async () => {
  for (const db of open.splice(0)) if (db.open) db.close()
  await harness?.close()
  harness = undefined
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true })
})

const limit = { largeCatalogItems: 500 }

function opened(db: Database): Database {
  open.push(db)
  return db
}

/** A schema 9 database of 1,500 items, with a draft and a queued order, and what its order tables held. */
async function schema9WithOrders(): Promise<{
  path: string
  directory: string
  ordersOf: (db: Database) => unknown[]
  ordersBefore: unknown[]
  draftItemGuid: string
}> {
  harness = await startHarness({ size: 1500, pageSize: 100 })
  expect((await harness.sync()).ok).toBe(true)
  const items = await serviceItems(harness)
  const directory = mkdtempSync(join(tmpdir(), 'satchel-catalog-update-'))
  directories.push(directory)
  const path = join(directory, 'schema9.db')
  const listingId = harness.db.prepare<[], number>('SELECT max(id) FROM sync_listings').pluck().get()!
  const old = schema9Database(path, harness.db, items, listingId)
  const [catalogGuid, catalogItems] = [...items.entries()][0]!
  const customer = harness.db
    .prepare<[], { guid: string; name: string }>(
      'SELECT guid, name FROM customers WHERE active = 1 ORDER BY id LIMIT 1',
    )
    .get()!
  const draft = {
    poNo: 'PO-9',
    note: 'written at schema 9',
    lines: [
      {
        lineId: 'l1',
        catalogItemGuid: catalogItems[0]!.guid,
        sku: catalogItems[0]!.sku,
        name: catalogItems[0]!.name,
        note: '',
        qty: 2,
        unitPriceSeen: 1.5,
        qtyAvailableSeen: 10,
      },
    ],
  }
  old
    .prepare(
      'INSERT INTO drafts (api_guid, customer_guid, catalog_guid, document, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)',
    )
    .run(
      '5a4b3c2d-0000-4000-8000-000000000019',
      customer.guid,
      catalogGuid,
      JSON.stringify(draft),
      '2026-11-01T09:30:00.000Z',
      '2026-11-01T09:31:00.000Z',
    )
  const entry = old
    .prepare(
      `INSERT INTO outbox (api_guid, state, customer_guid, customer_name, catalog_guid, rep_totals, attempts, queued_at, updated_at)
    VALUES (?, 'queued', ?, ?, ?, '{"subTotal":1}', 0, ?, ?)`,
    )
    .run(
      '5a4b3c2d-0000-4000-8000-000000000020',
      customer.guid,
      customer.name,
      catalogGuid,
      '2026-11-01T09:40:00.000Z',
      '2026-11-01T09:40:00.000Z',
    )
  old
    .prepare('INSERT INTO outbox_payloads (entry_id, draft, request) VALUES (?, ?, ?)')
    .run(
      entry.lastInsertRowid,
      JSON.stringify(draft),
      JSON.stringify({ body: { order: { api_guid: '5a4b3c2d-0000-4000-8000-000000000020' } } }),
    )
  // By schema 9's columns, byte for byte (later migrations may add columns, never change these).
  const tables = ['drafts', 'outbox', 'outbox_payloads'].map((table) => ({
    table,
    columns: old
      .prepare<[], { name: string }>(`PRAGMA table_info(${table})`)
      .all()
      .map((column) => `hex(${column.name})`)
      .join(', '),
  }))
  const ordersOf = (db: Database) =>
    tables.map(({ table, columns }) => db.prepare(`SELECT ${columns} FROM ${table} ORDER BY 1`).raw().all())
  const ordersBefore = ordersOf(old)
  closeDatabase(old)
  return { path, directory, ordersOf, ordersBefore, draftItemGuid: catalogItems[0]!.guid }
}

/** Everything of the catalog the update writes, as the small upgrade leaves it. */
function catalogState(db: Database) {
  const queries = browseQueries(openLocalData(db))
  const catalogs = db
    .prepare<[], string>('SELECT DISTINCT catalog_guid FROM catalog_item_rows ORDER BY 1')
    .pluck()
    .all()
  const words = db
    .prepare<[], string>(
      "SELECT DISTINCT substr(name, 1, instr(name || ' ', ' ') - 1) FROM catalog_item_rows WHERE local_id % 53 = 0 ORDER BY 1",
    )
    .pluck()
    .all()
  return {
    rows: db.prepare('SELECT * FROM catalog_items ORDER BY local_id').raw().all(),
    families: db
      .prepare('SELECT local_id, group_parent_id, is_product_group FROM catalog_item_rows ORDER BY local_id')
      .raw()
      .all(),
    indexes: db
      .prepare(
        "SELECT name, sql FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'catalog_item_rows' ORDER BY name",
      )
      .raw()
      .all(),
    tables: db.prepare("SELECT type, name FROM sqlite_schema WHERE name NOT LIKE 'sqlite_%' ORDER BY name").raw().all(),
    counts: db
      .prepare('SELECT catalog_guid, category_id, live, active FROM catalog_item_counts ORDER BY 1, 2')
      .raw()
      .all(),
    // The search filters (migration 20), by catalog guid: keys are given in the order catalogs are met.
    filters: db
      .prepare(
        'SELECT f.local_id, k.catalog_guid, f.live, f.active, f.category_id, f.family_parent_id FROM catalog_item_filters f JOIN catalog_keys k ON k.key = f.catalog_key ORDER BY f.local_id',
      )
      .raw()
      .all(),
    filtersLeft: db.prepare('SELECT count(*) FROM catalog_item_filters_fill').pluck().get(),
    matches: words.map((word) =>
      db
        .prepare('SELECT rowid FROM catalog_item_search WHERE catalog_item_search MATCH ? ORDER BY rowid')
        .pluck()
        .all(`"${word.replace(/"/g, '""')}"*`),
    ),
    searches: catalogs.flatMap((catalogGuid) =>
      [undefined, ...words.slice(0, 5)].map((query) =>
        queries.catalogs.searchCatalogItems({ catalogGuid, ...(query ? { query } : {}), limit: 50 }),
      ),
    ),
  }
}

function searchIndexWhole(db: Database): void {
  db.exec("INSERT INTO catalog_item_search (catalog_item_search) VALUES ('integrity-check')")
}

/** Slices until none is left, at most `max`; the progress after each. */
function slices(jobs: CatalogUpdateJobs, max = Infinity): CatalogUpdateProgress[] {
  const seen: CatalogUpdateProgress[] = []
  while (seen.length < max) {
    const progress = jobs.slice()
    seen.push(progress)
    if (progress.job === null) break
  }
  return seen
}

describe('catalog work left by an upgrade (issue 28)', () => {
  it('migration 10 on a large catalog: drafts and outbox at once, the copy in slices, resumed after a crash, the same catalog as a small upgrade', async () => {
    const { path, directory, ordersOf, ordersBefore, draftItemGuid } = await schema9WithOrders()
    const smallPath = join(directory, 'small.db')
    copyFileSync(path, smallPath)

    // The small upgrade, all at start; then its counts (migration 18's table starts empty either way).
    const small = opened(openDatabase(smallPath))
    expect(new CatalogUpdateJobs(small).next()).toBe('counts')
    slices(new CatalogUpdateJobs(small))

    const large = opened(openDatabase(path, limit))
    expect(large.pragma('user_version', { simple: true })).toBe(latestSchemaVersion())
    // No item was copied at start, and the orders are as they were, byte for byte.
    expect(large.prepare('SELECT count(*) FROM catalog_item_rows').pluck().get()).toBe(0)
    expect(ordersOf(large)).toEqual(ordersBefore)
    const jobs = new CatalogUpdateJobs(large)
    expect(jobs.next()).toBe('leanItems')
    // A draft is saved while the copy waits.
    large
      .prepare(
        "UPDATE drafts SET updated_at = '2026-11-02T00:00:00.000Z' WHERE api_guid = '5a4b3c2d-0000-4000-8000-000000000019'",
      )
      .run()

    // The first slice copies the items the draft and the queued order name, so checking and sending work.
    const first = jobs.slice()
    expect(first.done).toBeGreaterThan(0)
    expect(
      large
        .prepare(
          "SELECT guid FROM catalog_item_rows WHERE guid IN (SELECT guid FROM retained_refs WHERE kind = 'catalogItem')",
        )
        .pluck()
        .all(),
    ).toHaveLength(
      new Set(large.prepare("SELECT guid FROM retained_refs WHERE kind = 'catalogItem'").pluck().all()).size,
    )
    expect(browseQueries(openLocalData(large)).catalogs.getCatalogItem({ guid: draftItemGuid })).toEqual(
      browseQueries(openLocalData(small)).catalogs.getCatalogItem({ guid: draftItemGuid }),
    )
    // A few slices more, then the process dies mid-copy (no clean close).
    const before = slices(jobs, 3)
    expect(before.every((progress) => progress.job === 'leanItems' && !progress.itemsBrowsable)).toBe(true)
    expect(before.map((progress) => progress.done)).toEqual(
      [...before.map((progress) => progress.done)].sort((a, b) => a - b),
    )
    expect(before.at(-1)!.done).toBeGreaterThan(0)
    expect(before.at(-1)!.done).toBeLessThan(before.at(-1)!.total)
    large.close()

    const reopened = opened(openDatabase(path, limit))
    expect(new CatalogUpdateJobs(reopened).next()).toBe('leanItems')
    const rest = slices(new CatalogUpdateJobs(reopened))
    expect(rest.length).toBeGreaterThan(2)
    expect(rest.at(-1)!.job).toBeNull()
    expect(new CatalogUpdateJobs(reopened).next()).toBeNull()
    searchIndexWhole(reopened)

    expect(catalogState(reopened)).toEqual(catalogState(small))
    // The draft saved meanwhile is kept; everything else of the orders is as before.
    const ordersAfter = ordersOf(reopened)
    expect(ordersAfter.slice(1)).toEqual(ordersBefore.slice(1))
    expect(JSON.stringify(ordersAfter[0])).not.toEqual(JSON.stringify(ordersBefore[0]))
  })

  it('migration 13 on a large catalog (a laptop at schema 10 to 12): the rows copied in slices after start, resumed after a crash, the same catalog', async () => {
    const { path, directory, ordersOf, ordersBefore } = await schema9WithOrders()
    // A laptop at schema 12 (migration 10 at start, below the limit then).
    closeDatabase(opened(openDatabase(path, { migrations: migrations.filter((m) => m.version <= 12) })))
    const smallPath = join(directory, 'small.db')
    copyFileSync(path, smallPath)
    const small = opened(openDatabase(smallPath))
    slices(new CatalogUpdateJobs(small))

    const large = opened(openDatabase(path, limit))
    expect(large.prepare('SELECT count(*) FROM catalog_item_rows').pluck().get()).toBe(0)
    expect(ordersOf(large)).toEqual(ordersBefore)
    const before = slices(new CatalogUpdateJobs(large), 3)
    expect(
      before.every((progress) => progress.job === 'leanItems' && progress.done > 0 && progress.done < progress.total),
    ).toBe(true)
    large.close()

    const reopened = opened(openDatabase(path, limit))
    expect(slices(new CatalogUpdateJobs(reopened)).at(-1)!.job).toBeNull()
    searchIndexWhole(reopened)
    expect(catalogState(reopened)).toEqual(catalogState(small))
    expect(ordersOf(reopened)).toEqual(ordersBefore)
  })

  it('migration 17 on a large catalog, also on a laptop upgraded before: the family columns and index filled in slices, resumed after a crash', async () => {
    const { path, directory } = await schema9WithOrders()
    const smallPath = join(directory, 'small.db')
    copyFileSync(path, smallPath)
    const small = opened(openDatabase(smallPath))
    slices(new CatalogUpdateJobs(small))
    // The catalog has families, so their columns say something.
    expect(
      small.prepare('SELECT count(*) FROM catalog_item_rows WHERE group_parent_id > 0').pluck().get(),
    ).toBeGreaterThan(0)

    // A laptop at schema 16 with a small catalog (migration 10 at start), then past the limit at 17.
    closeDatabase(opened(openDatabase(path, { migrations: migrations.filter((m) => m.version <= 16) })))
    const large = opened(openDatabase(path, limit))
    expect(large.prepare("SELECT 1 FROM sqlite_schema WHERE name = 'catalog_items_by_family'").get()).toBeUndefined()
    expect(
      large.prepare('SELECT count(*) FROM catalog_item_rows WHERE group_parent_id IS NOT NULL').pluck().get(),
    ).toBe(0)
    const jobs = new CatalogUpdateJobs(large, { familySpan: 200 })
    expect(jobs.next()).toBe('families')
    const before = slices(jobs, 3)
    expect(before.every((progress) => progress.job === 'families' && progress.itemsBrowsable)).toBe(true)
    large.close()

    // Opened again by this version: the job is found from the schema, and goes on from where it was.
    const reopened = opened(openDatabase(path, limit))
    const rest = slices(new CatalogUpdateJobs(reopened, { familySpan: 200 }))
    expect(rest.at(-1)!.job).toBeNull()
    expect(rest.filter((progress) => progress.job === 'families').length).toBeLessThan(Math.ceil(1500 / 200))
    expect(catalogState(reopened)).toEqual(catalogState(small))
  })

  it('the app opens at once: drafts and the outbox answer, the update runs on the writer thread with progress, and ends', async () => {
    const { path } = await schema9WithOrders()
    const updates: CatalogUpdate[] = []
    // The work left when the screens are told the update is over: none, so what they read then
    // (the counts above all, taken last) is what stays.
    const leftAtEnd: unknown[] = []
    // The window's connection's checkpoint threshold as each step is told: the writer's thread copies
    // the WAL its slices fill, not a draft's save on this one.
    const checkpointPages: number[] = []
    const core: Core = createCore({
      databasePath: path,
      appVersion: '0.0.0-test',
      largeCatalogItems: 500,
      ports: {
        logger: createConsoleLogger('error'),
        events: {
          emit: (name, payload) => {
            if (name !== 'catalogUpdateChanged') return
            updates.push(payload as CatalogUpdate)
            checkpointPages.push(core.db.pragma('wal_autocheckpoint', { simple: true }) as number)
            if (!(payload as CatalogUpdate).updating) leftAtEnd.push(core.sync.copy.catalogUpdateJobs().next())
          },
        },
      },
    })
    try {
      expect(await call(core.handlers, 'getCatalogUpdate')).toEqual({
        ok: true,
        value: { updating: true, job: 'leanItems', percent: 0, itemsBrowsable: false },
      })
      const drafts = await call(core.handlers, 'listDrafts')
      expect(drafts.ok && drafts.value.map((draft) => draft.lineCount)).toEqual([1])
      const outbox = await call(core.handlers, 'listOutbox')
      expect(outbox.ok).toBe(true)
      for (let waited = 0; !updates.some((update) => !update.updating) && waited < 60_000; waited += 50)
        await new Promise((resolve) => setTimeout(resolve, 50))
      expect(updates.at(-1)).toEqual({ updating: false, job: null, percent: 100, itemsBrowsable: true })
      expect(leftAtEnd[0]).toBeNull()
      // Progress a few times a second at most (how many depends on the machine's speed), never backwards.
      const during = updates.slice(0, -1)
      expect(during.length).toBeGreaterThan(0)
      expect(during.every((update) => update.updating && update.job === 'leanItems' && update.percent < 100)).toBe(true)
      // Every item browsable once copied, while the count that ends the update is taken.
      expect(during.filter((update) => update.itemsBrowsable).every((update) => update.percent === 99)).toBe(true)
      expect(during[0]!.itemsBrowsable).toBe(false)
      expect(during.map((update) => update.percent)).toEqual(
        [...during.map((update) => update.percent)].sort((a, b) => a - b),
      )
      expect(await call(core.handlers, 'getCatalogUpdate')).toEqual({
        ok: true,
        value: { updating: false, job: null, percent: 100, itemsBrowsable: true },
      })
      expect(core.db.prepare('SELECT count(*) FROM catalog_items').pluck().get()).toBe(
        harness!.db.prepare('SELECT count(*) FROM catalog_items').pluck().get(),
      )
      expect(checkpointPages.slice(0, during.length).every((pages) => pages === 0)).toBe(true)
      for (let waited = 0; core.db.pragma('wal_autocheckpoint', { simple: true }) === 0 && waited < 5_000; waited += 20)
        await new Promise((resolve) => setTimeout(resolve, 20))
      expect(core.db.pragma('wal_autocheckpoint', { simple: true })).toBe(1000)
    } finally {
      await core.close()
    }
  })

  it("leaves the window's checkpoints to a writer on its own thread for the length of the update, and copies the WAL there at its end, also when a slice fails", async () => {
    const steps: string[] = []
    const writer = (failAt: number) => {
      let slices = 0
      return {
        catalogUpdateSlice: async (): Promise<CatalogUpdateProgress> => {
          slices++
          steps.push(`slice ${slices}`)
          if (slices === failAt) throw new Error('the writer thread ended')
          return slices < 3
            ? { job: 'leanItems', done: slices, total: 3, itemsBrowsable: false }
            : { job: null, done: 3, total: 3, itemsBrowsable: true }
        },
        checkpoint: async () => void steps.push('checkpoint on the writer'),
      }
    }
    const leaveCheckpoints = () => {
      steps.push('window stops checkpointing')
      return () => void steps.push('window checkpoints again')
    }
    await runCatalogUpdate(writer(0), { pauseMs: 0, leaveCheckpoints })
    expect(steps.splice(0)).toEqual([
      'window stops checkpointing',
      'slice 1',
      'slice 2',
      'slice 3',
      'checkpoint on the writer',
      'window checkpoints again',
    ])
    await expect(runCatalogUpdate(writer(2), { pauseMs: 0, leaveCheckpoints })).rejects.toThrow(
      'the writer thread ended',
    )
    expect(steps.splice(0)).toEqual([
      'window stops checkpointing',
      'slice 1',
      'slice 2',
      'checkpoint on the writer',
      'window checkpoints again',
    ])
    // A writer on this thread checkpoints as it commits: nothing to leave.
    await runCatalogUpdate(writer(0), { pauseMs: 0 })
    expect(steps).toEqual(['slice 1', 'slice 2', 'slice 3'])
  })

  it('runs on a writer, with progress, until none is left', async () => {
    const { path } = await schema9WithOrders()
    const db = opened(openDatabase(path, limit))
    const store = new LocalCopy(db, new Retention(db))
    const progress: CatalogUpdateProgress[] = []
    await runCatalogUpdate(inlineWriter(store), { onProgress: (p) => progress.push(p), pauseMs: 0 })
    expect(progress.length).toBeGreaterThan(3)
    expect(progress.at(-1)).toMatchObject({ job: null, itemsBrowsable: true })
    expect(store.catalogUpdateJobs().next()).toBeNull()
    expect(db.prepare('SELECT count(*) FROM catalog_items').pluck().get()).toBe(
      harness!.db.prepare('SELECT count(*) FROM catalog_items').pluck().get(),
    )
  })
})
