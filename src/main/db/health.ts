/**
 * Whether a database file is whole, and where it is not: one verdict every command tells the same
 * way. A damaged page is met only by the query that reads it, so without this a command that never
 * reads it (a flush, a delta sync) says all is well while `status`, which counts the items, says the
 * file is lost.
 *
 * SQLite's quick_check reads every page of the file (about a second per 300 MB, seconds at a million
 * items), so it runs only once damage is suspected: when a command first meets SQLITE_CORRUPT or
 * SQLITE_NOTADB. Its verdict is then remembered beside the file (`<database>-health`), so every
 * later command tells the same story without reading the whole file again; an intact file is never
 * checked.
 */
import type { Database } from 'better-sqlite3'
import { readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs'

export interface FileHealth {
  /** The tables (SQLite's names) with a page quick_check could not read; empty when the file is whole. */
  damagedTables: string[]
}

/** The tables that hold the outbox: while they are whole, the unsent orders can be read and sent. */
const outboxTables = ['outbox', 'outbox_payloads']

/**
 * Whether SQLite met a damaged page. SQLITE_NOTADB counts too: a damaged page 1, or a page read as
 * the wrong kind mid-query, is reported so. An error openDatabase explained keeps SQLite's as its cause.
 */
export function isDamage(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false
  const code = (error as { code?: unknown }).code
  if (typeof code === 'string' && (code.startsWith('SQLITE_CORRUPT') || code === 'SQLITE_NOTADB')) return true
  return code === 'NOT_A_DATABASE' && isDamage((error as { cause?: unknown }).cause)
}

function passes(db: Database, table?: string): boolean {
  try {
    // SQLite refuses to check some damage at all, throwing SQLITE_CORRUPT: that is its verdict too.
    const rows = db.pragma(table === undefined ? 'quick_check' : `quick_check("${table.replaceAll('"', '""')}")`) as {
      quick_check: string
    }[]
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
function checkFileHealth(db: Database): FileHealth {
  if (passes(db)) return { damagedTables: [] }
  const tables = db
    .prepare<[], string>("SELECT name FROM sqlite_master WHERE type = 'table' AND rootpage > 0 ORDER BY name")
    .pluck()
    .all()
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

/** Where the verdict on the database at `path` is kept, beside it (deleted with it: profiles/holdings.ts). */
export function verdictFile(path: string): string {
  return `${path}-health`
}

interface StoredVerdict {
  /** The file judged: a file synced in place of one moved aside is another file, not judged by this. */
  dev: string
  ino: string
  damagedTables: string[]
  checkedAt: string
}

function identity(path: string): { dev: string; ino: string } | null {
  try {
    // bigint: an inode number may not fit a double.
    const stats = statSync(path, { bigint: true })
    return { dev: String(stats.dev), ino: String(stats.ino) }
  } catch {
    return null
  }
}

function isStoredVerdict(value: unknown): value is StoredVerdict {
  const each = value as Partial<StoredVerdict> | null
  return (
    typeof each === 'object' &&
    each !== null &&
    typeof each.dev === 'string' &&
    typeof each.ino === 'string' &&
    Array.isArray(each.damagedTables) &&
    each.damagedTables.length > 0 &&
    each.damagedTables.every((table) => typeof table === 'string')
  )
}

/** Best effort: in a folder this user cannot write, the next command that meets the damage checks again. */
function forget(path: string): void {
  try {
    rmSync(verdictFile(path), { force: true })
  } catch {
    // Nothing to do: a stale verdict is ignored anyway, as its file's identity differs.
  }
}

/**
 * The verdict a command reached earlier on this very file, or null: none was reached, or it was on
 * another file at this path (removed then). Costs a stat and a small read, never a look at the pages.
 */
export function rememberedHealth(path: string): FileHealth | null {
  let stored: unknown
  try {
    stored = JSON.parse(readFileSync(verdictFile(path), 'utf8'))
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') forget(path)
    return null
  }
  const file = identity(path)
  if (!isStoredVerdict(stored) || !file || file.dev !== stored.dev || file.ino !== stored.ino) {
    forget(path)
    return null
  }
  return { damagedTables: stored.damagedTables }
}

/**
 * Checks the whole file, once damage is suspected, and remembers a damaged verdict for every later
 * command. A file found whole keeps no verdict: a later SQLITE_CORRUPT makes it suspect again.
 */
export function judgeFile(db: Database, path: string): FileHealth {
  const health = checkFileHealth(db)
  const file = identity(path)
  if (health.damagedTables.length === 0 || !file) {
    forget(path)
    return health
  }
  const stored: StoredVerdict = { ...file, damagedTables: health.damagedTables, checkedAt: new Date().toISOString() }
  try {
    // Written whole, then moved into place: a reader never sees half a verdict.
    const partial = `${verdictFile(path)}.partial`
    writeFileSync(partial, `${JSON.stringify(stored)}\n`, { mode: 0o600 })
    renameSync(partial, verdictFile(path))
  } catch {
    // A folder this user cannot write: the verdict still holds for this command.
  }
  return health
}
