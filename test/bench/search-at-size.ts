/**
 * The catalog screen's searches on a database already synced (`npx tsx test/bench/search-at-size.ts
 * --db PATH`), without a sync first: each kind of search a rep types, rows alone and the capped count
 * apart, in every catalog, plus the texts that were found slow at a million items (one letter that
 * few names start with, two letters, a long prefix of a common word, a word only another catalog
 * holds), a category browse page, and pages deep in the whole catalog by name (one jumped to, and the
 * next page after one read).
 * PATH is opened read-write (migrated, its item counts kept): pass a copy. `--mapped` reads it through a
 * memory map (OpenDatabaseOptions.mappedReads), which the app does not do (docs/search.md).
 */
import { performance } from 'node:perf_hooks'
import { loadavg } from 'node:os'
import { parseArgs } from 'node:util'
import { closeDatabase, openDatabase } from '../../src/main/db/database'
import { browseQueries } from '../../src/main/browse'
import { CatalogUpdateJobs } from '../../src/main/local/catalog-update-jobs'
import { latency, measureCategoryBrowse, measureSearches } from './catalog-at-size'
import { printTable } from './support'
import { openLocalData } from '../../src/main/local/data'

const { values } = parseArgs({
  options: {
    db: { type: 'string' },
    runs: { type: 'string', default: '50' },
    mapped: { type: 'boolean', default: false },
  },
})
if (!values.db) throw new Error('usage: search-at-size.ts --db PATH (a copy: it is migrated and written)')
const runs = Number(values.runs)

const opened = performance.now()
// As the window's connection opens it (core/compose.ts), or --mapped.
const db = openDatabase(values.db, { mappedReads: values.mapped })
process.stdout.write(`Opened (and migrated) in ${(performance.now() - opened).toFixed(0)} ms\n`)
// What the catalog update would do on the writer's thread (the kept counts, after an upgrade), done here before measuring.
const jobs = new CatalogUpdateJobs(db)
const upkept = performance.now()
while (jobs.slice().job !== null);
process.stdout.write(`Catalog update done in ${(performance.now() - upkept).toFixed(0)} ms\n`)

const queries = browseQueries(openLocalData(db))
const catalogs = queries.catalogs.listCatalogs().sort((a, b) => b.itemCount - a.itemCount)

/** A word of another catalog's item names that this catalog holds nowhere (the search finds nothing here). */
function foreignWord(catalogGuid: string): string | null {
  for (const other of catalogs.filter((catalog) => catalog.guid !== catalogGuid)) {
    const names = db
      .prepare<[string], string>(
        'SELECT name FROM catalog_item_rows WHERE catalog_guid = ? AND deleted_at IS NULL ORDER BY local_id LIMIT 200',
      )
      .pluck()
      .all(other.guid)
    for (const word of names
      .flatMap((name) => name.toLowerCase().split(/[^a-z]+/))
      .filter((word) => word.length >= 5)) {
      if (
        queries.catalogs.countCatalogItems({ catalogGuid, query: word }).total === 0 &&
        queries.catalogs.countCatalogItems({ catalogGuid: other.guid, query: word }).total > 100
      )
        return word
    }
  }
  return null
}

const rows: string[][] = []
for (const catalog of catalogs) {
  rows.push([`Catalog "${catalog.name}" (${catalog.itemCount.toLocaleString('en')} items)`, '', '', ''])
  const searches = measureSearches(db, queries, catalog.guid, runs)
  const extra = ['x', 'a', 'ca', 'vo', 'spray case', foreignWord(catalog.guid)].filter(
    (text): text is string => text !== null,
  )
  for (const text of extra) {
    const count = queries.catalogs.countCatalogItems({ catalogGuid: catalog.guid, query: text })
    searches.push({
      kind: 'seen slow',
      text,
      rows: latency(runs, () =>
        queries.catalogs.searchCatalogItems({ catalogGuid: catalog.guid, query: text, limit: 50, withTotal: false }),
      ),
      count: latency(runs, () => queries.catalogs.countCatalogItems({ catalogGuid: catalog.guid, query: text })),
      total: `${count.total.toLocaleString('en')}${count.capped ? '+' : ''}`,
    })
  }
  for (const search of searches) {
    const over = (ms: number) => (ms < 30 ? '' : 'over')
    rows.push([
      `  ${search.kind} "${search.text}": rows`,
      `${search.rows.p50} / ${search.rows.p99} ms`,
      'p99 < 30 ms',
      over(search.rows.p99),
    ])
    rows.push([
      `  ${search.kind} "${search.text}": count`,
      `${search.count.p50} / ${search.count.p99} ms`,
      'p99 < 30 ms',
      `${search.total} ${over(search.count.p99)}`,
    ])
  }
  const browse = measureCategoryBrowse(queries, catalog.guid, runs)
  rows.push([
    `  category "${browse.category}": page`,
    `${browse.page.p50} / ${browse.page.p99} ms`,
    'p99 < 30 ms',
    browse.page.p99 < 30 ? '' : 'over',
  ])
  rows.push([
    `  category "${browse.category}": count`,
    `${browse.count.p50} / ${browse.count.p99} ms`,
    'p99 < 30 ms',
    `${browse.items} ${browse.count.p99 < 30 ? '' : 'over'}`,
  ])
  // Deep in the whole catalog by name: a page no earlier page led to (each run further up than any
  // before it, so the reader has met no row before it), then the page after one read.
  for (const depth of [10_000, Math.floor(catalog.itemCount / 2)]) {
    const jumper = browseQueries(openLocalData(db))
    let up = depth + 50 * (Math.min(runs, 10) + 3)
    const jumped = latency(Math.min(runs, 10), () =>
      jumper.catalogs.searchCatalogItems({
        catalogGuid: catalog.guid,
        limit: 50,
        offset: (up -= 50),
        withTotal: false,
      }),
    )
    const reader = browseQueries(openLocalData(db))
    let offset = depth
    reader.catalogs.searchCatalogItems({ catalogGuid: catalog.guid, limit: 50, offset, withTotal: false })
    const next = latency(runs, () =>
      reader.catalogs.searchCatalogItems({
        catalogGuid: catalog.guid,
        limit: 50,
        offset: (offset += 50),
        withTotal: false,
      }),
    )
    rows.push([
      `  browse ${depth.toLocaleString('en')} rows in: page jumped to`,
      `${jumped.p50} / ${jumped.p99} ms`,
      '',
      'printed',
    ])
    rows.push([
      `  browse ${depth.toLocaleString('en')} rows in: next page`,
      `${next.p50} / ${next.p99} ms`,
      'p99 < 30 ms',
      next.p99 < 30 ? '' : 'over',
    ])
  }
}
printTable(rows)
// Pages read through the map count as the process's (file-backed, given back when the system needs them).
process.stdout.write(
  `\nload average ${loadavg()
    .map((load) => load.toFixed(2))
    .join(' ')}; RSS ${Math.round(process.memoryUsage().rss / 1048576)} MB\n`,
)
closeDatabase(db)
