/**
 * `npm run bench:flush`: 1,000 queued orders of 20 lines each, flushed by Satchel's outbox against the
 * ordering-service double (its own process, loopback), and the same request bodies posted bare.
 *
 * Satchel's flush does everything it does in the app: claims each entry in SQLite, posts the frozen
 * request through the service client, checks the reply, records the order in the outbox and the
 * local order history. The bare client posts the same bodies (with fresh api_guids, so the service
 * creates new orders rather than answering from its idempotency record) one at a time over the
 * same kind of keep-alive pool, since the outbox sends one order at a time. Bare runs before and
 * after Satchel's are averaged, to even out the double warming up and its growing order book.
 *
 * Options: --orders N (default 1000), --lines N (default 20).
 */
import { randomUUID } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { parseArgs } from 'node:util'
import { Pool } from 'undici'
import { createCore } from '../../src/main/core/compose'
import { call } from '../../src/main/core/handlers'
import { createMemoryKeychain } from '../../src/main/ports'
import type { OrderRequest } from '../../src/main/orders/request'
import { printTable, startDouble, writeResults, type Double } from './support'

const target = 1.2

interface Timed {
  ms: number
  /** This process's CPU time (user + system), in ms. */
  cpuMs: number
}

function cpuSince(start: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(start)
  return (used.user + used.system) / 1000
}

async function barePosts(double: Double, requests: OrderRequest[]): Promise<Timed> {
  const pool = new Pool(double.url, { connections: 1, pipelining: 1 })
  const cpu = process.cpuUsage()
  const started = performance.now()
  for (const request of requests) {
    const body = structuredClone(request.body) as { order: { api_guid: string } }
    body.order.api_guid = randomUUID()
    const response = await pool.request({
      method: 'POST',
      path: '/v1/orderWithItems',
      headers: {
        'content-type': 'application/json',
        'x-apiKey': double.apiKey,
        'x-apiSecret': double.apiSecret,
        ...(request.vendorGuid ? { vendorGuid: request.vendorGuid } : {}),
      },
      body: JSON.stringify(body),
    })
    const text = await response.body.text()
    if (response.statusCode !== 200) throw new Error(`bare POST failed: ${response.statusCode} ${text.slice(0, 300)}`)
  }
  const timed = { ms: performance.now() - started, cpuMs: cpuSince(cpu) }
  await pool.close()
  return timed
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { orders: { type: 'string', default: '1000' }, lines: { type: 'string', default: '20' } },
  })
  const orderCount = Number(values.orders)
  const lineCount = Number(values.lines)
  process.stdout.write('Starting the double (size demo) in a child process…\n')
  const double = await startDouble('demo')
  const directory = mkdtempSync(join(tmpdir(), 'satchel-bench-flush-'))
  const core = createCore({
    databasePath: join(directory, 'satchel.db'),
    appVersion: 'bench',
    backgroundSync: false,
    ports: { secrets: createMemoryKeychain() },
  })
  try {
    await call(core.handlers, 'saveConnection', {
      baseUrl: double.url,
      auth: { kind: 'apiKey', apiKey: double.apiKey, apiSecret: double.apiSecret },
    })
    const synced = await call(core.handlers, 'syncNow', {})
    if (!synced.ok || !synced.value.ok)
      throw new Error(`the sync before the benchmark failed: ${JSON.stringify(synced)}`)

    // Customers any rule would pass, and items whose stock cannot run out over thousands of orders.
    const db = core.db
    const customers = db
      .prepare<[], { guid: string; price_group_id: number }>(
        'SELECT guid, price_group_id FROM customers WHERE active = 1 AND require_po = 0 AND lock_catalog_id IS NULL AND deleted_at IS NULL AND price_group_id IS NOT NULL ORDER BY id',
      )
      .all()
    const catalogGuid = db
      .prepare<[], string>('SELECT guid FROM catalogs WHERE active = 1 AND deleted_at IS NULL ORDER BY id LIMIT 1')
      .pluck()
      .get()!
    const skusFor = new Map<number, string[]>()
    for (const customer of customers) {
      if (skusFor.has(customer.price_group_id)) continue
      const group = db
        .prepare<[string, number], string>('SELECT name FROM price_groups WHERE catalog_guid = ? AND id = ?')
        .pluck()
        .get(catalogGuid, customer.price_group_id)
      if (!group) continue
      skusFor.set(
        customer.price_group_id,
        db
          .prepare<[string, string], string>(
            `SELECT sku FROM catalog_items WHERE catalog_guid = ? AND active = 1 AND deleted_at IS NULL
             AND typeof(json_extract(pricing, '$."' || ? || '"')) IN ('integer', 'real')
             AND (has_inventory = 0 OR allow_backorder = 1) AND coalesce(min_order_qty, 0) <= 1 ORDER BY id LIMIT 200`,
          )
          .pluck()
          .all(catalogGuid, group),
      )
    }
    const eligible = customers.filter((c) => (skusFor.get(c.price_group_id)?.length ?? 0) >= lineCount)
    if (eligible.length === 0) throw new Error('no customer with enough orderable items')

    process.stdout.write(`Queueing ${orderCount} orders of ${lineCount} lines…\n`)
    const { desk, flusher } = core.orders
    const queueStarted = performance.now()
    for (let n = 0; n < orderCount; n++) {
      const customer = eligible[n % eligible.length]!
      const skus = skusFor.get(customer.price_group_id)!
      const draft = desk.createDraft({ customerGuid: customer.guid, catalogGuid, poNo: `PO-${n}` })
      desk.addLines(
        draft.id,
        Array.from({ length: lineCount }, (_, i) => ({
          sku: skus[(n * 7 + i) % skus.length]!,
          qty: 1 + ((n + i) % 5),
        })),
      )
      desk.send(draft.id)
    }
    const queueMs = performance.now() - queueStarted
    const requests = db
      .prepare<[], string>(
        "SELECT p.request FROM outbox o JOIN outbox_payloads p ON p.entry_id = o.id WHERE o.state = 'queued' ORDER BY o.id",
      )
      .pluck()
      .all()
      .map((json) => JSON.parse(json) as OrderRequest)

    process.stdout.write('Warming up (50 bare posts, not counted)…\n')
    await barePosts(double, requests.slice(0, 50))
    const before = await barePosts(double, requests)
    const bareBefore = before.ms
    process.stdout.write(`Bare posts: ${(bareBefore / 1000).toFixed(2)} s\n`)

    const flushCpu = process.cpuUsage()
    const flushStarted = performance.now()
    const report = await flusher.flush()
    const flushMs = performance.now() - flushStarted
    const flushCpuMs = cpuSince(flushCpu)
    if (report.sent !== orderCount)
      throw new Error(`Satchel sent ${report.sent} of ${orderCount}: ${JSON.stringify(report.summary)}`)
    process.stdout.write(`Satchel flush: ${(flushMs / 1000).toFixed(2)} s\n`)

    const after = await barePosts(double, requests)
    const bareAfter = after.ms
    process.stdout.write(`Bare posts again: ${(bareAfter / 1000).toFixed(2)} s\n`)
    const bareMs = (bareBefore + bareAfter) / 2
    const bareCpuPerOrder = (before.cpuMs + after.cpuMs) / 2 / orderCount
    const flushCpuPerOrder = flushCpuMs / orderCount
    const ratio = flushMs / bareMs

    const results = {
      at: new Date().toISOString(),
      node: process.version,
      orders: orderCount,
      linesPerOrder: lineCount,
      queue: { ms: Math.round(queueMs), ordersPerSecond: Math.round(orderCount / (queueMs / 1000)) },
      flush: {
        ms: Math.round(flushMs),
        ordersPerSecond: Math.round(orderCount / (flushMs / 1000)),
        cpuMsPerOrder: +flushCpuPerOrder.toFixed(3),
      },
      bare: {
        beforeMs: Math.round(bareBefore),
        afterMs: Math.round(bareAfter),
        ordersPerSecond: Math.round(orderCount / (bareMs / 1000)),
        cpuMsPerOrder: +bareCpuPerOrder.toFixed(3),
      },
      ratio: +ratio.toFixed(3),
      target,
      met: ratio <= target,
    }
    printTable([
      [
        `Satchel flush, ${orderCount} × ${lineCount} lines`,
        `${(flushMs / 1000).toFixed(2)} s`,
        '',
        `${results.flush.ordersPerSecond} orders/s`,
      ],
      [
        'Bare POSTs, same bodies',
        `${(bareMs / 1000).toFixed(2)} s`,
        '',
        `${results.bare.ordersPerSecond} orders/s (runs ${(bareBefore / 1000).toFixed(2)} s and ${(bareAfter / 1000).toFixed(2)} s)`,
      ],
      ['Ratio Satchel / bare', ratio.toFixed(2), `≤ ${target}`, results.met ? 'met' : 'MISSED'],
      [
        'Client CPU per order, Satchel / bare',
        `${flushCpuPerOrder.toFixed(2)} / ${bareCpuPerOrder.toFixed(2)} ms`,
        '',
        'this process only; the double runs in its own',
      ],
      [
        'Queueing (check + frozen request + commit)',
        `${(queueMs / 1000).toFixed(2)} s`,
        '',
        `${results.queue.ordersPerSecond} orders/s`,
      ],
    ])
    writeResults('flush', results)
  } finally {
    await core.close()
    double.process.kill('SIGTERM')
    rmSync(directory, { recursive: true, force: true })
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`)
  process.exit(1)
})
