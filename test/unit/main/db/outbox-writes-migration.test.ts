/**
 * Schema 24: outbox entries of every kind. An entry queued before it reads as an order, with its
 * payload and its state as they were; the two states of writes after Send are taken, nothing else is.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { closeDatabase, openDatabase } from '../../../../src/main/db/database'
import { migrations } from '../../../../src/main/db/migrations'

const directories: string[] = []
afterEach(() => {
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true })
})

function insert(db: ReturnType<typeof openDatabase>, key: string, state: string, kind?: string): void {
  const columns = kind ? ', kind' : ''
  const values = kind ? `, '${kind}'` : ''
  const { lastInsertRowid } = db
    .prepare(
      `INSERT INTO outbox (api_guid, state, customer_name, catalog_guid, rep_totals, queued_at, updated_at${columns})
       VALUES (?, ?, 'Acme', 'c', '{"lineCount":1,"subTotal":1}', 'now', 'now'${values})`,
    )
    .run(key, state)
  db.prepare("INSERT INTO outbox_payloads (entry_id, draft, request) VALUES (?, '{}', '{}')").run(lastInsertRowid)
}

describe('migration 24, outbox writes of every kind', () => {
  it('keeps every entry as an order, its payload with it, and takes conflict and refused', () => {
    const directory = mkdtempSync(join(tmpdir(), 'satchel-m24-'))
    directories.push(directory)
    const path = join(directory, 'satchel.db')
    const before = openDatabase(path, { migrations: migrations.slice(0, 23) })
    insert(before, 'a', 'queued')
    insert(before, 'b', 'sent')
    expect(() => insert(before, 'c', 'conflict')).toThrow(/CHECK/)
    closeDatabase(before)

    const db = openDatabase(path)
    expect(db.prepare('SELECT api_guid, kind, state, depends_on, detail FROM outbox ORDER BY id').all()).toEqual([
      { api_guid: 'a', kind: 'order', state: 'queued', depends_on: null, detail: null },
      { api_guid: 'b', kind: 'order', state: 'sent', depends_on: null, detail: null },
    ])
    expect(db.prepare('SELECT count(*) FROM outbox_payloads').pluck().get()).toBe(2)
    insert(db, 'c', 'conflict', 'orderChange')
    insert(db, 'd', 'refused', 'submit')
    expect(() => insert(db, 'e', 'lost')).toThrow(/CHECK/)
    expect(() => insert(db, 'f', 'queued', 'refund')).toThrow(/CHECK/)
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok')
    closeDatabase(db)
  })
})
