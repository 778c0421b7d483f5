/**
 * `npm run bench:typed-searches -- --db PATH [--size N]`: the searches anyone may type (bench:sync's
 * list, pathologicalSearchTexts) timed one by one, through the screens' calls: the catalog's page of
 * rows, its capped count after it, and the customers' search, each after a search of other text. bench:sync prints them after a first sync among a
 * dozen other measures; this reads them from a database synced once and kept, so a change to the
 * search can be measured before and after on the same rows in a minute.
 * With `--size N` (and no database at PATH yet) it first syncs the double at N items into PATH.
 * PATH is migrated when opened: keep a copy if it is shared.
 */
import { existsSync } from 'node:fs'
import { loadavg } from 'node:os'
import { performance } from 'node:perf_hooks'
import { parseArgs } from 'node:util'
import { closeDatabase, openDatabase } from '../../src/main/db/database'
import { browseQueries } from '../../src/main/browse'
import { openLocalData } from '../../src/main/local/data'
import { liveCatalogGuids, measureSync, pathologicalSearchTexts, satchelAgainst } from './sync'
import { printTable, startDouble } from './support'

const { values } = parseArgs({
  options: {
    db: { type: 'string' },
    size: { type: 'string' },
    runs: { type: 'string', default: '7' },
  },
})
if (!values.db) throw new Error('usage: typed-searches.ts --db PATH [--size N] [--runs N]')
const path = values.db
const runs = Math.max(3, Number(values.runs))

async function syncInto(size: string): Promise<void> {
  process.stdout.write(`Syncing the double at ${size} items into ${path}…\n`)
  const double = await startDouble(size)
  try {
    await liveCatalogGuids(double)
    const satchel = await satchelAgainst(double, path, 6)
    const measured = await measureSync(satchel.engine, true, satchel.storeCalls, satchel.marks)
    process.stdout.write(`Synced in ${(measured.ms / 1000).toFixed(0)} s\n`)
    await satchel.close()
  } finally {
    double.process.kill('SIGTERM')
  }
}

/**
 * The median of `runs` timings, the first two not counted (statements prepared, pages cached). Before
 * each, untimed, `before`: another search, so what a search keeps of its last match (SearchPages'
 * narrowMatches) is not this one's, as for a keystroke that changed the text, then what the screen
 * asks first (the page, before its count).
 */
function median(work: () => unknown, before: () => unknown): number {
  const once = () => {
    before()
    const started = performance.now()
    work()
    return performance.now() - started
  }
  once()
  once()
  const times = Array.from({ length: runs }, once).sort((a, b) => a - b)
  return +times[Math.floor(times.length / 2)]!.toFixed(1)
}

async function main(): Promise<void> {
  if (!existsSync(path)) {
    if (!values.size) throw new Error(`${path} does not exist: give --size N to sync one`)
    await syncInto(values.size)
  }
  const db = openDatabase(path)
  const queries = browseQueries(openLocalData(db))
  const largest = queries.catalogs.listCatalogs().sort((a, b) => b.itemCount - a.itemCount)[0]!
  const rows: string[][] = []
  const other = () => {
    queries.catalogs.searchCatalogItems({ catalogGuid: largest.guid, query: 'zzq', limit: 50, withTotal: false })
    queries.customers.searchCustomers({ query: 'zzq', limit: 50 })
  }
  for (const [label, text] of pathologicalSearchTexts) {
    const search = { catalogGuid: largest.guid, query: text, limit: 50 }
    const rowsOnly = () => queries.catalogs.searchCatalogItems({ ...search, withTotal: false })
    const page = median(rowsOnly, other)
    // As the screen asks it: after the page.
    const count = median(
      () => queries.catalogs.countCatalogItems(search),
      () => {
        other()
        rowsOnly()
      },
    )
    const customers = median(() => queries.customers.searchCustomers({ query: text, limit: 50 }), other)
    // As bench:sync times it: the page with its count, then the customers.
    const whole = median(() => {
      queries.catalogs.searchCatalogItems(search)
      queries.customers.searchCustomers({ query: text, limit: 50 })
    }, other)
    const total = queries.catalogs.countCatalogItems(search)
    rows.push([
      label,
      `${whole} ms`,
      '≤ 100 ms',
      `rows ${page}, count ${count} (${total.total.toLocaleString('en')}${total.capped ? '+' : ''}), customers ${customers} ms`,
    ])
  }
  process.stdout.write(
    `Largest catalog "${largest.name}": ${largest.itemCount.toLocaleString('en')} items; medians of ${runs} runs\n`,
  )
  printTable(rows)
  process.stdout.write(
    `\nload average ${loadavg()
      .map((load) => load.toFixed(2))
      .join(' ')}\n`,
  )
  closeDatabase(db)
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`)
  process.exit(1)
})
