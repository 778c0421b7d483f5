import { resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import type { IpcMainInvokeEvent } from 'electron'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { channelOf, methodNames } from '../../../../src/shared/channels'
import type { HandlerTable } from '../../../../src/main/core/handlers'
import { registerIpc, type IpcMainLike } from '../../../../src/main/shell/ipc'
import { createAppUrlCheck } from '../../../../src/main/shell/security'
import { createTestCore, type TestCore } from '../../../support/core'

const rendererFile = resolve('/opt/Satchel/resources/app.asar/out/renderer/index.html')
const appUrl = `${pathToFileURL(rendererFile).href}#/settings`
const isAppUrl = createAppUrlCheck({ rendererFile })

type Listener = (event: IpcMainInvokeEvent, ...args: unknown[]) => unknown

function fakeIpcMain() {
  const handlers = new Map<string, Listener>()
  const ipcMain: IpcMainLike = {
    handle: (channel, listener) => handlers.set(channel, listener),
    removeHandler: (channel) => handlers.delete(channel),
  }
  return { ipcMain, handlers }
}

function eventFrom(url: string, options: { subframe?: boolean; noFrame?: boolean } = {}): IpcMainInvokeEvent {
  const top = { url, parent: null }
  const frame = options.subframe ? { url, parent: top } : top
  return { senderFrame: options.noFrame ? null : frame, sender: {} } as unknown as IpcMainInvokeEvent
}

let core: TestCore | undefined
afterEach(async () => {
  await core?.close()
  core = undefined
})

describe('IPC transport', () => {
  it('registers exactly one handler per contract method, and removes them again', () => {
    core = createTestCore()
    const { ipcMain, handlers } = fakeIpcMain()
    const unregister = registerIpc(ipcMain, core.handlers, isAppUrl)
    expect([...handlers.keys()].sort()).toEqual(methodNames.map(channelOf).sort())
    unregister()
    expect(handlers.size).toBe(0)
  })

  it('answers the app’s own top-level frame', async () => {
    core = createTestCore()
    const { ipcMain, handlers } = fakeIpcMain()
    registerIpc(ipcMain, core.handlers, isAppUrl)
    const result = await handlers.get(channelOf('getSettings'))?.(eventFrom(appUrl), undefined)
    expect(result).toMatchObject({ ok: true, value: { syncIntervalMinutes: 30 } })
  })

  it('refuses subframes, other pages and senders without a frame, before any handler runs', async () => {
    const spy = vi.fn(async () => ({ ok: true as const, value: null }))
    const table = Object.fromEntries(methodNames.map((method) => [method, spy])) as unknown as HandlerTable
    const { ipcMain, handlers } = fakeIpcMain()
    const logger = { debug: vi.fn(), info: vi.fn(), warn: vi.fn(), error: vi.fn(), child: vi.fn() }
    registerIpc(ipcMain, table, isAppUrl, logger)
    const call = handlers.get(channelOf('updateSettings'))
    const refused = { ok: false, error: { code: 'FORBIDDEN_SENDER', message: expect.any(String) } }
    expect(await call?.(eventFrom(appUrl, { subframe: true }), { syncIntervalMinutes: 30 })).toEqual(refused)
    expect(await call?.(eventFrom('https://evil.example/'), { syncIntervalMinutes: 30 })).toEqual(refused)
    expect(await call?.(eventFrom('file:///tmp/out/renderer/index.html'), { syncIntervalMinutes: 30 })).toEqual(refused)
    expect(await call?.(eventFrom(appUrl, { noFrame: true }), { syncIntervalMinutes: 30 })).toEqual(refused)
    expect(spy).not.toHaveBeenCalled()
    expect(logger.warn).toHaveBeenCalledWith(
      'ipc call refused: not from the app window',
      expect.objectContaining({ method: 'updateSettings', requestId: expect.any(String) }),
    )
  })

  it('rejects a malformed argument with a typed error and leaves the data untouched', async () => {
    core = createTestCore()
    const { ipcMain, handlers } = fakeIpcMain()
    registerIpc(ipcMain, core.handlers, isAppUrl)
    const update = handlers.get(channelOf('updateSettings'))
    const wrongType = await update?.(eventFrom(appUrl), { syncIntervalMinutes: 'often' })
    expect(wrongType).toMatchObject({
      ok: false,
      error: { code: 'INVALID_ARGUMENT', issues: [{ path: 'syncIntervalMinutes' }] },
    })
    const unknownKey = await update?.(eventFrom(appUrl), { syncIntervalMinutes: 45, nodeIntegration: true })
    expect(unknownKey).toMatchObject({ ok: false, error: { code: 'INVALID_ARGUMENT' } })
    const saveConnection = await handlers.get(channelOf('saveConnection'))?.(eventFrom(appUrl), {
      baseUrl: 'javascript:alert(1)',
      auth: { kind: 'apiKey', apiKey: 'k' },
    })
    expect(saveConnection).toMatchObject({ ok: false, error: { code: 'INVALID_ARGUMENT' } })
    const extraArgument = await handlers.get(channelOf('getSettings'))?.(eventFrom(appUrl), { please: 'everything' })
    expect(extraArgument).toMatchObject({ ok: false, error: { code: 'INVALID_ARGUMENT' } })
    expect(await handlers.get(channelOf('getSettings'))?.(eventFrom(appUrl), undefined)).toMatchObject({
      ok: true,
      value: { syncIntervalMinutes: 30 },
    })
  })
})
