/**
 * What the catalog screen costs at the size of the synced database, for `npm run bench:sync`: each
 * kind of search a rep types (rows alone, and the capped count the screen asks for after them), a
 * category browse page, and a cold open of the core until the first screen's data is ready.
 *
 * (`--cold-open PATH` is the child-process mode that opens the core on PATH, so its figures are
 * those of a process that has read nothing of the database yet.)
 */
import { spawn } from 'node:child_process'
import { performance } from 'node:perf_hooks'
import type { Database } from 'better-sqlite3'
import { createCore } from '../../src/main/core/compose'
import { call } from '../../src/main/core/handlers'
import type { BrowseQueries } from '../../src/main/browse'
import { root } from './support'

export interface Latency {
  p50: number
  p99: number
}

/** p50 and p99 of `runs` timings of `work`, after two runs not counted (statements prepared, pages cached). */
export function latency(runs: number, work: () => unknown): Latency {
  work()
  work()
  const times = Array.from({ length: runs }, () => {
    const started = performance.now()
    work()
    return performance.now() - started
  }).sort((a, b) => a - b)
  const at = (quantile: number) =>
    +times[Math.min(times.length - 1, Math.ceil(quantile * times.length) - 1)]!.toFixed(1)
  return { p50: at(0.5), p99: at(0.99) }
}

export interface SearchLatency {
  kind: string
  text: string
  rows: Latency
  count: Latency
  /** The count the screen shows, capped. */
  total: string
}

/**
 * The texts of each kind, from an item halfway through the catalog: its name's first letter, first
 * two letters, first word and first two words, the first seven characters of its SKU, its UPC.
 */
function searchTexts(db: Database, catalogGuid: string): [kind: string, text: string][] {
  const middle = db
    .prepare<[string, string], { name: string; sku: string; upc: string | null }>(
      `SELECT name, sku, upc FROM catalog_item_rows WHERE catalog_guid = ? AND deleted_at IS NULL AND active = 1 AND upc IS NOT NULL
       AND local_id >= (SELECT (min(local_id) + max(local_id)) / 2 FROM catalog_item_rows WHERE catalog_guid = ?) ORDER BY local_id LIMIT 1`,
    )
    .get(catalogGuid, catalogGuid)
  if (!middle) throw new Error('no item with a UPC to search for')
  const words = middle.name.toLowerCase().split(/\s+/)
  return [
    ['one letter', words[0]!.slice(0, 1)],
    ['two letters', words[0]!.slice(0, 2)],
    ['one word', words[0]!],
    ['two words', words.slice(0, 2).join(' ')],
    ['SKU prefix', middle.sku.slice(0, 7)],
    ['UPC', middle.upc!],
  ]
}

/** Each kind of search in the catalog, 50 runs each: the first page of rows alone, then the count. */
export function measureSearches(db: Database, queries: BrowseQueries, catalogGuid: string, runs = 50): SearchLatency[] {
  return searchTexts(db, catalogGuid).map(([kind, text]) => {
    const count = queries.catalogs.countCatalogItems({ catalogGuid, query: text })
    return {
      kind,
      text,
      rows: latency(runs, () =>
        queries.catalogs.searchCatalogItems({ catalogGuid, query: text, limit: 50, withTotal: false }),
      ),
      count: latency(runs, () => queries.catalogs.countCatalogItems({ catalogGuid, query: text })),
      total: `${count.total.toLocaleString('en')}${count.capped ? '+' : ''}`,
    }
  })
}

/** A page of the catalog's largest top-level category, and its count, 50 runs each. */
export function measureCategoryBrowse(
  queries: BrowseQueries,
  catalogGuid: string,
  runs = 50,
): { category: string; items: number; page: Latency; count: Latency } {
  const categories = queries.catalogs.listCategories(catalogGuid).filter((category) => category.parentId === null)
  const largest = categories.sort((a, b) => b.itemCount - a.itemCount)[0]
  if (!largest) throw new Error('the catalog has no category')
  const search = { catalogGuid, categoryId: largest.id }
  return {
    category: largest.name,
    items: queries.catalogs.countCatalogItems(search).total,
    page: latency(runs, () =>
      queries.catalogs.searchCatalogItems({ ...search, limit: 50, offset: 0, withTotal: false }),
    ),
    count: latency(runs, () => queries.catalogs.countCatalogItems(search)),
  }
}

export interface ColdOpen {
  /** From nothing to the catalog screen's data: the core built on the file, the catalogs, the first page and its count. */
  ms: number
  coreMs: number
  listCatalogsMs: number
  firstPageMs: number
  countMs: number
}

/** Opens the core in a child process (see coldOpenHere) and returns what it measured. */
export async function coldOpen(path: string): Promise<ColdOpen> {
  const child = spawn(process.execPath, ['--import', 'tsx', __filename, '--cold-open', path], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  let out = ''
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')))
  const code = await new Promise<number | null>((done) => child.on('exit', done))
  if (code !== 0) throw new Error(`the cold open failed (exit ${code})`)
  return JSON.parse(out.trim().split('\n').pop() ?? '{}') as ColdOpen
}

/** The core as the app starts it (no sync started), then what the catalog screen asks for first. */
async function coldOpenHere(path: string): Promise<ColdOpen> {
  const started = performance.now()
  const core = createCore({ databasePath: path, appVersion: '0.0.0-bench', backgroundSync: false })
  const built = performance.now()
  const catalogs = await call(core.handlers, 'listCatalogs', {})
  if (!catalogs.ok) throw new Error('listCatalogs failed')
  const listed = performance.now()
  const catalogGuid = catalogs.value[0]!.guid
  const page = await call(core.handlers, 'searchCatalogItems', { catalogGuid, limit: 50, withTotal: false })
  if (!page.ok || page.value.items.length === 0) throw new Error('the first page is empty')
  const paged = performance.now()
  const count = await call(core.handlers, 'countCatalogItems', { catalogGuid })
  if (!count.ok) throw new Error('countCatalogItems failed')
  const counted = performance.now()
  await core.close()
  const ms = (from: number, to: number) => +(to - from).toFixed(1)
  return {
    ms: ms(started, counted),
    coreMs: ms(started, built),
    listCatalogsMs: ms(built, listed),
    firstPageMs: ms(listed, paged),
    countMs: ms(paged, counted),
  }
}

if (process.argv[2] === '--cold-open') {
  coldOpenHere(process.argv[3]!).then(
    (measured) => process.stdout.write(`${JSON.stringify(measured)}\n`),
    (error: unknown) => {
      process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`)
      process.exit(1)
    },
  )
}
