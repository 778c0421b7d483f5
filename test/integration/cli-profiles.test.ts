/**
 * Profiles from the command line, and the upgrade: a database the app kept before profiles becomes
 * the first profile with not one byte changed.
 */
import { createHash } from 'node:crypto'
import {
  existsSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs'
import { hostname, tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startService } from '../service/index'
import type { RunningService } from '../service/types'
import { cli, json } from '../support/cli'
import { startOrdersHarness } from './orders-support'

let dataDir: string
let mainDb: string
let second: RunningService
let env: Record<string, string>

const hash = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex')

beforeAll(async () => {
  // The app's data folder as it is before profiles: satchel.db with a synced copy, a sent order and an unsent one.
  const harness = await startOrdersHarness()
  await harness.queueOrder()
  await harness.settle()
  await harness.stopService()
  await harness.queueOrder()
  await harness.settle()
  await harness.core.close()
  dataDir = harness.directory
  mainDb = harness.databasePath
  second = await startService({ size: 'tiny', seed: 33 })
  // No keyring answers here (a session bus that is not there), as on a server or in a bare container.
  env = { SATCHEL_DATA_DIR: dataDir, DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent/satchel-test-bus' }
})

afterAll(async () => {
  await second.close()
  rmSync(dataDir, { recursive: true, force: true })
})

describe('a fresh data folder', () => {
  it('lists no profile (no phantom with no database behind it) and writes nothing; a command needing a profile says how to add one', async () => {
    const fresh = mkdtempSync(join(tmpdir(), 'satchel-fresh-'))
    try {
      const listed = await cli(['profiles', 'list', '--json', '--data-dir', fresh])
      expect(listed.code).toBe(0)
      expect(json(listed)).toEqual({ dataDir: fresh, profiles: [] })
      const human = await cli(['profiles', 'list', '--data-dir', fresh])
      expect(human.stdout).toContain('No profile in')
      const status = await cli(['status', '--json'], { SATCHEL_DATA_DIR: fresh })
      expect(status.code).toBe(1)
      expect(json(status)).toMatchObject({
        error: { code: 'NOT_FOUND', message: expect.stringContaining('profiles add') },
      })
      expect(readdirSync(fresh)).toEqual([])
    } finally {
      rmSync(fresh, { recursive: true, force: true })
    }
  })
})

describe('profiles on the command line', () => {
  it('the database from before profiles becomes profile 1 unchanged: the list only points at it', async () => {
    expect(readdirSync(dataDir).filter((name) => name.startsWith('satchel.db-'))).toEqual([])
    const before = hash(mainDb)
    const listed = await cli(['profiles', 'list', '--json'], env)
    expect(listed.code).toBe(0)
    expect(json(listed)).toEqual({
      dataDir,
      profiles: [
        {
          name: 'Main',
          supplier: null,
          database: mainDb,
          lastUsedAt: null,
          default: true,
          unsent: 1,
          needsAttention: 0,
          openQuotes: 0,
        },
      ],
    })
    expect(existsSync(join(dataDir, 'profiles.json'))).toBe(true)
    const status = await cli(['status', '--json'], env)
    expect(status.code).toBe(0)
    expect(json(status).outbox).toMatchObject({ sent: 1 })
    expect(hash(mainDb)).toBe(before)
  })

  it('add makes a profile with its own database and connection; with no keyring the secret is not stored, and it says how to go on; --profile picks it', async () => {
    const before = hash(mainDb)
    const c = second.credentials
    const added = await cli(
      [
        'profiles',
        'add',
        'Second Line',
        '--base-url',
        second.url,
        '--api-key',
        c.apiKey,
        '--api-secret',
        c.apiSecret,
        '--json',
      ],
      env,
    )
    expect(added.code).toBe(0)
    const result = json(added) as {
      profile: { name: string; supplier: string; database: string }
      secretStored: boolean
    }
    expect(result).toMatchObject({
      profile: { name: 'Second Line', supplier: new URL(second.url).origin },
      secretStored: false,
    })
    expect(added.stderr).toMatch(
      /the API secret was not stored: no Secret Service answered on the session bus .*; install and unlock GNOME Keyring or KWallet\. /,
    )
    expect(added.stderr).toContain(
      'enter the secret in the app (Settings, Connection), or pass --api-secret (or SATCHEL_API_SECRET) to the commands that reach the service (sync, flush)',
    )
    const noSecret = await cli(['sync', '--profile', 'Second Line', '--json'], env)
    expect(noSecret.code).toBe(2)
    expect(json(noSecret)).toMatchObject({
      error: {
        message: expect.stringMatching(
          /^sync needs --api-secret \(or SATCHEL_API_SECRET\): no secret could be read for the profile 'Second Line': no Secret Service answered/,
        ),
      },
    })
    expect(readFileSync(result.profile.database).includes(Buffer.from(c.apiSecret))).toBe(false)

    const synced = await cli(['sync', '--profile', 'second line', '--json'], {
      ...env,
      SATCHEL_API_SECRET: c.apiSecret,
    })
    expect(synced.code).toBe(0)
    expect(json(synced).ok).toBe(true)
    const secondStatus = json(await cli(['status', '--profile', 'Second Line', '--json'], env)) as {
      counts: Record<string, number>
    }
    expect(secondStatus.counts.customers).toBe(
      second.control.customers().filter((customer) => customer.deleted_at === null).length,
    )
    expect(existsSync(result.profile.database)).toBe(true)
    expect(hash(mainDb)).toBe(before)

    const duplicate = await cli(
      ['profiles', 'add', 'SECOND LINE', '--base-url', second.url, '--api-key', c.apiKey],
      env,
    )
    expect(duplicate.code).toBe(2)
    expect(duplicate.stderr).toContain('already exists')
  })

  it('remove is refused with the count while a profile has unsent orders; otherwise it needs --yes and deletes the files and secrets', async () => {
    const refused = await cli(['profiles', 'remove', 'Main', '--yes', '--json'], env)
    expect(refused.code).toBe(1)
    expect(json(refused)).toMatchObject({
      error: { code: 'CONFLICT', message: expect.stringContaining('1 unsent order') },
      unsent: 1,
      openQuotes: 0,
    })
    expect(existsSync(mainDb)).toBe(true)

    const registry = JSON.parse(readFileSync(join(dataDir, 'profiles.json'), 'utf8')) as {
      profiles: { name: string; databaseFile: string; secretsNamespace: string }[]
    }
    const secondProfile = registry.profiles.find((profile) => profile.name === 'Second Line')!
    // The app's encrypted secrets of both profiles: removing one keeps the other's.
    writeFileSync(
      join(dataDir, 'secrets.json'),
      JSON.stringify({
        version: 1,
        secrets: { apiSecret: 'bWFpbg==', [`${secondProfile.secretsNamespace}apiSecret`]: 'c2Vjb25k' },
      }),
    )
    const secondDb = join(dataDir, secondProfile.databaseFile)
    writeFileSync(`${secondDb}-wal`, '')

    const unconfirmed = await cli(['profiles', 'remove', 'Second Line'], env)
    expect(unconfirmed.code).toBe(2)
    expect(unconfirmed.stderr).toContain('--yes')
    expect(existsSync(secondDb)).toBe(true)

    // While the desktop app runs on the folder (its single-instance lock names a live process here), the app removes profiles, not the CLI.
    symlinkSync(`${hostname()}-${process.pid}`, join(dataDir, 'SingletonLock'))
    const appRunning = await cli(['profiles', 'remove', 'Second Line', '--yes', '--json'], env)
    unlinkSync(join(dataDir, 'SingletonLock'))
    expect(appRunning.code).toBe(1)
    expect(json(appRunning)).toEqual({
      error: {
        code: 'CONFLICT',
        message: `Satchel is running on ${dataDir}: remove 'Second Line' in the app (Settings, Profiles), or quit the app first.`,
      },
    })
    expect(existsSync(secondDb)).toBe(true)

    const removed = await cli(['profiles', 'remove', 'Second Line', '--yes', '--json'], env)
    expect(removed.code).toBe(0)
    expect(json(removed)).toEqual({ removed: { name: 'Second Line', database: secondDb } })
    expect(existsSync(secondDb)).toBe(false)
    expect(existsSync(`${secondDb}-wal`)).toBe(false)
    expect(JSON.parse(readFileSync(join(dataDir, 'secrets.json'), 'utf8'))).toEqual({
      version: 1,
      secrets: { apiSecret: 'bWFpbg==' },
    })
    expect((json(await cli(['profiles', 'list', '--json'], env)).profiles as unknown[]).length).toBe(1)
  })

  it('--db bypasses profiles and does not go with --profile; an unknown profile is named', async () => {
    const direct = await cli(['status', '--db', mainDb, '--json'], env)
    expect(direct.code).toBe(0)
    const both = await cli(['status', '--db', mainDb, '--profile', 'Main'], env)
    expect(both.code).toBe(2)
    const unknown = await cli(['status', '--profile', 'Nobody', '--json'], env)
    expect(unknown.code).toBe(1)
    expect(json(unknown)).toEqual({
      error: { code: 'NOT_FOUND', message: "No profile named 'Nobody' (profiles: Main)" },
    })
  })
})
