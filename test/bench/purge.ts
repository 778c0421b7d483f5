/**
 * `npm run bench:purge`: how long the purge after a sync holds the main thread. A database file with
 * N sent orders past their retention (each with a frozen draft and request of about 2 KB, as real
 * ones are) and N/4 quotes long expired, plus as many of each that stay; the purge runs as the app
 * runs it, and the bench prints its longest slice, the event loop's longest delay meanwhile, and
 * rows removed per second, and each slice's wall time on the main thread (p50, p99, longest). The
 * promise is 20 ms at most per slice; the figures are printed and written, never a pass mark for the
 * suite.
 *
 * The purge runs as the app runs it: once a slice has removed rows, the slices run on a thread of
 * their own (src/main/housekeeping/purge.ts), and the main thread only posts them; the figure that says
 * whether the purge holds the main process is then the event loop's delay. `--on main` runs every
 * slice on the main thread, as before, for comparison.
 *
 * Options: --orders N (default 20000), --on thread|main (default thread).
 */
import { randomUUID } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { monitorEventLoopDelay, performance } from 'node:perf_hooks'
import { parseArgs } from 'node:util'
import { Purge } from '../../src/main/housekeeping/purge'
import { sourcePurgeWorker, startPurgeThread } from '../../src/main/housekeeping/purge-slices'
import { closeDatabase, openDatabase } from '../../src/main/db/database'
import { databaseSize } from '../../src/main/db/storage'
import { DraftRepository } from '../../src/main/orders/drafts'
import { Outbox } from '../../src/main/orders/outbox/outbox'
import { silentLogger, systemClock } from '../../src/main/ports'
import { QuoteRepository } from '../../src/main/quotes/repository'
import { printTable, writeResults } from './support'

const budgetMs = 20
const { values } = parseArgs({
  options: { orders: { type: 'string', default: '20000' }, on: { type: 'string', default: 'thread' } },
})
const orderCount = Number(values.orders)
if (values.on !== 'thread' && values.on !== 'main') throw new Error('--on is thread or main')
const purgeWorker = sourcePurgeWorker()
const onThread = values.on === 'thread' ? purgeWorker : null

/** The p-th percentile (nearest rank) of the values. */
function percentile(values: number[], p: number): number {
  if (values.length === 0) return 0
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!
}
const tenth = (ms: number) => Math.round(ms * 10) / 10
const quoteCount = Math.round(orderCount / 4)

async function main(): Promise<void> {
  const directory = mkdtempSync(join(tmpdir(), 'satchel-bench-purge-'))
  const db = openDatabase(join(directory, 'satchel.db'))
  try {
    const old = new Date(Date.now() - 30 * 31 * 86_400_000).toISOString()
    const recent = new Date(Date.now() - 86_400_000).toISOString()
    const lines = Array.from({ length: 8 }, (_, i) => ({
      lineId: `l${i}`,
      catalogItemGuid: randomUUID(),
      sku: `SKU-${i}`,
      name: `A catalog item with a name ${i}`,
      qty: 3,
      note: '',
      unitPriceSeen: 12.5,
      qtyAvailableSeen: null,
    }))
    const insertEntry = db.prepare(
      `INSERT INTO outbox (api_guid, state, customer_guid, customer_name, catalog_guid, rep_totals, queued_at, updated_at, sent_at, attempts, result)
       VALUES (?, 'sent', ?, 'Harbor Hardware', ?, '{"subTotal":100,"lineCount":8}', ?, ?, ?, 1, '{"orderGuid":"x","orderName":"SO-1","orderStateId":2,"subTotal":100,"grandTotal":100,"createdCustomer":null}')`,
    )
    const insertPayload = db.prepare('INSERT INTO outbox_payloads (entry_id, draft, request) VALUES (?, ?, ?)')
    db.transaction(() => {
      for (let i = 0; i < orderCount * 2; i++) {
        const at = i % 2 === 0 ? old : recent
        const apiGuid = randomUUID()
        const { lastInsertRowid } = insertEntry.run(apiGuid, randomUUID(), randomUUID(), at, at, at)
        const draft = JSON.stringify({ id: i + 1, apiGuid, lines, poNo: 'PO-1', note: 'Deliver to the back door.' })
        insertPayload.run(
          lastInsertRowid,
          draft,
          JSON.stringify({ vendorGuid: null, body: { order: { api_guid: apiGuid }, items: lines } }),
        )
      }
    }).immediate()
    const quotes = new QuoteRepository(db)
    for (let i = 0; i < quoteCount * 2; i++) {
      quotes.create(
        {
          customerGuid: randomUUID(),
          customerName: 'Harbor Hardware',
          catalogGuid: randomUUID(),
          priceGroupGuid: null,
          priceGroupName: null,
          poNo: '',
          note: '',
          shippingInstructions: '',
          shipTo: null,
          lines: lines.map((line) => ({
            lineId: line.lineId,
            catalogItemGuid: line.catalogItemGuid,
            sku: line.sku,
            name: line.name,
            qty: 3,
            note: '',
            unitPrice: 12.5,
            lineTotal: 37.5,
          })),
          subTotal: 300,
          validUntil: i % 2 === 0 ? '2024-01-31' : '2999-01-31',
          pricesAsOf: null,
          convertedAt: null,
          convertedDraftId: null,
        },
        old,
      )
    }
    db.pragma('wal_checkpoint(TRUNCATE)')
    const sizeBefore = databaseSize(db)

    const drafts = new DraftRepository(db, systemClock)
    const purge = new Purge({
      db,
      outbox: new Outbox(db, drafts, systemClock),
      drafts,
      quotes,
      settings: () => ({ keepSentOrdersMonths: 24, keepExpiredQuotesDays: 90 }),
      clock: systemClock,
      logger: silentLogger,
      ...(onThread ? { purgeThread: () => startPurgeThread(onThread, { databasePath: db.name }) } : {}),
    })
    // The machine's own share: the event loop's delays while it does nothing, for as long.
    const idle = monitorEventLoopDelay({ resolution: 1 })
    idle.enable()
    await new Promise((resolve) => setTimeout(resolve, 3000))
    idle.disable()
    const delay = monitorEventLoopDelay({ resolution: 1 })
    delay.enable()
    const started = performance.now()
    const record = await purge.run()
    const tookMs = performance.now() - started
    delay.disable()
    const longestDelayMs = delay.max / 1e6
    const removed = record.sentOrders + record.quotes
    const figures = {
      at: new Date().toISOString(),
      orders: orderCount,
      quotes: quoteCount,
      removed: { sentOrders: record.sentOrders, quotes: record.quotes },
      databaseBytes: sizeBefore.sizeBytes,
      bytesFreed: record.bytesFreed,
      tookMs: Math.round(tookMs),
      rowsPerSecond: Math.round(removed / (tookMs / 1000)),
      slicesRunOn: onThread ? 'the purge’s thread, once rows were removed' : 'the main thread',
      slices: purge.sliceMs.length,
      slicesOnThread: purge.slicesOnThread,
      mainThreadSliceWallMs: {
        count: purge.mainThreadSliceMs.length,
        p50: tenth(percentile(purge.mainThreadSliceMs, 50)),
        p99: tenth(percentile(purge.mainThreadSliceMs, 99)),
        max: tenth(percentile(purge.mainThreadSliceMs, 100)),
      },
      sliceWallMs: {
        p50: tenth(percentile(purge.sliceMs, 50)),
        p99: tenth(percentile(purge.sliceMs, 99)),
        max: tenth(percentile(purge.sliceMs, 100)),
      },
      longestSliceMs: Math.round(purge.longestSliceMs * 10) / 10,
      longestEventLoopDelayMs: Math.round(longestDelayMs * 10) / 10,
      eventLoopDelayP99Ms: Math.round((delay.percentile(99) / 1e6) * 10) / 10,
      idle: {
        longestEventLoopDelayMs: Math.round((idle.max / 1e6) * 10) / 10,
        eventLoopDelayP99Ms: Math.round((idle.percentile(99) / 1e6) * 10) / 10,
      },
    }
    process.stdout.write(
      `purge of ${orderCount} of ${orderCount * 2} sent orders and ${quoteCount} of ${quoteCount * 2} quotes, database ${(sizeBefore.sizeBytes / 1e6).toFixed(1)} MB, slices on ${figures.slicesRunOn}\n`,
    )
    printTable([
      [
        'removed',
        `${figures.removed.sentOrders} sent orders, ${figures.removed.quotes} quotes in ${figures.tookMs} ms (${figures.rowsPerSecond} rows/s)`,
        '',
        '',
      ],
      ['freed for reuse', `${(figures.bytesFreed / 1e6).toFixed(1)} MB`, '', ''],
      [
        'slice wall time, every slice',
        `p50 ${figures.sliceWallMs.p50} ms, p99 ${figures.sliceWallMs.p99} ms, longest ${figures.sliceWallMs.max} ms (${figures.slices} slices, ${figures.slicesOnThread} on the purge's thread)`,
        '',
        '',
      ],
      [
        'slices on the main thread, wall p50',
        `${figures.mainThreadSliceWallMs.p50} ms (${figures.mainThreadSliceWallMs.count} slices)`,
        '',
        '',
      ],
      [
        'slices on the main thread, wall p99',
        `${figures.mainThreadSliceWallMs.p99} ms`,
        `<= ${budgetMs} ms`,
        figures.mainThreadSliceWallMs.p99 <= budgetMs ? 'met' : 'MISSED',
      ],
      [
        'slices on the main thread, wall longest',
        `${figures.mainThreadSliceWallMs.max} ms`,
        `<= ${budgetMs} ms`,
        figures.mainThreadSliceWallMs.max <= budgetMs ? 'met' : 'MISSED',
      ],
      [
        'longest event-loop delay',
        `${figures.longestEventLoopDelayMs} ms`,
        `<= ${budgetMs} ms`,
        figures.longestEventLoopDelayMs <= budgetMs ? 'met' : 'MISSED',
      ],
      [
        'event-loop delay, p99',
        `${figures.eventLoopDelayP99Ms} ms`,
        `<= ${budgetMs} ms`,
        figures.eventLoopDelayP99Ms <= budgetMs ? 'met' : 'MISSED',
      ],
      [
        'the same, idle for 3 s before',
        `longest ${figures.idle.longestEventLoopDelayMs} ms, p99 ${figures.idle.eventLoopDelayP99Ms} ms`,
        '',
        '',
      ],
    ])
    writeResults('purge', figures)
  } finally {
    closeDatabase(db)
    rmSync(directory, { recursive: true, force: true })
  }
}

void main()
