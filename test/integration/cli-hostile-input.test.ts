/**
 * What a user can hand the CLI by mistake or on purpose, each refused with a clear message (exit 2)
 * and nothing written: a device or a pipe as a file, a folder as a file or a database, credentials in
 * the service address, characters nobody sees in a PO. And secrets given so they do not show in the
 * process list: `--api-secret-file` and `--user-token-file`, a path or `-` for standard input.
 */
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startService } from '../service/index'
import type { RunningService } from '../service/types'
import { cli, json } from '../support/cli'

let service: RunningService
let directory: string

beforeAll(async () => {
  service = await startService({ size: 'tiny', seed: 31 })
  directory = mkdtempSync(join(tmpdir(), 'satchel-cli-hostile-'))
})

afterAll(async () => {
  await service.close()
  rmSync(directory, { recursive: true, force: true })
})

describe('files that are not files', () => {
  it('--file /dev/zero, a FIFO nobody writes to, and a folder are refused at once, never read', async () => {
    const db = join(directory, 'files.db')
    const fifo = join(directory, 'draft.fifo')
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0)
    const folder = join(directory, 'a-folder')
    mkdirSync(folder)
    for (const [file, said] of [
      ['/dev/zero', /not a regular file/],
      [fifo, /not a regular file/],
      [folder, /is a folder, not a file/],
    ] as const) {
      const started = Date.now()
      const run = await cli(['order', 'queue', '--file', file, '--db', db, '--json'], {})
      expect({ file, code: run.code }).toEqual({ file, code: 2 })
      expect(JSON.stringify(json(run))).toMatch(said)
      expect(Date.now() - started).toBeLessThan(20_000)
      const addresses = await cli(['customers', 'add', '--name', 'Pipe Deli', '--file', file, '--db', db], {})
      expect(addresses.code).toBe(2)
      expect(addresses.stderr).toMatch(said)
    }
  })

  it('--db naming a folder says so, not "disk I/O error"', async () => {
    const run = await cli(['status', '--db', directory, '--json'], {})
    expect(run.code).toBe(2)
    expect(json(run)).toMatchObject({ error: { code: 'INVALID_ARGUMENT' } })
    expect(run.stderr).toMatch(/is a folder: give the database file/)
  })
})

describe('what is typed', () => {
  it('a user name and password in --base-url are refused before anything is stored', async () => {
    const db = join(directory, 'address.db')
    const url = new URL(service.url)
    url.username = 'rep'
    url.password = 'hunter2'
    const run = await cli(['sync', '--db', db, '--base-url', url.href, '--api-key', 'k', '--api-secret', 's'], {})
    expect(run.code).toBe(2)
    expect(run.stderr).toMatch(/Leave the user name and password out of the service address/)
    expect(existsSync(db)).toBe(false)
  })

  it('a PO or line note with a direction override or a NUL is refused with its path', async () => {
    const db = join(directory, 'typed.db')
    const file = join(directory, 'typed.json')
    writeFileSync(
      file,
      JSON.stringify({
        customerGuid: '6f1c1b7e-2a55-4f6a-9a57-3c1f0b7f9d10',
        catalogGuid: '1d3c8a52-8f0e-4b64-9b1a-5d2f7e6c4a21',
        poNo: 'PO-\u202e4321',
        lines: [{ sku: 'A-1', qty: 1, note: 'cut\u0000' }],
      }),
    )
    const run = await cli(['order', 'queue', '--file', file, '--db', db, '--json'], {})
    expect(run.code).toBe(2)
    const errors = json(run).errors as { path: string; message: string }[]
    expect(errors.map((error) => error.path)).toEqual(['poNo', 'lines.0.note'])
    expect(errors[0]?.message).toMatch(/characters that do not show on screen/)
  })
})

describe('secrets kept out of the process list', () => {
  it('--api-secret-file - reads the secret from standard input; --user-token-file from a file', async () => {
    const { apiKey, apiSecret, userToken, userGuid, supplierGuid } = service.credentials
    const keyed = await cli(
      [
        'sync',
        '--db',
        join(directory, 'keyed.db'),
        '--base-url',
        service.url,
        '--api-key',
        apiKey,
        '--api-secret-file',
        '-',
        '--json',
      ],
      {},
      { input: `${apiSecret}\n` },
    )
    expect(keyed.code, keyed.stderr).toBe(0)

    const tokenFile = join(directory, 'token.txt')
    writeFileSync(tokenFile, `${userToken}\n`, { mode: 0o600 })
    const session = await cli(
      [
        'sync',
        '--db',
        join(directory, 'session.db'),
        '--base-url',
        service.url,
        '--user-token-file',
        tokenFile,
        '--user-guid',
        userGuid,
        '--supplier-guid',
        supplierGuid,
        '--json',
      ],
      {},
    )
    expect(session.code, session.stderr).toBe(0)

    const both = await cli(
      ['status', '--api-secret', 's', '--api-secret-file', tokenFile, '--db', join(directory, 'x.db')],
      {},
    )
    expect(both.code).toBe(2)
    expect(both.stderr).toMatch(/--api-secret and --api-secret-file do not go together/)
    const empty = join(directory, 'empty.txt')
    writeFileSync(empty, '\n')
    const none = await cli(['sync', '--api-secret-file', empty, '--db', join(directory, 'y.db')], {})
    expect(none.code).toBe(2)
    expect(none.stderr).toMatch(/holds no api secret on its first line/)
  })
})
