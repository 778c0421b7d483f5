/**
 * Keeps an FTS5 index (external content) in step with its table from code rather than triggers,
 * which measured about twice as slow for the same index writes (migration 4). Only live rows are
 * indexed: not soft-deleted, still listed by the service.
 */
import type { Database, Statement } from 'better-sqlite3'

export interface IndexedRow {
  localId: number
  values: unknown[]
  deleted: boolean
  unlisted: boolean
  /** In the index now. */
  indexed: boolean
  /** The columns named in `alsoRead`, as stored: read with the row rather than by a query of their own. */
  stored: unknown[]
}

interface Row {
  local_id: number
  deleted: number
  unlisted: number
  [column: string]: unknown
}

export class SearchIndex {
  private readonly byGuid: Statement<[string], Row>
  private readonly byLocalId: Statement<[number], Row>
  private readonly byLocalIdAndGuid: Statement<[number, string], Row>
  private readonly insert: Statement<unknown[]>
  private readonly remove: Statement<unknown[]>

  constructor(
    db: Database,
    table: string,
    fts: string,
    readonly columns: readonly string[],
    private readonly alsoRead: readonly string[] = [],
  ) {
    const select = `SELECT local_id, ${[...columns, ...alsoRead.map((column, index) => `${column} AS also_${index}`)].join(', ')},
      deleted_at IS NOT NULL AS deleted, unlisted_at IS NOT NULL AS unlisted FROM ${table}`
    this.byGuid = db.prepare(`${select} WHERE guid = ?`)
    this.byLocalId = db.prepare(`${select} WHERE local_id = ?`)
    this.byLocalIdAndGuid = db.prepare(`${select} WHERE local_id = ? AND guid = ?`)
    const placeholders = columns.map(() => '?').join(', ')
    this.insert = db.prepare(`INSERT INTO ${fts} (rowid, ${columns.join(', ')}) VALUES (?, ${placeholders})`)
    this.remove = db.prepare(
      `INSERT INTO ${fts} (${fts}, rowid, ${columns.join(', ')}) VALUES ('delete', ?, ${placeholders})`,
    )
  }

  private toIndexed(row: Row | undefined): IndexedRow | undefined {
    if (!row) return undefined
    const deleted = row.deleted === 1
    const unlisted = row.unlisted === 1
    return {
      localId: row.local_id,
      values: this.columns.map((column) => row[column] ?? null),
      deleted,
      unlisted,
      indexed: !deleted && !unlisted,
      stored: this.alsoRead.map((_, index) => row[`also_${index}`]),
    }
  }

  find(guid: string): IndexedRow | undefined {
    return this.toIndexed(this.byGuid.get(guid))
  }

  findByLocalId(localId: number): IndexedRow | undefined {
    return this.toIndexed(this.byLocalId.get(localId))
  }

  /** The row stored under `localId`, if it is the one of this guid. */
  findAt(localId: number, guid: string): IndexedRow | undefined {
    return this.toIndexed(this.byLocalIdAndGuid.get(localId, guid))
  }

  valuesOf(params: Record<string, unknown>): unknown[] {
    return this.columns.map((column) => params[column] ?? null)
  }

  add(localId: number, values: unknown[]): void {
    this.insert.run(localId, ...values)
  }

  /** FTS5 removes a row's terms given the values it was indexed with. */
  drop(row: IndexedRow): void {
    if (row.indexed) this.remove.run(row.localId, ...row.values)
  }
}
