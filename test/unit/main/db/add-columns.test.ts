/**
 * Columns added to the catalog's item table without reading its rows (issue 28). On a STRICT table
 * SQLite's ALTER TABLE … ADD COLUMN ends with a quick_check of every row: 1.0 s a column at a million
 * items, on the main thread at the app's start (migrations 17 and 21 add three). addNullableColumns
 * writes what ALTER writes and skips that check, which a nullable column with no default cannot fail.
 */
import BetterSqlite3 from 'better-sqlite3'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { closeDatabase, openDatabase, type Database } from '../../../../src/main/db/database'
import { addNullableColumns, type Migration } from '../../../../src/main/db/migration'
import { migrations } from '../../../../src/main/db/migrations'

const directories: string[] = []
const open: Database[] = []
afterEach(() => {
  for (const db of open.splice(0)) if (db.open) db.close()
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true })
})
function tempPath(): string {
  const directory = mkdtempSync(join(tmpdir(), 'satchel-columns-'))
  directories.push(directory)
  return join(directory, 'satchel.db')
}
function memory(): Database {
  const db = new BetterSqlite3(':memory:')
  open.push(db)
  return db
}
function tableSql(db: Database, table: string): string | undefined {
  return db
    .prepare<[string], string>("SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = ?")
    .pluck()
    .get(table)
}

/** Both ways on twin tables made from `create`: SQLite's ALTER, and addNullableColumns in a transaction. */
function bothWays(
  create: string,
  columns: string[],
): { altered: string | undefined; added: string | undefined; added_db: Database } {
  const byAlter = memory()
  byAlter.exec(create)
  for (const column of columns) byAlter.exec(`ALTER TABLE t ADD COLUMN ${column}`)
  const byEdit = memory()
  byEdit.exec(create)
  byEdit.transaction(() => addNullableColumns(byEdit, 't', columns))()
  return { altered: tableSql(byAlter, 't'), added: tableSql(byEdit, 't'), added_db: byEdit }
}

/** A laptop's database at schema 16 (before the family columns) holding `items` catalog items. */
function schema16Laptop(path: string, items: number): void {
  const db = openDatabase(path, { migrations: migrations.filter((migration) => migration.version <= 16) })
  const insert = db.prepare(
    "INSERT INTO catalog_item_rows (guid, catalog_guid, sku, name, extra) VALUES (?, 'cat-a', ?, ?, '{}')",
  )
  db.transaction(() => {
    for (let n = 1; n <= items; n++) insert.run(`item-${n}`, `APR-${n}`, `Apron ${n}`)
  })()
  closeDatabase(db)
}

describe('adding a nullable column to a STRICT table', () => {
  it("writes the table's text as SQLite's own ALTER does", () => {
    const shapes = [
      "CREATE TABLE t (a INTEGER PRIMARY KEY, b TEXT NOT NULL DEFAULT '') STRICT",
      "CREATE TABLE t (\n  a INTEGER PRIMARY KEY,\n  b TEXT NOT NULL DEFAULT '{}'\n) STRICT",
      'CREATE TABLE "t" (\n        a INTEGER PRIMARY KEY,\n        b TEXT NOT NULL DEFAULT \'(x)\'\n      , c REAL) STRICT',
    ]
    for (const create of shapes) {
      const { altered, added } = bothWays(create, ['d INTEGER', 'e TEXT'])
      expect(added, create).toBe(altered)
    }
  })

  it('keeps the table STRICT for the new columns and reads NULL in the rows stored before', () => {
    const create = "CREATE TABLE t (a INTEGER PRIMARY KEY, b TEXT NOT NULL DEFAULT '') STRICT"
    const db = memory()
    db.exec(create)
    db.exec("INSERT INTO t (b) VALUES ('x'), ('y')")
    const before = db.prepare('SELECT * FROM t ORDER BY a')
    db.transaction(() => addNullableColumns(db, 't', ['c INTEGER']))()
    expect(before.all()).toEqual([
      { a: 1, b: 'x', c: null },
      { a: 2, b: 'y', c: null },
    ])
    expect(() => db.prepare("INSERT INTO t (b, c) VALUES ('z', 'not a number')").run()).toThrow(
      /cannot store TEXT value in INTEGER column t\.c/,
    )
    db.prepare("INSERT INTO t (b, c) VALUES ('z', 7)").run()
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok')
    // Defensive mode is back: sqlite_schema is no one's to write.
    db.pragma('writable_schema = ON')
    expect(() => db.prepare("UPDATE sqlite_schema SET sql = sql WHERE name = 't'").run()).toThrow(/may not be modified/)
  })

  it("leaves any other table's shape, a name the table has, and a column with a default or constraint to ALTER", () => {
    const constrained = 'CREATE TABLE t (a INTEGER, b TEXT, PRIMARY KEY (a, b)) STRICT'
    const both = bothWays(constrained, ['c INTEGER'])
    expect(both.added).toBe(both.altered)
    const loose = bothWays('CREATE TABLE t (a INTEGER PRIMARY KEY)', ['c INTEGER'])
    expect(loose.added).toBe(loose.altered)
    const withDefault = bothWays('CREATE TABLE t (a INTEGER PRIMARY KEY) STRICT', ['c INTEGER NOT NULL DEFAULT 0'])
    expect(withDefault.added).toBe(withDefault.altered)
    const db = memory()
    db.exec('CREATE TABLE t (a INTEGER PRIMARY KEY, c INTEGER) STRICT')
    expect(() => db.transaction(() => addNullableColumns(db, 't', ['c INTEGER']))()).toThrow(/duplicate column name: c/)
  })

  it("is undone with the caller's transaction", () => {
    const db = memory()
    db.exec('CREATE TABLE t (a INTEGER PRIMARY KEY) STRICT')
    expect(() =>
      db.transaction(() => {
        addNullableColumns(db, 't', ['c INTEGER'])
        throw new Error('a later step of the migration failed')
      })(),
    ).toThrow('a later step')
    expect(tableSql(db, 't')).toBe('CREATE TABLE t (a INTEGER PRIMARY KEY) STRICT')
    expect(db.prepare<[], string>("SELECT name FROM pragma_table_info('t')").pluck().all()).toEqual(['a'])
  })
})

describe('the upgrade of a laptop with catalog items past schema 16', () => {
  it('adds the family and key columns without an ALTER of the item table, whose check reads every row', () => {
    const path = tempPath()
    schema16Laptop(path, 30)
    // The statements migrations 17 to 22 run, through the connection they are given.
    const statements: string[] = []
    const watched = migrations.map((migration): Migration => ({
      ...migration,
      up(db, options) {
        const exec = db.exec.bind(db)
        const prepare = db.prepare.bind(db)
        db.exec = (sql: string) => (statements.push(sql), exec(sql))
        db.prepare = ((sql: string) => (statements.push(sql), prepare(sql))) as typeof db.prepare
        try {
          migration.up(db, options)
        } finally {
          db.exec = exec
          db.prepare = prepare
        }
      },
    }))
    // A writer thread's connection, open across the upgrade.
    const other = new BetterSqlite3(path)
    open.push(other)
    expect(other.prepare('SELECT count(*) AS n FROM catalog_item_rows').get()).toEqual({ n: 30 })
    const db = openDatabase(path, { migrations: watched, largeCatalogItems: 10 })
    open.push(db)
    expect(statements.length).toBeGreaterThan(0)
    expect(
      statements.filter(
        (sql) => /ALTER\s+TABLE\s+"?catalog_item_rows"?/i.test(sql) || /quick_check|integrity_check/i.test(sql),
      ),
    ).toEqual([])
    // Same columns, same text as a new laptop's, rows stored before read NULL, and the file is whole.
    const fresh = openDatabase(':memory:')
    open.push(fresh)
    expect(tableSql(db, 'catalog_item_rows')).toBe(tableSql(fresh, 'catalog_item_rows'))
    expect(
      db
        .prepare(
          'SELECT count(*) AS n, count(group_parent_id) AS families, count(catalog_key) AS keyed FROM catalog_item_rows',
        )
        .get(),
    ).toEqual({ n: 30, families: 0, keyed: 0 })
    expect(other.prepare('SELECT count(catalog_key) AS keyed FROM catalog_item_rows').get()).toEqual({ keyed: 0 })
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok')
  })
})
