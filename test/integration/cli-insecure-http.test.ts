/**
 * The CLI never sends the API secret over plain http to another computer unless told to for a lab
 * (`--allow-insecure-http`), and then says so on every run, including later runs that rely on the
 * choice it kept in the database for that address.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import BetterSqlite3 from 'better-sqlite3'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { closeDatabase, openDatabase } from '../../src/main/db/database'
import { cli, json } from '../support/cli'

let directory: string
const credentials = { SATCHEL_API_KEY: 'key-123', SATCHEL_API_SECRET: 'secret-456' }

beforeAll(() => {
  directory = mkdtempSync(join(tmpdir(), 'satchel-cli-http-'))
})
afterAll(() => {
  rmSync(directory, { recursive: true, force: true })
})

/** A database with nothing to send: `flush` builds its connection, then has no reason to connect. */
function emptyDatabase(name: string, savedConnection?: { baseUrl: string }): string {
  const path = join(directory, name)
  const db = openDatabase(path)
  if (savedConnection) {
    db.prepare("INSERT INTO settings (key, value) VALUES ('connection', ?)").run(
      JSON.stringify({ ...savedConnection, auth: { kind: 'apiKey', apiKey: 'key-123', userGuid: null } }),
    )
  }
  closeDatabase(db)
  return path
}

describe('plain http to another computer', () => {
  it('is refused (exit 2) with why, and how to allow it for a lab', async () => {
    const db = emptyDatabase('refused.db')
    const run = await cli(['flush', '--db', db, '--base-url', 'http://192.0.2.10:4010', '--json'], credentials)
    expect(run.code).toBe(2)
    const { error } = json(run) as { error: { code: string; message: string } }
    expect(error.code).toBe('INVALID_ARGUMENT')
    expect(error.message).toMatch(/https:\/\//)
    expect(error.message).toContain('unencrypted')
    expect(error.message).toContain('--allow-insecure-http')
  })

  it('is refused for the address the desktop app saved, too', async () => {
    const db = emptyDatabase('saved.db', { baseUrl: 'http://orders.lab.example' })
    const run = await cli(['flush', '--db', db, '--json'], credentials)
    expect(run.code).toBe(2)
    expect(run.stderr).toContain('unencrypted')
  })

  it('with --allow-insecure-http runs, with a warning; later runs to that address warn too; another address is still refused', async () => {
    const db = emptyDatabase('allowed.db')
    const allowed = await cli(
      ['flush', '--db', db, '--base-url', 'http://192.0.2.10:4010', '--allow-insecure-http', '--json'],
      credentials,
    )
    expect(allowed.code).toBe(0)
    expect(json(allowed)).toEqual({ sent: 0, needsAttention: 0, retrying: 0 })
    expect(allowed.stderr).toMatch(/warning: .*http:\/\/192\.0\.2\.10:4010.*unencrypted/)

    const later = await cli(['flush', '--db', db, '--json'], {
      ...credentials,
      SATCHEL_BASE_URL: 'http://192.0.2.10:4010/',
    })
    expect(later.code).toBe(0)
    expect(later.stderr).toMatch(/warning: .*http:\/\/192\.0\.2\.10:4010.*unencrypted/)

    const other = await cli(['flush', '--db', db, '--base-url', 'http://192.0.2.11:4010', '--json'], credentials)
    expect(other.code).toBe(2)

    const local = new BetterSqlite3(db, { readonly: true })
    expect(
      JSON.parse(
        local.prepare<[], string>("SELECT value FROM settings WHERE key = 'insecureHttpAllowed'").pluck().get()!,
      ),
    ).toBe('http://192.0.2.10:4010')
    local.close()
  })

  it('is taken without a word for this computer: 127.0.0.0/8, ::1 and localhost', async () => {
    const db = emptyDatabase('loopback.db')
    for (const baseUrl of ['http://127.0.0.1:9', 'http://127.1.2.3:9', 'http://[::1]:9', 'http://localhost:9']) {
      const run = await cli(['flush', '--db', db, '--base-url', baseUrl, '--json'], credentials)
      expect(run.code, baseUrl).toBe(0)
      expect(run.stderr, baseUrl).toBe('')
    }
  })
})
