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
import type { OrderRecord } from '../../src/main/ordering-client/schemas'
import { createTestCore } from '../support/core'
import { printTable, writeResults } from './support'

const targetMs = 100
const { values } = parseArgs({ options: { orders: { type: 'string', default: '2000' }, runs: { type: 'string', default: '20' } } })
const orderCount = Number(values.orders)
const runs = Number(values.runs)

const states = [
  { id: 2, name: 'SUBMITTED' },
  { id: 8, name: 'SHIPPED' },
  { id: 23, name: 'CANCELLED' },
]
const start = new Date(2026, 0, 1, 9, 30).getTime()
const customerGuid = (customer: number) => `10000000-0000-4000-8000-${String(customer).padStart(12, '0')}`

/** Order i: 6 h after order i − 1, states in turn, 40 customers, every fifth with a PO. */
function order(index: number): OrderRecord {
  const customer = index % 40
  const state = states[index % states.length]!
  const at = new Date(start + index * 6 * 3_600_000).toISOString()
  return {
    id: 1000 + index,
    guid: `00000000-0000-4000-8000-${String(index).padStart(12, '0')}`,
    name: `SO-${10000 + index}`,
    po_no: index % 5 === 0 ? `PO-${70000 + index}` : null,
    order_state_id: state.id,
    Order_State: { id: state.id, guid: '', name: state.name },
    Vendor: { id: 500 + customer, guid: customerGuid(customer), name: `Customer ${customer}` },
    sub_total: 100,
    tax: 8.25,
    shipping: 15,
    labor: 0,
    other: 0,
    discount: 0,
    discount_total: 0,
    grand_total: 123.25,
    created_at: at,
    updated_at: at,
    Order_Items: [{ id: 1, item_no: 1, sku: 'DPR-10001', name: 'Dark roast 12 x 1 kg', qty: 3, net_price: 31.56, total: 94.68, catalog_item_id: 9 }],
  } as unknown as OrderRecord
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!

async function main(): Promise<void> {
  const core = createTestCore({ backgroundSync: false })
  try {
    const customers = Array.from({ length: 40 }, (_, customer) => ({
      customer: { id: 500 + customer, guid: customerGuid(customer), name: `Customer ${customer}`, active: true },
      connection: {},
      connectionDeletedAt: null,
    }))
    core.sync.store.applyCustomers(customers as never, { listingId: null, serverTime: null })
    core.sync.store.applyOrders(Array.from({ length: orderCount }, (_, index) => order(index)), { listingId: null, serverTime: null })

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
      figures.push({ query: label, p50Ms: Math.round(percentile(timings, 50) * 10) / 10, maxMs: Math.round(timings.at(-1)! * 10) / 10, total })
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
