/**
 * The database holds customers, prices and orders: on POSIX its file, SQLite's -wal and -shm beside
 * it and a folder Satchel makes for it are the user's alone (0600, 0700), whatever the umask, for
 * the main connection and the sync's writer thread alike.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest'
import { closeDatabase, openDatabase } from '../../../../src/main/db/database'
import { sourceSyncThread, startWorkerWriter } from '../../../../src/main/sync/page-writer'

const posix = process.platform !== 'win32'
const directory = mkdtempSync(join(tmpdir(), 'satchel-db-modes-'))
afterAll(() => rmSync(directory, { recursive: true, force: true }))
const mode = (path: string) => (statSync(path).mode & 0o777).toString(8)

// The most permissive umask: any mode left to the defaults (SQLite's 0644, mkdir's 0777) shows.
let umask = 0
beforeEach(() => {
  umask = process.umask(0)
})
afterEach(() => {
  process.umask(umask)
})

describe.skipIf(!posix)('file modes on POSIX (Windows has none to set)', () => {
  it('a new database, its -wal and -shm are 0600, in a folder made 0700', () => {
    const folder = join(directory, 'new', 'Satchel')
    const path = join(folder, 'satchel.db')
    const db = openDatabase(path)
    db.prepare("INSERT INTO settings (key, value) VALUES ('a', '1')").run()
    expect({
      folder: mode(folder),
      parent: mode(join(directory, 'new')),
      db: mode(path),
      wal: mode(`${path}-wal`),
      shm: mode(`${path}-shm`),
    }).toEqual({
      folder: '700',
      parent: '700',
      db: '600',
      wal: '600',
      shm: '600',
    })
    closeDatabase(db)
  })

  it('the -wal and -shm the sync writer thread makes are 0600', async () => {
    const path = join(directory, 'writer.db')
    closeDatabase(openDatabase(path))
    // A clean close removes them: the writer's connection makes them anew.
    expect(() => statSync(`${path}-wal`)).toThrow()
    const writer = await startWorkerWriter(sourceSyncThread, { databasePath: path })
    try {
      expect({ db: mode(path), wal: mode(`${path}-wal`), shm: mode(`${path}-shm`) }).toEqual({
        db: '600',
        wal: '600',
        shm: '600',
      })
    } finally {
      await writer.close()
    }
  })
})
