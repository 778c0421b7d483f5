/**
 * `npx tsx test/bench/delta-at-size.ts --db PATH --url URL --key K --secret S [--changes 10000]`
 *
 * A delta against a database that is already synced (a copy of the million-item one, say), without
 * the 17 minutes of `bench:sync -- --size 1000000`: makes the changes on a running double (started
 * with --control, the same seed as the database's first sync), runs one sync as the app does (the
 * writer thread, the engine) and prints where its time went: each writer request kind and the
 * prunes on this thread, summed. Changes as bench:sync makes them: nine tenths updated (stock and
 * name), a twentieth soft-deleted, as many new.
 */
import { parseArgs } from 'node:util'
import { performance } from 'node:perf_hooks'
import { closeDatabase, openDatabase } from '../../src/main/db/database'
import { ServiceClient } from '../../src/main/ordering-client/client'
import { Retention } from '../../src/main/local/retention'
import { LocalCopy } from '../../src/main/local/copy'
import { SyncEngine } from '../../src/main/sync/engine'
import { sourceSyncThread, startWorkerWriter, type PageWriter } from '../../src/main/sync/page-writer'
import { control, controlGet, type Double } from './support'

async function eachLimited<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) await work(items[next++]!)
    }),
  )
}

/** Sums the time of each call of `object[name]` under `label`. */
function timed<T extends object>(
  object: T,
  names: (keyof T)[],
  into: Map<string, { ms: number; calls: number }>,
): void {
  for (const name of names) {
    const original = (object[name] as (...args: unknown[]) => unknown).bind(object)
    ;(object as Record<keyof T, unknown>)[name] = (...args: unknown[]) => {
      const started = performance.now()
      const note = () => {
        const entry = into.get(String(name)) ?? { ms: 0, calls: 0 }
        entry.ms += performance.now() - started
        entry.calls++
        into.set(String(name), entry)
      }
      const result = original(...args)
      if (result instanceof Promise) return result.finally(note)
      note()
      return result
    }
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      db: { type: 'string' },
      url: { type: 'string' },
      key: { type: 'string' },
      secret: { type: 'string' },
      changes: { type: 'string', default: '10000' },
      skip: { type: 'string', default: '1' },
    },
    strict: true,
  })
  if (!values.db || !values.url || !values.key || !values.secret)
    throw new Error('--db, --url, --key and --secret are required')
  const double = { url: values.url, apiKey: values.key, apiSecret: values.secret } as Double
  const changes = Number(values.changes)
  const db = openDatabase(values.db)
  const liveItems =
    db.prepare<[], number>('SELECT count(*) FROM catalog_item_rows WHERE deleted_at IS NULL').pluck().get() ?? 0
  const picked = db
    .prepare<[number, number, number], string>(
      'SELECT guid FROM catalog_item_rows WHERE deleted_at IS NULL AND local_id % ? = ? LIMIT ?',
    )
    .pluck()
    .all(Math.max(1, Math.floor(liveItems / (changes * 0.95))), Number(values.skip), Math.round(changes * 0.95))
  const catalogs = ((await controlGet(double, 'catalogs')) as { guid: string; deleted_at: string | null }[])
    .filter((c) => c.deleted_at === null)
    .map((c) => c.guid)
  const updated = Math.round(changes * 0.9)
  const added = Math.round(changes * 0.05)
  const started = performance.now()
  await eachLimited(picked.slice(0, updated), 8, async (guid) => {
    await control(double, 'update', {
      kind: 'catalogItem',
      guid,
      patch: { qty_on_hand: Math.floor(Math.random() * 500), name: `Bench changed ${guid.slice(0, 8)}` },
    })
  })
  await eachLimited(
    picked.slice(updated, updated + added),
    8,
    async (guid) => void (await control(double, 'softDelete', { kind: 'catalogItem', guid })),
  )
  await eachLimited(
    Array.from({ length: added }, (_, index) => catalogs[index % catalogs.length]!),
    8,
    async (catalogGuid) => void (await control(double, 'insertCatalogItem', { catalogGuid, fields: {} })),
  )
  process.stdout.write(
    `${changes} changes made on the double in ${((performance.now() - started) / 1000).toFixed(1)} s (${liveItems} live items here)\n`,
  )

  const client = new ServiceClient({
    connection: { baseUrl: double.url, auth: { kind: 'apiKey', apiKey: double.apiKey, apiSecret: double.apiSecret } },
  })
  const store = new LocalCopy(db, new Retention(db))
  const writer = await startWorkerWriter(sourceSyncThread, { databasePath: values.db })
  const spent = new Map<string, { ms: number; calls: number }>()
  timed(
    writer,
    [
      'applyCatalogItems',
      'applyCustomers',
      'applyOrders',
      'countRows',
      'recountItems',
      'finishBulk',
      'checkpoint',
    ] as (keyof PageWriter)[],
    spent,
  )
  timed(store, ['pruneUnlistedChunk', 'beginRun', 'completeRun', 'recordRun'] as (keyof LocalCopy)[], spent)
  // When the last reply came in and the last page was written, from the run's start.
  const last = { fetched: 0, written: 0 }
  let syncStarted = 0
  const listItems = client.listCatalogItems.bind(client)
  client.listCatalogItems = async (...args) => {
    const page = await listItems(...args)
    last.fetched = performance.now() - syncStarted
    return page
  }
  const applyItems = writer.applyCatalogItems
  writer.applyCatalogItems = async (...args) => {
    const counts = await applyItems(...args)
    last.written = performance.now() - syncStarted
    return counts
  }
  const engine = new SyncEngine({
    copy: store,
    writer,
    source: client,
    clock: { now: () => Date.now() },
    pageSize: 100,
    concurrency: 4,
  })
  // This process's peak resident memory over the run (both threads), sampled as bench:sync does.
  let peakRss = process.memoryUsage.rss()
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage.rss())), 50)
  syncStarted = performance.now()
  const report = await engine.run()
  const ms = performance.now() - syncStarted
  clearInterval(sampler)
  if (!report.ok) throw new Error(`sync failed: ${report.error?.message}`)
  const items = report.resources.catalogItems
  process.stdout.write(
    `Delta: ${(ms / 1000).toFixed(2)} s; items fetched ${items.fetched}, upserted ${items.upserted}, deleted ${items.deleted}\n`,
  )
  process.stdout.write(`  peak RSS ${(peakRss / 2 ** 20).toFixed(0)} MB\n`)
  process.stdout.write(
    `  last item page fetched at ${(last.fetched / 1000).toFixed(2)} s, written at ${(last.written / 1000).toFixed(2)} s\n`,
  )
  // Writer requests overlap one another and the fetches: their sums say where the writer was busy.
  for (const [name, entry] of [...spent].sort((a, b) => b[1].ms - a[1].ms))
    process.stdout.write(`  ${name.padEnd(20)} ${entry.ms.toFixed(0).padStart(7)} ms over ${entry.calls} calls\n`)
  await writer.close()
  await client.close()
  closeDatabase(db)
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`)
  process.exit(1)
})
