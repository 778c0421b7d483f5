/**
 * Setting up goes wrong in ways a support person can fix, and the CLI says how: a data folder that
 * is a file, a folder this user cannot write (profiles add, sync making a database). Each gets a code
 * and a next step, never the system's raw errno text as INTERNAL. Permissions are real: as root the
 * CLI runs as `nobody`, for whom a 0555 folder is read-only (as test/integration/cli-db-files.test.ts).
 */
import { execFile, execFileSync } from 'node:child_process'
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { cli, cliEntry, json, root, type Run } from '../support/cli'

const isRoot = process.getuid?.() === 0
const nobody = 65534
// Nothing listens here: every command below fails before it would reach a service.
const connection = ['--base-url', 'http://127.0.0.1:9', '--api-key', 'key']

function cliAsUser(args: string[]): Promise<Run> {
  return new Promise((done) => {
    const clean = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('SATCHEL_')))
    const as = isRoot ? { uid: nobody, gid: nobody } : {}
    execFile(
      process.execPath,
      [cliEntry, ...args],
      { cwd: root, env: { ...clean, HOME: tmpdir() }, timeout: 60_000, ...as },
      (error, stdout, stderr) => {
        done({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr })
      },
    )
  })
}

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

function failure(run: Run): { code: string; message: string } {
  expect(run.code, run.stderr).toBe(1)
  return json(run).error as { code: string; message: string }
}

let base: string
beforeAll(() => {
  base = mkdtempSync(join(tmpdir(), 'satchel-setup-'))
  chmodSync(base, 0o755)
})
afterAll(() => {
  if (existsSync(join(base, 'locked'))) chmodSync(join(base, 'locked'), 0o755)
  rmSync(base, { recursive: true, force: true })
})

describe('--data-dir naming a file', () => {
  it.each([
    ['profiles list', ['profiles', 'list']],
    ['profiles add', ['profiles', 'add', 'Main', ...connection]],
    ['status', ['status']],
  ])('%s says it is a file, not a folder, and what to give instead', async (_name, args) => {
    const file = join(base, 'not-a-folder')
    writeFileSync(file, 'x')
    const { code, message } = failure(await cli([...args, '--data-dir', file, '--json']))
    expect(code).toBe('INVALID_ARGUMENT')
    expect(message).toContain(`${file} is a file, not a folder`)
    expect(message).toContain('--data-dir')
  })
})

describe.skipIf(!userCanRunCli())('a folder this user cannot write', () => {
  let locked: string
  beforeAll(() => {
    locked = join(base, 'locked')
    mkdirSync(locked)
    if (isRoot) chownSync(locked, nobody, nobody)
    chmodSync(locked, 0o555)
  })

  it('profiles add says the data folder cannot be written, and changes nothing', async () => {
    const { code, message } = failure(
      await cliAsUser(['profiles', 'add', 'Main', ...connection, '--data-dir', locked, '--json']),
    )
    expect(code).toBe('DATABASE_READ_ONLY')
    expect(message).toContain(`The data folder ${locked} cannot be written by this user`)
    expect(message).toContain('Make the folder writable')
  })

  it('sync says the database cannot be made there, and where to make it instead', async () => {
    const db = join(locked, 'new.db')
    const { code, message } = failure(
      await cliAsUser(['sync', '--db', db, ...connection, '--api-secret', 'secret', '--json']),
    )
    expect(code).toBe('DATABASE_READ_ONLY')
    expect(message).toContain(`The database at ${db} cannot be made: the folder ${locked} cannot be written`)
    expect(message).toContain('--db')
    expect(existsSync(db)).toBe(false)
  })
})
