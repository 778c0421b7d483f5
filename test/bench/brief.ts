/**
 * `npm run bench:brief`: a customer's brief at bench size, in the core (no renderer). The double's
 * bench data (100,000 items, 20,000 customers, 2,000 orders) with its opt-in history: one customer with
 * 500 orders of 10 lines (5,000 lines) in 24 months. Prints, never judges (the issue asks ≤ 150 ms):
 *
 * - the time to read that customer's 24 months (`refreshCustomerHistory`, nothing held) through a
 *   shaped link, 10 Mbit/s with an 80 ms round trip (link.ts, the sync bench's), and its bytes;
 * - getCustomerBrief's time for that customer: the app opened again on that database (nothing held
 *   in memory), the first look at them once another customer's brief was opened, then `--runs` more.
 *
 * Options: --size bench|<items> (default bench), --runs N (default 20), --mbit N (default 10).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { parseArgs } from 'node:util'
import { call } from '../../src/main/core/handlers'
import type { MethodInput, MethodOutput } from '../../src/shared/contract'
import type { MethodName } from '../../src/shared/channels'
import { startService } from '../service/index'
import type { ServiceSize } from '../service/types'
import { createTestCore } from '../support/core'
import { startLink } from './link'
import { writeResults } from './support'

const { values } = parseArgs({
  options: {
    size: { type: 'string', default: 'bench' },
    runs: { type: 'string', default: '20' },
    mbit: { type: 'string', default: '10' },
  },
})
const size: ServiceSize = values.size === 'bench' ? 'bench' : Number(values.size)
const runs = Number(values.runs)
const bitsPerSecond = Number(values.mbit) * 1_000_000
const oneWayMs = 40

const round = (ms: number) => Math.round(ms * 10) / 10
const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!

async function main(): Promise<void> {
  const service = await startService({ size, seed: 1, history: true, logBodies: false })
  const keptDirectory = mkdtempSync(join(tmpdir(), 'satchel-brief-bench-'))
  const link = await startLink({ target: service.url, bitsPerSecond, oneWayMs })
  let core = createTestCore({ backgroundSync: false })
  const api = async <M extends MethodName>(method: M, argument?: MethodInput<M>): Promise<MethodOutput<M>> => {
    const result = await call(core.handlers, method, argument)
    if (!result.ok) throw new Error(`${method} failed: ${result.error.code} ${result.error.message}`)
    return result.value
  }
  const connect = (baseUrl: string) =>
    api('saveConnection', {
      baseUrl,
      auth: { kind: 'apiKey', apiKey: service.credentials.apiKey, apiSecret: service.credentials.apiSecret },
    })
  try {
    // The seasonal customer: the one with the most orders.
    const counts = new Map<number, number>()
    for (const order of service.control.orders()) {
      const id = order.vendor_id as number
      counts.set(id, (counts.get(id) ?? 0) + 1)
    }
    const [customerId] = [...counts].sort((a, b) => b[1] - a[1])[0]!
    const customer = service.control.customers().find((record) => record.id === customerId)!
    const customerGuid = customer.guid as string

    process.stdout.write(`first sync of the ${String(size)} data set over loopback…\n`)
    await connect(service.url)
    const syncStarted = performance.now()
    const report = await api('syncNow', {})
    if (!report.ok) throw new Error(`the first sync failed: ${JSON.stringify(report.error)}`)
    const syncMs = performance.now() - syncStarted

    process.stdout.write(`the customer's 24 months over ${values.mbit} Mbit/s, ${2 * oneWayMs} ms round trip…\n`)
    await connect(link.url)
    const downBefore = link.down
    const readStarted = performance.now()
    const read = await api('refreshCustomerHistory', { customerGuid })
    const readMs = performance.now() - readStarted
    const readBytes = link.down - downBefore
    const orders = read.months.reduce((sum, month) => sum + month.orders + month.cancelled, 0)
    // A copy of the database as the read left it, for the app opened again below.
    const kept = join(keptDirectory, 'satchel.db')
    core.db.exec(`VACUUM INTO '${kept.replace(/'/g, "''")}'`)

    // The app opened again on that database: nothing of the brief is held in memory.
    await core.close()
    core = createTestCore({ backgroundSync: false, startFrom: kept })
    const timed = async (guid: string) => {
      const started = performance.now()
      await api('getCustomerBrief', { customerGuid: guid })
      return performance.now() - started
    }
    const coldMs = await timed(customerGuid)
    // Another customer's brief read the new items' times; this one's orders are read afresh.
    await core.close()
    core = createTestCore({ backgroundSync: false, startFrom: kept })
    const other = service.control.customers().find((record) => record.id !== customerId && record.active)!
    await timed(other.guid as string)
    const firstMs = await timed(customerGuid)
    const timings: number[] = []
    for (let run = 0; run < runs; run++) {
      const started = performance.now()
      await api('getCustomerBrief', { customerGuid })
      timings.push(performance.now() - started)
    }
    timings.sort((a, b) => a - b)

    const figures = {
      at: new Date().toISOString(),
      size: String(size),
      customer: { guid: customerGuid, name: customer.name, ordersIn24Months: orders, complete: read.history.complete },
      firstSyncMs: Math.round(syncMs),
      historyRead: {
        mbit: Number(values.mbit),
        roundTripMs: 2 * oneWayMs,
        ms: Math.round(readMs),
        bytesDown: readBytes,
      },
      brief: {
        coldMs: round(coldMs),
        firstMs: round(firstMs),
        p50Ms: round(percentile(timings, 50)),
        maxMs: round(timings.at(-1)!),
        runs,
      },
      topItems: read.topItems.length,
      lapsed: read.lapsed.length,
    }
    process.stdout.write(
      [
        '',
        `customer                      ${String(customer.name)}: ${orders} orders in 24 months (history ${read.history.complete ? 'whole' : 'cut short'})`,
        `first sync (loopback)         ${(syncMs / 1000).toFixed(1)} s`,
        `history read, ${values.mbit} Mbit/s       ${(readMs / 1000).toFixed(2)} s, ${Math.round(readBytes / 1024)} KB down`,
        `getCustomerBrief, app opened  ${round(coldMs)} ms (the catalog's creation times read first)`,
        `getCustomerBrief, first look  ${round(firstMs)} ms (the customer's orders read and valued)`,
        `getCustomerBrief, ${runs} more    p50 ${round(percentile(timings, 50))} ms, max ${round(timings.at(-1)!)} ms (the issue asks ≤ 150 ms)`,
        '',
      ].join('\n'),
    )
    writeResults('brief', figures)
  } finally {
    await core.close()
    await link.close()
    await service.close()
    rmSync(keptDirectory, { recursive: true, force: true })
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`)
  process.exitCode = 1
})
