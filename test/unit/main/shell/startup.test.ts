/**
 * What the rep is told when Satchel cannot start, for each kind of database it cannot use. The
 * damaged and foreign files are real files opened by the real core; the read-only cases go through
 * the same error type directly, because these tests run as root in CI and root may write any file
 * (the CLI's tests prove the detection as an unprivileged user: test/integration/cli-db-files.test.ts).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import BetterSqlite3 from 'better-sqlite3'
import { afterAll, describe, expect, it, vi } from 'vitest'
import { createCore } from '../../../../src/main/core/compose'
import { DatabaseFileError } from '../../../../src/main/db/file-errors'
import { CoreError } from '../../../../src/main/errors'
import { describeStartFailure, reportStartFailure } from '../../../../src/main/shell/startup'

const directory = mkdtempSync(join(tmpdir(), 'satchel-startup-'))
afterAll(() => rmSync(directory, { recursive: true, force: true }))

function startFailureOf(path: string): unknown {
  try {
    const core = createCore({ databasePath: path, appVersion: '0.1.0', backgroundSync: false })
    void core.close()
  } catch (error) {
    return error
  }
  throw new Error(`the core started on ${path}`)
}

const rawSqlite = /SQLITE_|file is not a database|disk image is malformed|readonly database|unable to open/

describe('a database the app cannot use', () => {
  it('a damaged file: the app names it and says what to do, in the app’s words', () => {
    const path = join(directory, 'text.db')
    writeFileSync(path, 'not a database\n'.repeat(200))
    const { title, message } = describeStartFailure(startFailureOf(path))
    expect(title).toBe('Satchel cannot open its database')
    expect(message.startsWith(`${path} is not a Satchel database (or is damaged): `)).toBe(true)
    expect(message).toMatch(/move the file aside .* start Satchel again/)
    expect(message).toMatch(/drafts, unsent orders and settings in the old file cannot be read/)
    expect(message).not.toMatch(rawSqlite)
    expect(message).not.toContain('satchel sync')
  })

  it("another program's SQLite database is refused, not migrated", () => {
    const path = join(directory, 'foreign.db')
    const other = new BetterSqlite3(path)
    other.exec('CREATE TABLE recipes (name TEXT)')
    other.close()
    const { message } = describeStartFailure(startFailureOf(path))
    expect(message).toContain('another program')
    const after = new BetterSqlite3(path, { readonly: true })
    expect(after.prepare("SELECT name FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'").pluck().all()).toEqual([
      'recipes',
    ])
    after.close()
  })

  it('a read-only file or folder: the rep is told to make it writable and start again', () => {
    for (const problem of [
      { kind: 'readOnly', cause: 'file', file: '/home/rep/.config/Satchel/satchel.db' },
      { kind: 'readOnly', cause: 'folder' },
    ] as const) {
      const { title, message } = describeStartFailure(
        new DatabaseFileError('/home/rep/.config/Satchel/satchel.db', problem, 'app'),
      )
      expect(title).toBe('Satchel cannot open its database')
      expect(message).toMatch(/^The database at \/home\/rep\/\.config\/Satchel\/satchel\.db is read-only/)
      expect(message).toMatch(/writable .* then start Satchel again/)
    }
  })

  it('reportStartFailure logs with SQLite’s code for support, shows the box, and exits 1', () => {
    const path = join(directory, 'garbled.db')
    const db = new BetterSqlite3(path)
    db.exec('CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT); PRAGMA user_version = 1')
    db.close()
    const calls: string[] = []
    const ports = {
      showErrorBox: vi.fn((title: string) => void calls.push(`box ${title}`)),
      logError: vi.fn((line: string) => void calls.push(`log ${line}`)),
      exit: vi.fn((code: number) => void calls.push(`exit ${code}`)),
    }
    const corrupt = Object.assign(new Error('database disk image is malformed'), { code: 'SQLITE_CORRUPT' })
    const error = new DatabaseFileError(
      path,
      { kind: 'notADatabase', reason: 'parts of it are damaged or missing' },
      'app',
    )
    error.cause = corrupt
    reportStartFailure(error, ports)
    expect(calls).toEqual([
      expect.stringMatching(/^log Satchel could not start: .* \[SQLITE_CORRUPT\]$/),
      'box Satchel cannot open its database',
      'exit 1',
    ])
  })

  it('other failures keep their own message', () => {
    expect(describeStartFailure(new CoreError('CONFLICT', 'This database was written by a newer Satchel'))).toEqual({
      title: 'Satchel could not start',
      message: 'This database was written by a newer Satchel',
    })
    expect(describeStartFailure(new Error('boom')).message).toBe('boom')
  })
})
