/**
 * The CLI signed in as a user: `--user-token`, `--user-guid`, `--supplier-guid` (or SATCHEL_USER_TOKEN,
 * SATCHEL_USER_GUID, SATCHEL_SUPPLIER_GUID) instead of an API key. Requests carry the session headers
 * and no key; an expired session pauses the outbox with "Sign in again" and keeps every entry, and a
 * new token sends them all, once each. The token never shows in what is printed or bundled.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { closeDatabase, openDatabase } from '../../src/main/db/database'
import { startService } from '../service/index'
import type { RunningService } from '../service/types'
import { cli, json } from '../support/cli'
import { findOrderable, type Orderable } from '../support/orderable'
import { unzipAll } from '../support/unzip'

let service: RunningService
let directory: string
let dbPath: string
let orderable: Orderable

function session(userToken: string): Record<string, string> {
  return {
    SATCHEL_DB: dbPath,
    SATCHEL_BASE_URL: service.url,
    SATCHEL_USER_TOKEN: userToken,
    SATCHEL_USER_GUID: service.credentials.userGuid,
    SATCHEL_SUPPLIER_GUID: service.credentials.supplierGuid,
  }
}

async function queue(name: string): Promise<string> {
  const file = join(directory, `${name}.json`)
  writeFileSync(
    file,
    JSON.stringify({
      customerGuid: orderable.customerGuid,
      catalogGuid: orderable.catalogGuid,
      lines: [{ sku: orderable.skus[0], qty: 1 }],
    }),
  )
  const queued = await cli(['order', 'queue', '--file', file, '--json'], { SATCHEL_DB: dbPath })
  expect(queued.code).toBe(0)
  return json(queued).apiGuid as string
}

beforeAll(async () => {
  service = await startService({ size: 'tiny', seed: 41 })
  directory = mkdtempSync(join(tmpdir(), 'satchel-cli-session-'))
  dbPath = join(directory, 'satchel.db')
}, 60_000)

afterAll(async () => {
  await service?.close()
  rmSync(directory, { recursive: true, force: true })
})

describe('signed in as a user', () => {
  it('syncs and sends with the session headers alone, no API key', async () => {
    service.control.clearRequestLog()
    const synced = await cli(['sync', '--json'], session(service.credentials.userToken))
    expect(synced.code).toBe(0)
    const db = openDatabase(dbPath, { readOnly: true, create: false })
    orderable = findOrderable(db, 1)
    closeDatabase(db)
    const apiGuid = await queue('first')
    const flushed = await cli(['flush', '--json'], session(service.credentials.userToken))
    expect(flushed.code).toBe(0)
    expect(json(flushed)).toMatchObject({ sent: 1 })
    expect(service.control.ordersByApiGuid(apiGuid)).toHaveLength(1)
    const log = service.control.requestLog()
    expect(log.length).toBeGreaterThan(0)
    for (const entry of log) {
      expect(entry.headers['usertoken']).toBe(service.credentials.userToken)
      expect(entry.headers['x-apikey']).toBeUndefined()
    }
  })

  it('asks for all three: a token without the supplier GUID is invalid input', async () => {
    const { SATCHEL_SUPPLIER_GUID: _s, ...partial } = session(service.credentials.userToken)
    const run = await cli(['flush', '--json'], partial)
    expect(run.code).toBe(2)
    expect(run.stderr).toContain('--supplier-guid')
  })

  it('an expired session pauses the outbox with "Sign in again", keeps every entry, and a new token sends all', async () => {
    const old = service.credentials.userToken
    const a = await queue('a')
    const b = await queue('b')
    const { userToken: fresh } = service.control.expireSession()
    expect(fresh).not.toBe(old)

    const refused = await cli(['flush', '--json'], session(old))
    expect(refused.code).toBe(1)
    expect(refused.stderr).toContain('Sign in again')
    expect(refused.stdout + refused.stderr).not.toContain(old)
    const status = json(await cli(['status', '--json'], { SATCHEL_DB: dbPath }))
    expect(JSON.stringify(status)).toContain('Sign in again')
    const waiting = json(await cli(['outbox', '--json'], { SATCHEL_DB: dbPath })).entries as {
      apiGuid: string
      state: string
    }[]
    expect(waiting.filter((entry) => entry.apiGuid === a || entry.apiGuid === b).map((e) => e.state)).toEqual([
      'queued',
      'queued',
    ])
    expect(service.control.ordersByApiGuid(a)).toHaveLength(0)

    const resumed = await cli(['flush', '--json'], session(fresh))
    expect(resumed.code).toBe(0)
    expect(json(resumed)).toMatchObject({ sent: 2 })
    expect(service.control.ordersByApiGuid(a)).toHaveLength(1)
    expect(service.control.ordersByApiGuid(b)).toHaveLength(1)
    const after = json(await cli(['status', '--json'], { SATCHEL_DB: dbPath }))
    expect(JSON.stringify(after)).not.toContain('Sign in again')
  })

  it('the support bundle masks the user token', async () => {
    // Not JWT-shaped: the bundle masks those by their look already; this one only as the given secret.
    const token = 'opaque-session-7f3b2d9c8e01a4c5'
    const logs = join(directory, 'logs')
    mkdirSync(logs, { recursive: true })
    // A line as the app's log writes it (its local time first), quoting the token bare: a proxy's echo.
    const now = new Date()
    const pad = (n: number) => String(n).padStart(2, '0')
    const stamp = `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())} ${pad(now.getHours())}:${pad(now.getMinutes())}:${pad(now.getSeconds())}`
    writeFileSync(join(logs, 'main.log'), `[${stamp}.000] [warn] a proxy answered: ${token}\n`)
    const out = join(directory, 'bundle.zip')
    const made = await cli(['support-bundle', '--out', out, '--logs', logs, '--json'], session(token))
    expect(made.code).toBe(0)
    const text = [...unzipAll(readFileSync(out)).values()].join('\n')
    expect(text).not.toContain(token)
    expect(text).toContain('a proxy answered: [redacted]')
  })
})
