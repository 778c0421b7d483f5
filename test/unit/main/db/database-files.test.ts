/**
 * openDatabase's rules for files it must not use or must not change, in-process; the CLI's
 * test/integration/cli-db-files.test.ts proves them as a user meets them, permissions included.
 */
import { createHash } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import {
  closeDatabase,
  DatabaseFileError,
  explainDatabaseError,
  latestSchemaVersion,
  openDatabase,
} from '../../../../src/main/db/database'
import { migrations } from '../../../../src/main/db/migrations'
import { CoreError } from '../../../../src/main/errors'

const directory = mkdtempSync(join(tmpdir(), 'satchel-db-files-'))
afterAll(() => rmSync(directory, { recursive: true, force: true }))
let files = 0
const newPath = () => join(directory, `f${++files}.db`)
const hash = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex')
const sqliteError = (code: string) => Object.assign(new Error(`sqlite says ${code}`), { code })

describe('openDatabase({ readOnly: true })', () => {
  it('reads a current database and changes nothing in it', () => {
    const path = newPath()
    closeDatabase(openDatabase(path))
    const before = hash(path)
    const db = openDatabase(path, { readOnly: true })
    expect(db.prepare('SELECT count(*) FROM settings').pluck().get()).toBe(0)
    expect(() => db.prepare("INSERT INTO settings (key, value) VALUES ('a', 'b')").run()).toThrow(/readonly/)
    closeDatabase(db)
    expect(hash(path)).toBe(before)
  })

  it('refuses an older schema instead of upgrading it', () => {
    const path = newPath()
    closeDatabase(openDatabase(path, { migrations: migrations.slice(0, 3) }))
    expect(() => openDatabase(path, { readOnly: true, audience: 'cli' })).toThrow(
      /older Satchel \(schema 3; this Satchel reads \d+\).*satchel sync/,
    )
    const db = openDatabase(path, { readOnly: true, migrations: migrations.slice(0, 3) })
    expect(db.pragma('user_version', { simple: true })).toBe(3)
    closeDatabase(db)
  })

  it('refuses a missing or empty file without making one', () => {
    const missing = newPath()
    expect(() => openDatabase(missing, { readOnly: true })).toThrow(CoreError)
    expect(() => statSync(missing)).toThrow()
    const empty = newPath()
    writeFileSync(empty, '')
    expect(() => openDatabase(empty, { readOnly: true })).toThrow(
      expect.objectContaining({ code: 'NOT_A_DATABASE', message: expect.stringContaining('the file is empty') }),
    )
    expect(statSync(empty).size).toBe(0)
  })
})

describe('opening to write', () => {
  it('makes a new database in an empty file, unless asked not to create one', () => {
    const path = newPath()
    writeFileSync(path, '')
    expect(() => openDatabase(path, { create: false })).toThrow(DatabaseFileError)
    const db = openDatabase(path)
    expect(db.pragma('user_version', { simple: true })).toBe(latestSchemaVersion())
    closeDatabase(db)
  })

  it('refuses an empty file with a -wal beside it, keeping the -wal (SQLite would delete it)', () => {
    const path = newPath()
    writeFileSync(path, '')
    writeFileSync(`${path}-wal`, Buffer.alloc(4096, 7))
    expect(() => openDatabase(path)).toThrow(expect.objectContaining({ code: 'NOT_A_DATABASE' }))
    expect(statSync(`${path}-wal`).size).toBe(4096)
  })

  it("refuses another program's database before migrating anything into it", () => {
    const path = newPath()
    const other = openDatabase(path, {
      migrations: [{ version: 1, name: 'theirs', up: (db) => db.exec('CREATE TABLE recipes (name TEXT)') }],
    })
    closeDatabase(other)
    const before = hash(path)
    expect(() => openDatabase(path)).toThrow(/another program/)
    expect(hash(path)).toBe(before)
  })

  it('leaves a file cut mid-page to SQLite when a -wal beside it may still complete it', () => {
    const path = newPath()
    closeDatabase(openDatabase(path))
    writeFileSync(path, readFileSync(path).subarray(0, statSync(path).size - 100))
    expect(() => openDatabase(path, { readOnly: true })).toThrow(/not a whole number of pages/)
    // An empty -wal holds no pages: the file is judged as it is.
    writeFileSync(`${path}-wal`, Buffer.alloc(0))
    expect(() => openDatabase(path, { readOnly: true })).toThrow(/not a whole number of pages/)
    writeFileSync(`${path}-wal`, Buffer.alloc(4096, 7))
    let opened: ReturnType<typeof openDatabase> | undefined
    try {
      opened = openDatabase(path, { readOnly: true })
    } catch (error) {
      expect((error as Error).message).not.toMatch(/whole number of pages/)
    } finally {
      if (opened) closeDatabase(opened)
    }
  })
})

describe('explainDatabaseError: SQLite codes in words, one place for the app and the CLI', () => {
  const path = '/laptop/satchel.db'
  it('damage and foreign files: NOT_A_DATABASE, with what to do for each audience', () => {
    const cli = explainDatabaseError(sqliteError('SQLITE_CORRUPT_INDEX'), path, 'cli')
    expect(cli).toMatchObject({
      code: 'NOT_A_DATABASE',
      message: expect.stringMatching(
        /^\/laptop\/satchel\.db is not a Satchel database \(or is damaged\): parts of it are damaged or missing\. .*`satchel sync`/,
      ),
    })
    expect(explainDatabaseError(sqliteError('SQLITE_NOTADB'), path, 'app')?.message).toMatch(/start Satchel again/)
    expect(cli?.cause).toMatchObject({ code: 'SQLITE_CORRUPT_INDEX' })
  })

  it('a folder SQLite cannot write: DATABASE_READ_ONLY naming the folder', () => {
    expect(explainDatabaseError(sqliteError('SQLITE_READONLY_DIRECTORY'), path, 'cli')).toMatchObject({
      code: 'DATABASE_READ_ONLY',
      message: expect.stringMatching(
        /^The database at \/laptop\/satchel\.db is read-only \(its folder \/laptop cannot be written/,
      ),
    })
  })

  it('a write refused where the permission bits allow it (a read-only mount for root): the file, read-only', () => {
    const writable = newPath()
    closeDatabase(openDatabase(writable))
    expect(explainDatabaseError(sqliteError('SQLITE_READONLY'), writable, 'cli')).toMatchObject({
      code: 'DATABASE_READ_ONLY',
      message: expect.stringContaining(`The database at ${writable} is read-only`),
    })
  })

  it('anything else is not a file problem: a CoreError stays itself, the rest is for the caller', () => {
    const own = new CoreError('CONFLICT', 'no')
    expect(explainDatabaseError(own, path, 'cli')).toBe(own)
    expect(explainDatabaseError(sqliteError('SQLITE_CONSTRAINT_UNIQUE'), path, 'cli')).toBeNull()
    expect(explainDatabaseError(new Error('boom'), path, 'cli')).toBeNull()
  })

  it('a file gone between the look and the open (a profile removed meanwhile): NOT_FOUND, not SQLite\'s "unable to open"', () => {
    const gone = newPath()
    expect(explainDatabaseError(sqliteError('SQLITE_CANTOPEN'), gone, 'cli')).toMatchObject({
      code: 'NOT_FOUND',
      message: expect.stringContaining(`No Satchel database at ${gone}`),
    })
  })
})
