/**
 * The CLI's error paths as a user meets them: a real child process, one JSON object on stdout with
 * --json whatever happens, and messages that say what to do.
 */
import BetterSqlite3 from 'better-sqlite3'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { closeDatabase, latestSchemaVersion, openDatabase } from '../../src/main/db/database'
import { migrations } from '../../src/main/db/migrations'
import { DraftRepository } from '../../src/main/orders/drafts'
import { Outbox } from '../../src/main/orders/outbox/outbox'
import { systemClock } from '../../src/main/ports'
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

const upper = '0B6C2F1E-4D7A-4C55-9A1E-7F3B2D9C8E01'
const catalogGuid = '7d2a9c1e-0b3f-4e6a-8c5d-1f2e3a4b5c6d'

/** An outbox entry written as an older Satchel could, with the key's capitals kept. */
function insertEntry(path: string, apiGuid: string, schema = latestSchemaVersion()): void {
  const db = openDatabase(path, { migrations: migrations.slice(0, schema) })
  try {
    const now = new Date().toISOString()
    db.prepare(
      `INSERT INTO outbox (api_guid, state, customer_guid, customer_name, catalog_guid, rep_totals, queued_at, updated_at)
       VALUES (?, 'queued', NULL, 'Old customer', ?, '{}', ?, ?)`,
    ).run(apiGuid, catalogGuid, now, now)
  } finally {
    closeDatabase(db)
  }
}

function draftFile(name: string, apiGuid: string): string {
  const path = join(directory, name)
  const customerGuid = '3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f'
  writeFileSync(path, JSON.stringify({ customerGuid, catalogGuid, apiGuid, lines: [{ sku: 'A-1', qty: 1 }] }))
  return path
}

describe('an apiGuid is a UUID, compared regardless of case', () => {
  it('order queue refuses a key that differs only in case from an outbox entry (exit 2, path apiGuid)', async () => {
    const path = freshDatabase('case.db')
    insertEntry(path, upper)
    const run = await cli([
      'order',
      'queue',
      '--db',
      path,
      '--file',
      draftFile('lower.json', upper.toLowerCase()),
      '--json',
    ])
    expect(run.code).toBe(2)
    expect(json(run)).toEqual({
      errors: [{ path: 'apiGuid', message: expect.stringContaining('already in the outbox (queued)') }],
    })
  })

  it('the outbox finds, retries and discards an entry by its key in any case', () => {
    const path = freshDatabase('lookup.db')
    insertEntry(path, upper)
    const db = openDatabase(path)
    try {
      const outbox = new Outbox(db, new DraftRepository(db, systemClock), systemClock)
      expect(outbox.find(upper.toLowerCase())?.apiGuid).toBe(upper)
      expect(outbox.get('0b6c2f1e-4D7A-4c55-9a1e-7f3b2d9c8e01').state).toBe('queued')
      expect(() => outbox.retryNow(upper.toLowerCase())).not.toThrow()
      outbox.discard(upper.toLowerCase())
      expect(outbox.find(upper)).toBeNull()
    } finally {
      closeDatabase(db)
    }
  })

  it('upgrading a database that already holds two keys differing only in case works, and a third is refused', async () => {
    const path = join(directory, 'two-cases.db')
    insertEntry(path, upper, 8)
    insertEntry(path, upper.toLowerCase(), 8)
    const db = openDatabase(path)
    try {
      expect(db.pragma('user_version', { simple: true })).toBe(latestSchemaVersion())
      expect(db.prepare("SELECT name FROM sqlite_master WHERE name = 'outbox_api_guid_nocase'").get()).toBeUndefined()
    } finally {
      closeDatabase(db)
    }
    const run = await cli([
      'order',
      'queue',
      '--db',
      path,
      '--file',
      draftFile('mixed.json', '0b6c2f1e-4D7A-4c55-9a1e-7f3b2d9c8e01'),
      '--json',
    ])
    expect(run.code).toBe(2)
    expect(json(run)).toMatchObject({ errors: [{ path: 'apiGuid' }] })
  })

  it('a new database refuses a second entry for the same key in other capitals', () => {
    const path = freshDatabase('index.db')
    insertEntry(path, upper)
    expect(() => insertEntry(path, upper.toLowerCase())).toThrow(/UNIQUE/)
  })
})
