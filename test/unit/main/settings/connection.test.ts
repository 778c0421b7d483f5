import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { call } from '../../../../src/main/core/handlers'
import { connectionInputSchema } from '../../../../src/shared/contract'
import { createMemoryKeychain, type Keychain } from '../../../../src/main/ports'
import { createTestCore, type TestCore } from '../../../support/core'

let core: TestCore | undefined
afterEach(async () => {
  await core?.close()
  core = undefined
})

const apiKeyInput = {
  baseUrl: 'https://orders.example.com/',
  auth: { kind: 'apiKey' as const, apiKey: 'key-123', apiSecret: 'very-secret-value', userGuid: null },
}

describe('connection', () => {
  it('keeps the secret in the secret store only and never returns it', async () => {
    const secrets = createMemoryKeychain()
    core = createTestCore({ ports: { secrets } })
    const saved = await call(core.handlers, 'saveConnection', apiKeyInput)
    expect(saved).toEqual({
      ok: true,
      value: {
        baseUrl: 'https://orders.example.com',
        auth: { kind: 'apiKey', apiKey: 'key-123', userGuid: null, hasSecret: true },
      },
    })
    expect(JSON.stringify(await call(core.handlers, 'getConnection'))).not.toContain('very-secret-value')
    expect(await secrets.get('apiSecret')).toBe('very-secret-value')
    core.db.pragma('wal_checkpoint(TRUNCATE)')
    expect(readFileSync(join(core.directory, 'satchel.db')).includes('very-secret-value')).toBe(false)
    expect(await core.connection.resolve()).toEqual({
      baseUrl: 'https://orders.example.com',
      auth: { kind: 'apiKey', apiKey: 'key-123', apiSecret: 'very-secret-value' },
    })
  })

  it('keeps the stored secret when a later save omits it, and requires one the first time', async () => {
    core = createTestCore()
    const first = await call(core.handlers, 'saveConnection', {
      ...apiKeyInput,
      auth: { kind: 'apiKey', apiKey: 'key-123' },
    })
    expect(!first.ok && first.error.code).toBe('INVALID_ARGUMENT')
    await call(core.handlers, 'saveConnection', apiKeyInput)
    await call(core.handlers, 'saveConnection', {
      baseUrl: 'https://other.example.com',
      auth: { kind: 'apiKey', apiKey: 'key-456' },
    })
    expect((await core.connection.resolve())?.auth).toEqual({
      kind: 'apiKey',
      apiKey: 'key-456',
      apiSecret: 'very-secret-value',
    })
  })

  it('refuses to store a secret where the platform has no safe storage', async () => {
    const unsafe: Keychain = { ...createMemoryKeychain(), isAvailable: () => false }
    core = createTestCore({ ports: { secrets: unsafe } })
    const result = await call(core.handlers, 'saveConnection', apiKeyInput)
    expect(!result.ok && result.error.code).toBe('SECRET_STORE_UNAVAILABLE')
    expect(await call(core.handlers, 'getConnection')).toEqual({ ok: true, value: null })
  })

  it('rejects a base URL that is not http(s)', async () => {
    core = createTestCore()
    const result = await call(core.handlers, 'saveConnection', { ...apiKeyInput, baseUrl: 'ftp://x' })
    expect(!result.ok && result.error.issues?.[0]?.path).toBe('baseUrl')
  })

  it('refuses plain http to any host but this computer, saying why: the secret would travel in clear', async () => {
    core = createTestCore()
    for (const baseUrl of [
      'http://orders.example.com',
      'http://192.168.1.20:4010',
      'http://127.0.0.1.evil.example',
      'http://localhost.evil.example',
      'http://[::2]:4010',
    ]) {
      const result = await call(core.handlers, 'saveConnection', { ...apiKeyInput, baseUrl })
      expect(result.ok, baseUrl).toBe(false)
      const issue = !result.ok ? result.error.issues?.[0] : undefined
      expect(issue?.path, baseUrl).toBe('baseUrl')
      expect(issue?.message, baseUrl).toMatch(/https:\/\/.*unencrypted/)
    }
    expect(await call(core.handlers, 'getConnection')).toEqual({ ok: true, value: null })
  })

  it('takes https anywhere, and plain http only on the loopback addresses', () => {
    const accepted = (baseUrl: string) => connectionInputSchema.safeParse({ ...apiKeyInput, baseUrl }).success
    for (const baseUrl of [
      'https://orders.example.com',
      'https://192.168.1.20',
      'http://127.0.0.1:4010',
      'http://127.8.9.10',
      'http://localhost:4010',
      'http://LOCALHOST',
      'http://[::1]:4010',
    ]) {
      expect(accepted(baseUrl), baseUrl).toBe(true)
    }
    for (const baseUrl of ['http://orders.example.com', 'http://10.0.0.1', 'http://128.0.0.1', 'ftp://127.0.0.1'])
      expect(accepted(baseUrl), baseUrl).toBe(false)
  })
})
