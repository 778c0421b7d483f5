import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { closeDatabase, latestSchemaVersion, openDatabase } from '../../../../src/main/db/database'
import type { Migration } from '../../../../src/main/db/migration'
import { migrations } from '../../../../src/main/db/migrations'
import { CoreError } from '../../../../src/main/errors'

const directories: string[] = []
function tempPath(): string {
  const directory = mkdtempSync(join(tmpdir(), 'satchel-db-'))
  directories.push(directory)
  return join(directory, 'satchel.db')
}

afterEach(() => {
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true })
})

describe('openDatabase', () => {
  it('applies every migration, records the version, and turns on WAL and foreign keys', () => {
    const db = openDatabase(tempPath())
    expect(db.pragma('user_version', { simple: true })).toBe(latestSchemaVersion())
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal')
    expect(db.pragma('foreign_keys', { simple: true })).toBe(1)
    closeDatabase(db)
  })

  it('maps the file for reading only on a connection that asks (bench:search --mapped), and that connection still sees what another commits', () => {
    const path = tempPath()
    const window = openDatabase(path, { mappedReads: true })
    const writer = openDatabase(path)
    expect(window.pragma('mmap_size', { simple: true })).toBeGreaterThan(0)
    expect(writer.pragma('mmap_size', { simple: true })).toBe(0)
    writer.exec('CREATE TABLE seen (n INTEGER); INSERT INTO seen VALUES (1)')
    expect(window.prepare('SELECT n FROM seen').pluck().all()).toEqual([1])
    // Into the file itself, the pages the map reads: the window reads the checkpointed rows, and the file grown.
    writer
      .prepare(
        'WITH RECURSIVE k(n) AS (SELECT 2 UNION ALL SELECT n + 1 FROM k WHERE n < 5000) INSERT INTO seen SELECT n FROM k',
      )
      .run()
    writer.pragma('wal_checkpoint(TRUNCATE)')
    expect(window.prepare('SELECT count(*), sum(n) FROM seen').raw().get()).toEqual([5000, (5000 * 5001) / 2])
    window.prepare('DELETE FROM seen WHERE n > 1').run()
    expect(writer.prepare('SELECT count(*) FROM seen').pluck().get()).toBe(1)
    closeDatabase(writer)
    closeDatabase(window)
  })

  it('refuses a database written by a newer Satchel and leaves it untouched', () => {
    const path = tempPath()
    const db = openDatabase(path)
    db.pragma(`user_version = ${latestSchemaVersion() + 5}`)
    closeDatabase(db)
    expect(() => openDatabase(path)).toThrow(CoreError)
    expect(() => openDatabase(path)).toThrow(/newer Satchel/)
  })

  it('rolls back every pending migration when one fails, keeping the old schema', () => {
    const path = tempPath()
    closeDatabase(openDatabase(path))
    const broken: Migration[] = [
      ...migrations,
      { version: 100, name: 'adds a table', up: (db) => db.exec('CREATE TABLE added (id INTEGER)') },
      { version: 101, name: 'fails', up: (db) => db.exec('THIS IS NOT SQL') },
    ]
    expect(() => openDatabase(path, { migrations: broken })).toThrow()
    const db = openDatabase(path)
    expect(db.pragma('user_version', { simple: true })).toBe(latestSchemaVersion())
    expect(db.prepare("SELECT name FROM sqlite_master WHERE name = 'added'").get()).toBeUndefined()
    closeDatabase(db)
  })
})
