/**
 * The paging and full-text machinery the catalog item and customer searches share (catalog-items.ts,
 * customers.ts own their SQL and hand its parts here), and the statement cache for queries whose SQL
 * varies with their filters. It names no table.
 */
import type { Database, Statement } from 'better-sqlite3'

/**
 * Above this many matches a search is listed by name instead of ranked by relevance: bm25 must score
 * every match before the first row comes back, which on 100,000 items takes longer than a keystroke.
 */
const rankedSearchLimit = 2000

/** While a first sync has the name index deferred, a broad search counts its matches up to here. */
const arrivalCountLimit = 10_000

interface SearchPageSpec {
  fts: 'catalog_item_search' | 'customer_search'
  /** The table and its alias, e.g. 'customers c'. */
  table: string
  columns: string
  rank: string
  index: string
  where: string[]
  params: Record<string, unknown>
  match: string | null
  /** While `index` is missing: list in arrival order; `count` estimates an unfiltered total cheaply. */
  arrival?: { count: string }
}

export class SearchPages {
  private readonly indexExists
  /** Searches combine filters, so their SQL varies; each variant is prepared once and kept. */
  private readonly prepared = new Map<string, Statement<Record<string, unknown>, unknown>>()

  constructor(private readonly db: Database) {
    this.indexExists = db.prepare<[string], number>("SELECT 1 FROM sqlite_schema WHERE type = 'index' AND name = ?").pluck()
  }

  all<T>(sql: string, params: Record<string, unknown>): T[] {
    return unlessIndexGone(sql, (text) => this.statement(text).all(params) as T[])
  }

  count(sql: string, params: Record<string, unknown>): number {
    return unlessIndexGone(sql, (text) => Number(this.statement(text).pluck().get(params) ?? 0))
  }

  /** More matches than can be ranked within a keystroke; counts no further than it needs to know. */
  private isBroad(fts: SearchPageSpec['fts'], params: Record<string, unknown>): boolean {
    const sql = `SELECT count(*) FROM (SELECT 1 FROM ${fts} WHERE ${fts} MATCH @match LIMIT ${rankedSearchLimit + 1})`
    return this.count(sql, params) > rankedSearchLimit
  }

  /**
   * One page of a search and its total. A narrow full-text match is ranked by bm25, then name. With
   * no match, or a broad one ("c", "co"), rows go by name, walking an index that holds every
   * filtered column, so rows skipped on the way to a deep offset (or rejected by the match set) cost
   * no table lookup; only the page's rows are read. Ranking a broad match in full would take longer
   * than the rep waits between keystrokes.
   */
  page<Row>(spec: SearchPageSpec): { rows: Row[]; total: number } {
    const { fts, table, columns, where, params, match } = spec
    const alias = table.split(' ')[1]!
    if (match) params.match = match
    if (match && !this.isBroad(fts, params)) {
      const from = `${fts} s JOIN ${table} ON ${alias}.local_id = s.rowid`
      const condition = `${fts} MATCH @match AND ${where.join(' AND ')}`
      const rows = this.all<Row>(
        `SELECT ${columns} FROM ${from} WHERE ${condition}
         ORDER BY ${spec.rank}, ${alias}.name COLLATE NOCASE LIMIT @limit OFFSET @offset`,
        params,
      )
      return { rows, total: this.count(`SELECT count(*) FROM ${from} WHERE ${condition}`, params) }
    }
    const filters = match ? [...where, `${alias}.local_id IN (SELECT rowid FROM ${fts} WHERE ${fts} MATCH @match)`] : where
    if (spec.arrival && !this.indexExists.get(spec.index)) {
      // A first sync is bringing items in and the name index waits for its end (deferIndexes): sorting
      // a whole catalog by name on every keystroke would hold the window. Rows come in the order they
      // arrived, and the total is counted no further than a screenful's worth needs.
      const rows = this.all<Row>(`SELECT ${columns} FROM ${table} WHERE ${filters.join(' AND ')} ORDER BY ${alias}.local_id LIMIT @limit OFFSET @offset`, params)
      const counted = match
        ? `SELECT count(*) FROM (SELECT 1 FROM ${fts} s JOIN ${table} ON ${alias}.local_id = s.rowid WHERE ${fts} MATCH @match AND ${where.join(' AND ')} LIMIT ${arrivalCountLimit})`
        : spec.arrival.count
      return { rows, total: this.count(counted, params) }
    }
    const condition = `FROM ${table} ${this.indexedBy(spec.index)} WHERE ${filters.join(' AND ')}`
    const rows = this.all<Row>(
      `SELECT ${columns} FROM ${table} WHERE ${alias}.local_id IN (
           SELECT ${alias}.local_id ${condition} ORDER BY ${alias}.name COLLATE NOCASE, ${alias}.local_id LIMIT @limit OFFSET @offset
         ) ORDER BY ${alias}.name COLLATE NOCASE, ${alias}.local_id`,
      params,
    )
    return { rows, total: this.count(`SELECT count(*) ${condition}`, params) }
  }

  /**
   * Names an index for the planner when it exists. A catalog's first sync builds its item indexes only
   * once its pages are in (local/copy.ts, deferIndexes); meanwhile the same queries run without.
   */
  indexedBy(index: string): string {
    return this.indexExists.get(index) ? `INDEXED BY ${index}` : ''
  }

  private statement(sql: string): Statement<Record<string, unknown>, unknown> {
    let statement = this.prepared.get(sql)
    if (!statement) {
      statement = this.db.prepare<Record<string, unknown>, unknown>(sql)
      this.prepared.set(sql, statement)
    }
    return statement
  }
}

/** Runs `run(sql)`; if the writer thread dropped a named index in between (deferIndexes), runs it again without naming one. */
function unlessIndexGone<T>(sql: string, run: (sql: string) => T): T {
  try {
    return run(sql)
  } catch (error) {
    if (!/no such index/.test(String((error as Error)?.message)) || !sql.includes('INDEXED BY')) throw error
    return run(sql.replace(/INDEXED BY \w+/g, ''))
  }
}
