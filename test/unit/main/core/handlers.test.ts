import { afterEach, describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import { latestSchemaVersion } from '../../../../src/main/db/database'
import { call, createHandlerTable } from '../../../../src/main/core/handlers'
import { explainDatabaseError } from '../../../../src/main/db/file-errors'
import type { Implementations } from '../../../../src/shared/contract'
import { silentLogger } from '../../../../src/main/ports'
import type { Result } from '../../../../src/shared/result'
import { startBridge, type Bridge } from '../../../bridge/server'
import { createTestCore, type TestCore } from '../../../support/core'

let core: TestCore | undefined
let bridge: Bridge | undefined

afterEach(async () => {
  await bridge?.close()
  await core?.close()
  bridge = undefined
  core = undefined
})

function callOverSocket(target: Bridge, method: string, argument: unknown): Promise<Result<unknown>> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(`${target.socketUrl}?token=${target.token}`)
    socket.on('error', reject)
    socket.on('open', () => socket.send(JSON.stringify({ id: 7, method, argument })))
    socket.on('message', (data) => {
      const message = JSON.parse(String(data)) as { id?: number; result?: Result<unknown> }
      if (message.id === 7 && message.result) {
        socket.close()
        resolve(message.result)
      }
    })
  })
}

describe('handler table', () => {
  it('rejects a malformed argument with a typed error when called directly', async () => {
    core = createTestCore()
    const result = await core.handlers.updateSettings({ syncIntervalMinutes: 'ten' })
    expect(result.ok).toBe(false)
    if (result.ok) return
    expect(result.error.code).toBe('INVALID_ARGUMENT')
    expect(result.error.issues).toEqual([expect.objectContaining({ path: 'syncIntervalMinutes' })])
    // Nothing was written: the stored settings are still the defaults.
    expect(await call(core.handlers, 'getSettings')).toEqual({
      ok: true,
      value: {
        syncIntervalMinutes: 30,
        remainInPreliminaryDefault: false,
        quoteValidityDays: 30,
        keepSentOrdersMonths: 24,
        keepExpiredQuotesDays: 90,
        orderDetailsPerSync: 200,
        pictureBudgetMB: 1024,
        picturesOnQuotes: true,
        picturesOnOrders: false,
      },
    })
  })

  it('rejects the same malformed argument with the same typed error through the bridge', async () => {
    core = createTestCore()
    bridge = await startBridge({ handlers: core.handlers, events: core.events })
    const result = await callOverSocket(bridge, 'updateSettings', { syncIntervalMinutes: 'ten' })
    expect(result).toEqual(await core.handlers.updateSettings({ syncIntervalMinutes: 'ten' }))
    expect(result.ok).toBe(false)
    expect(!result.ok && result.error.code).toBe('INVALID_ARGUMENT')
  })

  it('rejects unknown keys instead of ignoring them', async () => {
    core = createTestCore()
    const result = await core.handlers.updateSettings({ syncIntervalMinutes: 45, dropTables: true })
    expect(!result.ok && result.error.code).toBe('INVALID_ARGUMENT')
  })

  it('answers a valid call with the value and emits the change as an event', async () => {
    core = createTestCore()
    const seen: unknown[] = []
    core.events.subscribe((event) => seen.push(event))
    const result = await core.handlers.updateSettings({ syncIntervalMinutes: 45 })
    expect(result).toEqual({
      ok: true,
      value: {
        syncIntervalMinutes: 45,
        remainInPreliminaryDefault: false,
        quoteValidityDays: 30,
        keepSentOrdersMonths: 24,
        keepExpiredQuotesDays: 90,
        orderDetailsPerSync: 200,
        pictureBudgetMB: 1024,
        picturesOnQuotes: true,
        picturesOnOrders: false,
      },
    })
    expect(seen).toEqual([
      {
        name: 'settingsChanged',
        payload: {
          syncIntervalMinutes: 45,
          remainInPreliminaryDefault: false,
          quoteValidityDays: 30,
          keepSentOrdersMonths: 24,
          keepExpiredQuotesDays: 90,
          orderDetailsPerSync: 200,
          pictureBudgetMB: 1024,
          picturesOnQuotes: true,
          picturesOnOrders: false,
        },
      },
    ])
  })

  it('reports the database status through getAppInfo', async () => {
    core = createTestCore()
    const result = await call(core.handlers, 'getAppInfo')
    expect(result.ok && result.value.database).toMatchObject({
      schemaVersion: latestSchemaVersion(),
      journalMode: 'wal',
    })
  })
})

describe('a database that goes bad while the app runs', () => {
  it('answers in the same words as at start-up, not INTERNAL', async () => {
    const damaged = Object.assign(new Error('database disk image is malformed'), { code: 'SQLITE_CORRUPT' })
    const implementations = {
      getAppInfo: () => {
        throw damaged
      },
    } as unknown as Implementations
    const table = createHandlerTable(implementations, silentLogger, (error) =>
      explainDatabaseError(error, '/home/rep/.config/Satchel/satchel.db', 'app'),
    )
    const result = await call(table, 'getAppInfo')
    expect(result).toMatchObject({
      ok: false,
      error: { code: 'NOT_A_DATABASE', message: expect.stringContaining('/home/rep/.config/Satchel/satchel.db') },
    })
    expect(JSON.stringify(result)).not.toContain('malformed')
    const plain = createHandlerTable(implementations, silentLogger)
    expect(await call(plain, 'getAppInfo')).toMatchObject({ ok: false, error: { code: 'INTERNAL' } })
  })
})

describe('bridge', () => {
  it('refuses a socket without the per-run token', async () => {
    core = createTestCore()
    bridge = await startBridge({ handlers: core.handlers, events: core.events })
    const status = await new Promise<number>((resolve) => {
      const socket = new WebSocket(`${bridge!.socketUrl}?token=wrong`)
      socket.on('unexpected-response', (_request, response) => resolve(response.statusCode ?? 0))
      socket.on('open', () => resolve(101))
      socket.on('error', () => resolve(-1))
    })
    expect(status).toBe(401)
  })

  it('answers an unknown method with a typed error', async () => {
    core = createTestCore()
    bridge = await startBridge({ handlers: core.handlers, events: core.events })
    const result = await callOverSocket(bridge, 'dropEverything', undefined)
    expect(!result.ok && result.error.code).toBe('INVALID_ARGUMENT')
  })
})
