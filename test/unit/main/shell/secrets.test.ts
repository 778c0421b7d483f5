import log from 'electron-log/node'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import type { IpcMainInvokeEvent } from 'electron'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createCore } from '../../../../src/main/core/compose'
import type { Core } from '../../../../src/main/core/types'
import { channelOf } from '../../../../src/shared/channels'
import { registerIpc } from '../../../../src/main/shell/ipc'
import { configureFileLogging } from '../../../../src/main/shell/logging'
import {
  createSafeStorageKeychain,
  linuxPlainTextMessage,
  type SafeStorageLike,
} from '../../../../src/main/profiles/secrets-file'
import { createAppUrlCheck } from '../../../../src/main/shell/security'
import { writeWindowState } from '../../../../src/main/shell/window-state'

/**
 * A reversible stand-in for safeStorage: XOR with a key and a version prefix, like Chromium's "v10"
 * blobs. Not secure, but nothing of the clear text survives in the output, which is what the tests
 * look for, and decrypting something it did not encrypt fails as the real one does.
 */
function fakeSafeStorage(backend = 'gnome_libsecret', available = true): SafeStorageLike & { encrypted: number } {
  const key = 0x5a
  const fake = {
    encrypted: 0,
    isEncryptionAvailable: () => available,
    getSelectedStorageBackend: () => backend,
    encryptString(plainText: string) {
      fake.encrypted++
      return Buffer.concat([Buffer.from('v10'), Buffer.from(plainText, 'utf8').map((byte) => byte ^ key)])
    },
    decryptString(encrypted: Buffer) {
      if (encrypted.subarray(0, 3).toString() !== 'v10')
        throw new Error('Error while decrypting the ciphertext provided to safeStorage.decryptString.')
      return Buffer.from(encrypted.subarray(3).map((byte) => byte ^ key)).toString('utf8')
    },
  }
  return fake
}

let directory: string
beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), 'satchel-secrets-'))
})
afterEach(() => {
  rmSync(directory, { recursive: true, force: true })
})

describe('the safeStorage secret store', () => {
  it('round-trips secrets through encrypted blobs in a file only its owner can read', async () => {
    const file = join(directory, 'secrets.json')
    const store = createSafeStorageKeychain({ safeStorage: fakeSafeStorage(), file, platform: 'linux' })
    expect(store.isAvailable()).toBe(true)
    await store.set('apiSecret', 'sk_live_abcdef123456')
    await store.set('userToken', 'token-value-987654')
    expect(readFileSync(file, 'utf8')).not.toContain('sk_live_abcdef123456')
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({
      version: 1,
      secrets: { apiSecret: expect.any(String), userToken: expect.any(String) },
    })
    if (process.platform !== 'win32') expect(statSync(file).mode & 0o777).toBe(0o600)

    const reopened = createSafeStorageKeychain({ safeStorage: fakeSafeStorage(), file, platform: 'linux' })
    expect(await reopened.get('apiSecret')).toBe('sk_live_abcdef123456')
    await reopened.delete('apiSecret')
    expect(await reopened.get('apiSecret')).toBeNull()
    expect(
      await createSafeStorageKeychain({ safeStorage: fakeSafeStorage(), file, platform: 'linux' }).get('userToken'),
    ).toBe('token-value-987654')
  })

  it('treats Linux’s basic_text backend as unavailable, with a message that says what to do', async () => {
    const store = createSafeStorageKeychain({
      safeStorage: fakeSafeStorage('basic_text'),
      file: join(directory, 's.json'),
      platform: 'linux',
    })
    expect(store.isAvailable()).toBe(false)
    expect(store.unavailableReason()).toBe(linuxPlainTextMessage)
    expect(linuxPlainTextMessage).toMatch(/basic_text/)
    expect(linuxPlainTextMessage).toMatch(/GNOME Keyring or KWallet/)
    await expect(store.set('apiSecret', 'sk_live_abcdef123456')).rejects.toMatchObject({
      code: 'SECRET_STORE_UNAVAILABLE',
    })
    expect(existsSync(join(directory, 's.json'))).toBe(false)
  })

  it('is unavailable where the OS offers no encryption, and on Linux before a backend is chosen', () => {
    expect(
      createSafeStorageKeychain({
        safeStorage: fakeSafeStorage('unknown'),
        file: join(directory, 's.json'),
        platform: 'linux',
      }).isAvailable(),
    ).toBe(false)
    expect(
      createSafeStorageKeychain({
        safeStorage: fakeSafeStorage('n/a', false),
        file: join(directory, 's.json'),
        platform: 'darwin',
      }).isAvailable(),
    ).toBe(false)
    expect(
      createSafeStorageKeychain({
        safeStorage: fakeSafeStorage('n/a', true),
        file: join(directory, 's.json'),
        platform: 'win32',
      }).isAvailable(),
    ).toBe(true)
  })

  it('answers null, without throwing, for a blob it cannot decrypt or a corrupt file', async () => {
    const file = join(directory, 'secrets.json')
    writeFileSync(
      file,
      JSON.stringify({ version: 1, secrets: { apiSecret: Buffer.from('not ours').toString('base64') } }),
    )
    const store = createSafeStorageKeychain({ safeStorage: fakeSafeStorage(), file, platform: 'linux' })
    expect(await store.get('apiSecret')).toBeNull()
    writeFileSync(file, '{ not json')
    expect(
      await createSafeStorageKeychain({ safeStorage: fakeSafeStorage(), file, platform: 'linux' }).get('apiSecret'),
    ).toBeNull()
  })
})

function filesUnder(root: string): string[] {
  return readdirSync(root, { withFileTypes: true }).flatMap((entry) => {
    const path = join(root, entry.name)
    return entry.isDirectory() ? filesUnder(path) : [path]
  })
}

describe('after saving credentials', () => {
  const apiSecret = 'sk_live_9f8e7d6c5b4a3f2e1d'
  // A session token is a JWT.
  const userToken = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJyZXAtNDIifQ.c2lnbmF0dXJlLWJ5dGVz'
  let core: Core | undefined
  afterEach(async () => {
    await core?.close()
    core = undefined
  })

  it('no secret is readable in clear in the database, the settings files or the log files', async () => {
    const writer = log.create({ logId: `secrets-${Date.now()}` })
    const logging = configureFileLogging(writer, { directory: join(directory, 'logs'), level: 'debug' })
    const safeStorage = fakeSafeStorage()
    const secrets = createSafeStorageKeychain({
      safeStorage,
      file: join(directory, 'secrets.json'),
      platform: 'linux',
      logger: logging.logger,
      onSecret: (value) => logging.redactor.addSecret(value),
    })
    core = createCore({
      databasePath: join(directory, 'satchel.db'),
      appVersion: '1.0.0-test',
      ports: { logger: logging.logger, secrets },
    })

    // Through the real transport, as the renderer would send them.
    const rendererFile = resolve(directory, 'out/renderer/index.html')
    const handlers = new Map<string, (event: IpcMainInvokeEvent, argument: unknown) => Promise<unknown>>()
    registerIpc(
      { handle: (channel, listener) => handlers.set(channel, listener as never), removeHandler: () => undefined },
      core.handlers,
      createAppUrlCheck({ rendererFile }),
      logging.logger,
    )
    const event = {
      senderFrame: { url: pathToFileURL(rendererFile).href, parent: null },
      sender: {},
    } as unknown as IpcMainInvokeEvent
    const save = handlers.get(channelOf('saveConnection'))
    const saved = await save?.(event, {
      baseUrl: 'https://orders.satchel.invalid',
      auth: { kind: 'apiKey', apiKey: 'key-123', apiSecret, userGuid: null },
    })
    expect(saved).toMatchObject({ ok: true, value: { auth: { hasSecret: true } } })
    expect(JSON.stringify(saved)).not.toContain(apiSecret)
    const userGuid = '0b7c6a3e-1f2d-4c5b-8a9e-7d6c5b4a3f2e'
    const supplierGuid = '1c8d7b4f-2e3a-4d6c-9b0f-8e7d6c5b4a3f'
    expect(
      await save?.(event, {
        baseUrl: 'https://orders.satchel.invalid',
        auth: { kind: 'session', userGuid, supplierGuid, userToken },
      }),
    ).toMatchObject({ ok: true })
    // And back to the API key, so both secrets have passed through the store.
    await save?.(event, {
      baseUrl: 'https://orders.satchel.invalid',
      auth: { kind: 'apiKey', apiKey: 'key-123', apiSecret, userGuid: null },
    })
    expect(JSON.stringify(await handlers.get(channelOf('getConnection'))?.(event, undefined))).not.toContain(apiSecret)

    // What a service client and an error path might log, carelessly.
    logging.logger.info('request', {
      requestId: 'r1',
      headers: { 'x-apiKey': 'key-123', 'x-apiSecret': apiSecret },
      userToken,
    })
    logging.logger.error('request failed', {
      requestId: 'r1',
      error: new Error(`401 for token ${userToken} and secret ${apiSecret}`),
    })
    writer.warn(`raw electron-log call with x-apiSecret: ${apiSecret}`)
    writeWindowState(join(directory, 'window-state.json'), { x: 1, y: 2, width: 1000, height: 700, maximized: false })

    // The store really holds them (so the scan below has something to miss) and safeStorage was used.
    expect(await secrets.get('apiSecret')).toBe(apiSecret)
    expect(safeStorage.encrypted).toBeGreaterThanOrEqual(3)
    expect(await core.connection.resolve()).toMatchObject({ auth: { apiSecret } })

    core.db.pragma('wal_checkpoint(TRUNCATE)')
    await core.close()
    core = undefined

    const files = filesUnder(directory)
    expect(files.map((file) => file.slice(directory.length + 1)).sort()).toEqual(
      expect.arrayContaining(['satchel.db', 'secrets.json', 'window-state.json', join('logs', 'main.log')]),
    )
    const logText = readFileSync(join(directory, 'logs', 'main.log'), 'utf8')
    expect(logText).toContain('[req:r1] request')
    expect(logText).toContain('[redacted]')
    for (const file of files) {
      const bytes = readFileSync(file)
      for (const secret of [apiSecret, userToken]) {
        for (const encoding of ['utf8', 'utf16le', 'base64'] as const) {
          const needle =
            encoding === 'base64' ? Buffer.from(Buffer.from(secret).toString('base64')) : Buffer.from(secret, encoding)
          expect(bytes.includes(needle), `${secret.slice(0, 8)}… (${encoding}) in ${file}`).toBe(false)
        }
      }
    }
  })
})
