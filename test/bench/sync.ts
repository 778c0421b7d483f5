/**
 * `npm run bench:sync`: Satchel's sync against the ordering-service double at bench size (100,000
 * catalog items, 20,000 customers) over loopback, every figure of the sync that docs/perf/ quotes,
 * in one run.
 *
 * The double runs in its own process, as the real service would, and so does the bare client, so
 * this process's peak RSS and event-loop stalls are Satchel's alone. Its reply cache is on
 * (`--cache-replies`): the warm-up, the bare client's first pass in br, has it compress each page
 * once, and from then on it serves them as sent, as a CDN or a caching proxy would; a real service
 * serializes and compresses on its own machines, and on these two cores that work was Satchel's
 * time. The double's CPU during each Satchel run (first sync, deltas, WAN) is printed apart, with
 * Satchel's own, and how many of the first sync's replies the cache answered. Measured in one run:
 * - a bare client that only downloads the pages a full sync reads, at the same concurrency, with the
 *   same keep-alive pool (twice: before and after Satchel, to even out the double's warm caches);
 * - Satchel's first full sync into an empty database (pages written on the writer thread, as in the
 *   app), its ratio to the bare download, catalog items applied per second, the database's size, and
 *   how long after the start a customer search and a catalog search first answer with rows;
 * - a delta of 1,000 changes made through the double's control surface;
 * - the active-only customer list at 20,000 customers, and searches anyone may type (a letter
 *   repeated 100 times, 2,500 for the CLI, every letter, a 200-character punctuated word), printed;
 * - a WAN-shaped run: the double's latency fault (80 ms per request) on every route, Satchel's full sync
 *   against a bare download of the same pages under the same latency, at the app's concurrency;
 * - a plain better-sqlite3 insert of the same rows (plain-insert.ts), in this process, and Satchel's
 *   ratio to it: after Satchel's syncs, whose memory and stalls it would otherwise inflate;
 * - a delta of 10,000 changes; each kind of search a rep types in the largest catalog (p50/p99 of
 *   50 runs, rows alone and the capped count apart), a category browse page, and a cold open of the
 *   core on the synced database until the catalog screen's data is ready (catalog-at-size.ts);
 * - cost growth: full sync time and database size at each of --sizes (a double of that size each).
 * Peak RSS and the longest main event-loop stall cover every Satchel sync of the run; beside the
 * stall, how long the main thread was runnable but waiting for a CPU (Linux), which a shared machine
 * with two cores adds to any stall.
 * Prints a table and writes JSON under test/bench/results/.
 *
 * Options: --size bench|demo|<items> (default bench), --concurrency N (default 6, the app's),
 * --latency MS (default 80), --wan-size (default: --size, or bench above 200,000 items),
 * --sizes 25000,50000,100000,200000 ('' skips; skipped by default above 200,000 items): a run at a
 * million items takes about 10 minutes that way.
 * (`--bare URL KEY SECRET CATALOGS` is the child-process mode that runs the bare client.)
 */
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { cpus, loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { monitorEventLoopDelay, performance } from 'node:perf_hooks'
import { parseArgs, promisify } from 'node:util'
import { Pool } from 'undici'
import { closeDatabase, openDatabase, type Database } from '../../src/main/db/database'
import { ServiceClient } from '../../src/main/ordering-client/client'
import { Retention } from '../../src/main/local/retention'
import { LocalCopy } from '../../src/main/local/copy'
import { defaultConcurrency, SyncEngine } from '../../src/main/sync/engine'
import type { SyncSource } from '../../src/main/sync/scopes'
import type { SyncProgress, SyncReport } from '../../src/shared/synced'
import { spawn } from 'node:child_process'
import { brotliDecompress } from 'node:zlib'
import type { Worker } from 'node:worker_threads'
import { sourceSyncThread, startWorkerWriter, type SyncThreadData } from '../../src/main/sync/page-writer'
import { browseQueries, type BrowseQueries } from '../../src/main/browse'
import { plainInsert, satchelInsert } from './plain-insert'
import { coldOpen, measureCategoryBrowse, measureSearches } from './catalog-at-size'
import { upgradeBenchRows } from './upgrade'
import { control, controlGet, cpuMeter, printTable, root, startDouble, writeResults, type Double } from './support'
import { measureShapedLink, measureWireBytes, wireTableRows, type WireFigures } from './wire'
import { openLocalData, type LocalData } from '../../src/main/local/data'
import type { ReplyCacheFigures } from '../service'

const pageSize = 100
const brotliDecompressAsync = promisify(brotliDecompress)
const targets = {
  searchMs: 30,
  browseMs: 30,
  bigDeltaMs: 5000,
  coldOpenMs: 1500,
  ratio: 1.25,
  itemsPerSecond: 12_000,
  plainRatio: 0.85,
  databaseMb: 250,
  wanRatio: 1.1,
  growth: 1.2,
  firstSearchMs: 3000,
  deltaMs: 500,
  rssMb: 300,
  stallMs: 50,
  customerSearchMs: 20,
  pathologicalSearchMs: 50,
}

/**
 * Text anyone may type into a search (the window takes 200 characters, the CLI any length), each
 * searched in the largest catalog and among the customers. Each once cost seconds: every repeated or
 * one-letter word was a term of its own.
 */
export const pathologicalSearchTexts: [label: string, text: string][] = [
  ["'s ' × 100", 's '.repeat(100)],
  ["'c ' × 100", 'c '.repeat(100)],
  ["'a ' × 2,500 (CLI)", 'a '.repeat(2500)],
  ['a to z, one letter each', 'abcdefghijklmnopqrstuvwxyz'.split('').join(' ')],
  ['digits 0–9 × 10', '0 1 2 3 4 5 6 7 8 9 '.repeat(10)],
  ["'s-' × 100 (one word)", 's-'.repeat(100)],
  [
    '66 two-letter words',
    Array.from({ length: 66 }, (_, i) => 'abcdefghijklmnopqrstuvwxyz'[i % 26]! + 'aeiou'[i % 5]!).join(' '),
  ],
  ['8 broad words', 's co ca pa gl to bl la'],
  ['one letter: s', 's'],
]

/** Each pathological search's median time (5 runs, the first dropped), items and customers in one. */
/** The local copy and the screens' reads of it, over one connection. */
function localReads(db: Database): { local: LocalData; queries: BrowseQueries } {
  const local = openLocalData(db)
  return { local, queries: browseQueries(local) }
}

function measurePathologicalSearches(queries: BrowseQueries): { label: string; characters: number; ms: number }[] {
  const largest = queries.catalogs.listCatalogs().sort((a, b) => b.itemCount - a.itemCount)[0]!.guid
  return pathologicalSearchTexts.map(([label, text]) => {
    const times = Array.from({ length: 5 }, () => {
      const started = performance.now()
      queries.catalogs.searchCatalogItems({ catalogGuid: largest, query: text, limit: 50 })
      queries.customers.searchCustomers({ query: text, limit: 50 })
      return performance.now() - started
    })
    return { label, characters: text.length, ms: +median(times.slice(1)).toFixed(1) }
  })
}

/** Runs `work` over `items` with at most `limit` at once. */
async function eachLimited<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) await work(items[next++]!)
    }),
  )
}

/**
 * The bare client: the same listing pages a first full sync reads (the count on page 0 only), the
 * same pool settings and concurrency, each body read to its last byte and thrown away.
 */
async function bareDownload(
  double: Pick<Double, 'url' | 'apiKey' | 'apiSecret'>,
  catalogGuids: string[],
  concurrency: number,
  compressed = false,
): Promise<{ ms: number; bytes: number; pages: number }> {
  const pool = new Pool(double.url, { connections: 8, pipelining: 1, keepAliveTimeout: 30_000 })
  const headers: Record<string, string> = {
    accept: 'application/json',
    'x-apiKey': double.apiKey,
    'x-apiSecret': double.apiSecret,
  }
  // Compressed, it asks for br as Satchel does and inflates each reply whole: the least a client can do.
  if (compressed) headers['accept-encoding'] = 'br'
  let bytes = 0
  let pages = 0
  const get = async (path: string): Promise<Record<string, unknown> | null> => {
    const response = await pool.request({ method: 'GET', path, headers })
    const wire = Buffer.from(await response.body.arrayBuffer())
    const body = response.headers['content-encoding'] === 'br' ? await brotliDecompressAsync(wire) : wire
    if (response.statusCode !== 200) throw new Error(`bare GET ${path}: ${response.statusCode}`)
    bytes += wire.length
    pages++
    return path.includes('offset=0') ? (JSON.parse(body.toString('utf8')) as Record<string, unknown>) : null
  }
  const started = performance.now()
  await get('/v1/catalogs?includeDeletedPriceGroups=true')
  const listings: {
    path: (offset: number) => string
    count: (first: Record<string, unknown>) => number
    maxPages?: number
  }[] = [
    { path: (offset) => `/vendors?limit=${pageSize}&offset=${offset}`, count: (first) => Number(first.total) },
    ...catalogGuids.map((guid) => ({
      path: (offset: number) =>
        `/v1/catalog/${guid}/catalog_items?limit=${pageSize}&offset=${offset}${offset > 0 ? '&skipTotalCount=true' : ''}`,
      count: (first: Record<string, unknown>) => Number(first.totalCatalogItems),
    })),
    {
      path: (offset) => `/v1/orders?limit=${pageSize}&offset=${offset}`,
      count: (first) => Number(first.total),
      maxPages: 20,
    },
  ]
  for (const listing of listings) {
    const first = await get(listing.path(0))
    const total = listing.count(first ?? {})
    const count = Math.min(Math.ceil(total / pageSize), listing.maxPages ?? Number.POSITIVE_INFINITY)
    const offsets = Array.from({ length: Math.max(0, count - 1) }, (_, index) => index + 1)
    await eachLimited(offsets, concurrency, async (offset) => void (await get(listing.path(offset))))
  }
  const ms = performance.now() - started
  await pool.close()
  return { ms, bytes, pages }
}

interface Measured {
  report: SyncReport
  ms: number
  /** From the first request of the first catalog's items to the first request of the orders scope, which follows the last catalog's. */
  itemScopesMs: number
  stallMs: number
  stallP99Ms: number
  /**
   * The main thread's time runnable but not running (Linux schedstat; null elsewhere): in all, and
   * the most within one 50 ms sample. A stall is this thread's own work or a wait for a CPU.
   */
  cpuWait: { totalMs: number; longestIn50MsMs: number } | null
  /** The longest single call into the store on this thread (pages are written on the writer thread). */
  longestStoreCallMs: number
  longestStoreCall: string
  peakRssMb: number
  /**
   * The process's RSS when the run began. A delta runs after the bench's own searches and reads in
   * this process (the pathological searches, picking the items to change), whose memory the allocator
   * keeps: its peak is that plus what the run adds.
   */
  startRssMb: number
  /** ms after the start when each probe first answered with rows; null when it never did. */
  firstAnswers: Record<string, number | null>
}

/**
 * Times every call into the store. The event loop's delay also counts time the operating system gave
 * to other processes (the double, and anything else on a shared machine); this is the part that is
 * Satchel's own synchronous work.
 */
function timeStoreCalls(store: LocalCopy): { longest(): number; longestName(): string; reset(): void } {
  let longest = 0
  let longestName = ''
  const target = store as unknown as Record<string, unknown>
  for (const name of Object.getOwnPropertyNames(LocalCopy.prototype)) {
    const original = target[name]
    if (name === 'constructor' || typeof original !== 'function') continue
    target[name] = (...args: unknown[]) => {
      const started = performance.now()
      try {
        return (original as (...a: unknown[]) => unknown).apply(store, args)
      } finally {
        const took = performance.now() - started
        if (took > longest) {
          longest = took
          longestName = name
        }
      }
    }
  }
  return { longest: () => longest, longestName: () => longestName, reset: () => void (longest = 0) }
}

/** A search the rep might type while the first sync runs: polled until it answers with rows. */
type Probe = () => number

/**
 * When the item scopes began and ended, as the requests a run makes show it: from the first request
 * for a catalog's items to the first for the orders, which waits for the index build that follows
 * the last catalog.
 */
interface ScopeMarks {
  itemsFrom: number | null
  itemsTo: number | null
}

/** The client, noting when the first catalog's items are first asked for and when the orders are. */
function markedSource(client: ServiceClient, marks: ScopeMarks): SyncSource {
  return {
    listCatalogs: (options) => client.listCatalogs(options),
    listCustomers: (params, options) => client.listCustomers(params, options),
    listCatalogItems: (catalogGuid, params, options) => {
      marks.itemsFrom ??= performance.now()
      return client.listCatalogItems(catalogGuid, params, options)
    },
    listOrders: (params, options) => {
      marks.itemsTo ??= performance.now()
      return client.listOrders(params, options)
    },
  }
}

export async function measureSync(
  engine: SyncEngine,
  full: boolean,
  storeCalls: ReturnType<typeof timeStoreCalls>,
  marks: ScopeMarks,
  probes: Record<string, Probe> = {},
  onProgress?: (progress: SyncProgress) => void,
): Promise<Measured> {
  marks.itemsFrom = null
  marks.itemsTo = null
  storeCalls.reset()
  const histogram = monitorEventLoopDelay({ resolution: 5 })
  const startRss = process.memoryUsage.rss()
  let peakRss = startRss
  let peakHeap = 0
  const firstAnswers: Record<string, number | null> = Object.fromEntries(
    Object.keys(probes).map((name) => [name, null]),
  )
  let started = 0
  const firstWait = waitedForCpuMs()
  let lastWait = firstWait
  let longestWait = 0
  const sampler = setInterval(() => {
    const waited = waitedForCpuMs()
    if (waited !== null && lastWait !== null) longestWait = Math.max(longestWait, waited - lastWait)
    lastWait = waited
    peakRss = Math.max(peakRss, process.memoryUsage.rss())
    peakHeap = Math.max(peakHeap, process.memoryUsage().heapTotal)
    for (const [name, probe] of Object.entries(probes)) {
      if (firstAnswers[name] !== null) continue
      if (probe() > 0) firstAnswers[name] = performance.now() - started
    }
  }, 50)
  histogram.enable()
  started = performance.now()
  const report = await engine.run({ full, onProgress })
  const ms = performance.now() - started
  histogram.disable()
  clearInterval(sampler)
  const lastWaited = waitedForCpuMs()
  peakRss = Math.max(peakRss, process.memoryUsage.rss())
  if (!report.ok) throw new Error(`sync failed: ${report.error?.message}`)
  if (process.env.BENCH_DEBUG) process.stderr.write(`main heap peak ${(peakHeap / 2 ** 20).toFixed(0)} MB\n`)
  return {
    report,
    ms,
    itemScopesMs: marks.itemsFrom === null ? 0 : (marks.itemsTo ?? performance.now()) - marks.itemsFrom,
    stallMs: histogram.max / 1e6,
    stallP99Ms: histogram.percentile(99) / 1e6,
    cpuWait:
      firstWait === null || lastWaited === null
        ? null
        : { totalMs: lastWaited - firstWait, longestIn50MsMs: longestWait },
    longestStoreCallMs: storeCalls.longest(),
    longestStoreCall: storeCalls.longestName(),
    peakRssMb: peakRss / 2 ** 20,
    startRssMb: startRss / 2 ** 20,
    firstAnswers,
  }
}

/** Milliseconds this thread has spent runnable but waiting for a CPU, where Linux tells (schedstat). */
function waitedForCpuMs(): number | null {
  try {
    return Number(readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ')[1]) / 1e6
  } catch {
    return null
  }
}

/**
 * Changes to the items picked, spread over the catalogs, and as many new items as deleted ones: for
 * 1,000 changes, 900 updated items (stock, price, name), 50 soft-deleted, 50 new.
 */
async function makeChanges(double: Double, catalogGuids: string[], picked: string[], changes = 1000): Promise<void> {
  const updated = Math.round(changes * 0.9)
  const added = (changes - updated) / 2
  const updates = picked.slice(0, updated)
  const deletions = picked.slice(updated, updated + added)
  await eachLimited(updates, 8, async (guid) => {
    await control(double, 'update', {
      kind: 'catalogItem',
      guid,
      patch: { qty_on_hand: Math.floor(Math.random() * 500), name: `Bench changed ${guid.slice(0, 8)}` },
    })
  })
  await eachLimited(
    deletions,
    8,
    async (guid) => void (await control(double, 'softDelete', { kind: 'catalogItem', guid })),
  )
  await eachLimited(
    Array.from({ length: added }, (_, index) => catalogGuids[index % catalogGuids.length]!),
    8,
    async (catalogGuid) => void (await control(double, 'insertCatalogItem', { catalogGuid, fields: {} })),
  )
}

function describeCpuWait(wait: Measured['cpuWait']): string {
  return wait === null ? 'n/a' : `${(wait.totalMs / 1000).toFixed(2)} s, ≤ ${wait.longestIn50MsMs.toFixed(0)} ms/50 ms`
}

function mb(value: number): string {
  return `${value.toFixed(0)} MB`
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(2)} s`
}

/** Runs the bare client in a child process (this file, --bare) and returns what it measured. */
export async function bareInChild(
  double: Double,
  catalogGuids: string[],
  concurrency: number,
  compressed = false,
): Promise<{ ms: number; bytes: number; pages: number }> {
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      __filename,
      '--bare',
      double.url,
      double.apiKey,
      double.apiSecret,
      catalogGuids.join(','),
      '--concurrency',
      String(concurrency),
      ...(compressed ? ['--bare-compressed'] : []),
    ],
    { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] },
  )
  let out = ''
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')))
  const code = await new Promise<number | null>((done) => child.on('exit', done))
  if (code !== 0) throw new Error(`the bare client failed (exit ${code})`)
  return JSON.parse(out.trim().split('\n').pop() ?? '{}') as { ms: number; bytes: number; pages: number }
}

export async function liveCatalogGuids(double: Double): Promise<string[]> {
  const catalogs = (await controlGet(double, 'catalogs')) as { guid: string; deleted_at: string | null }[]
  return catalogs.filter((catalog) => catalog.deleted_at === null).map((catalog) => catalog.guid)
}

interface Satchel {
  db: Database
  marks: ScopeMarks
  store: LocalCopy
  storeCalls: ReturnType<typeof timeStoreCalls>
  engine: SyncEngine
  queries: BrowseQueries
  local: LocalData
  /**
   * The file's size with everything checkpointed into it. The writer thread may still be running the
   * checkpoint a run leaves to it; another checkpoint meanwhile answers busy and copies nothing.
   */
  sizeMb(): Promise<number>
  close(): Promise<void>
}

/**
 * Satchel as the app runs it: a database, the store, the writer thread, the engine. `createWriter`
 * starts the writer's thread (first-sync-memory.ts adds a port to ask it for its memory).
 */
export async function satchelAgainst(
  double: Double,
  path: string,
  concurrency: number,
  createWriter: (data: SyncThreadData) => Worker = sourceSyncThread,
): Promise<Satchel> {
  const db = openDatabase(path)
  const client = new ServiceClient({
    connection: { baseUrl: double.url, auth: { kind: 'apiKey', apiKey: double.apiKey, apiSecret: double.apiSecret } },
  })
  const store = new LocalCopy(db, new Retention(db))
  const storeCalls = timeStoreCalls(store)
  const writer = await startWorkerWriter(createWriter, { databasePath: path })
  const marks: ScopeMarks = { itemsFrom: null, itemsTo: null }
  const engine = new SyncEngine({
    copy: store,
    writer,
    source: markedSource(client, marks),
    clock: { now: () => Date.now() },
    pageSize,
    concurrency,
  })
  return {
    db,
    marks,
    store,
    storeCalls,
    engine,
    ...localReads(db),
    async sizeMb(): Promise<number> {
      for (;;) {
        const [state] = db.pragma('wal_checkpoint(TRUNCATE)') as { busy: number; log: number; checkpointed: number }[]
        if (state && state.busy === 0 && state.log === state.checkpointed) break
        await new Promise((done) => setTimeout(done, 20))
      }
      return statSync(path).size / 2 ** 20
    },
    async close() {
      await writer.close()
      await client.close()
      closeDatabase(db)
    },
  }
}

/** Full sync time and database size at one size of the double, in a double and database of its own. */
async function growthAt(
  size: string,
  directory: string,
  concurrency: number,
): Promise<{ size: string; items: number; ms: number; itemsPerSecond: number; databaseMb: number }> {
  // As the main run: the double's pages compressed once, in a warm-up, and served from its cache.
  const double = await startDouble(size, { cacheReplies: true })
  try {
    await bareInChild(double, await liveCatalogGuids(double), concurrency, true)
    const satchel = await satchelAgainst(double, join(directory, `growth-${size}.db`), concurrency)
    const measured = await measureSync(satchel.engine, true, satchel.storeCalls, satchel.marks)
    const items = measured.report.resources.catalogItems.upserted
    const result = {
      size,
      items,
      ms: Math.round(measured.ms),
      itemsPerSecond: Math.round(items / (measured.ms / 1000)),
      databaseMb: +(await satchel.sizeMb()).toFixed(1),
    }
    await satchel.close()
    process.stdout.write(
      `  ${size}: ${seconds(result.ms)}, ${result.itemsPerSecond} items/s, ${result.databaseMb} MB\n`,
    )
    return result
  } finally {
    double.process.kill('SIGTERM')
    await new Promise((done) => double.process.once('exit', done))
  }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)] ?? 0
}

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    options: {
      size: { type: 'string', default: 'bench' },
      concurrency: { type: 'string', default: String(defaultConcurrency) },
      latency: { type: 'string', default: '80' },
      'wan-size': { type: 'string' },
      sizes: { type: 'string' },
      bare: { type: 'boolean', default: false },
      'bare-compressed': { type: 'boolean', default: false },
      'no-compress': { type: 'boolean', default: false },
    },
    allowPositionals: true,
  })
  if (values.bare) {
    const [url, apiKey, apiSecret, catalogs] = positionals
    const measured = await bareDownload(
      { url: url!, apiKey: apiKey!, apiSecret: apiSecret! },
      (catalogs ?? '').split(','),
      Number(values.concurrency),
      values['bare-compressed'],
    )
    process.stdout.write(`${JSON.stringify(measured)}\n`)
    return
  }
  const concurrency = Number(values.concurrency)
  const latencyMs = Number(values.latency)
  const size = values.size ?? 'bench'
  // Above bench size the WAN run and the growth sizes would take most of an hour: bench size and none.
  const large = /^\d+$/.test(size) && Number(size) > 200_000
  const wanSize = values['wan-size'] ?? (large ? 'bench' : size)
  const sizes = (values.sizes ?? (large ? '' : '25000,50000,100000,200000'))
    .split(',')
    .filter((value) => value.trim() !== '')
  // The database's target at a million items is the issue's 1.5 GB, not bench size's: 1.5 × 10^9
  // bytes, as the issue's "1.66 GB" of its own first sync was (1,583 MiB). Sizes print in MiB.
  if (large) targets.databaseMb = 1.5e9 / 2 ** 20
  process.stdout.write(`Starting the double (size ${size}) in a child process…\n`)
  const baselineRss = process.memoryUsage.rss()
  const loadBefore = loadavg().map((value) => +value.toFixed(2))
  const compress = !values['no-compress']
  // Its reply cache on: the warm-up below fills it, as a CDN or a caching proxy in front of a real
  // service would hold its pages, and the runs after it are charged for the laptop's work alone.
  let double = await startDouble(size, { compress, cacheReplies: true })
  const directory = mkdtempSync(join(tmpdir(), 'satchel-bench-'))
  try {
    let catalogGuids = await liveCatalogGuids(double)

    // Asked in br, as Satchel asks: each page is compressed here once, then served from the cache.
    process.stdout.write('Warming the double up (one bare pass, not counted; and one uncompressed)…\n')
    await bareInChild(double, catalogGuids, concurrency, compress)
    // The bare download before Satchel's sync asks without accept-encoding: warmed too, so it is
    // served from the cache as the one after it is, and the two time the same thing.
    if (compress) await bareInChild(double, catalogGuids, concurrency)

    const bareBefore = await bareInChild(double, catalogGuids, concurrency)
    process.stdout.write(`Bare download: ${seconds(bareBefore.ms)}, ${bareBefore.pages} pages\n`)
    const bareCompressed = compress ? await bareInChild(double, catalogGuids, concurrency, true) : null
    if (bareCompressed)
      process.stdout.write(
        `Bare download in br: ${seconds(bareCompressed.ms)}, ${(bareCompressed.bytes / 1e6).toFixed(1)} MB\n`,
      )

    const satchel = await satchelAgainst(double, join(directory, 'satchel.db'), concurrency)
    const { db, queries } = satchel

    // What a rep would type first: a word of a customer's name, and of an item's in the catalog synced
    // first (catalogs go by name). Read a page at a time: the double's whole lists would cost this
    // process hundreds of MB, counted in its peak RSS.
    const probeClient = new ServiceClient({
      connection: { baseUrl: double.url, auth: { kind: 'apiKey', apiKey: double.apiKey, apiSecret: double.apiSecret } },
    })
    const customerWord = (await probeClient.listCustomers({ limit: 1, offset: 0 }, {})).rows[0]!.customer.name!.split(
      /\s+/,
    )[0]!
    const firstCatalog = (await probeClient.listCatalogs({})).sort(
      (a, b) => (a.name ?? '').localeCompare(b.name ?? '') || a.guid.localeCompare(b.guid),
    )[0]!.guid
    const itemWord = (
      await probeClient.listCatalogItems(firstCatalog, { limit: 1, offset: 0 }, {})
    ).rows[0]!.name!.split(/\s+/)[0]!
    await probeClient.close()
    const probes: Record<string, Probe> = {
      customerSearch: () => queries.customers.searchCustomers({ query: customerWord, limit: 20 }).customers.length,
      catalogSearch: () =>
        queries.catalogs.searchCatalogItems({ catalogGuid: firstCatalog, query: itemWord, limit: 20 }).items.length,
    }

    process.stdout.write('Satchel full sync…\n')
    const cacheBefore = (await controlGet(double, 'replyCache')) as ReplyCacheFigures
    let cpu = cpuMeter(double)
    const full = await measureSync(satchel.engine, true, satchel.storeCalls, satchel.marks, probes)
    const fullCpu = cpu()
    const cacheAfter = (await controlGet(double, 'replyCache')) as ReplyCacheFigures
    const fromCache = { hits: cacheAfter.hits - cacheBefore.hits, misses: cacheAfter.misses - cacheBefore.misses }
    process.stdout.write(
      `Satchel full sync: ${seconds(full.ms)} (CPU: the double ${fullCpu.double} s, Satchel ${fullCpu.satchel} s; ${fromCache.hits} of ${fromCache.hits + fromCache.misses} replies from the double's cache)\n`,
    )
    const databaseMb = await satchel.sizeMb()

    const bareAfter = await bareInChild(double, catalogGuids, concurrency)
    process.stdout.write(`Bare download again: ${seconds(bareAfter.ms)}\n`)
    const bareMs = (bareBefore.ms + bareAfter.ms) / 2

    // The 950 items changed, spread over the catalogs: read as 950 guids, not 100,000 of them, which
    // this process's peak RSS (the delta's) would count as Satchel's.
    const liveItems =
      db.prepare<[], number>('SELECT count(*) FROM catalog_items WHERE deleted_at IS NULL').pluck().get() ?? 0
    const pick = (count: number, skip: number) =>
      db
        .prepare<[number, number, number], string>(
          'SELECT guid FROM (SELECT guid, row_number() OVER (ORDER BY id) - 1 AS position FROM catalog_items WHERE deleted_at IS NULL) WHERE position % ? = ? LIMIT ?',
        )
        .pluck()
        .all(Math.max(1, Math.floor(liveItems / count)), skip, count)
    const itemGuids = pick(950, 0)
    process.stdout.write('Making 1,000 changes on the double…\n')
    await makeChanges(double, catalogGuids, itemGuids)
    cpu = cpuMeter(double)
    const delta = await measureSync(satchel.engine, false, satchel.storeCalls, satchel.marks)
    const deltaCpu = cpu()
    process.stdout.write(`Delta sync: ${seconds(delta.ms)}\n`)

    // The customer list with the active-only filter, as the order screen asks for it.
    const customerCount = satchel.local.counts().customers
    const searchTimes = Array.from({ length: 15 }, () => {
      const started = performance.now()
      queries.customers.searchCustomers({ includeInactive: false, limit: 50 })
      return performance.now() - started
    })
    const customerSearchMs = median(searchTimes.slice(2))
    const pathological = measurePathologicalSearches(queries)

    // Other items than the 1,000 changes' (picked one position further on).
    const bigDeltaGuids = pick(9500, 1)
    process.stdout.write('Making 10,000 changes on the double…\n')
    await makeChanges(double, catalogGuids, bigDeltaGuids, 10_000)
    cpu = cpuMeter(double)
    const bigDelta = await measureSync(satchel.engine, false, satchel.storeCalls, satchel.marks)
    const bigDeltaCpu = cpu()
    process.stdout.write(`Delta of 10,000 changes: ${seconds(bigDelta.ms)}\n`)

    const largestCatalog = queries.catalogs.listCatalogs().sort((a, b) => b.itemCount - a.itemCount)[0]!.guid
    const searches = measureSearches(db, queries, largestCatalog)
    const browse = measureCategoryBrowse(queries, largestCatalog)
    await satchel.close()
    const cold = await coldOpen(join(directory, 'satchel.db'))
    const wireBytes = await measureWireBytes(satchelAgainst, double, directory, concurrency)
    process.stdout.write(`Cold open to the catalog screen's data: ${cold.ms} ms\n`)

    process.stdout.write(`WAN-shaped run: ${latencyMs} ms per request (size ${wanSize})…\n`)
    if (wanSize !== size) {
      double.process.kill('SIGTERM')
      double = await startDouble(wanSize, { compress, cacheReplies: true })
      catalogGuids = await liveCatalogGuids(double)
      await bareInChild(double, catalogGuids, concurrency, compress)
    }
    await control(double, 'addFault', { rule: { route: '*', type: 'latency', ms: latencyMs } })
    const wanBare = await bareInChild(double, catalogGuids, concurrency, compress)
    process.stdout.write(`  bare download: ${seconds(wanBare.ms)}\n`)
    const wanSatchel = await satchelAgainst(double, join(directory, 'wan.db'), concurrency)
    cpu = cpuMeter(double)
    const wanFull = await measureSync(wanSatchel.engine, true, wanSatchel.storeCalls, wanSatchel.marks)
    const wanCpu = cpu()
    await wanSatchel.close()
    await control(double, 'clearFaults', {})
    const wire: WireFigures = {
      ...wireBytes,
      ...(await measureShapedLink(satchelAgainst, double, wanSize, directory, concurrency)),
    }
    process.stdout.write(`  Satchel full sync: ${seconds(wanFull.ms)}\n`)
    double.process.kill('SIGTERM')
    await new Promise((done) => double.process.once('exit', done))

    // After every sync of Satchel's own: reading 100,000 records back and inserting them grows this
    // process's heap, which the peak RSS and the stalls of a sync measured after it would count.
    const source = openDatabase(join(directory, 'satchel.db'), { readOnly: true })
    process.stdout.write('Plain better-sqlite3 insert of the same rows…\n')
    const plain = plainInsert(source, join(directory, 'plain.db'))
    process.stdout.write(`Plain insert: ${plain.rows} rows, ${plain.rowsPerSecond} rows/s\n`)
    const writerAlone = satchelInsert(source, join(directory, 'writer.db'))
    process.stdout.write(`Satchel's writer alone: ${writerAlone.rows} rows, ${writerAlone.rowsPerSecond} rows/s\n`)
    closeDatabase(source)

    process.stdout.write(`Cost growth (${sizes.join(', ')} items)…\n`)
    const growth = []
    for (const at of sizes) growth.push(await growthAt(at, directory, concurrency))

    const items = full.report.resources.catalogItems.upserted
    const rows = Object.values(full.report.resources).reduce((sum, counts) => sum + counts.upserted + counts.deleted, 0)
    const deltaRows = Object.values(delta.report.resources).reduce(
      (sum, counts) => sum + counts.upserted + counts.deleted,
      0,
    )
    // Satchel as the app runs it: its first sync and the delta, sampled every 50 ms on both threads.
    // The WAN run (a second writer thread after the first was closed) is shown beside it.
    const peakRssMb = Math.max(full.peakRssMb, delta.peakRssMb, bigDelta.peakRssMb)
    const startRssMb = baselineRss / 2 ** 20
    const stallMs = Math.max(full.stallMs, delta.stallMs, bigDelta.stallMs, wanFull.stallMs)
    const ratio = full.ms / bareMs
    // Items applied per second: the items over the time the run spent on them (their scopes, from the
    // first item request to the orders scope's: fetching, writing, index builds, catch-up, counts and
    // pruning), against a plain insert of the same rows. The whole run's rate (customers and orders
    // included) is printed too: it is what a rep waits through in a first sync.
    const itemsPerSecond = Math.round(items / (full.itemScopesMs / 1000))
    const wholeRunPerSecond = Math.round(items / (full.ms / 1000))
    const plainRatio = itemsPerSecond / plain.rowsPerSecond
    const wanRatio = wanFull.ms / wanBare.ms
    const smallest = growth[0]
    const largest = growth.at(-1)
    const growthFactor =
      smallest && largest && largest !== smallest ? largest.ms / largest.items / (smallest.ms / smallest.items) : null
    const sizeGrowth =
      smallest && largest && largest !== smallest
        ? largest.databaseMb / largest.items / (smallest.databaseMb / smallest.items)
        : null
    const firstCustomer = full.firstAnswers.customerSearch ?? null
    const firstCatalog_ = full.firstAnswers.catalogSearch ?? null
    const results = {
      at: new Date().toISOString(),
      size,
      concurrency,
      pageSize,
      node: process.version,
      bare: {
        beforeMs: Math.round(bareBefore.ms),
        afterMs: Math.round(bareAfter.ms),
        pages: bareBefore.pages,
        megabytes: +(bareBefore.bytes / 2 ** 20).toFixed(1),
      },
      fullSync: {
        ms: Math.round(full.ms),
        itemScopesMs: Math.round(full.itemScopesMs),
        itemsApplied: items,
        rowsApplied: rows,
        itemsPerSecond,
        wholeRunPerSecond,
        resources: full.report.resources,
      },
      ratio: +ratio.toFixed(3),
      plainInsert: plain,
      plainRatio: +plainRatio.toFixed(3),
      writerAlone,
      writerAloneRatio: +(writerAlone.rowsPerSecond / plain.rowsPerSecond).toFixed(3),
      databaseMb: +databaseMb.toFixed(1),
      firstSearchMs: {
        customer: firstCustomer === null ? null : Math.round(firstCustomer),
        catalog: firstCatalog_ === null ? null : Math.round(firstCatalog_),
        customerWord,
        itemWord,
      },
      deltaSync: { ms: Math.round(delta.ms), rowsApplied: deltaRows, resources: delta.report.resources },
      bigDeltaSync: {
        ms: Math.round(bigDelta.ms),
        resources: bigDelta.report.resources,
        stallMs: +bigDelta.stallMs.toFixed(1),
      },
      searches,
      categoryBrowse: browse,
      coldOpen: cold,
      customerSearch: { customers: customerCount, activeOnlyMs: +customerSearchMs.toFixed(2) },
      pathologicalSearches: pathological,
      wire,
      // CPU seconds of each Satchel run: the double's process, and this one's (Satchel's).
      cpuSeconds: { fullSync: fullCpu, delta: deltaCpu, bigDelta: bigDeltaCpu, wan: wanCpu },
      replyCache: { firstSync: fromCache },
      wan: {
        size: wanSize,
        latencyMs,
        bareMs: Math.round(wanBare.ms),
        satchelMs: Math.round(wanFull.ms),
        ratio: +wanRatio.toFixed(3),
        pages: wanBare.pages,
      },
      growth,
      growthFactor: growthFactor === null ? null : +growthFactor.toFixed(3),
      sizeGrowthFactor: sizeGrowth === null ? null : +sizeGrowth.toFixed(3),
      peakRssMb: +peakRssMb.toFixed(1),
      peakRssMbByRun: {
        full: +full.peakRssMb.toFixed(1),
        delta: +delta.peakRssMb.toFixed(1),
        bigDelta: +bigDelta.peakRssMb.toFixed(1),
        wan: +wanFull.peakRssMb.toFixed(1),
      },
      startRssMbByRun: {
        full: +full.startRssMb.toFixed(1),
        delta: +delta.startRssMb.toFixed(1),
        bigDelta: +bigDelta.startRssMb.toFixed(1),
        wan: +wanFull.startRssMb.toFixed(1),
      },
      rssBeforeSyncMb: +startRssMb.toFixed(1),
      longestStallMs: +stallMs.toFixed(1),
      stallMsFullSync: +full.stallMs.toFixed(1),
      stallMsDelta: +delta.stallMs.toFixed(1),
      stallMsWan: +wanFull.stallMs.toFixed(1),
      stallP99Ms: +Math.max(full.stallP99Ms, delta.stallP99Ms).toFixed(1),
      cpuWaitByRun: { full: full.cpuWait, delta: delta.cpuWait, wan: wanFull.cpuWait },
      longestStoreCallMs: +Math.max(full.longestStoreCallMs, delta.longestStoreCallMs).toFixed(1),
      longestStoreCall:
        full.longestStoreCallMs >= delta.longestStoreCallMs ? full.longestStoreCall : delta.longestStoreCall,
      loadAverage: { before: loadBefore, after: loadavg().map((value) => +value.toFixed(2)) },
      cpus: cpus().length,
      targets,
      met: {
        itemsPerSecond: itemsPerSecond >= targets.itemsPerSecond && plainRatio >= targets.plainRatio,
        database: databaseMb <= targets.databaseMb,
        wan: wanRatio <= targets.wanRatio,
        growth: growthFactor !== null && growthFactor <= targets.growth,
        firstSearch: firstCustomer !== null && firstCustomer <= targets.firstSearchMs,
        delta: delta.ms < targets.deltaMs,
        rss: peakRssMb < targets.rssMb,
        stall: stallMs < targets.stallMs,
        customerSearch: customerSearchMs < targets.customerSearchMs,
        searches: searches.every((search) => search.rows.p99 < targets.searchMs && search.count.p99 < targets.searchMs),
        browse: browse.page.p99 < targets.browseMs && browse.count.p99 < targets.browseMs,
        bigDelta: bigDelta.ms < targets.bigDeltaMs,
        coldOpen: cold.ms < targets.coldOpenMs,
      },
    }
    const met = (ok: boolean) => (ok ? 'met' : 'MISSED')
    const cpuRow = (label: string, used: { double: number; satchel: number }, ms: number, note = '') => [
      label,
      `${used.double.toFixed(2)} s`,
      '',
      `${note}Satchel's process ${used.satchel.toFixed(2)} s, of ${cpus().length} CPUs × ${seconds(ms)}`,
    ]
    const rowsOut = [
      [
        "The double's replies",
        'cached',
        '',
        "compressed once, in the bench's warm-up, and served from its reply cache after it, as a CDN or a caching proxy would: the runs below pay for the laptop's work",
      ],
      cpuRow(
        "The double's CPU during the first sync",
        fullCpu,
        full.ms,
        `${fromCache.hits} of ${fromCache.hits + fromCache.misses} replies from its cache; `,
      ),
      cpuRow(
        '  during the delta of 1,000 changes',
        deltaCpu,
        delta.ms,
        'a change empties the cache: compressed as asked; ',
      ),
      cpuRow('  during the delta of 10,000 changes', bigDeltaCpu, bigDelta.ms),
      cpuRow(
        '  during the WAN-shaped run',
        wanCpu,
        wanFull.ms,
        'its latency fault delays replies, the cache still answers them; ',
      ),
      ...wireTableRows(wire, size),
      ['Full sync (Satchel)', seconds(full.ms), '', `${items} items, ${rows} rows in all`],
      [
        'Bare download, same pages',
        seconds(bareMs),
        '',
        `${bareBefore.pages} pages, ${(bareBefore.bytes / 2 ** 20).toFixed(0)} MB`,
      ],
      ['Ratio Satchel / bare', ratio.toFixed(2), '', 'for reference (loopback)'],
      ...(bareCompressed
        ? [
            [
              '  bare download in br, same pages',
              seconds(bareCompressed.ms),
              '',
              `${(bareCompressed.bytes / 1e6).toFixed(1)} MB on the wire; Satchel / bare in br ${(full.ms / bareCompressed.ms).toFixed(2)}`,
            ],
          ]
        : []),
      [
        'Catalog items applied / s, first sync',
        String(itemsPerSecond),
        `≥ ${targets.itemsPerSecond.toLocaleString('en')}`,
        `${met(itemsPerSecond >= targets.itemsPerSecond)} (${seconds(full.itemScopesMs)} on the item scopes)`,
      ],
      ['  over the whole first sync', String(wholeRunPerSecond), '', 'customers, orders and catalogs included'],
      [
        'Plain better-sqlite3 insert, same rows',
        `${plain.rowsPerSecond} rows/s`,
        '',
        `${plain.rows} rows, ${plain.megabytes} MB (${plain.schema})`,
      ],
      [
        '  Satchel / plain insert',
        plainRatio.toFixed(2),
        `≥ ${targets.plainRatio}`,
        `${met(plainRatio >= targets.plainRatio)} (the first sync's rate above)`,
      ],
      [
        "  Satchel's writer alone, same rows",
        `${writerAlone.rowsPerSecond} rows/s`,
        '',
        `${(writerAlone.rowsPerSecond / plain.rowsPerSecond).toFixed(2)} × plain (this process, no network or thread hand-over)`,
      ],
      [
        `Database size, ${size} data`,
        `${databaseMb.toFixed(0)} MiB`,
        `≤ ${targets.databaseMb.toFixed(0)} MiB`,
        `${met(results.met.database)} (${((databaseMb * 2 ** 20) / 1e9).toFixed(3)} GB; the target ${((targets.databaseMb * 2 ** 20) / 1e9).toFixed(2)} GB)`,
      ],
      [
        `WAN-shaped full sync / bare (${latencyMs} ms)`,
        wanRatio.toFixed(2),
        `≤ ${targets.wanRatio}`,
        `${met(results.met.wan)} (${seconds(wanFull.ms)} / ${seconds(wanBare.ms)}, ${wanSize})`,
      ],
      [
        `Cost growth ${smallest?.size ?? '-'} → ${largest?.size ?? '-'} items`,
        growthFactor === null ? 'n/a' : `${growthFactor.toFixed(2)} × linear`,
        `≤ ${targets.growth}`,
        // No sizes to grow over (--sizes '', and the default past 200,000 items): not a miss.
        growthFactor === null
          ? 'not run (no sizes)'
          : `${met(results.met.growth)}${sizeGrowth === null ? '' : ` (size ${sizeGrowth.toFixed(2)} × linear)`}`,
      ],
      ...growth.map((at) => [
        `  ${at.size} items`,
        seconds(at.ms),
        '',
        `${at.itemsPerSecond} items/s, ${at.databaseMb} MB`,
      ]),
      [
        'First customer search answering',
        firstCustomer === null ? 'never' : seconds(firstCustomer),
        `≤ ${targets.firstSearchMs / 1000} s`,
        `${met(results.met.firstSearch)} ("${customerWord}")`,
      ],
      [
        'First catalog search answering',
        firstCatalog_ === null ? 'never' : seconds(firstCatalog_),
        '',
        `"${itemWord}" in the first catalog`,
      ],
      ['Delta of 1,000 changes', seconds(delta.ms), `< ${targets.deltaMs / 1000} s`, met(results.met.delta)],
      [
        'Delta of 10,000 changes',
        seconds(bigDelta.ms),
        `< ${targets.bigDeltaMs / 1000} s`,
        `${met(results.met.bigDelta)} (longest stall ${bigDelta.stallMs.toFixed(0)} ms)`,
      ],
      [
        'Catalog search p50 / p99 (50 runs)',
        '',
        `p99 < ${targets.searchMs} ms`,
        `${met(results.met.searches)}: the largest catalog, first page of 50, then the capped count`,
      ],
      ...searches.flatMap((search) => [
        [
          `  ${search.kind} "${search.text}": rows`,
          `${search.rows.p50} / ${search.rows.p99} ms`,
          '',
          search.rows.p99 < targets.searchMs ? '' : 'over',
        ],
        [
          `  ${search.kind}: count`,
          `${search.count.p50} / ${search.count.p99} ms`,
          '',
          `${search.total}${search.count.p99 < targets.searchMs ? '' : ', over'}`,
        ],
      ]),
      [
        `Category browse page "${browse.category}"`,
        `${browse.page.p50} / ${browse.page.p99} ms`,
        `p99 < ${targets.browseMs} ms`,
        `${met(results.met.browse)} (${browse.items} items; count ${browse.count.p50} / ${browse.count.p99} ms)`,
      ],
      [
        "Cold open to the catalog screen's data",
        `${cold.ms} ms`,
        `< ${targets.coldOpenMs} ms`,
        `${met(results.met.coldOpen)} (core ${cold.coreMs}, catalogs ${cold.listCatalogsMs}, first page ${cold.firstPageMs}, count ${cold.countMs} ms)`,
      ],
      [
        `Customer search, active only (${customerCount})`,
        `${customerSearchMs.toFixed(1)} ms`,
        `< ${targets.customerSearchMs} ms`,
        met(results.met.customerSearch),
      ],
      [
        'Searches anyone may type (items + customers)',
        '',
        `< ${targets.pathologicalSearchMs} ms`,
        'printed, not a target of the run: the largest catalog',
      ],
      ...pathological.map((search) => [
        `  ${search.label}`,
        `${search.ms.toFixed(1)} ms`,
        '',
        `${search.characters} characters`,
      ]),
      [
        'Peak RSS',
        mb(peakRssMb),
        `< ${targets.rssMb} MB`,
        `${met(results.met.rss)} (${mb(startRssMb)} before syncing; WAN run ${mb(wanFull.peakRssMb)})`,
      ],
      [
        '  by run: peak (at its start)',
        '',
        '',
        `first sync ${mb(full.peakRssMb)} (${mb(full.startRssMb)}), delta ${mb(delta.peakRssMb)} (${mb(delta.startRssMb)}), 10,000 changes ${mb(bigDelta.peakRssMb)} (${mb(bigDelta.startRssMb)})`,
      ],
      ['Longest event-loop stall', `${stallMs.toFixed(1)} ms`, `< ${targets.stallMs} ms`, met(results.met.stall)],
      [
        '  of which p99',
        `${results.stallP99Ms} ms`,
        '',
        `by run: first sync ${results.stallMsFullSync}, delta ${results.stallMsDelta}, WAN ${results.stallMsWan} ms`,
      ],
      [
        '  main thread waiting for a CPU',
        describeCpuWait(full.cpuWait),
        '',
        `first sync; WAN run ${describeCpuWait(wanFull.cpuWait)} (runnable, not running)`,
      ],
      ['  longest store call', `${results.longestStoreCallMs} ms`, '', `${results.longestStoreCall} (main thread)`],
      [
        'Load average (1 min)',
        `${loadBefore[0]} → ${results.loadAverage.after[0]}`,
        '',
        `${results.cpus} CPUs, shared`,
      ],
    ]
    rowsOut.push(...(await upgradeBenchRows(size)))
    printTable(rowsOut)
    writeResults('sync', results)
  } finally {
    double.process.kill('SIGTERM')
    rmSync(directory, { recursive: true, force: true })
  }
}

// Run, not imported (first-sync-memory.ts reuses the double's Satchel and the measurement).
if (require.main === module) {
  main().catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`)
    process.exit(1)
  })
}
