/**
 * The heaviest migration at size (issue 28): a schema 9 database of N items (each item's whole record
 * as JSON, as schema 9 stored it), written by direct inserts rather than a sync, then opened by this
 * version. Measured: how soon after the open drafts and the outbox are read and written (the app's
 * start), the catalog work the upgrade left (migration 10's copy, then the counts) run to its end on
 * the writer's thread as the app runs it, and how long a draft's save waits meanwhile.
 *
 * `npx tsx test/bench/upgrade.ts --size 1000000` runs it alone; bench:sync runs it at its size.
 */
import { copyFileSync, existsSync, mkdirSync, renameSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { closeDatabase, openDatabase, type Database } from '../../src/main/db/database'
import { migrations } from '../../src/main/db/migrations'
import { catalogItemRow, catalogRow, categoryRow } from '../../src/main/local/rows'
import type { CatalogItemRecord, CategoryRecord } from '../../src/main/ordering-client/schemas'
import { sourceSyncThread, startWorkerWriter } from '../../src/main/sync/page-writer'
import { runCatalogUpdate } from '../../src/main/sync/catalog-update'
import { LongWrites, trackingLongWrites } from '../../src/main/sync/long-writes'
import { LocalCopy } from '../../src/main/local/copy'
import { Retention } from '../../src/main/local/retention'

export interface UpgradeFigures {
  items: number
  /** Writing the schema 9 database (not a figure of Satchel's). */
  buildMs: number
  schema9Mb: number
  /** openDatabase (every migration) until drafts and the outbox were read and a draft written. */
  draftsUsableMs: number
  /** The catalog work the upgrade left, start to end, on the writer's thread. */
  heaviestMs: number
  slices: number
  /** A draft's save on the main connection while that work ran: every 100 ms, the median and longest wait. */
  draftSaveP50Ms: number
  draftSaveMaxMs: number
  upgradedMb: number
  /** Whether migration 10's copy was left to the writer's thread (past the limit), or done at start. */
  leftToWriter: boolean
  /**
   * The same start from schema 16 (migration 10's copy done, before the family columns): migrations
   * 17 and 21 add three columns to the item table, which ALTER TABLE followed with a check of every
   * row (1.0 s each at a million items).
   */
  fromSchema16DraftsUsableMs: number
  /** The catalog work that upgrade left (families, counts, filters, keys), and a draft's waits meanwhile. */
  fromSchema16WorkMs: number
  fromSchema16DraftSaveP50Ms: number
  fromSchema16DraftSaveMaxMs: number
  /** The catalog update's job under way at the longest of those waits. */
  fromSchema16LongestWaitJob: string | null
  /** The longest a draft's save took from asked to in (waiting for a long request without holding the main thread). */
  draftSavedMaxMs: number
  fromSchema16DraftSavedMaxMs: number
}

const catalogGuid = '7c1d0a52-0000-4000-8000-00000000c001'
const words = [
  'Vollmer',
  'Harbor',
  'Apex',
  'Keystone',
  'Brightline',
  'Summit',
  'Ridge',
  'Copper',
  'Atlas',
  'Northwind',
  'Granite',
  'Meridian',
]
const nouns = [
  'Breaker',
  'Conduit',
  'Fitting',
  'Valve',
  'Bearing',
  'Gasket',
  'Relay',
  'Switch',
  'Clamp',
  'Coupling',
  'Bracket',
  'Fuse',
]

/** A record shaped as the service sends one (the fields the double's generator fills), cheap to vary. */
function itemRecord(n: number, categories: CategoryRecord[]): CatalogItemRecord {
  const category = categories[n % categories.length]!
  const brand = words[n % words.length]!
  const noun = nouns[(n >> 3) % nouns.length]!
  const base = 5 + (n % 400) + (n % 7) / 10
  return {
    id: n,
    guid: `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`,
    catalog_id: 1,
    category_id: category.id,
    Category: category,
    CategoryHierarchy: [categories[0]!, category],
    subsection_id: 0,
    sku: `${brand.slice(0, 3).toUpperCase()}-${100000 + n}`,
    upc: String(700000000000 + n),
    name: `${brand} ${noun} ${n % 97}, ${(n % 12) + 1} in, Pack of ${(n % 5) + 1}`,
    description: `${noun} from ${brand}, sized ${(n % 12) + 1} in, packed ${(n % 5) + 1}. Rated for daily use on site.`,
    manufacturer: `${brand} Industries`,
    color: n % 3 === 0 ? 'Black' : '',
    style: '',
    product_group_type: '',
    product_group_display_style: '',
    group_title: '',
    group_parent_catalog_item_id: 0,
    group_sequence: 0,
    third_party_sku: '',
    third_party_pricing: '',
    third_party_size: '',
    active: n % 33 !== 0,
    is_taxable: true,
    has_serials: false,
    has_lots: false,
    has_exp_date: false,
    is_product_group: false,
    has_inventory: true,
    allow_backorder: n % 7 === 0,
    msrp: Math.round(base * 135) / 100,
    cost_per_uom: Math.round(base * 62) / 100,
    qty_on_hand: n % 640,
    qty_incoming: 0,
    reserved_qty_on_hand: n % 18,
    qty_backordered: 0,
    qty_held_for_backorders: 0,
    min_qty_on_hand: 12,
    max_qty_on_hand: 480,
    min_order_qty: 1,
    qty_break: 0,
    qty_break_price: 0,
    width: 4.5,
    height: 2.25,
    depth: 1.5,
    item_weight: 0.8,
    shipping_weight: 1.2,
    pricing: { Retail: base, Contractor: Math.round(base * 90) / 100, Wholesale: Math.round(base * 80) / 100 },
    created_at: '2025-01-01T00:00:00.000Z',
    updated_at: '2026-10-01T00:00:00.000Z',
    deleted_at: null,
    supplier_id: 1,
    uom: 'EA',
    case_pack: 1,
    image_url: `https://cdn.example/items/${n}.jpg`,
  } as unknown as CatalogItemRecord
}

/**
 * Writes a schema 9 database of `items` items: its indexes dropped while inserting and built after,
 * the full-text index filled in one statement, as fast as SQLite writes it.
 */
function buildSchema9(path: string, items: number): void {
  const db = openDatabase(path, { migrations: migrations.filter((m) => m.version <= 9) })
  db.pragma('synchronous = OFF')
  db.pragma('cache_size = -131072')
  const listingId = 1
  db.prepare('INSERT INTO sync_listings (id, scope) VALUES (1, ?)').run(`catalogItems:${catalogGuid}`)
  const catalog = catalogRow(
    {
      guid: catalogGuid,
      id: 1,
      name: 'Upgrade bench catalog',
      active: true,
      updated_at: '2026-10-01T00:00:00.000Z',
      deleted_at: null,
    } as never,
    listingId,
  )
  db.prepare(
    'INSERT INTO catalogs (guid, id, name, active, version, updated_at, deleted_at, listed_run, json) VALUES (@guid, @id, @name, @active, @version, @updated_at, @deleted_at, @listed_run, @json)',
  ).run(catalog)
  const categories: CategoryRecord[] = Array.from(
    { length: 60 },
    (_, index) =>
      ({
        id: index + 1,
        guid: `00000000-0000-4000-9000-${String(index + 1).padStart(12, '0')}`,
        parent_id: index === 0 ? 0 : 1,
        name: `Category ${index + 1}`,
        sequence: index,
        hidden: false,
        updated_at: '2026-10-01T00:00:00.000Z',
      }) as unknown as CategoryRecord,
  )
  const insertCategory =
    db.prepare(`INSERT INTO categories (catalog_guid, id, guid, parent_id, name, sequence, hidden, version, deleted_at, listed_run, json)
    VALUES (@catalog_guid, @id, @guid, @parent_id, @name, @sequence, @hidden, @version, @deleted_at, @listed_run, @json)`)
  for (const category of categories) insertCategory.run(categoryRow(catalogGuid, category, listingId))
  const indexes = db
    .prepare<[], { name: string; sql: string }>(
      "SELECT name, sql FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'catalog_items' AND sql IS NOT NULL",
    )
    .all()
  for (const index of indexes) db.exec(`DROP INDEX ${index.name}`)
  const insert =
    db.prepare(`INSERT INTO catalog_items (local_id, guid, id, catalog_guid, category_id, sku, upc, name, description, manufacturer, active,
    msrp, qty_on_hand, min_order_qty, has_inventory, allow_backorder, pricing, version, updated_at, deleted_at, listed_run, synced_at, json)
    VALUES (@id, @guid, @id, @catalog_guid, @category_id, @sku, @upc, @name, @description, @manufacturer, @active, @msrp, @qty_on_hand,
    @min_order_qty, @has_inventory, @allow_backorder, @pricing, @version, @updated_at, @deleted_at, @listed_run, @synced_at, @json)`)
  const batch = 50_000
  for (let from = 1; from <= items; from += batch) {
    db.transaction(() => {
      for (let n = from; n < Math.min(from + batch, items + 1); n++)
        insert.run(catalogItemRow(catalogGuid, itemRecord(n, categories), listingId, '2026-11-01T00:00:00.000Z'))
    })()
  }
  for (const index of indexes) db.exec(index.sql)
  db.exec(`INSERT INTO catalog_item_search (rowid, name, sku, upc, description, manufacturer)
    SELECT local_id, name, sku, upc, description, manufacturer FROM catalog_items WHERE deleted_at IS NULL AND unlisted_at IS NULL`)
  // A draft and a queued order, as a rep's laptop has them.
  db.prepare(
    "INSERT INTO drafts (api_guid, customer_guid, catalog_guid, document, created_at, updated_at) VALUES ('5a4b3c2d-0000-4000-8000-0000000000b1', 'c-1', ?, ?, '2026-11-01T09:30:00.000Z', '2026-11-01T09:30:00.000Z')",
  ).run(
    catalogGuid,
    JSON.stringify({
      poNo: 'PO-1',
      note: '',
      lines: [
        {
          lineId: 'l1',
          catalogItemGuid: itemRecord(1, categories).guid,
          sku: itemRecord(1, categories).sku,
          name: itemRecord(1, categories).name,
          note: '',
          qty: 2,
          unitPriceSeen: 5,
          qtyAvailableSeen: 1,
        },
      ],
    }),
  )
  db.prepare(
    `INSERT INTO outbox (api_guid, state, customer_guid, customer_name, catalog_guid, rep_totals, attempts, queued_at, updated_at)
    VALUES ('5a4b3c2d-0000-4000-8000-0000000000b2', 'queued', 'c-1', 'Bench customer', ?, '{"subTotal":1}', 0, '2026-11-01T09:40:00.000Z', '2026-11-01T09:40:00.000Z')`,
  ).run(catalogGuid)
  db.prepare(
    "INSERT INTO outbox_payloads (entry_id, draft, request) SELECT id, ?, ? FROM outbox WHERE api_guid = '5a4b3c2d-0000-4000-8000-0000000000b2'",
  ).run(
    JSON.stringify({ poNo: 'PO-2', note: '', lines: [] }),
    JSON.stringify({ body: { order: { api_guid: '5a4b3c2d-0000-4000-8000-0000000000b2' } } }),
  )
  db.pragma('wal_checkpoint(TRUNCATE)')
  closeDatabase(db)
}

/**
 * A schema 16 laptop of `items` items, made from the schema 9 one: migrations 10 to 16 run whole at
 * the open (no limit), as a laptop that upgraded to 16 back then has them.
 */
function buildSchema16(schema9: string, path: string): void {
  copyFileSync(schema9, path)
  const db = openDatabase(path, {
    migrations: migrations.filter((m) => m.version <= 16),
    largeCatalogItems: Number.MAX_SAFE_INTEGER,
  })
  db.pragma('wal_checkpoint(TRUNCATE)')
  closeDatabase(db)
}

/** openDatabase (every migration) until drafts and the outbox were read and a draft written. */
function startApp(path: string): { db: Database; draftsUsableMs: number; saveDraft: () => void } {
  const started = performance.now()
  const db: Database = openDatabase(path)
  db.prepare('SELECT * FROM drafts').all()
  db.prepare('SELECT * FROM outbox').all()
  const statement = db.prepare(
    "UPDATE drafts SET updated_at = ? WHERE api_guid = '5a4b3c2d-0000-4000-8000-0000000000b1'",
  )
  const saveDraft = (): void => void statement.run(new Date().toISOString())
  saveDraft()
  return { db, draftsUsableMs: performance.now() - started, saveDraft }
}

interface WorkLeft {
  ms: number
  slices: number
  /**
   * A draft's save on the main connection every 100 ms meanwhile, as the app's handler table makes
   * it (after the writer's long request in flight, sync/long-writes.ts): how long each held the main
   * thread (its statement, SQLite's busy handler included), and how long after it was asked it was in.
   */
  waits: number[]
  saved: number[]
  /** The job under way at the longest wait. */
  longestWaitJob: string | null
}

/** The catalog work an upgrade left, on the writer's thread as the app runs it; a draft saved every 100 ms meanwhile. */
async function runWorkLeft(db: Database, path: string, saveDraft: () => void): Promise<WorkLeft> {
  const longWrites = new LongWrites()
  const writer = trackingLongWrites(await startWorkerWriter(sourceSyncThread, { databasePath: path }), longWrites)
  const waits: number[] = []
  const saved: number[] = []
  let job: string | null = null
  let longest = { ms: 0, job: null as string | null }
  let saving = false
  const saver = setInterval(() => {
    if (saving) return
    saving = true
    const asked = performance.now()
    void longWrites.settled().then(() => {
      const at = performance.now()
      saveDraft()
      const held = performance.now() - at
      waits.push(held)
      saved.push(performance.now() - asked)
      if (held > longest.ms) longest = { ms: held, job }
      saving = false
    })
  }, 100)
  let slices = 0
  const started = performance.now()
  try {
    await runCatalogUpdate(writer, {
      // As the app runs it (sync/run.ts): the window's connection leaves its checkpoints to the writer.
      leaveCheckpoints: () => new LocalCopy(db, new Retention(db)).leaveCheckpointsToWriter(),
      onProgress: (progress) => {
        slices++
        job = progress.job
      },
    })
  } finally {
    clearInterval(saver)
    await writer.close()
  }
  return { ms: performance.now() - started, slices, waits, saved, longestWaitJob: longest.job }
}

function fileMb(path: string): number {
  return statSync(path).size / 2 ** 20
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)] ?? 0
}

/**
 * The schema 9 database of `items` items is kept under `cacheDirectory` between runs (writing it takes
 * minutes at a million); each measurement upgrades a copy.
 */
export async function measureUpgrade(
  items: number,
  cacheDirectory = join(tmpdir(), 'satchel-bench-upgrade'),
): Promise<UpgradeFigures> {
  mkdirSync(cacheDirectory, { recursive: true })
  const original = join(cacheDirectory, `schema9-${items}.db`)
  let buildMs = 0
  if (!existsSync(original)) {
    const started = performance.now()
    const building = `${original}.building`
    rmSync(building, { force: true })
    buildSchema9(building, items)
    renameSync(building, original)
    buildMs = performance.now() - started
  }
  const path = join(cacheDirectory, `upgraded-${items}.db`)
  for (const suffix of ['', '-wal', '-shm']) rmSync(path + suffix, { force: true })
  copyFileSync(original, path)

  // The app's start: the database opened and migrated, then the drafts and the outbox read and a draft written.
  const { db, draftsUsableMs, saveDraft } = startApp(path)
  // Below the limit the migrations did all of it at start: that start is the heaviest migration's time.
  const leftToWriter = new LocalCopy(db, new Retention(db)).catalogUpdateJobs().next() === 'leanItems'

  const left = await runWorkLeft(db, path, saveDraft)
  const { slices, waits } = left
  const heaviestMs = leftToWriter ? left.ms : draftsUsableMs
  if (new LocalCopy(db, new Retention(db)).catalogUpdateJobs().next() !== null)
    throw new Error('the catalog work was left unfinished')
  db.pragma('wal_checkpoint(TRUNCATE)')
  const upgradedMb = fileMb(path)
  closeDatabase(db)
  for (const suffix of ['', '-wal', '-shm']) rmSync(path + suffix, { force: true })

  // From schema 16, kept beside the schema 9 database; the catalog work its upgrade leaves is not run.
  const schema16 = join(cacheDirectory, `schema16-${items}.db`)
  if (!existsSync(schema16)) {
    process.stdout.write(`Writing a schema 16 database of ${items} items (migration 10's copy at the open, once)…\n`)
    buildSchema16(original, `${schema16}.building`)
    renameSync(`${schema16}.building`, schema16)
  }
  copyFileSync(schema16, path)
  const from16 = startApp(path)
  const from16Left = await runWorkLeft(from16.db, path, from16.saveDraft)
  closeDatabase(from16.db)
  for (const suffix of ['', '-wal', '-shm']) rmSync(path + suffix, { force: true })
  return {
    items,
    buildMs: Math.round(buildMs),
    schema9Mb: Math.round(fileMb(original)),
    draftsUsableMs: Math.round(draftsUsableMs),
    heaviestMs: Math.round(heaviestMs),
    slices,
    draftSaveP50Ms: +median(waits).toFixed(1),
    draftSaveMaxMs: +Math.max(0, ...waits).toFixed(1),
    upgradedMb: Math.round(upgradedMb),
    leftToWriter,
    fromSchema16DraftsUsableMs: Math.round(from16.draftsUsableMs),
    fromSchema16WorkMs: Math.round(from16Left.ms),
    fromSchema16DraftSaveP50Ms: +median(from16Left.waits).toFixed(1),
    fromSchema16DraftSaveMaxMs: +Math.max(0, ...from16Left.waits).toFixed(1),
    fromSchema16LongestWaitJob: from16Left.longestWaitJob,
    draftSavedMaxMs: +Math.max(0, ...left.saved).toFixed(1),
    fromSchema16DraftSavedMaxMs: +Math.max(0, ...from16Left.saved).toFixed(1),
  }
}

/** bench:sync's rows for its --size ('bench': 100,000 items; 'demo' is too small to say anything). */
export async function upgradeBenchRows(size: string): Promise<string[][]> {
  const items = size === 'bench' ? 100_000 : /^\d+$/.test(size) ? Number(size) : null
  if (items === null) return []
  process.stdout.write(
    `Upgrade from schema 9 at ${items} items (a schema 9 database written by direct inserts, kept between runs)…\n`,
  )
  return upgradeRows(await measureUpgrade(items))
}

/** The rows bench:sync prints for it (label, figure, target, note). */
export function upgradeRows(figures: UpgradeFigures): string[][] {
  return [
    figures.leftToWriter
      ? [
          `Heaviest migration at ${figures.items} items`,
          `${(figures.heaviestMs / 1000).toFixed(1)} s`,
          'in the background',
          `migration 10's copy on the writer's thread, ${figures.slices} slices; a draft's save held the main thread p50 ${figures.draftSaveP50Ms} ms, max ${figures.draftSaveMaxMs} ms; in after ${figures.draftSavedMaxMs} ms at most`,
        ]
      : [
          `Heaviest migration at ${figures.items} items`,
          `${(figures.heaviestMs / 1000).toFixed(1)} s`,
          '',
          'migration 10 at start (below the 200,000-item limit)',
        ],
    [
      'App start after upgrade: drafts usable in',
      `${figures.draftsUsableMs} ms`,
      '< 2000 ms',
      figures.draftsUsableMs < 2000 ? 'met' : 'NOT MET',
    ],
    [
      '  the same from schema 16',
      `${figures.fromSchema16DraftsUsableMs} ms`,
      '< 2000 ms',
      `${figures.fromSchema16DraftsUsableMs < 2000 ? 'met' : 'NOT MET'} (migrations 17 and 21 add three columns to the item table)`,
    ],
    [
      '  the catalog work it leaves',
      `${(figures.fromSchema16WorkMs / 1000).toFixed(1)} s`,
      'in the background',
      `a draft's save held the main thread p50 ${figures.fromSchema16DraftSaveP50Ms} ms, max ${figures.fromSchema16DraftSaveMaxMs} ms (during ${figures.fromSchema16LongestWaitJob ?? 'the last slice'}); in after ${figures.fromSchema16DraftSavedMaxMs} ms at most`,
    ],
  ]
}

if (process.argv[1]?.endsWith('upgrade.ts')) {
  const { values } = parseArgs({ options: { size: { type: 'string', default: '100000' } } })
  const items = Number(values.size)
  measureUpgrade(items)
    .then((figures) => {
      process.stdout.write(`${JSON.stringify(figures, null, 2)}\n`)
      for (const row of upgradeRows(figures)) process.stdout.write(`${row.join(' | ')}\n`)
    })
    .catch((error: unknown) => {
      process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`)
      process.exitCode = 1
    })
}
