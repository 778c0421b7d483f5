/**
 * The CLI and the app share one keychain: `profiles add` stores the API secret in the real system
 * keyring (GNOME Keyring's Secret Service on a private session bus), `sync` and `flush` use it with
 * no --api-secret, the app's store reads it, and `profiles remove` deletes it. Where dbus-daemon or
 * gnome-keyring-daemon is missing, the test skips and says so (.ci/run installs both).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { closeDatabase, openDatabase } from '../../src/main/db/database'
import { profileKeychain } from '../../src/main/profiles/keychain'
import { layeredSecrets, openOsKeyring } from '../../src/main/profiles/os-keyring'
import { ProfileRegistry } from '../../src/main/profiles/registry'
import { createSafeStorageKeychain } from '../../src/main/profiles/secrets-file'
import { startService } from '../service/index'
import type { RunningService } from '../service/types'
import { cli, json } from '../support/cli'
import { findOrderable } from '../support/orderable'

const missing = ['dbus-daemon', 'gnome-keyring-daemon'].filter((tool) => spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0)
const skipReason = missing.length > 0 ? `no real keyring here: ${missing.join(' and ')} not installed` : null
if (skipReason) console.warn(`cli-keyring: skipped: ${skipReason}`)

let bus: ChildProcess | undefined
let keyringDaemon: ChildProcess | undefined
let home: string
let dataDir: string
let service: RunningService
let env: Record<string, string>
const savedBusAddress = process.env.DBUS_SESSION_BUS_ADDRESS

/**
 * A session bus of the test's own, and GNOME Keyring on it with a fresh login keyring unlocked. The
 * bus starts no service on request: with the system's session config, a request that came before
 * the test's daemon had taken the Secret Service name made the bus start another one, with the real
 * HOME and no unlocked keyring, which then kept the name and took no write (a CI run failed so; a
 * daemon started 1.5 s late fails the same way every time).
 */
async function startKeyring(): Promise<string> {
  const config = join(home, 'session-bus.conf')
  writeFileSync(
    config,
    `<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN" "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:tmpdir=${tmpdir()}</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
`,
  )
  bus = spawn('dbus-daemon', [`--config-file=${config}`, '--nofork', '--print-address=1'], { stdio: ['ignore', 'pipe', 'ignore'] })
  const address = await new Promise<string>((resolve, reject) => {
    bus!.once('error', reject)
    bus!.stdout!.once('data', (chunk: Buffer) => resolve(chunk.toString().split('\n')[0]!.trim()))
  })
  keyringDaemon = spawn('gnome-keyring-daemon', ['--foreground', '--unlock', '--components=secrets'], {
    env: { ...process.env, DBUS_SESSION_BUS_ADDRESS: address, HOME: home, XDG_DATA_HOME: join(home, 'share') },
    stdio: ['pipe', 'ignore', 'ignore'],
  })
  keyringDaemon.stdin!.end('satchel-test-login')
  return address
}

/** Whether the keyring stores and gives back a value (then forgets it). */
async function keyringTakesWrites(): Promise<boolean> {
  const keyring = await openOsKeyring({ dataDir, timeoutMs: 1000 })
  if (!keyring.isAvailable()) return false
  try {
    await keyring.set('apiSecret', 'ready-check')
    const back = await keyring.get('apiSecret')
    await keyring.delete('apiSecret')
    return back === 'ready-check'
  } catch {
    return false
  }
}

beforeAll(async () => {
  if (skipReason) return
  home = mkdtempSync(join(tmpdir(), 'satchel-keyring-home-'))
  dataDir = mkdtempSync(join(tmpdir(), 'satchel-keyring-data-'))
  const address = await startKeyring()
  // The binding in this process reaches the same bus, to look at the keyring as the app would.
  process.env.DBUS_SESSION_BUS_ADDRESS = address
  // Ready means an item can be written: the daemon answers a read before its login keyring exists
  // (a CI run's `profiles add` then met "Secret Service: no result found").
  const deadline = Date.now() + 20_000
  while (!(await keyringTakesWrites())) {
    if (Date.now() > deadline) throw new Error('GNOME Keyring did not take a write on the test’s session bus within 20 s')
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  service = await startService({ size: 'tiny', seed: 71 })
  env = { SATCHEL_DATA_DIR: dataDir, DBUS_SESSION_BUS_ADDRESS: address, HOME: home }
}, 60_000)

afterAll(async () => {
  if (skipReason) return
  await service?.close()
  keyringDaemon?.kill()
  bus?.kill()
  if (savedBusAddress === undefined) delete process.env.DBUS_SESSION_BUS_ADDRESS
  else process.env.DBUS_SESSION_BUS_ADDRESS = savedBusAddress
  rmSync(home, { recursive: true, force: true })
  rmSync(dataDir, { recursive: true, force: true })
})

describe.skipIf(skipReason !== null)('the API secret in the system keyring, shared by the CLI and the app', () => {
  it('profiles add stores it; sync and flush use it without --api-secret; the app reads it; remove deletes it', async () => {
    const c = service.credentials
    const added = await cli(['profiles', 'add', 'Acme', '--base-url', service.url, '--api-key', c.apiKey, '--api-secret', c.apiSecret, '--json'], env)
    expect(added.stderr).not.toContain('not stored')
    expect(added.code).toBe(0)
    expect(json(added)).toMatchObject({ profile: { name: 'Acme' }, secretStored: true })
    expect((await cli(['profiles', 'add', 'Other', '--base-url', service.url, '--api-key', c.apiKey, '--json'], env)).code).toBe(0)

    const synced = await cli(['sync', '--profile', 'Acme', '--json'], env)
    expect(synced.stderr).toBe('')
    expect(json(synced).ok).toBe(true)

    const registry = ProfileRegistry.open(dataDir)
    const acme = registry.resolve('Acme')
    const db = openDatabase(registry.databasePath(acme), { readOnly: true, create: false })
    const orderable = findOrderable(db, 1)
    closeDatabase(db)
    const draft = join(dataDir, 'draft.json')
    writeFileSync(draft, JSON.stringify({ customerGuid: orderable.customerGuid, catalogGuid: orderable.catalogGuid, lines: [{ sku: orderable.skus[0], qty: 1 }] }))
    expect((await cli(['order', 'queue', '--profile', 'Acme', '--file', draft, '--json'], env)).code).toBe(0)
    const before = service.control.orders().length
    const flushed = await cli(['flush', '--profile', 'Acme', '--json'], env)
    expect(json(flushed)).toEqual({ sent: 1, needsAttention: 0, retrying: 0 })
    expect(service.control.orders().length).toBe(before + 1)

    // The app's store (the keyring over its safeStorage file) finds the secret the CLI stored.
    const noSafeStorage = { isEncryptionAvailable: () => false, encryptString: () => Buffer.alloc(0), decryptString: () => '' }
    const app = layeredSecrets(await openOsKeyring({ dataDir }), createSafeStorageKeychain({ safeStorage: noSafeStorage, file: join(dataDir, 'secrets.json') }))
    expect(await profileKeychain(app, acme.secretsNamespace).get('apiSecret')).toBe(c.apiSecret)

    // A profile with no stored secret says where the secret was looked for.
    const other = await cli(['sync', '--profile', 'Other', '--json'], env)
    expect(other.code).toBe(2)
    expect(json(other)).toMatchObject({ error: { message: expect.stringContaining("the system keyring holds none for the profile 'Other'") } })

    const removed = await cli(['profiles', 'remove', 'Acme', '--yes', '--json'], env)
    expect(removed.code).toBe(0)
    expect(await profileKeychain(await openOsKeyring({ dataDir }), acme.secretsNamespace).get('apiSecret')).toBeNull()
  }, 120_000)
})
