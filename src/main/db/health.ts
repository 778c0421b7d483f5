/**
 * Whether a database file is whole, and where it is not: one verdict every command tells the same
 * way. A damaged page is met only by the query that reads it, so without this a command that never
 * reads it (a flush, a delta sync) says all is well while `status`, which counts the items, says the
 * file is lost.
 *
 * SQLite's quick_check reads every page of the file (about a second per 300 MB); it is run by the
 * commands whose answer decides what happens to the unsent orders, and after any SQLITE_CORRUPT.
 */
import type { Database } from 'better-sqlite3'

export interface FileHealth {
  /** The tables (SQLite's names) with a page quick_check could not read; empty when the file is whole. */
  damagedTables: string[]
}

/** The tables that hold the outbox: while they are whole, the unsent orders can be read and sent. */
const outboxTables = ['outbox', 'outbox_payloads']

export function isDamage(error: unknown): boolean {
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined
  return typeof code === 'string' && code.startsWith('SQLITE_CORRUPT')
}

function passes(db: Database, table?: string): boolean {
  try {
    // SQLite refuses to check some damage at all, throwing SQLITE_CORRUPT: that is its verdict too.
    const rows = db.pragma(table === undefined ? 'quick_check' : `quick_check("${table.replaceAll('"', '""')}")`) as { quick_check: string }[]
    return rows.length === 1 && rows[0]!.quick_check === 'ok'
  } catch (error) {
    if (isDamage(error)) return false
    throw error
  }
}

/**
 * The file's verdict. A whole file costs one pass; a damaged one a pass per table, to name them.
 * A file whose list of tables cannot be read throws SQLite's error: nothing in it can be read.
 */
export function checkFileHealth(db: Database): FileHealth {
  if (passes(db)) return { damagedTables: [] }
  const tables = db.prepare<[], string>("SELECT name FROM sqlite_master WHERE type = 'table' AND rootpage > 0 ORDER BY name").pluck().all()
  return { damagedTables: tables.filter((table) => !passes(db, table)) }
}

export function outboxReadable(health: FileHealth): boolean {
  return !health.damagedTables.some((table) => outboxTables.includes(table))
}

/** What each damaged table holds, in the rep's words; a table not named here is named as it is. */
const areaOf: [RegExp, string][] = [
  [/^outbox/, 'the outbox (orders waiting to be sent, and those sent)'],
  [/^catalog_item_search/, 'the catalog search index'],
  [/^catalog_item|^catalog_keys/, 'catalog items'],
  [/^customer_search/, 'the customer search index'],
  [/^customers/, 'customers'],
  [/^order_detail|^orders$/, 'order history'],
  [/^catalogs|^categories|^price_groups/, 'catalogs and price groups'],
  [/^drafts/, 'drafts'],
  [/^quote/, 'quotes'],
  [/^settings/, 'settings'],
  [/^sync_/, 'sync records'],
]

export function damagedAreas(health: FileHealth): string[] {
  const areas = health.damagedTables.map((table) => areaOf.find(([pattern]) => pattern.test(table))?.[1] ?? table)
  return [...new Set(areas)]
}
