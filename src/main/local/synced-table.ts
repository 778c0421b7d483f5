/**
 * The statements every synced table answers alike (marking rows listed, pruning what a listing did not
 * see, counting), built from the spec its home module gives. The table's own SQL (its upsert, its
 * reads) stays in that module; this file names no table.
 */
import type { Database, Statement } from 'better-sqlite3'
import type { RetainableKind } from './retention'

export interface SyncedTable {
  table: string
  kind: RetainableKind | null
  /** Column that limits a listing's scope (catalog items and categories belong to one catalog). */
  scopeColumn: string | null
  /** Whether the table has unlisted_at (rows kept for drafts); categories and orders do not. */
  retainable: boolean
  /** A partial index over exactly the live rows, so counting them reads the index alone. */
  liveIndex?: string
}

export interface TableStatements {
  markListed: Statement<[number, string]>
  clearUnlisted: Statement<[string]> | null
  /** markListed and clearUnlisted by local_id, for a row already found (an item's guid may have no index yet). */
  markListedKey: Statement<[number, number]>
  clearUnlistedKey: Statement<[number]> | null
  candidates: Statement<unknown[], { local_id: number; guid: string; live: number }>
  lastLocalId: Statement<[], number | null>
  remove: Statement<[number]>
  flag: Statement<[string, number]> | null
  countListedLive: Statement<unknown[], { n: number }>
  anyRow: Statement<unknown[], unknown>
  /** Prepared on first use: the index it names may be deferred (DeferredItemIndexes.defer) when this store is made. */
  countLive: () => Statement<unknown[], { n: number }>
  /** countLive without naming the index, while a first sync has it deferred. */
  countLiveUnindexed: Statement<unknown[], { n: number }>
}

/**
 * `scope`: the SQL that limits rows to the scope `@scope` names, where the table's indexes seek on
 * something other than `scopeColumn = @scope` (catalog items: the catalog's key, ItemIndexLayout);
 * `liveScope` the same for the statement that walks `liveIndex`.
 */
export function prepareTableStatements(
  db: Database,
  spec: SyncedTable,
  options: { scope?: string; liveScope?: string } = {},
): TableStatements {
  const inScope = spec.scopeColumn ? (options.scope ?? `${spec.scopeColumn} = @scope`) : null
  const scoped = inScope ? `${inScope} AND` : ''
  const liveScoped = spec.scopeColumn ? `${options.liveScope ?? inScope} AND` : ''
  const unlisted = spec.retainable ? 'AND unlisted_at IS NULL' : ''
  return {
    markListed: db.prepare(`UPDATE ${spec.table} SET listed_run = ? WHERE guid = ?`),
    clearUnlisted: spec.retainable
      ? db.prepare(`UPDATE ${spec.table} SET unlisted_at = NULL WHERE guid = ? AND unlisted_at IS NOT NULL`)
      : null,
    markListedKey: db.prepare(`UPDATE ${spec.table} SET listed_run = ? WHERE local_id = ?`),
    clearUnlistedKey: spec.retainable
      ? db.prepare(`UPDATE ${spec.table} SET unlisted_at = NULL WHERE local_id = ? AND unlisted_at IS NOT NULL`)
      : null,
    // A bounded range of rowids per call, so no single statement scans a 100,000-row table.
    candidates: db.prepare(
      `SELECT local_id, guid, (deleted_at IS NULL ${unlisted}) AS live FROM ${spec.table}
           WHERE local_id > @after AND local_id <= @until AND ${scoped} (listed_run IS NULL OR listed_run <> @listing) ORDER BY local_id`,
    ),
    lastLocalId: db.prepare<[], number | null>(`SELECT max(local_id) FROM ${spec.table}`).pluck(),
    remove: db.prepare(`DELETE FROM ${spec.table} WHERE local_id = ?`),
    flag: spec.retainable
      ? db.prepare(`UPDATE ${spec.table} SET unlisted_at = ? WHERE local_id = ? AND unlisted_at IS NULL`)
      : null,
    countListedLive: db.prepare(
      `SELECT count(*) AS n FROM ${spec.table} WHERE ${scoped} listed_run = @listing AND deleted_at IS NULL`,
    ),
    anyRow: db.prepare(`SELECT 1 FROM ${spec.table} WHERE ${inScope ?? '1'} LIMIT 1`),
    countLive: lazily(() =>
      db.prepare<unknown[], { n: number }>(
        `SELECT count(*) AS n FROM ${spec.table} ${spec.liveIndex ? `INDEXED BY ${spec.liveIndex}` : ''} WHERE ${liveScoped} deleted_at IS NULL ${unlisted}`,
      ),
    ),
    countLiveUnindexed: db.prepare(
      `SELECT count(*) AS n FROM ${spec.table} WHERE ${scoped} deleted_at IS NULL ${unlisted}`,
    ),
  }
}

/** Newer version wins; at the same version a different body wins too (the service may stamp seconds only). */
export function upsertGuard(table: string): string {
  return `WHERE excluded.version > ${table}.version OR (excluded.version = ${table}.version AND excluded.json <> ${table}.json)`
}

/** A value made on first use and kept. */
function lazily<T>(make: () => T): () => T {
  let made: T | undefined
  return () => (made ??= make())
}
