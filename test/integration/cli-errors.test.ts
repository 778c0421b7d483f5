/**
 * The CLI's error paths as a user meets them: a real child process, one JSON object on stdout with
 * --json whatever happens, and messages that say what to do.
 */
import BetterSqlite3 from 'better-sqlite3'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { closeDatabase, openDatabase } from '../../src/main/db/database'
import { cli, json } from '../support/cli'

let directory: string

beforeAll(() => {
  directory = mkdtempSync(join(tmpdir(), 'satchel-cli-errors-'))
})

afterAll(() => {
  rmSync(directory, { recursive: true, force: true })
})

function freshDatabase(name: string): string {
  const path = join(directory, name)
  closeDatabase(openDatabase(path))
  return path
}

describe('--json prints exactly one object', () => {
  it('status while another process holds the write lock: one result object, exit 0', async () => {
    const path = freshDatabase('locked.db')
    const holder = new BetterSqlite3(path)
    holder.prepare("INSERT INTO settings (key, value) VALUES ('x', 'y')").run()
    holder.exec('BEGIN IMMEDIATE')
    try {
      const run = await cli(['status', '--db', path, '--json'])
      expect(run.stderr).toBe('')
      expect(run.code).toBe(0)
      expect(json(run)).toMatchObject({ counts: expect.any(Object), outbox: expect.any(Object) })
    } finally {
      holder.exec('ROLLBACK')
      holder.close()
    }
  })
})
