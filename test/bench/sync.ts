/**
 * `npm run bench:sync`: Satchel's sync against the ordering-service double at bench size (100,000
 * catalog items, 20,000 customers) over loopback.
 *
 * The double runs in its own process, as the real service would, and so does the bare client, so
 * this process's peak RSS and event-loop stalls are Satchel's alone. Measured in one run:
 * - a bare client that only downloads the pages a full sync reads, at the same concurrency, with the
 *   same keep-alive pool (twice: before and after Satchel, to even out the double's warm caches);
 * - Satchel's first full sync into an empty database, and its ratio to the bare download;
 * - a delta of 1,000 changes made through the double's control surface;
 * - catalog items applied per second, peak RSS, and the longest main event-loop stall.
 * Prints a table and writes JSON under test/bench/results/.
 *
 * Options: --size bench|demo|<items> (default bench), --concurrency N (default 4).
 * (`--bare URL KEY SECRET CATALOGS` is the child-process mode that runs the bare client.)
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { cpus, loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { monitorEventLoopDelay, performance } from 'node:perf_hooks'
import { parseArgs } from 'node:util'
import { Pool } from 'undici'
import { closeDatabase, openDatabase } from '../../src/main/db/database'
import { ServiceClient } from '../../src/main/ordering-client/client'
import { Retention } from '../../src/main/store/retention'
import { SyncStore } from '../../src/main/store/sync-store'
import { SyncEngine, type SyncReport } from '../../src/main/sync/engine'
import { spawn } from 'node:child_process'
import { sourceWriterWorker, startWorkerWriter } from '../../src/main/sync/page-writer'
import { control, controlGet, printTable, root, startDouble, writeResults, type Double } from './support'

const pageSize = 100
const targets = { ratio: 1.25, deltaMs: 2000, rssMb: 300, stallMs: 50 }

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
async function bareDownload(double: Pick<Double, 'url' | 'apiKey' | 'apiSecret'>, catalogGuids: string[], concurrency: number): Promise<{ ms: number; bytes: number; pages: number }> {
  const pool = new Pool(double.url, { connections: 8, pipelining: 1, keepAliveTimeout: 30_000 })
  const headers = { accept: 'application/json', 'x-apiKey': double.apiKey, 'x-apiSecret': double.apiSecret }
  let bytes = 0
  let pages = 0
  const get = async (path: string): Promise<Record<string, unknown> | null> => {
    const response = await pool.request({ method: 'GET', path, headers })
    const body = Buffer.from(await response.body.arrayBuffer())
    if (response.statusCode !== 200) throw new Error(`bare GET ${path}: ${response.statusCode}`)
    bytes += body.length
    pages++
    return path.includes('offset=0') ? (JSON.parse(body.toString('utf8')) as Record<string, unknown>) : null
  }
  const started = performance.now()
  await get('/v1/catalogs?includeDeletedPriceGroups=true')
  const listings: { path: (offset: number) => string; count: (first: Record<string, unknown>) => number; maxPages?: number }[] = [
    { path: (offset) => `/vendors?limit=${pageSize}&offset=${offset}`, count: (first) => Number(first.total) },
    ...catalogGuids.map((guid) => ({
      path: (offset: number) => `/v1/catalog/${guid}/catalog_items?limit=${pageSize}&offset=${offset}${offset > 0 ? '&skipTotalCount=true' : ''}`,
      count: (first: Record<string, unknown>) => Number(first.totalCatalogItems),
    })),
    { path: (offset) => `/v1/orders?limit=${pageSize}&offset=${offset}`, count: (first) => Number(first.total), maxPages: 20 },
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
  stallMs: number
  stallP99Ms: number
  /** The longest single call into the store on this thread (pages are written on the writer thread). */
  longestStoreCallMs: number
  longestStoreCall: string
  peakRssMb: number
}

/**
 * Times every call into the store. The event loop's delay also counts time the operating system gave
 * to other processes (the double, and anything else on a shared machine); this is the part that is
 * Satchel's own synchronous work.
 */
function timeStoreCalls(store: SyncStore): { longest(): number; longestName(): string; reset(): void } {
  let longest = 0
  let longestName = ''
  const target = store as unknown as Record<string, unknown>
  for (const name of Object.getOwnPropertyNames(SyncStore.prototype)) {
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

async function measureSync(engine: SyncEngine, full: boolean, storeCalls: ReturnType<typeof timeStoreCalls>): Promise<Measured> {
  storeCalls.reset()
  const histogram = monitorEventLoopDelay({ resolution: 5 })
  let peakRss = process.memoryUsage.rss()
  let peakHeap = 0
  const sampler = setInterval(() => {
    peakRss = Math.max(peakRss, process.memoryUsage.rss())
    peakHeap = Math.max(peakHeap, process.memoryUsage().heapTotal)
  }, 50)
  histogram.enable()
  const started = performance.now()
  const report = await engine.run({ full })
  const ms = performance.now() - started
  histogram.disable()
  clearInterval(sampler)
  peakRss = Math.max(peakRss, process.memoryUsage.rss())
  if (!report.ok) throw new Error(`sync failed: ${report.error?.message}`)
  if (process.env.BENCH_DEBUG) process.stderr.write(`main heap peak ${(peakHeap / 2 ** 20).toFixed(0)} MB\n`)
  return {
    report,
    ms,
    stallMs: histogram.max / 1e6,
    stallP99Ms: histogram.percentile(99) / 1e6,
    longestStoreCallMs: storeCalls.longest(),
    longestStoreCall: storeCalls.longestName(),
    peakRssMb: peakRss / 2 ** 20,
  }
}

/** 1,000 changes: 900 updated items (stock, price, name), 50 soft-deleted, 50 new. */
async function makeChanges(double: Double, catalogGuids: string[], itemGuids: string[]): Promise<void> {
  const step = Math.floor(itemGuids.length / 950)
  const picked = Array.from({ length: 950 }, (_, index) => itemGuids[index * step]!)
  const updates = picked.slice(0, 900)
  const deletions = picked.slice(900)
  await eachLimited(updates, 8, async (guid) => {
    await control(double, 'update', { kind: 'catalogItem', guid, patch: { qty_on_hand: Math.floor(Math.random() * 500), name: `Bench changed ${guid.slice(0, 8)}` } })
  })
  await eachLimited(deletions, 8, async (guid) => void (await control(double, 'softDelete', { kind: 'catalogItem', guid })))
  await eachLimited(
    Array.from({ length: 50 }, (_, index) => catalogGuids[index % catalogGuids.length]!),
    8,
    async (catalogGuid) => void (await control(double, 'insertCatalogItem', { catalogGuid, fields: {} })),
  )
}

function mb(value: number): string {
  return `${value.toFixed(0)} MB`
}

/** Runs the bare client in a child process (this file, --bare) and returns what it measured. */
async function bareInChild(double: Double, catalogGuids: string[], concurrency: number): Promise<{ ms: number; bytes: number; pages: number }> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', __filename, '--bare', double.url, double.apiKey, double.apiSecret, catalogGuids.join(','), '--concurrency', String(concurrency)],
    { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] },
  )
  let out = ''
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')))
  const code = await new Promise<number | null>((done) => child.on('exit', done))
  if (code !== 0) throw new Error(`the bare client failed (exit ${code})`)
  return JSON.parse(out.trim().split('\n').pop() ?? '{}') as { ms: number; bytes: number; pages: number }
}

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    options: { size: { type: 'string', default: 'bench' }, concurrency: { type: 'string', default: '4' }, bare: { type: 'boolean', default: false } },
    allowPositionals: true,
  })
  if (values.bare) {
    const [url, apiKey, apiSecret, catalogs] = positionals
    const measured = await bareDownload({ url: url!, apiKey: apiKey!, apiSecret: apiSecret! }, (catalogs ?? '').split(','), Number(values.concurrency))
    process.stdout.write(`${JSON.stringify(measured)}\n`)
    return
  }
  const concurrency = Number(values.concurrency)
  const size = values.size ?? 'bench'
  process.stdout.write(`Starting the double (size ${size}) in a child process…\n`)
  const baselineRss = process.memoryUsage.rss()
  const loadBefore = loadavg().map((value) => +value.toFixed(2))
  const double = await startDouble(size)
  const directory = mkdtempSync(join(tmpdir(), 'satchel-bench-'))
  try {
    const catalogs = (await controlGet(double, 'catalogs')) as { guid: string; deleted_at: string | null }[]
    const catalogGuids = catalogs.filter((catalog) => catalog.deleted_at === null).map((catalog) => catalog.guid)

    process.stdout.write('Warming the double up (one bare pass, not counted)…\n')
    await bareInChild(double, catalogGuids, concurrency)

    const bareBefore = await bareInChild(double, catalogGuids, concurrency)
    process.stdout.write(`Bare download: ${(bareBefore.ms / 1000).toFixed(2)} s, ${bareBefore.pages} pages\n`)

    const db = openDatabase(join(directory, 'satchel.db'))
    const client = new ServiceClient({ connection: { baseUrl: double.url, auth: { kind: 'apiKey', apiKey: double.apiKey, apiSecret: double.apiSecret } } })
    const store = new SyncStore(db, new Retention(db))
    const storeCalls = timeStoreCalls(store)
    // As in the app: pages written on the writer thread.
    const writer = await startWorkerWriter(sourceWriterWorker, { databasePath: join(directory, 'satchel.db') })
    const engine = new SyncEngine({ store, writer, source: client, clock: { now: () => Date.now() }, pageSize, concurrency })

    process.stdout.write('Satchel full sync…\n')
    const full = await measureSync(engine, true, storeCalls)
    process.stdout.write(`Satchel full sync: ${(full.ms / 1000).toFixed(2)} s\n`)

    const bareAfter = await bareInChild(double, catalogGuids, concurrency)
    process.stdout.write(`Bare download again: ${(bareAfter.ms / 1000).toFixed(2)} s\n`)
    const bareMs = (bareBefore.ms + bareAfter.ms) / 2

    const itemGuids = db.prepare<[], string>('SELECT guid FROM catalog_items WHERE deleted_at IS NULL ORDER BY id').pluck().all()
    process.stdout.write('Making 1,000 changes on the double…\n')
    await makeChanges(double, catalogGuids, itemGuids)
    const delta = await measureSync(engine, false, storeCalls)
    process.stdout.write(`Delta sync: ${(delta.ms / 1000).toFixed(2)} s\n`)

    const items = full.report.resources.catalogItems.upserted
    const rows = Object.values(full.report.resources).reduce((sum, counts) => sum + counts.upserted + counts.deleted, 0)
    const deltaRows = Object.values(delta.report.resources).reduce((sum, counts) => sum + counts.upserted + counts.deleted, 0)
    const peakRssMb = Math.max(full.peakRssMb, delta.peakRssMb, process.resourceUsage().maxRSS / 1024)
    const startRssMb = baselineRss / 2 ** 20
    const stallMs = Math.max(full.stallMs, delta.stallMs)
    const ratio = full.ms / bareMs
    const results = {
      at: new Date().toISOString(),
      size,
      concurrency,
      pageSize,
      node: process.version,
      bare: { beforeMs: Math.round(bareBefore.ms), afterMs: Math.round(bareAfter.ms), pages: bareBefore.pages, megabytes: +(bareBefore.bytes / 2 ** 20).toFixed(1) },
      fullSync: { ms: Math.round(full.ms), itemsApplied: items, rowsApplied: rows, itemsPerSecond: Math.round(items / (full.ms / 1000)), resources: full.report.resources },
      ratio: +ratio.toFixed(3),
      deltaSync: { ms: Math.round(delta.ms), rowsApplied: deltaRows, resources: delta.report.resources },
      peakRssMb: +peakRssMb.toFixed(1),
      rssBeforeSyncMb: +startRssMb.toFixed(1),
      longestStallMs: +stallMs.toFixed(1),
      stallMsFullSync: +full.stallMs.toFixed(1),
      stallMsDelta: +delta.stallMs.toFixed(1),
      stallP99Ms: +Math.max(full.stallP99Ms, delta.stallP99Ms).toFixed(1),
      longestStoreCallMs: +Math.max(full.longestStoreCallMs, delta.longestStoreCallMs).toFixed(1),
      longestStoreCall: full.longestStoreCallMs >= delta.longestStoreCallMs ? full.longestStoreCall : delta.longestStoreCall,
      loadAverage: { before: loadBefore, after: loadavg().map((value) => +value.toFixed(2)) },
      cpus: cpus().length,
      targets,
      met: { ratio: ratio <= targets.ratio, delta: delta.ms < targets.deltaMs, rss: peakRssMb < targets.rssMb, stall: stallMs < targets.stallMs },
    }
    const rowsOut = [
      ['Full sync (Satchel)', `${(full.ms / 1000).toFixed(2)} s`, '', ''],
      ['Bare download, same pages', `${(bareMs / 1000).toFixed(2)} s`, '', `${bareBefore.pages} pages, ${(bareBefore.bytes / 2 ** 20).toFixed(0)} MB`],
      ['Ratio Satchel / bare', ratio.toFixed(2), `≤ ${targets.ratio}`, results.met.ratio ? 'met' : 'MISSED'],
      ['Catalog items applied / s', String(results.fullSync.itemsPerSecond), '', `${items} items, ${rows} rows in all`],
      ['Delta of 1,000 changes', `${(delta.ms / 1000).toFixed(2)} s`, `< ${targets.deltaMs / 1000} s`, results.met.delta ? 'met' : 'MISSED'],
      ['Peak RSS', mb(peakRssMb), `< ${targets.rssMb} MB`, `${results.met.rss ? 'met' : 'MISSED'} (${mb(startRssMb)} before syncing)`],
      ['Longest event-loop stall', `${stallMs.toFixed(1)} ms`, `< ${targets.stallMs} ms`, results.met.stall ? 'met' : 'MISSED'],
      ['  of which p99', `${results.stallP99Ms} ms`, '', ''],
      ['  longest store call', `${results.longestStoreCallMs} ms`, '', `${results.longestStoreCall} (main thread)`],
      ['Load average (1 min)', `${loadBefore[0]} → ${results.loadAverage.after[0]}`, '', `${results.cpus} CPUs, shared`],
    ]
    printTable(rowsOut)
    writeResults('sync', results)
    await writer.close()
    await client.close()
    closeDatabase(db)
  } finally {
    double.process.kill('SIGTERM')
    rmSync(directory, { recursive: true, force: true })
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`)
  process.exit(1)
})
