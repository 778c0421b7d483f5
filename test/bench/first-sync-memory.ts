/**
 * `npm run bench:first-sync-memory -- --size 1000000`: one first sync against the double, and where
 * its peak RSS goes. bench:sync runs the first sync among a dozen other measures (16 minutes at a
 * million items); this runs only that one (a few minutes), as bench:sync does it (its satchelAgainst
 * and measureSync: the writer thread, the app's concurrency, 50 ms samples), and prints:
 * - peak RSS, the RSS before the sync, the longest event-loop stall and items/s;
 * - at the peak: the main thread's V8 heap (used/total), external and array buffers, the writer
 *   thread's V8 heap (it answers on a port of its own, between its transactions), the process's
 *   anonymous and file-backed resident memory (/proc), and what is left for native allocations
 *   (SQLite's page caches and sorter, undici, malloc's arenas);
 * - each figure's own peak over the run, and the peak RSS by phase (scope, and what follows the last);
 * - SQLite's page caches as configured on each connection (cache_size × page size): better-sqlite3
 *   has no binding for sqlite3_memory_used, so this is the bound, not what was used.
 * Prints a table and writes JSON (with the samples) under test/bench/results/.
 *
 * Options: --size bench|demo|<items> (default 1000000), --concurrency N (default 6, the app's).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { getHeapSpaceStatistics } from 'node:v8'
import { MessageChannel, Worker, type MessagePort } from 'node:worker_threads'
import { sourceSyncThread, syncThreadOptions, type SyncThreadData } from '../../src/main/sync/page-writer'
import { bulkCacheSize } from '../../src/main/local/copy'
import { heapGrowingPercent } from '../../src/main/sync/heap-growth'
import { defaultConcurrency } from '../../src/main/sync/engine'
import type { SyncProgress } from '../../src/shared/synced'
import { bareInChild, liveCatalogGuids, measureSync, satchelAgainst } from './sync'
import { printTable, startDouble, writeResults } from './support'

/** What the writer thread says of its own isolate. */
interface WriterMemory {
  heapUsed: number
  heapTotal: number
  external: number
  arrayBuffers: number
  /** V8's malloced memory (outside the heap) and its peak. */
  malloced: number
  peakMalloced: number
}

interface Sample {
  ms: number
  phase: string
  rss: number
  /** /proc/self/status: anonymous and file-backed resident memory. */
  rssAnon: number | null
  rssFile: number | null
  heapUsed: number
  heapTotal: number
  external: number
  arrayBuffers: number
  writer: WriterMemory | null
  /** The main thread's V8 heap spaces, size (committed) by name. */
  spaces: Record<string, number>
  /** Where the anonymous memory lies (/proc/self/smaps), taken at each new peak of RSS and once a second: reading it costs milliseconds. */
  mappings?: Mappings | null
}

/**
 * Resident memory by kind of mapping: malloc's main heap (brk, the main thread's allocations), its
 * thread arenas (64 MB-aligned heaps: the writer thread's SQLite and others), file-backed mappings,
 * and what is left of the anonymous memory (V8's heaps, wasm memory, malloc's large mmapped blocks).
 */
interface Mappings {
  mallocMain: number
  mallocArenas: number[]
  file: number
  otherAnon: number
}

const arenaSpan = 64n * 2n ** 20n

function mappings(): Mappings | null {
  let text: string
  try {
    text = readFileSync('/proc/self/smaps', 'utf8')
  } catch {
    return null
  }
  const maps: { start: bigint; end: bigint; perms: string; inode: string; name: string; rss: number }[] = []
  for (const line of text.split('\n')) {
    const head = /^([0-9a-f]+)-([0-9a-f]+) (\S+) \S+ \S+ (\d+)\s*(.*)$/.exec(line)
    if (head) {
      maps.push({
        start: BigInt(`0x${head[1]}`),
        end: BigInt(`0x${head[2]}`),
        perms: head[3]!,
        inode: head[4]!,
        name: head[5]!.trim(),
        rss: 0,
      })
      continue
    }
    const rss = /^Rss:\s+(\d+) kB/.exec(line)
    if (rss && maps.length > 0) maps[maps.length - 1]!.rss = Number(rss[1]) * 1024
  }
  const result: Mappings = { mallocMain: 0, mallocArenas: [], file: 0, otherAnon: 0 }
  for (const [index, map] of maps.entries()) {
    const next = maps[index + 1]
    // A glibc arena: at a 64 MB boundary, its used part read-write and the rest of the 64 MB reserved.
    const arena =
      map.name === '' &&
      map.start % arenaSpan === 0n &&
      map.perms === 'rw-p' &&
      (map.end - map.start === arenaSpan ||
        (next?.start === map.end && next.perms === '---p' && next.end - map.start <= arenaSpan))
    if (map.name === '[heap]') result.mallocMain += map.rss
    else if (map.inode !== '0' || map.name.startsWith('/')) result.file += map.rss
    else if (arena) result.mallocArenas.push(map.rss)
    else result.otherAnon += map.rss
  }
  return result
}

const mib = 2 ** 20

/**
 * The writer thread as the app starts it (syncThreadOptions), with a port beside its own: a
 * request on it is answered with the thread's memory, between the thread's transactions. The port is
 * unref'd there, so the thread still ends when the writer closes.
 */
function writerWithMemoryPort(port: MessagePort): (data: SyncThreadData) => Worker {
  return (data) => {
    // The page reader is started by the same factory: it starts as the app starts it.
    if (data.role === 'reader') return sourceSyncThread(data)
    const resolve = createRequire(__filename).resolve
    const bootstrap = `
      const { workerData } = require('node:worker_threads')
      const v8 = require('node:v8')
      const port = workerData.memoryPort
      port.on('message', () => {
        const usage = process.memoryUsage()
        const heap = v8.getHeapStatistics()
        port.postMessage({ heapUsed: usage.heapUsed, heapTotal: usage.heapTotal, external: usage.external, arrayBuffers: usage.arrayBuffers, malloced: heap.malloced_memory, peakMalloced: heap.peak_malloced_memory })
      })
      port.unref()
      require(${JSON.stringify(resolve('tsx/cjs'))})
      require(${JSON.stringify(join(__dirname, '../../src/main/sync/writer-thread.ts'))})`
    const options = syncThreadOptions(data)
    return new Worker(bootstrap, {
      ...options,
      eval: true,
      workerData: { ...data, memoryPort: port },
      transferList: [...(options.transferList ?? []), port],
    })
  }
}

function procStatusKib(field: string): number | null {
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync('/proc/self/status', 'utf8'))
    return match ? Number(match[1]) * 1024 : null
  } catch {
    return null
  }
}

function mb(bytes: number | null | undefined): string {
  return bytes === null || bytes === undefined ? 'n/a' : `${(bytes / mib).toFixed(1)} MB`
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      size: { type: 'string', default: '1000000' },
      concurrency: { type: 'string', default: String(defaultConcurrency) },
    },
  })
  const size = values.size ?? '1000000'
  const concurrency = Number(values.concurrency)
  process.stdout.write(`Starting the double (size ${size}) in a child process…\n`)
  // As bench:sync: the double's reply cache on, filled by the warm-up (as a CDN would hold the pages).
  const double = await startDouble(size, { cacheReplies: true })
  const directory = mkdtempSync(join(tmpdir(), 'satchel-first-sync-memory-'))
  const channel = new MessageChannel()
  try {
    // As bench:sync does: a cold double serves its first pass slower, and a slower source leaves
    // fewer pages waiting to be written than the bench's first sync has.
    process.stdout.write('Warming the double up (one bare pass)…\n')
    // In br, as Satchel asks: the pages it will ask for are compressed now, once, and served cached.
    await bareInChild(double, await liveCatalogGuids(double), concurrency, true)
    const satchel = await satchelAgainst(
      double,
      join(directory, 'satchel.db'),
      concurrency,
      writerWithMemoryPort(channel.port2),
    )
    let writer: WriterMemory | null = null
    channel.port1.on('message', (memory: WriterMemory) => void (writer = memory))
    const pageSize = satchel.db.pragma('page_size', { simple: true }) as number
    const mainCacheKib = cacheKib(satchel.db.pragma('cache_size', { simple: true }) as number, pageSize)

    let phase = 'catalogs'
    let itemScopesDone = false
    const onProgress = (progress: SyncProgress) => {
      if (progress.resource === 'catalogItems') phase = 'catalog items'
      else if (progress.resource === 'orders') {
        phase = 'orders, index builds'
        itemScopesDone = true
      } else if (!itemScopesDone) phase = progress.resource
    }
    const samples: Sample[] = []
    const started = performance.now()
    let highest = 0
    const take = () => {
      const usage = process.memoryUsage()
      const newPeak = usage.rss > highest
      highest = Math.max(highest, usage.rss)
      samples.push({
        mappings: newPeak || samples.length % 20 === 0 ? mappings() : null,
        ms: Math.round(performance.now() - started),
        phase,
        rss: usage.rss,
        rssAnon: procStatusKib('RssAnon'),
        rssFile: procStatusKib('RssFile'),
        heapUsed: usage.heapUsed,
        heapTotal: usage.heapTotal,
        external: usage.external,
        arrayBuffers: usage.arrayBuffers,
        writer,
        spaces: Object.fromEntries(getHeapSpaceStatistics().map((space) => [space.space_name, space.space_size])),
      })
      channel.port1.postMessage('memory')
    }
    const before = process.memoryUsage.rss()
    take()
    const sampler = setInterval(take, 50)
    process.stdout.write('First sync…\n')
    const measured = await measureSync(satchel.engine, true, satchel.storeCalls, satchel.marks, {}, onProgress)
    phase = 'after'
    clearInterval(sampler)
    take()
    const items = measured.report.resources.catalogItems.upserted
    // The writer's map of items stored off their service id (DeferredItemIndexes' itemsOffTheirIds) held an
    // entry for each of these while the first sync ran: it must not grow with the catalog.
    const offTheirIds =
      satchel.db
        .prepare<[], number>('SELECT count(*) FROM catalog_item_rows WHERE id IS NULL OR local_id IS NOT id')
        .pluck()
        .get() ?? 0
    await satchel.close()

    const peak = samples.reduce((best, sample) => (sample.rss > best.rss ? sample : best))
    const peakMappings = peak.mappings
    const most = (pick: (sample: Sample) => number | null | undefined) =>
      Math.max(...samples.map((sample) => pick(sample) ?? 0))
    const phases = [...new Set(samples.map((sample) => sample.phase))].map((name) => {
      const of = samples.filter((sample) => sample.phase === name)
      const top = of.reduce((best, sample) => (sample.rss > best.rss ? sample : best))
      return {
        phase: name,
        peakRss: top.rss,
        fromMs: of[0]!.ms,
        toMs: of.at(-1)!.ms,
        mappings: top.mappings ?? null,
        heapTotal: top.heapTotal,
        writerHeapTotal: top.writer?.heapTotal ?? null,
      }
    })
    const jsAtPeak = peak.heapTotal + (peak.writer?.heapTotal ?? 0) + peak.arrayBuffers
    const results = {
      at: new Date().toISOString(),
      size,
      concurrency,
      node: process.version,
      items,
      ms: Math.round(measured.ms),
      itemsPerSecond: Math.round(items / (measured.itemScopesMs / 1000)),
      itemsOffTheirIds: offTheirIds,
      stallMs: +measured.stallMs.toFixed(1),
      longestStoreCallMs: +measured.longestStoreCallMs.toFixed(1),
      rssBeforeMb: +(before / mib).toFixed(1),
      peakRssMb: +(Math.max(measured.peakRssMb * mib, peak.rss) / mib).toFixed(1),
      atPeak: peak,
      peaks: {
        mainHeapUsed: most((sample) => sample.heapUsed),
        mainHeapTotal: most((sample) => sample.heapTotal),
        external: most((sample) => sample.external),
        arrayBuffers: most((sample) => sample.arrayBuffers),
        writerHeapUsed: most((sample) => sample.writer?.heapUsed),
        writerHeapTotal: most((sample) => sample.writer?.heapTotal),
        writerMalloced: most((sample) => sample.writer?.peakMalloced),
        rssAnon: most((sample) => sample.rssAnon),
      },
      sqliteCaches: { pageSize, mainKib: mainCacheKib, writerKib: -bulkCacheSize },
      heapGrowingPercent,
      phases,
      samples,
    }
    const rows = [
      [
        'First sync',
        `${(measured.ms / 1000).toFixed(1)} s`,
        `${items} items, ${results.itemsPerSecond} items/s on the item scopes`,
      ],
      [
        'Peak RSS',
        `${results.peakRssMb} MB`,
        `${results.rssBeforeMb} MB before the sync; at ${(peak.ms / 1000).toFixed(1)} s (${peak.phase})`,
      ],
      ['Longest event-loop stall', `${results.stallMs} ms`, `longest store call ${results.longestStoreCallMs} ms`],
      [
        'At the peak: RSS anonymous / file',
        `${mb(peak.rssAnon)} / ${mb(peak.rssFile)}`,
        'file: the binaries and libraries mapped',
      ],
      ['  main V8 heap used / total', `${mb(peak.heapUsed)} / ${mb(peak.heapTotal)}`, ''],
      [
        '  main heap spaces',
        Object.entries(peak.spaces)
          .filter(([, bytes]) => bytes >= mib)
          .map(([name, bytes]) => `${name.replace(/_space$/, '')} ${mb(bytes)}`)
          .join(', '),
        'committed',
      ],
      ['  external / array buffers', `${mb(peak.external)} / ${mb(peak.arrayBuffers)}`, 'main thread'],
      [
        '  writer V8 heap used / total',
        `${mb(peak.writer?.heapUsed)} / ${mb(peak.writer?.heapTotal)}`,
        `malloced ${mb(peak.writer?.malloced)}`,
      ],
      [
        '  anonymous, not a V8 heap or buffer',
        mb((peak.rssAnon ?? peak.rss) - jsAtPeak),
        'SQLite caches and sorter, undici, malloc arenas, V8 code and stacks',
      ],
      [
        '  malloc main heap / thread arenas',
        peakMappings
          ? `${mb(peakMappings.mallocMain)} / ${mb(peakMappings.mallocArenas.reduce((sum, bytes) => sum + bytes, 0))}`
          : 'n/a',
        peakMappings
          ? `arenas: ${peakMappings.mallocArenas.map((bytes) => (bytes / mib).toFixed(1)).join(', ')} MB; other anonymous ${mb(peakMappings.otherAnon)} (V8, wasm, large blocks)`
          : '',
      ],
      [
        'Peaks over the run: main heap used / total',
        `${mb(results.peaks.mainHeapUsed)} / ${mb(results.peaks.mainHeapTotal)}`,
        '',
      ],
      [
        '  writer heap used / total',
        `${mb(results.peaks.writerHeapUsed)} / ${mb(results.peaks.writerHeapTotal)}`,
        `V8 malloced peak ${mb(results.peaks.writerMalloced)}`,
      ],
      ['  external / array buffers', `${mb(results.peaks.external)} / ${mb(results.peaks.arrayBuffers)}`, ''],
      [
        'V8 old generation between full collections',
        `≤ ${1 + heapGrowingPercent / 100} × alive`,
        'sync/heap-growth.ts, set by the engine for the process',
      ],
      [
        'Items stored off their service id',
        String(offTheirIds),
        "the writer's itemsOffTheirIds held as many during the sync",
      ],
      [
        'SQLite page caches (configured)',
        `main ${(mainCacheKib / 1024).toFixed(1)} MB, writer ${(-bulkCacheSize / 1024).toFixed(1)} MB`,
        `page size ${pageSize} B; the bound, not what was used`,
      ],
      ...phases.map((at) => [
        `  phase: ${at.phase}`,
        `${mb(at.peakRss)}`,
        `${(at.fromMs / 1000).toFixed(1)}-${(at.toMs / 1000).toFixed(1)} s; heaps ${mb(at.heapTotal)} + writer ${mb(at.writerHeapTotal)}${at.mappings ? `; malloc ${mb(at.mappings.mallocMain)} + arenas ${mb(at.mappings.mallocArenas.reduce((sum, bytes) => sum + bytes, 0))}, other anon ${mb(at.mappings.otherAnon)}` : ''}`,
      ]),
    ]
    printTable(rows.map(([measure, value, notes]) => [measure!, value!, '', notes!]))
    writeResults('first-sync-memory', results)
  } finally {
    channel.port1.close()
    double.process.kill('SIGTERM')
    rmSync(directory, { recursive: true, force: true })
  }
}

/** A cache_size pragma's value in KiB (negative: KiB already; positive: pages). */
function cacheKib(cacheSize: number, pageSize: number): number {
  return cacheSize < 0 ? -cacheSize : (cacheSize * pageSize) / 1024
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`)
  process.exit(1)
})
