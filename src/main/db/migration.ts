import type { Database } from 'better-sqlite3'

/**
 * One schema version. Its own module, so each file under migrations/ can name its type without
 * importing the list that imports them all.
 */
export interface Migration {
  version: number
  name: string
  up(db: Database, options?: MigrationOptions): void
}

export interface MigrationOptions {
  /**
   * From how many catalog items a migration that would read or rewrite each of them leaves that work
   * to the catalog update instead (local/catalog-update-jobs.ts), so the app opens at once. Lowered by tests.
   */
  largeCatalogItems: number
}

/**
 * 10,000 items: a migration that reads or rewrites every item runs at start only below it. Migration
 * 10 alone held start 9.2 s at 100,000 items (bench:sync, 27 November), so a limit of 200,000 left
 * a mid-size laptop waiting; at 10,000 the whole chain stays near a second, and past it the catalog
 * update does the per-item work after the window is up.
 */
export const defaultLargeCatalogItems = 10_000

/**
 * Adds nullable columns with no default and no constraint to a STRICT table without reading its rows:
 * what `ALTER TABLE … ADD COLUMN` leaves, less its check. On a STRICT table SQLite follows an added
 * column with a quick_check of the whole table (alter.c), 1.0 s a column at a million catalog items,
 * on the main thread at start. A column with no default and no constraint reads NULL in every row
 * stored before, which that check cannot fault, so it is work for nothing. Like ALTER, this rewrites
 * the table's CREATE text in sqlite_schema (the same text: the new definitions go where SQLite's
 * ALTER puts them, before the column list's closing parenthesis; test/unit/add-columns.test.ts holds
 * it to SQLite's own) and bumps the schema cookie, so every connection reloads the schema: the route
 * SQLite's documentation gives for a schema change that leaves stored content valid (lang_altertable,
 * "Making Other Kinds Of Table Schema Changes"). A stored row shorter than its table reads its missing
 * columns as NULL in every file format past 1 (Satchel's databases are all format 4). Inside the
 * caller's transaction: a failure rolls the text back with the rest of the migration. Any other table
 * shape goes through ALTER, check and all.
 */
export function addNullableColumns(db: Database, table: string, columns: string[]): void {
  const plainColumn = /^[a-z_][a-z0-9_]* (?:INTEGER|REAL|TEXT|BLOB|ANY)$/
  const sql = db
    .prepare<[string], string>("SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = ?")
    .pluck()
    .get(table)
  // A STRICT table with no table constraint: ALTER inserts before the column list's closing parenthesis,
  // the last in the text. A table constraint (or a column's CHECK, which may hold parentheses), WITHOUT
  // ROWID or any other shape is left to ALTER.
  const simple =
    sql !== undefined &&
    /\)\s*STRICT$/.test(sql) &&
    !/\b(?:CONSTRAINT\b|CHECK\b|FOREIGN\s+KEY\b|PRIMARY\s+KEY\s*\(|UNIQUE\s*\()/i.test(sql)
  // A name the table has already: ALTER says so.
  const existing = new Set(db.prepare<[string], string>('SELECT name FROM pragma_table_info(?)').pluck().all(table))
  const plain = columns.every((column) => plainColumn.test(column) && !existing.has(column.split(' ')[0]!))
  if (!simple || !plain || !db.inTransaction) {
    for (const column of columns) db.exec(`ALTER TABLE ${table} ADD COLUMN ${column}`)
    return
  }
  const at = sql.lastIndexOf(')')
  const altered = `${sql.slice(0, at)}, ${columns.join(', ')}${sql.slice(at)}`
  const cookie = db.pragma('schema_version', { simple: true }) as number
  // better-sqlite3 opens connections in SQLite's defensive mode, which keeps sqlite_schema read-only
  // even under writable_schema; lifted for this one statement.
  db.unsafeMode(true)
  try {
    db.pragma('writable_schema = ON')
    db.prepare("UPDATE sqlite_schema SET sql = ? WHERE type = 'table' AND name = ?").run(altered, table)
    db.pragma(`schema_version = ${cookie + 1}`)
  } finally {
    db.pragma('writable_schema = OFF')
    db.unsafeMode(false)
  }
}
