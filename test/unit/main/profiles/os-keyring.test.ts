/**
 * The system keyring behind the SecretStore port, with an in-memory stand-in for @napi-rs/keyring:
 * the CLI's store, and the app's, which reads what the CLI stored and moves what safeStorage kept
 * into the keyring once. No keyring daemon is needed here (test/integration/cli-keyring.test.ts
 * drives a real one).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { CoreError } from '../../../../src/main/errors'
import { profileKeychain } from '../../../../src/main/profiles/keychain'
import { layeredSecrets, openOsKeyring, type KeyringModuleLike } from '../../../../src/main/profiles/os-keyring'
import { createSafeStorageKeychain, type SafeStorageLike } from '../../../../src/main/profiles/secrets-file'

/** An in-memory keyring: entries by service and account; `broken` makes every call fail as a missing Secret Service does. */
function fakeKeyring(state: { broken?: string } = {}) {
  const entries = new Map<string, string>()
  const accounts: string[] = []
  const check = () => {
    if (state.broken) throw new Error(state.broken)
  }
  const module: KeyringModuleLike = {
    AsyncEntry: class {
      private readonly key: string
      constructor(service: string, account: string, options?: { linux?: { store?: string } } | null) {
        check()
        if (options?.linux?.store !== 'secret-service')
          throw new Error('Linux entries must be pinned to the Secret Service')
        this.key = `${service}\u0000${account}`
        accounts.push(account)
      }
      async getPassword() {
        check()
        return entries.get(this.key) ?? null
      }
      async setPassword(password: string) {
        check()
        entries.set(this.key, password)
      }
      async deletePassword() {
        check()
        return entries.delete(this.key)
      }
    },
  }
  return { module, entries, accounts, state }
}

function fakeSafeStorage(): SafeStorageLike {
  return {
    isEncryptionAvailable: () => true,
    getSelectedStorageBackend: () => 'gnome_libsecret',
    encryptString: (plain) => Buffer.from(`v10${Buffer.from(plain).toString('hex')}`),
    decryptString: (blob) => Buffer.from(blob.toString().slice(3), 'hex').toString(),
  }
}

let directory: string
beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), 'satchel-keyring-'))
})
afterEach(() => rmSync(directory, { recursive: true, force: true }))

describe('the system keyring store', () => {
  it('keeps each secret under the data folder and the profile’s name, so two folders never share one', async () => {
    const fake = fakeKeyring()
    const here = await openOsKeyring({ dataDir: directory, keyring: fake.module, platform: 'linux' })
    const elsewhere = await openOsKeyring({
      dataDir: join(directory, 'other'),
      keyring: fake.module,
      platform: 'linux',
    })
    expect(here.isAvailable()).toBe(true)
    await profileKeychain(here, 'profile-ab12:').set('apiSecret', 'sk_here')
    await profileKeychain(elsewhere, 'profile-ab12:').set('apiSecret', 'sk_elsewhere')
    expect(await profileKeychain(here, 'profile-ab12:').get('apiSecret')).toBe('sk_here')
    expect(await profileKeychain(here, '').get('apiSecret')).toBeNull()
    expect(fake.accounts).toContain(`profile-ab12:apiSecret @ ${directory}`)
    await profileKeychain(here, 'profile-ab12:').delete('apiSecret')
    expect(await profileKeychain(here, 'profile-ab12:').get('apiSecret')).toBeNull()
    expect(await profileKeychain(elsewhere, 'profile-ab12:').get('apiSecret')).toBe('sk_elsewhere')
  })

  it('without a keyring it says why at once, stores nothing and reads nothing', async () => {
    const fake = fakeKeyring({ broken: 'DBus error: Using X11 for dbus-daemon autolaunch was disabled' })
    const store = await openOsKeyring({ dataDir: directory, keyring: fake.module, platform: 'linux' })
    expect(store.isAvailable()).toBe(false)
    expect(store.unavailableReason()).toMatch(
      /no Secret Service answered on the session bus \(DBus error.*\); install and unlock GNOME Keyring or KWallet/,
    )
    await expect(store.set('apiSecret', 'sk')).rejects.toMatchObject({ code: 'SECRET_STORE_UNAVAILABLE' })
    expect(await store.get('apiSecret')).toBeNull()
    await store.delete('apiSecret')
  })
})

describe('a locked keyring', () => {
  // A real locked collection cannot be had on the test bus (no prompter to dismiss), so the binding's
  // own words for it are played back: @napi-rs/keyring's Secret Service backend says so.
  const dismissed = 'Platform secure storage failure: unlock prompt was dismissed'

  it("is told as SECRET_STORE_UNAVAILABLE with what to do, not as the binding's text", async () => {
    const fake = fakeKeyring()
    const keyring = await openOsKeyring({ dataDir: directory, keyring: fake.module, platform: 'linux' })
    fake.state.broken = dismissed
    const failures = await Promise.all(
      [keyring.get('apiSecret'), keyring.set('apiSecret', 'x')].map((call) =>
        call.then(
          () => null,
          (error: unknown) => error,
        ),
      ),
    )
    for (const failure of failures) {
      expect(failure).toBeInstanceOf(CoreError)
      expect(failure).toMatchObject({
        code: 'SECRET_STORE_UNAVAILABLE',
        message: expect.stringMatching(/keyring is locked.*unlock it/),
      })
    }
  })

  it('found locked as it opens, says so rather than that no Secret Service answered', async () => {
    const refusing = class {
      getPassword = () => Promise.reject(new Error(dismissed))
      setPassword = () => Promise.reject(new Error(dismissed))
      deletePassword = () => Promise.reject(new Error(dismissed))
    }
    const keyring = await openOsKeyring({ dataDir: directory, keyring: { AsyncEntry: refusing }, platform: 'linux' })
    expect(keyring.unavailableReason()).toMatch(/keyring is locked.*unlock it/)
    expect(keyring.unavailableReason()).not.toMatch(/no Secret Service answered/)
  })
})

describe('the app’s store: the keyring over the safeStorage file', () => {
  it('reads a secret the CLI stored in the keyring', async () => {
    const fake = fakeKeyring()
    const cli = await openOsKeyring({ dataDir: directory, keyring: fake.module, platform: 'linux' })
    await profileKeychain(cli, 'profile-ab12:').set('apiSecret', 'sk_from_cli')
    const file = createSafeStorageKeychain({
      safeStorage: fakeSafeStorage(),
      file: join(directory, 'secrets.json'),
      platform: 'linux',
    })
    const app = layeredSecrets(
      await openOsKeyring({ dataDir: directory, keyring: fake.module, platform: 'linux' }),
      file,
    )
    expect(await profileKeychain(app, 'profile-ab12:').get('apiSecret')).toBe('sk_from_cli')
  })

  it('moves a secret an earlier version kept in the file into the keyring the first time it is read, then the file forgets it', async () => {
    const fake = fakeKeyring()
    const secretsFile = join(directory, 'secrets.json')
    await createSafeStorageKeychain({ safeStorage: fakeSafeStorage(), file: secretsFile, platform: 'linux' }).set(
      'apiSecret',
      'sk_old',
    )
    const app = layeredSecrets(
      await openOsKeyring({ dataDir: directory, keyring: fake.module, platform: 'linux' }),
      createSafeStorageKeychain({ safeStorage: fakeSafeStorage(), file: secretsFile, platform: 'linux' }),
    )
    expect(await app.get('apiSecret')).toBe('sk_old')
    expect(JSON.parse(readFileSync(secretsFile, 'utf8'))).toEqual({ version: 1, secrets: {} })
    const cli = await openOsKeyring({ dataDir: directory, keyring: fake.module, platform: 'linux' })
    expect(await cli.get('apiSecret')).toBe('sk_old')
    // A secret the rep types in the app is the one the CLI uses next.
    await app.set('apiSecret', 'sk_new')
    expect(await cli.get('apiSecret')).toBe('sk_new')
    await app.delete('apiSecret')
    expect(await cli.get('apiSecret')).toBeNull()
  })

  it('where the keyring does not answer, the file keeps the secrets as before', async () => {
    const fake = fakeKeyring({ broken: 'The name org.freedesktop.secrets was not provided by any .service files' })
    const secretsFile = join(directory, 'secrets.json')
    const app = layeredSecrets(
      await openOsKeyring({ dataDir: directory, keyring: fake.module, platform: 'linux' }),
      createSafeStorageKeychain({ safeStorage: fakeSafeStorage(), file: secretsFile, platform: 'linux' }),
    )
    expect(app.isAvailable()).toBe(true)
    expect(app.unavailableReason()).toBeNull()
    await app.set('apiSecret', 'sk_file')
    expect(Object.keys(JSON.parse(readFileSync(secretsFile, 'utf8')).secrets)).toEqual(['apiSecret'])
    expect(await app.get('apiSecret')).toBe('sk_file')
    expect(fake.entries.size).toBe(0)
  })

  it('a keyring that fails after opening (locked) leaves the secret in the file rather than losing it', async () => {
    const fake = fakeKeyring()
    const secretsFile = join(directory, 'secrets.json')
    const app = layeredSecrets(
      await openOsKeyring({ dataDir: directory, keyring: fake.module, platform: 'linux' }),
      createSafeStorageKeychain({ safeStorage: fakeSafeStorage(), file: secretsFile, platform: 'linux' }),
    )
    fake.state.broken = 'the collection is locked'
    await app.set('apiSecret', 'sk_kept')
    expect(await app.get('apiSecret')).toBe('sk_kept')
    fake.state.broken = undefined
    expect(await app.get('apiSecret')).toBe('sk_kept')
    expect([...fake.entries.values()]).toEqual(['sk_kept'])
  })
})
