/**
 * The CLI against database files a support person meets on real laptops: read-only files and
 * folders, files that are not (or no longer) Satchel databases, empty files, older schemas. A real
 * child process each time, exactly one JSON object on stdout with --json, and messages that say
 * what to do.
 *
 * Permissions are real. Root ignores them (and CI runs as root), so when this runs as root the CLI
 * is started as `nobody` (uid 65534), for whom a 0444 file or a 0555 folder is read-only; run as
 * anyone else, the CLI runs as that user.
 */
import BetterSqlite3 from 'better-sqlite3'
import { execFile, execFileSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import {
  chmodSync,
  chownSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  truncateSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { closeDatabase, latestSchemaVersion, openDatabase } from '../../src/main/db/database'
import { migrations } from '../../src/main/db/migrations'
import { startService } from '../service/index'
import type { RunningService } from '../service/types'
import { cli, cliEntry, json, root, type Run } from '../support/cli'

const isRoot = process.getuid?.() === 0
const nobody = 65534

/** The CLI as an unprivileged user: `nobody` when the tests run as root, else the user running them. */
function cliAsUser(args: string[], env: Record<string, string> = {}): Promise<Run> {
  return new Promise((done) => {
    const clean = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('SATCHEL_')))
    const as = isRoot ? { uid: nobody, gid: nobody } : {}
    execFile(
      process.execPath,
      [cliEntry, ...args],
      { cwd: root, env: { ...clean, HOME: tmpdir(), ...env }, timeout: 60_000, ...as },
      (error, stdout, stderr) => {
        done({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr })
      },
    )
  })
}

/** Whether `nobody` can run the CLI from this checkout at all (it must be able to read it). */
function userCanRunCli(): boolean {
  if (!isRoot) return true
  try {
    execFileSync(process.execPath, [cliEntry, '--help'], {
      cwd: root,
      env: { ...process.env, HOME: tmpdir() },
      uid: nobody,
      gid: nobody,
      stdio: 'ignore',
      timeout: 60_000,
    })
    return true
  } catch {
    return false
  }
}
const canRun = userCanRunCli()

let service: RunningService
let base: string
let template: string
let env: Record<string, string>
let catalogGuid: string
let itemWord: string
let customerWord: string
const userOwned: string[] = []

/** Makes `path` belong to the user the CLI runs as, so its mode bits alone decide what it may do. */
function giveToUser(path: string): void {
  if (isRoot) chownSync(path, nobody, nobody)
  userOwned.push(path)
}

let scenarios = 0
/** A folder of the user's own holding a copy of the synced database (closed cleanly: no -wal). */
function scenario(): { dir: string; db: string } {
  const dir = join(base, `s${++scenarios}`)
  mkdirSync(dir, { mode: 0o755 })
  const db = join(dir, 'satchel.db')
  copyFileSync(template, db)
  giveToUser(dir)
  giveToUser(db)
  return { dir, db }
}

function fingerprint(path: string): string {
  return createHash('sha256').update(readFileSync(path)).digest('hex')
}

function draftFile(): string {
  const path = join(base, 'draft.json')
  if (!existsSync(path)) {
    writeFileSync(
      path,
      JSON.stringify({
        customerGuid: '3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f',
        catalogGuid,
        lines: [{ sku: 'A-1', qty: 1 }],
      }),
    )
    chmodSync(path, 0o644)
  }
  return path
}

// Tables of commands are built when the tests are collected, before beforeAll has found a catalog,
// an item and a customer: words in capitals stand for them until the command runs.
const readCommands: [string, string[]][] = [
  ['status', ['status']],
  ['outbox', ['outbox']],
  ['items search', ['items', 'search', 'ITEM', '--catalog', 'CATALOG']],
  ['customers search', ['customers', 'search', 'CUSTOMER']],
]
const writeCommands: [string, string[]][] = [
  ['sync', ['sync']],
  ['flush', ['flush']],
  ['order queue', ['order', 'queue', '--file', 'DRAFT']],
]

function resolve(args: string[]): string[] {
  const values: Record<string, () => string> = {
    ITEM: () => itemWord,
    CATALOG: () => catalogGuid,
    CUSTOMER: () => customerWord,
    DRAFT: draftFile,
  }
  return args.map((arg) => values[arg]?.() ?? arg)
}

/** A file name for a command's own copy. */
function named(prefix: string, args: string[]): string {
  return join(base, `${prefix}-${args.join('-').replace(/\W+/g, '_')}.db`)
}

/** One failure: exit 1, one JSON object with the code, and the same message as one line on stderr. */
function expectFailure(run: Run, code: string): string {
  const result = json(run) as { error?: { code: string; message: string } }
  expect(result.error?.code, run.stderr).toBe(code)
  expect(run.code).toBe(1)
  const message = result.error!.message
  expect(run.stderr).toBe(`satchel: ${message}\n`)
  expect(message).not.toMatch(
    /SQLITE_|disk image is malformed|file is not a database|attempt to write a readonly database|unable to open database file/,
  )
  return message
}

beforeAll(async () => {
  service = await startService({ size: 'tiny', seed: 23 })
  base = mkdtempSync(join(tmpdir(), 'satchel-cli-db-files-'))
  chmodSync(base, 0o755)
  template = join(base, 'template.db')
  env = {
    SATCHEL_BASE_URL: service.url,
    SATCHEL_API_KEY: service.credentials.apiKey,
    SATCHEL_API_SECRET: service.credentials.apiSecret,
  }
  expect((await cli(['sync', '--db', template, '--json'], env)).code).toBe(0)
  const db = openDatabase(template)
  try {
    catalogGuid = db
      .prepare<[], string>('SELECT guid FROM catalogs WHERE active = 1 ORDER BY id LIMIT 1')
      .pluck()
      .get()!
    const itemName = db
      .prepare<[string], string>(
        'SELECT name FROM catalog_items WHERE catalog_guid = ? AND deleted_at IS NULL ORDER BY id LIMIT 1',
      )
      .pluck()
      .get(catalogGuid)!
    itemWord = itemName.split(/\s+/)[0]!
    const customerName = db
      .prepare<[], string>('SELECT name FROM customers WHERE deleted_at IS NULL ORDER BY id LIMIT 1')
      .pluck()
      .get()!
    customerWord = customerName.split(/\s+/)[0]!
    const now = new Date().toISOString()
    db.prepare(
      `INSERT INTO outbox (api_guid, state, customer_guid, customer_name, catalog_guid, rep_totals, queued_at, updated_at)
       VALUES ('0b6c2f1e-4d7a-4c55-9a1e-7f3b2d9c8e01', 'queued', NULL, 'Queued customer', ?, '{}', ?, ?)`,
    ).run(catalogGuid, now, now)
  } finally {
    closeDatabase(db)
  }
  expect(existsSync(`${template}-wal`)).toBe(false)
  chmodSync(template, 0o644)
})

afterAll(async () => {
  await service?.close()
  // Give write permission back so the folders can be removed by a user who is not root.
  for (const path of userOwned) if (existsSync(path)) chmodSync(path, statSync(path).isDirectory() ? 0o755 : 0o644)
  if (base) rmSync(base, { recursive: true, force: true })
})

describe.skipIf(!canRun)(
  `a read-only database (the CLI runs as ${isRoot ? 'nobody, because root ignores permissions' : 'this user'})`,
  () => {
    describe('a read-only file in a writable folder', () => {
      let db: string
      let before: string
      beforeAll(() => {
        db = scenario().db
        chmodSync(db, 0o444)
        before = fingerprint(db)
      })

      it.each(readCommands)('%s reads it (exit 0) and leaves it as it was', async (_name, args) => {
        const run = await cliAsUser([...resolve(args), '--db', db, '--json'], env)
        expect(run.stderr).toBe('')
        expect(run.code).toBe(0)
        const result = json(run)
        expect(Object.keys(result).length).toBeGreaterThan(0)
        expect(fingerprint(db)).toBe(before)
      })

      it('status reads the real counts, the queued order included', async () => {
        const result = json(await cliAsUser(['status', '--db', db, '--json']))
        expect(result).toMatchObject({ counts: { catalogs: expect.any(Number) }, outbox: { queued: 1 } })
        expect((result.counts as Record<string, number>).catalogItems).toBeGreaterThan(0)
      })

      it.each(writeCommands)(
        '%s says the database at PATH is read-only (exit 1) and writes nothing',
        async (_name, args) => {
          const message = expectFailure(
            await cliAsUser([...resolve(args), '--db', db, '--json'], env),
            'DATABASE_READ_ONLY',
          )
          expect(message).toContain(`The database at ${db} is read-only`)
          expect(fingerprint(db)).toBe(before)
        },
      )

      it('without --json the message is one line on stderr and nothing on stdout', async () => {
        const run = await cliAsUser(['flush', '--db', db], env)
        expect(run.code).toBe(1)
        expect(run.stdout).toBe('')
        expect(run.stderr).toMatch(new RegExp(`^satchel: The database at .* is read-only[^\\n]*\\n$`))
      })
    })

    describe('a writable file in a read-only folder, closed cleanly (no -wal or -shm to be made)', () => {
      let dir: string
      let db: string
      let before: string
      beforeAll(() => {
        ;({ dir, db } = scenario())
        chmodSync(dir, 0o555)
        before = fingerprint(db)
      })

      it.each(readCommands)('%s reads it (exit 0) and leaves it as it was', async (_name, args) => {
        const run = await cliAsUser([...resolve(args), '--db', db, '--json'], env)
        expect(run.stderr).toBe('')
        expect(run.code).toBe(0)
        json(run)
        expect(fingerprint(db)).toBe(before)
        expect(readdirSync(dir)).toEqual(['satchel.db'])
      })

      it.each(writeCommands)(
        '%s says the database at PATH is read-only, naming the folder (exit 1)',
        async (_name, args) => {
          const message = expectFailure(
            await cliAsUser([...resolve(args), '--db', db, '--json'], env),
            'DATABASE_READ_ONLY',
          )
          expect(message).toContain(`The database at ${db} is read-only`)
          expect(message).toContain(dir)
          expect(fingerprint(db)).toBe(before)
        },
      )
    })

    describe('a read-only folder where a Satchel process stopped without closing the database (its -wal left behind)', () => {
      /** A process that commits a change and dies, leaving the change only in the -wal. */
      function leaveWal(db: string): void {
        execFileSync(process.execPath, [
          '-e',
          `const D = require(${JSON.stringify(join(root, 'node_modules/better-sqlite3'))}); const db = new D(${JSON.stringify(db)});
         db.prepare("UPDATE outbox SET state = 'sent'").run(); process.exit(0)`,
        ])
      }

      it('status reads the changes still in the -wal', async () => {
        const { dir, db } = scenario()
        leaveWal(db)
        for (const suffix of ['-wal', '-shm']) giveToUser(`${db}${suffix}`)
        chmodSync(dir, 0o555)
        const run = await cliAsUser(['status', '--db', db, '--json'])
        expect(run.stderr).toBe('')
        expect(json(run)).toMatchObject({ outbox: { queued: 0, sent: 1 } })
      })

      it('without the -shm it cannot be read there: DATABASE_READ_ONLY says what to do, rather than show older data', async () => {
        const { dir, db } = scenario()
        leaveWal(db)
        rmSync(`${db}-shm`)
        giveToUser(`${db}-wal`)
        chmodSync(dir, 0o555)
        const message = expectFailure(await cliAsUser(['status', '--db', db, '--json']), 'DATABASE_READ_ONLY')
        expect(message).toContain(`${db}-wal`)
      })
    })
  },
)

describe('a file that is not a Satchel database, or is damaged', () => {
  function expectNotSatchel(run: Run, db: string): void {
    const message = expectFailure(run, 'NOT_A_DATABASE')
    expect(message.startsWith(`${db} is not a Satchel database (or is damaged): `)).toBe(true)
    expect(message).toContain('satchel sync')
    expect(message).toMatch(/drafts/)
  }

  const every: [string, string[]][] = [...readCommands, ...writeCommands]

  it.each(every)('a text file: %s says so (exit 1) and leaves it as it was', async (_name, args) => {
    const db = named('text', args)
    writeFileSync(db, 'name,qty\nwidget,3\n'.repeat(400))
    const before = fingerprint(db)
    expectNotSatchel(await cli([...resolve(args), '--db', db, '--json'], env), db)
    expect(fingerprint(db)).toBe(before)
  })

  it.each(every)("another program's SQLite database: %s says so and adds nothing to it", async (_name, args) => {
    const db = named('foreign', args)
    const other = new BetterSqlite3(db)
    other.exec("CREATE TABLE recipes (name TEXT, minutes INTEGER); INSERT INTO recipes VALUES ('soup', 30)")
    other.close()
    const before = fingerprint(db)
    expectNotSatchel(await cli([...resolve(args), '--db', db, '--json'], env), db)
    expect(fingerprint(db)).toBe(before)
  })

  it.each(every)('a copy cut short at half its pages: %s says so', async (_name, args) => {
    const db = named('truncated', args)
    copyFileSync(template, db)
    truncateSync(db, Math.floor(statSync(db).size / 2 / 4096) * 4096)
    expectNotSatchel(await cli([...resolve(args), '--db', db, '--json'], env), db)
  })

  it('a copy cut short mid-page: status says so', async () => {
    const db = join(base, 'cut-mid-page.db')
    copyFileSync(template, db)
    truncateSync(db, statSync(db).size - 1000)
    expectNotSatchel(await cli(['status', '--db', db, '--json']), db)
  })

  it('a copy whose pages were overwritten: status, finding them as it counts, says so', async () => {
    const db = join(base, 'garbled.db')
    const bytes = readFileSync(template)
    bytes.fill(0x55, 4096 * 2, bytes.length - 4096)
    writeFileSync(db, bytes)
    expectNotSatchel(await cli(['status', '--db', db, '--json']), db)
  })

  describe('an empty (0-byte) file', () => {
    it.each([...readCommands, ['flush', ['flush']], ['order queue', ['order', 'queue', '--file', 'DRAFT']]] as [
      string,
      string[],
    ][])('%s says so and leaves it empty (it is not made a new database)', async (_name, args) => {
      const db = named('empty', args)
      writeFileSync(db, '')
      const run = await cli([...resolve(args), '--db', db, '--json'], env)
      expectNotSatchel(run, db)
      expect(json(run)).toMatchObject({ error: { message: expect.stringContaining('the file is empty') } })
      expect(statSync(db).size).toBe(0)
    })

    it('sync builds a new database in it (there is nothing in it to lose)', async () => {
      const db = join(base, 'empty-sync.db')
      writeFileSync(db, '')
      const run = await cli(['sync', '--db', db, '--json'], env)
      expect(run.code).toBe(0)
      expect(json(run)).toMatchObject({ ok: true })
      const after = new BetterSqlite3(db, { readonly: true })
      expect(after.pragma('user_version', { simple: true })).toBe(latestSchemaVersion())
      after.close()
    })

    it('with a -wal beside it, even sync refuses it: SQLite would delete the -wal and what is in it', async () => {
      const db = join(base, 'empty-with-wal.db')
      writeFileSync(db, '')
      writeFileSync(`${db}-wal`, Buffer.alloc(8192, 1))
      expectNotSatchel(await cli(['sync', '--db', db, '--json'], env), db)
      expect(statSync(`${db}-wal`).size).toBe(8192)
    })
  })
})

describe('a database written by an older Satchel', () => {
  it.each(readCommands)(
    '%s does not upgrade it: it says to run sync (or start the app) once, and exits 1',
    async (_name, args) => {
      const db = named('older', args)
      closeDatabase(openDatabase(db, { migrations: migrations.slice(0, latestSchemaVersion() - 1) }))
      const before = fingerprint(db)
      const message = expectFailure(await cli([...resolve(args), '--db', db, '--json']), 'CONFLICT')
      expect(message).toContain(db)
      expect(message).toMatch(/older Satchel/)
      expect(message).toContain('satchel sync')
      expect(fingerprint(db)).toBe(before)
    },
  )
})
