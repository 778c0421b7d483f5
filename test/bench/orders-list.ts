/**
 * `npm run bench:orders`: how long the orders list takes to answer a rep's search or filter with
 * 2,000 orders in the local copy, in the core (no service, no renderer). The target is an answer
 * within a keystroke, 100 ms; the figures are printed and written, never a pass mark for the suite.
 *
 * Options: --orders N (default 2000), --runs N per query (default 20).
 */
import { performance } from 'node:perf_hooks'
import { parseArgs } from 'node:util'
import { call } from '../../src/main/core/handlers'
import { createTestCore } from '../support/core'
import { seedOrderHistory } from '../support/order-history'
import { printTable, writeResults } from './support'

const targetMs = 100
const { values } = parseArgs({
  options: { orders: { type: 'string', default: '2000' }, runs: { type: 'string', default: '20' } },
})
const orderCount = Number(values.orders)
const runs = Number(values.runs)

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!

async function main(): Promise<void> {
  const core = createTestCore({ backgroundSync: false })
  try {
    seedOrderHistory(core, orderCount)

    const queries: { label: string; argument: Record<string, unknown> }[] = [
      { label: 'first page', argument: { limit: 200 } },
      { label: 'order number "SO-1"', argument: { query: 'SO-1', limit: 200 } },
      { label: 'customer "customer 3"', argument: { query: 'customer 3', limit: 200 } },
      { label: 'state and day', argument: { stateId: 2, from: '2026-02-01', limit: 200 } },
      { label: 'a miss "zzz"', argument: { query: 'zzz', limit: 200 } },
    ]
    const figures: { query: string; p50Ms: number; maxMs: number; total: number }[] = []
    for (const { label, argument } of queries) {
      const timings: number[] = []
      let total = 0
      for (let run = 0; run < runs; run++) {
        const started = performance.now()
        const result = await call(core.handlers, 'listOrders', argument as never)
        timings.push(performance.now() - started)
        if (!result.ok) throw new Error(`listOrders ${JSON.stringify(argument)}: ${result.error.message}`)
        total = result.value.total
      }
      timings.sort((a, b) => a - b)
      figures.push({
        query: label,
        p50Ms: Math.round(percentile(timings, 50) * 10) / 10,
        maxMs: Math.round(timings.at(-1)! * 10) / 10,
        total,
      })
    }
    process.stdout.write(`orders list with ${orderCount} orders, ${runs} runs per query\n`)
    printTable(
      figures.map((figure) => [
        `${figure.query} (${figure.total} hits)`,
        `p50 ${figure.p50Ms} ms, max ${figure.maxMs} ms`,
        `< ${targetMs} ms`,
        figure.maxMs < targetMs ? 'met' : 'MISSED',
      ]),
    )
    const results = { at: new Date().toISOString(), orders: orderCount, runs, targetMs, figures }
    writeResults('orders-list', results)
  } finally {
    await core.close()
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`)
  process.exitCode = 1
})
