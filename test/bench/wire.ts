/**
 * Bytes on the wire, for `npm run bench:sync`: Satchel's first sync through a loopback proxy that
 * counts every byte (link.ts), against the JSON the double wrote for it (its replyBytes); the same
 * first sync over a link shaped to 10 Mbit/s and an 80 ms round trip, against the time its bytes
 * take at that bandwidth; and the same link cut once (every connection dropped, none taken for 3 s)
 * when half the item pages are in, with the bytes that cost fetched again.
 */
import { cpus } from 'node:os'
import { join } from 'node:path'
import type { SyncReport } from '../../src/shared/synced'
import { startLink, type Link } from './link'
import type { SyncEngine } from '../../src/main/sync/engine'
import { control, controlGet, processCpuSeconds, type Double } from './support'

const shapedBitsPerSecond = 10_000_000
const shapedOneWayMs = 40
const cutForMs = 3000

export interface WireFigures {
  /** The first sync through a counting link, at the bench's size. */
  wireBytes: number
  jsonBytes: number
  replies: number
  itemPages: number
  catalogs: number
  /** The shaped run, at `shapedSize` (the bench's size, or bench size above 200,000 items). */
  shapedSize: string
  shaped: {
    ms: number
    lastByteMs: number
    wireBytes: number
    ratio: number
    cpu: Run['cpu']
    /** Time the link could have carried bytes to Satchel and did not, up to its last byte (linkIdleMs). */
    idleMs: number
  }
  cut: {
    ms: number
    wireBytes: number
    /** Bytes the link held when it was cut: sent by the service, never delivered, not counted. */
    droppedBytes: number
    fetchedAgainBytes: number
    fetchedAgainPages: number
    ok: boolean
  }
}

/** Satchel as the app runs it against a double, in a fresh database (sync.ts's satchelAgainst). */
export type OpenSatchel = (
  double: Double,
  path: string,
  concurrency: number,
) => Promise<{ engine: SyncEngine; close(): Promise<void> }>

interface Run {
  ms: number
  /** CPU seconds the double and this process (Satchel and the link's thread) used during the run. */
  cpu: { double: number; satchel: number }
  /** From the start to the last byte the link delivered; the rest of `ms` was Satchel's own work. */
  lastByteMs: number
  /** The run's start, epoch ms (the link's timeline counts from its own). */
  startedAt: number
  report: SyncReport
  link: Link
}

async function firstSyncThrough(
  satchelAgainst: OpenSatchel,
  double: Double,
  path: string,
  concurrency: number,
  link: Link,
  onItemPages?: (done: number) => void,
): Promise<Run> {
  const satchel = await satchelAgainst({ ...double, url: link.url }, path, concurrency)
  const pages = new Map<string, number>()
  const doubleCpuBefore = processCpuSeconds(double.process.pid)
  const satchelCpuBefore = process.cpuUsage()
  const started = performance.now()
  try {
    const report = await satchel.engine.run({
      onProgress: (progress) => {
        if (progress.resource !== 'catalogItems') return
        pages.set(progress.scope, Math.max(pages.get(progress.scope) ?? 0, progress.pagesDone))
        onItemPages?.([...pages.values()].reduce((sum, done) => sum + done, 0))
      },
    })
    const satchelCpu = process.cpuUsage(satchelCpuBefore)
    return {
      ms: performance.now() - started,
      lastByteMs: link.lastDownAt - started,
      startedAt: started + performance.timeOrigin,
      cpu: {
        double: processCpuSeconds(double.process.pid) - doubleCpuBefore,
        satchel: (satchelCpu.user + satchelCpu.system) / 1e6,
      },
      report,
      link,
    }
  } finally {
    await satchel.close()
    await link.close()
  }
}

/** Bytes on the wire and of JSON in a first sync against `double` (a fresh database). */
export async function measureWireBytes(
  satchelAgainst: OpenSatchel,
  double: Double,
  directory: string,
  concurrency: number,
): Promise<Pick<WireFigures, 'wireBytes' | 'jsonBytes' | 'replies' | 'itemPages' | 'catalogs'>> {
  process.stdout.write('Bytes on the wire: a first sync through a counting proxy…\n')
  await control(double, 'clearRequestLog', {})
  const counted = await firstSyncThrough(
    satchelAgainst,
    double,
    join(directory, 'wire-counted.db'),
    concurrency,
    await startLink({ target: double.url }),
  )
  const replies = (await controlGet(double, 'replyBytes')) as { replies: number; bodyBytes: number }
  process.stdout.write(
    `  ${mb(counted.link.down)} on the wire, ${mb(replies.bodyBytes)} of JSON, ${replies.replies} replies, ${(counted.ms / 1000).toFixed(1)} s\n`,
  )
  return {
    wireBytes: counted.link.down,
    jsonBytes: replies.bodyBytes,
    replies: replies.replies,
    itemPages: Math.ceil(counted.report.resources.catalogItems.fetched / 100),
    catalogs: counted.report.resources.catalogs.fetched,
  }
}

/** The shaped first sync, and the same link cut once, against `double` (of `size` items). */
export async function measureShapedLink(
  satchelAgainst: OpenSatchel,
  double: Double,
  size: string,
  directory: string,
  concurrency: number,
): Promise<Pick<WireFigures, 'shapedSize' | 'shaped' | 'cut'>> {
  process.stdout.write(
    `A first sync over ${shapedBitsPerSecond / 1e6} Mbit/s, ${2 * shapedOneWayMs} ms round trip (size ${size})…\n`,
  )
  const shapedLink = () =>
    startLink({ target: double.url, bitsPerSecond: shapedBitsPerSecond, oneWayMs: shapedOneWayMs })
  const shaped = await firstSyncThrough(
    satchelAgainst,
    double,
    join(directory, 'wire-shaped.db'),
    concurrency,
    await shapedLink(),
  )
  const shapedIdealMs = ((shaped.link.down * 8) / shapedBitsPerSecond) * 1000
  process.stdout.write(
    `  ${(shaped.ms / 1000).toFixed(1)} s for ${mb(shaped.link.down)} (${(shapedIdealMs / 1000).toFixed(1)} s at the bandwidth; last byte at ${(shaped.lastByteMs / 1000).toFixed(1)} s; link idle ${(linkIdleMs(shaped) / 1000).toFixed(1)} s; CPU: the double ${shaped.cpu.double.toFixed(1)} s, Satchel ${shaped.cpu.satchel.toFixed(1)} s); ok ${shaped.report.ok}\n`,
  )

  process.stdout.write('The same link, cut once at half the item pages…\n')
  const shapedItemPages = Math.ceil(shaped.report.resources.catalogItems.fetched / 100)
  const cutLink = await shapedLink()
  let cut = false
  const cutRun = await firstSyncThrough(
    satchelAgainst,
    double,
    join(directory, 'wire-cut.db'),
    concurrency,
    cutLink,
    (done) => {
      if (cut || done < shapedItemPages / 2) return
      cut = true
      cutLink.cut(cutForMs)
    },
  )
  const fetchedAgainBytes = Math.max(0, cutRun.link.down - shaped.link.down)
  const pageBytes = shaped.link.down / Math.max(1, shapedItemPages)
  process.stdout.write(
    `  ${(cutRun.ms / 1000).toFixed(1)} s, ${mb(cutRun.link.down)}; fetched again ${(fetchedAgainBytes / 1e3).toFixed(1)} KB (${(fetchedAgainBytes / pageBytes).toFixed(1)} pages); lost in the link at the cut ${mb(cutRun.link.dropped)}; ok ${cutRun.report.ok}\n`,
  )
  return {
    shapedSize: size,
    shaped: {
      ms: shaped.ms,
      lastByteMs: shaped.lastByteMs,
      wireBytes: shaped.link.down,
      ratio: shaped.ms / shapedIdealMs,
      cpu: shaped.cpu,
      idleMs: linkIdleMs(shaped),
    },
    cut: {
      ms: cutRun.ms,
      wireBytes: cutRun.link.down,
      droppedBytes: cutRun.link.dropped,
      fetchedAgainBytes,
      fetchedAgainPages: fetchedAgainBytes / pageBytes,
      ok: cutRun.report.ok,
    },
  }
}

/**
 * The link's idle time, in the sum of each 100 ms's unused share, up to the last byte it delivered:
 * where a shaped sync fell short of the link (scope boundaries, the paging waiting on the writer).
 */
function linkIdleMs(run: Run): number {
  const { startedAt, binMs, down } = run.link.timeline()
  const capacity = (shapedBitsPerSecond / 8) * (binMs / 1000)
  // From the bin the run started in: the link was up before Satchel opened its database.
  const first = Math.max(0, Math.floor((run.startedAt - startedAt) / binMs))
  return down.slice(first).reduce((idle, bytes) => idle + Math.max(0, 1 - bytes / capacity) * binMs, 0)
}

function mb(bytes: number): string {
  return `${(bytes / 1e6).toFixed(1)} MB`
}

/** The table's rows for the wire (Measure, Value, Target, Result). */
export function wireTableRows(figures: WireFigures, size: string): string[][] {
  const ratio = figures.wireBytes / figures.jsonBytes
  const sampled = figures.shapedSize !== size ? ` (measured at ${figures.shapedSize} items, a sample of the size)` : ''
  return [
    [
      'first sync: wire bytes ÷ JSON bytes',
      `${mb(figures.wireBytes)} ÷ ${mb(figures.jsonBytes)} = ${ratio.toFixed(3)}`,
      '≤ 0.15',
      ratio <= 0.15 ? 'ok' : 'MISSED',
    ],
    [
      `first sync over 10 Mbit/s + 80 ms: time ÷ (wire ÷ bandwidth)${sampled}`,
      `${(figures.shaped.ms / 1000).toFixed(1)} s ÷ ${((figures.shaped.wireBytes * 8) / shapedBitsPerSecond).toFixed(1)} s = ${figures.shaped.ratio.toFixed(2)}`,
      '≤ 1.15',
      `${figures.shaped.ratio <= 1.15 ? 'ok' : 'MISSED'} (last byte at ${(figures.shaped.lastByteMs / 1000).toFixed(1)} s; link idle ${(figures.shaped.idleMs / 1000).toFixed(1)} s; CPU used: the double ${figures.shaped.cpu.double.toFixed(1)} s, Satchel ${figures.shaped.cpu.satchel.toFixed(1)} s, of ${cpus().length} × ${(figures.shaped.ms / 1000).toFixed(1)} s)`,
    ],
    [
      `bytes fetched again after a cut at half the item pages${sampled}`,
      `${(figures.cut.fetchedAgainBytes / 1e3).toFixed(1)} KB = ${figures.cut.fetchedAgainPages.toFixed(1)} pages${figures.cut.ok ? '' : ' (run failed)'}`,
      `≤ ${figures.catalogs} (one page per catalog)`,
      `${figures.cut.ok && figures.cut.fetchedAgainPages <= figures.catalogs ? 'ok' : 'MISSED'} (bytes delivered; ${mb(figures.cut.droppedBytes)} in the link at the cut, never delivered)`,
    ],
  ]
}
