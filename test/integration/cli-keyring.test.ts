/**
 * The CLI and the app share one keychain: `profiles add` stores the API secret in the real system
 * keyring (GNOME Keyring's Secret Service on a private session bus), `sync` and `flush` use it with
 * no --api-secret, the app's store reads it, and `profiles remove` deletes it. Where dbus-daemon or
 * gnome-keyring-daemon is missing, the test skips and says so (.ci/run installs both).
 */
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
import { keyringSkipReason as skipReason, startTestKeyring, type TestKeyring } from '../support/keyring'
import { findOrderable } from '../support/orderable'

if (skipReason) console.warn(`cli-keyring: skipped: ${skipReason}`)

let keyring: TestKeyring | undefined
let home: string
let dataDir: string
let service: RunningService
let env: Record<string, string>

beforeAll(async () => {
  if (skipReason) return
  home = mkdtempSync(join(tmpdir(), 'satchel-keyring-home-'))
  dataDir = mkdtempSync(join(tmpdir(), 'satchel-keyring-data-'))
  keyring = await startTestKeyring(home, dataDir)
  service = await startService({ size: 'tiny', seed: 71 })
  env = { SATCHEL_DATA_DIR: dataDir, DBUS_SESSION_BUS_ADDRESS: keyring.address, HOME: home }
}, 60_000)

afterAll(async () => {
  if (skipReason) return
  await service?.close()
  keyring?.stop()
  rmSync(home, { recursive: true, force: true })
  rmSync(dataDir, { recursive: true, force: true })
})

describe.skipIf(skipReason !== null)('the API secret in the system keyring, shared by the CLI and the app', () => {
  it('profiles add stores it; sync and flush use it without --api-secret; the app reads it; remove deletes it', async () => {
    const c = service.credentials
    const added = await cli(
      [
        'profiles',
        'add',
        'Acme',
        '--base-url',
        service.url,
        '--api-key',
        c.apiKey,
        '--api-secret',
        c.apiSecret,
        '--json',
      ],
      env,
    )
    expect(added.stderr).not.toContain('not stored')
    expect(added.code).toBe(0)
    expect(json(added)).toMatchObject({ profile: { name: 'Acme' }, secretStored: true })
    expect(
      (await cli(['profiles', 'add', 'Other', '--base-url', service.url, '--api-key', c.apiKey, '--json'], env)).code,
    ).toBe(0)

    const synced = await cli(['sync', '--profile', 'Acme', '--json'], env)
    expect(synced.stderr).toBe('')
    expect(json(synced).ok).toBe(true)

    const registry = ProfileRegistry.open(dataDir)
    const acme = registry.resolve('Acme')
    const db = openDatabase(registry.databasePath(acme), { readOnly: true, create: false })
    const orderable = findOrderable(db, 1)
    closeDatabase(db)
    const draft = join(dataDir, 'draft.json')
    writeFileSync(
      draft,
      JSON.stringify({
        customerGuid: orderable.customerGuid,
        catalogGuid: orderable.catalogGuid,
        lines: [{ sku: orderable.skus[0], qty: 1 }],
      }),
    )
    expect((await cli(['order', 'queue', '--profile', 'Acme', '--file', draft, '--json'], env)).code).toBe(0)
    const before = service.control.orders().length
    const flushed = await cli(['flush', '--profile', 'Acme', '--json'], env)
    expect(json(flushed)).toEqual({ sent: 1, needsAttention: 0, retrying: 0 })
    expect(service.control.orders().length).toBe(before + 1)

    // The app's store (the keyring over its safeStorage file) finds the secret the CLI stored.
    const noSafeStorage = {
      isEncryptionAvailable: () => false,
      encryptString: () => Buffer.alloc(0),
      decryptString: () => '',
    }
    const app = layeredSecrets(
      await openOsKeyring({ dataDir }),
      createSafeStorageKeychain({ safeStorage: noSafeStorage, file: join(dataDir, 'secrets.json') }),
    )
    expect(await profileKeychain(app, acme.secretsNamespace).get('apiSecret')).toBe(c.apiSecret)

    // A profile with no stored secret says where the secret was looked for.
    const other = await cli(['sync', '--profile', 'Other', '--json'], env)
    expect(other.code).toBe(2)
    expect(json(other)).toMatchObject({
      error: { message: expect.stringContaining("the system keyring holds none for the profile 'Other'") },
    })

    const removed = await cli(['profiles', 'remove', 'Acme', '--yes', '--json'], env)
    expect(removed.code).toBe(0)
    expect(await profileKeychain(await openOsKeyring({ dataDir }), acme.secretsNamespace).get('apiSecret')).toBeNull()
  }, 120_000)
})
