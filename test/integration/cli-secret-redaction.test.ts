/**
 * A reply that echoes the credentials (a proxy's 502 quoting the request headers, a 400 whose message
 * holds the secret) leaves no trace of them: real `satchel` processes, the API secret in the real
 * system keyring (test/support/keyring.ts), the double answering with the key and secret in every
 * spelling. What `flush` and `sync` store (the outbox's last error and per-line errors, the sync
 * reports, each scope's last error), what they and `outbox --json` print, and the support bundle
 * made with the secret in the keyring all carry `[redacted]` where the credentials were.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { closeDatabase, openDatabase } from '../../src/main/db/database'
import { ProfileRegistry } from '../../src/main/profiles/registry'
import { startService } from '../service/index'
import type { RunningService } from '../service/types'
import { cli, json, type Run } from '../support/cli'
import { keyringSkipReason as skipReason, startTestKeyring, type TestKeyring } from '../support/keyring'
import { findOrderable } from '../support/orderable'
import { unzipAll } from '../support/unzip'

if (skipReason) console.warn(`cli-secret-redaction: skipped: ${skipReason}`)

let keyring: TestKeyring | undefined
let home: string
let dataDir: string
let service: RunningService
let env: Record<string, string>

beforeAll(async () => {
  if (skipReason) return
  home = mkdtempSync(join(tmpdir(), 'satchel-redact-home-'))
  dataDir = mkdtempSync(join(tmpdir(), 'satchel-redact-data-'))
  keyring = await startTestKeyring(home, dataDir)
  service = await startService({ size: 'tiny', seed: 37 })
  env = { SATCHEL_DATA_DIR: dataDir, DBUS_SESSION_BUS_ADDRESS: keyring.address, HOME: home }
}, 60_000)

afterAll(async () => {
  if (skipReason) return
  await service?.close()
  keyring?.stop()
  rmSync(home, { recursive: true, force: true })
  rmSync(dataDir, { recursive: true, force: true })
})

/** Every spelling of a credential the test could find in a text: as sent, and in capitals. */
function leaks(text: string): string[] {
  const { apiKey, apiSecret } = service.credentials
  return [apiKey, apiSecret, apiSecret.toUpperCase()].filter((value) => text.includes(value))
}

function expectClean(run: Run): void {
  expect(leaks(run.stdout + run.stderr)).toEqual([])
}

describe.skipIf(skipReason !== null)(
  'the credentials a reply echoes are redacted before anything keeps or prints them',
  () => {
    it('flush, sync, outbox --json and support-bundle (the secret in the keyring) never show the key or the secret', async () => {
      const { apiKey: K, apiSecret: S } = service.credentials
      const added = await cli(
        ['profiles', 'add', 'Acme', '--base-url', service.url, '--api-key', K, '--api-secret', S, '--json'],
        env,
      )
      expect(json(added)).toMatchObject({ secretStored: true })
      expect(json(await cli(['sync', '--json'], env)).ok).toBe(true)

      const registry = ProfileRegistry.open(dataDir)
      const databasePath = registry.databasePath(registry.resolve('Acme'))
      let db = openDatabase(databasePath, { readOnly: true, create: false })
      const orderable = findOrderable(db, 1)
      closeDatabase(db)
      for (const name of ['a', 'b']) {
        const draft = join(dataDir, `${name}.json`)
        writeFileSync(
          draft,
          JSON.stringify({
            customerGuid: orderable.customerGuid,
            catalogGuid: orderable.catalogGuid,
            lines: [{ sku: orderable.skus[0], qty: 1 }],
          }),
        )
        expect((await cli(['order', 'queue', '--file', draft, '--json'], env)).code).toBe(0)
      }

      // The first order meets a proxy quoting the headers (`x-apiSecret S`); the second a 400 that
      // names the secret in the other spellings, in its message and in a line's.
      const order = 'POST /v1/orderWithItems'
      service.control.addFault({ route: order, type: 'status', status: 502, echoHeaders: 'space', times: 1 })
      service.control.addFault({
        route: order,
        type: 'status',
        status: 400,
        skip: 1,
        times: 1,
        body: {
          message: `Header x-apisecret=${S} is not valid for x-apikey: ${K}`,
          errors: [{ message: `secret ${S.toUpperCase()} refused`, sku: orderable.skus[0] }],
        },
      })
      const flushed = await cli(['flush', '--json'], env)
      expectClean(flushed)
      expect(json(flushed)).toEqual({ sent: 0, needsAttention: 1, retrying: 1 })

      // Sync: a proxy's 502 on every attempt at the catalogs (`x-apiSecret: S` lines), then a 400 whose
      // message holds the bare values.
      const catalogs = 'GET /v1/catalogs'
      const proxy = service.control.addFault({
        route: catalogs,
        type: 'status',
        status: 502,
        echoHeaders: 'colon',
        body: '<html><body>502 Bad Gateway</body></html>',
      })
      const echoed = await cli(['sync', '--json'], env)
      service.control.removeFault(proxy)
      expectClean(echoed)
      expect(json(echoed)).toMatchObject({ ok: false, error: { message: expect.stringContaining('[redacted]') } })
      service.control.addFault({
        route: catalogs,
        type: 'status',
        status: 400,
        times: 1,
        body: { message: `no such key ${K} with secret ${S}` },
      })
      const refused = await cli(['sync', '--json'], env)
      expectClean(refused)
      expect(json(refused)).toMatchObject({ ok: false })

      const outbox = await cli(['outbox', '--json'], env)
      expectClean(outbox)
      const entries = json(outbox).entries as {
        state: string
        lastError: string | null
        errors: { message: string }[]
      }[]
      expect(entries.map((entry) => entry.state).sort()).toEqual(['needsAttention', 'retrying'])
      for (const entry of entries) expect(entry.lastError).toContain('[redacted]')
      expect(entries.find((entry) => entry.state === 'needsAttention')?.errors[0]?.message).toBe(
        'secret [redacted] refused',
      )

      db = openDatabase(databasePath, { readOnly: true, create: false })
      const stored = [
        ...db.prepare<[], { text: string }>("SELECT coalesce(last_error, '') || errors AS text FROM outbox").all(),
        ...db.prepare<[], { text: string }>('SELECT report AS text FROM sync_runs').all(),
        ...db.prepare<[], { text: string }>("SELECT coalesce(last_error, '') AS text FROM sync_scopes").all(),
      ].map((row) => row.text)
      closeDatabase(db)
      expect(leaks(stored.join('\n'))).toEqual([])
      expect(stored.join('\n')).toContain('[redacted]')

      // A row an earlier Satchel stored unredacted, and a log line: the bundle, made with the secret
      // only in the keyring, masks them as it writes them.
      db = openDatabase(databasePath)
      db.prepare("UPDATE outbox SET last_error = ? WHERE state = 'retrying'").run(
        `The ordering service failed (502): Request headers: x-apiKey ${K} x-apiSecret ${S}`,
      )
      closeDatabase(db)
      const logs = join(home, 'logs')
      mkdirSync(logs)
      const stamp = new Date().toISOString().replace('T', ' ').replace('Z', '')
      writeFileSync(
        join(logs, 'main.log'),
        `[${stamp}] [warn] proxy said: secret ${S.toUpperCase()} (${encodeURIComponent(S)})\n`,
      )
      const out = join(home, 'bundle.zip')
      const bundled = await cli(['support-bundle', '--out', out, '--logs', logs, '--json'], env)
      expectClean(bundled)
      expect(bundled.code).toBe(0)
      const files = unzipAll(readFileSync(out))
      expect(files.get('outbox.json')).toContain('x-apiSecret [redacted]')
      expect(files.get('logs/main.log')).toContain('secret [redacted] ([redacted])')
      expect(leaks([...files.values()].join('\n'))).toEqual([])
    }, 180_000)
  },
)
