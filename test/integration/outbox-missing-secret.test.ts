/**
 * A saved connection whose secret the laptop no longer has (a keyring that lost the session token or
 * the API secret, or cannot be read) is said where a 401 is said: the outbox pauses with "Sign in
 * again" (or "Connect again"), rather than orders waiting with no attempt under an "Online" light.
 * Saving the connection again sends what waited.
 */
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { createCore } from '../../src/main/core/compose'
import { call } from '../../src/main/core/handlers'
import type { Core } from '../../src/main/core/types'
import { createMemoryKeychain, type SecretStore } from '../../src/main/ports'
import type { MethodName } from '../../src/shared/channels'
import type { MethodInput, MethodOutput } from '../../src/shared/contract'
import { startService } from '../service/index'
import type { RunningService } from '../service/types'
import { findOrderable } from '../support/orderable'
import { syncedTemplate } from '../support/synced-template'
import { until } from '../support/until'

let service: RunningService | undefined
let core: Core | undefined
let directory: string | undefined

afterEach(async () => {
  await core?.close()
  await service?.close()
  if (directory) rmSync(directory, { recursive: true, force: true })
  core = service = directory = undefined
})

async function api<M extends MethodName>(method: M, argument?: MethodInput<M>): Promise<MethodOutput<M>> {
  const result = await call(core!.handlers, method, argument)
  if (!result.ok) throw new Error(`${method} failed: ${result.error.code} ${result.error.message}`)
  return result.value
}

/** A synced core whose keychain the test holds, signed in as `kind`. */
async function connected(kind: 'session' | 'apiKey'): Promise<SecretStore> {
  service = await startService({ size: 'tiny', seed: 21 })
  directory = mkdtempSync(join(tmpdir(), 'satchel-missing-secret-'))
  const databasePath = join(directory, 'satchel.db')
  copyFileSync(await syncedTemplate(service, 'tiny-21'), databasePath)
  const secrets = createMemoryKeychain()
  core = createCore({ databasePath, appVersion: '0.0.0-test', backgroundSync: false, ports: { secrets } })
  await api('saveConnection', { baseUrl: service.url, auth: signIn(kind) })
  return secrets
}

function signIn(kind: 'session' | 'apiKey') {
  const { apiKey, apiSecret, userGuid, userToken, supplierGuid } = service!.credentials
  return kind === 'session'
    ? ({ kind: 'session', userGuid, userToken, supplierGuid } as const)
    : ({ kind: 'apiKey', apiKey, apiSecret } as const)
}

async function queueOrder(): Promise<string> {
  const target = findOrderable(core!.db, 1)
  const check = await api('createDraft', { customerGuid: target.customerGuid, catalogGuid: target.catalogGuid })
  await api('addDraftLines', { id: check.draft.id, lines: [{ sku: target.skus[0]!, qty: 1 }] })
  return (await api('sendDraft', { id: check.draft.id })).apiGuid
}

const orderPosts = () => service!.control.requestLog().filter((each) => each.route === 'POST /v1/orderWithItems')

describe('a saved connection whose secret is gone from this laptop', () => {
  for (const [kind, secret, words, signInAgain] of [
    ['session', 'userToken', /^Sign in again/, true],
    ['apiKey', 'apiSecret', /^Connect again in Settings/, false],
  ] as const) {
    it(`${kind}: the outbox pauses saying "${String(words).slice(2, -1)}", sends nothing, and sends once signed in again`, async () => {
      const secrets = await connected(kind)
      await until(() => core!.orders.flusher.waitUntilIdle(10_000), 'the sync the connection started')
      await secrets.delete(secret)
      const apiGuid = await queueOrder()
      await api('flushOutbox')

      await until(async () => (await api('getOutboxSummary')).pausedReason !== null, 'the outbox to pause')
      const summary = await api('getOutboxSummary')
      expect(summary.pausedReason).toMatch(words)
      expect(summary.signInAgain ?? false).toBe(signInAgain)
      expect((await api('listOutbox')).find((entry) => entry.apiGuid === apiGuid)).toMatchObject({
        state: 'queued',
        attempts: 0,
      })
      expect(orderPosts()).toHaveLength(0)

      // Signing in again (the same credentials, entered again) sends what waited.
      await api('saveConnection', { baseUrl: service!.url, auth: signIn(kind) })
      await until(
        async () => (await api('listOutbox')).find((entry) => entry.apiGuid === apiGuid)?.state === 'sent',
        'the order to be sent',
      )
      expect((await api('getOutboxSummary')).pausedReason).toBeNull()
      expect(orderPosts()).toHaveLength(1)
    })
  }
})
