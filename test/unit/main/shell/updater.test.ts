import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { createUpdateController, isAutoUpdateSupported, type UpdateState } from '../../../../src/main/shell/updater'
import { controllableOutbox, fakeAppUpdater, recordingLogger } from './fakes'

beforeEach(() => {
  vi.useFakeTimers()
})
afterEach(() => {
  vi.useRealTimers()
})

function setup(options: { supported?: boolean; online?: boolean } = {}) {
  const { updater, writes } = fakeAppUpdater()
  const outbox = controllableOutbox()
  const { logger, entries } = recordingLogger()
  const prepareForRestart = vi.fn(async () => ({ outboxIdle: !outbox.isSending() }))
  const quit = vi.fn()
  const factory = vi.fn(() => updater)
  let online = options.online ?? true
  const controller = createUpdateController({
    updater: factory,
    currentVersion: '1.2.0',
    supported: options.supported === false ? { ok: false, reason: 'Updates are off in development.' } : { ok: true },
    outbox,
    prepareForRestart,
    quit,
    logger,
    isOnline: () => online,
    firstCheckDelayMs: 10_000,
    checkIntervalMs: 4 * 60 * 60_000,
    outboxWaitMs: 60_000,
  })
  const states: UpdateState[] = []
  controller.onChange((state) => states.push(state))
  return {
    updater,
    writes,
    outbox,
    entries,
    prepareForRestart,
    quit,
    factory,
    controller,
    states,
    setOnline: (value: boolean) => (online = value),
  }
}

async function downloaded(s: ReturnType<typeof setup>, version = '1.3.0') {
  await s.controller.checkNow()
  s.updater.emit('update-available', { version })
  s.updater.emit('download-progress', { percent: 42.4 })
  s.updater.emit('update-downloaded', { version })
}

describe('when updates run', () => {
  const packaged = { isPackaged: true, platform: 'win32' as const, env: {}, hasPackageTypeFile: () => false }

  it('only in an installed, packaged app outside tests and CI', () => {
    expect(isAutoUpdateSupported(packaged)).toEqual({ ok: true })
    expect(isAutoUpdateSupported({ ...packaged, isPackaged: false })).toMatchObject({
      ok: false,
      reason: expect.stringContaining('development'),
    })
    expect(isAutoUpdateSupported({ ...packaged, env: { CI: 'true' } })).toMatchObject({ ok: false })
    expect(isAutoUpdateSupported({ ...packaged, env: { VITEST: 'true' } })).toMatchObject({ ok: false })
    expect(isAutoUpdateSupported({ ...packaged, env: { NODE_ENV: 'test' } })).toMatchObject({ ok: false })
    expect(isAutoUpdateSupported({ ...packaged, env: { SATCHEL_DISABLE_AUTO_UPDATE: '1' } })).toMatchObject({
      ok: false,
    })
    expect(isAutoUpdateSupported({ ...packaged, platform: 'linux' })).toMatchObject({
      ok: false,
      reason: expect.stringContaining('AppImage'),
    })
    expect(
      isAutoUpdateSupported({ ...packaged, platform: 'linux', env: { APPIMAGE: '/home/rep/Satchel.AppImage' } }),
    ).toEqual({ ok: true })
    expect(isAutoUpdateSupported({ ...packaged, platform: 'linux', hasPackageTypeFile: () => true })).toEqual({
      ok: true,
    })
  })

  it('never, when disabled: electron-updater is not even loaded', async () => {
    const s = setup({ supported: false })
    s.controller.start()
    await vi.advanceTimersByTimeAsync(24 * 60 * 60_000)
    await s.controller.checkNow()
    expect(s.factory).not.toHaveBeenCalled()
    expect(s.controller.state()).toEqual({
      status: 'disabled',
      currentVersion: '1.2.0',
      reason: 'Updates are off in development.',
    })
    expect(await s.controller.restartToUpdate()).toBe('not-ready')
  })

  it('at start-up and then every few hours, skipping checks while offline', async () => {
    const s = setup()
    s.controller.start()
    expect(s.updater.checkForUpdates).not.toHaveBeenCalled()
    await vi.advanceTimersByTimeAsync(10_000)
    expect(s.updater.checkForUpdates).toHaveBeenCalledTimes(1)
    await vi.advanceTimersByTimeAsync(4 * 60 * 60_000)
    expect(s.updater.checkForUpdates).toHaveBeenCalledTimes(2)
    s.setOnline(false)
    await vi.advanceTimersByTimeAsync(4 * 60 * 60_000)
    expect(s.updater.checkForUpdates).toHaveBeenCalledTimes(2)
    s.controller.stop()
    s.setOnline(true)
    await vi.advanceTimersByTimeAsync(8 * 60 * 60_000)
    expect(s.updater.checkForUpdates).toHaveBeenCalledTimes(2)
  })
})

describe('downloading', () => {
  it('happens in the background and ends with "Restart to update" on offer', async () => {
    const s = setup()
    await s.controller.checkNow()
    s.updater.emit('checking-for-update')
    s.updater.emit('update-available', { version: '1.3.0' })
    s.updater.emit('download-progress', { percent: 42.4 })
    s.updater.emit('update-downloaded', { version: '1.3.0' })
    expect(s.states.map((state) => state.status)).toEqual(['checking', 'downloading', 'downloading', 'ready'])
    expect(s.states[2]).toMatchObject({ percent: 42 })
    expect(s.controller.state()).toEqual({ status: 'ready', currentVersion: '1.2.0', version: '1.3.0' })
    expect(s.updater.autoDownload).toBe(true)
    expect(s.updater.quitAndInstall).not.toHaveBeenCalled()
  })

  it('leaves the staged rollout to electron-updater: nothing overrides the rollout check or allows downgrades', async () => {
    const s = setup()
    await downloaded(s)
    expect(s.writes.map(([property]) => property).sort()).toEqual([
      'allowPrerelease',
      'autoDownload',
      'autoInstallOnAppQuit',
      'logger',
    ])
    expect(s.writes).toContainEqual(['allowPrerelease', false])
  })
})

describe('restart to update', () => {
  it('installs at once when the outbox is idle, after the database is closed', async () => {
    const s = setup()
    await downloaded(s)
    expect(await s.controller.restartToUpdate()).toBe('restarting')
    expect(s.prepareForRestart).toHaveBeenCalledTimes(1)
    expect(s.updater.quitAndInstall).toHaveBeenCalledWith(false, true)
    expect(s.prepareForRestart.mock.invocationCallOrder[0]).toBeLessThan(
      s.updater.quitAndInstall.mock.invocationCallOrder[0] ?? 0,
    )
  })

  it('is deferred while the outbox is sending, and goes ahead once it is idle', async () => {
    const s = setup()
    await downloaded(s)
    s.outbox.startSending()
    const restart = s.controller.restartToUpdate()
    await vi.advanceTimersByTimeAsync(30_000)
    expect(s.controller.state().status).toBe('waiting-for-outbox')
    expect(s.prepareForRestart).not.toHaveBeenCalled()
    expect(s.updater.quitAndInstall).not.toHaveBeenCalled()
    s.outbox.finishSending()
    expect(await restart).toBe('restarting')
    expect(s.updater.quitAndInstall).toHaveBeenCalledTimes(1)
    expect(s.states.map((state) => state.status).slice(-2)).toEqual(['waiting-for-outbox', 'installing'])
  })

  it('gives up, still offering the update, when the outbox stays busy', async () => {
    const s = setup()
    await downloaded(s)
    s.outbox.startSending()
    const restart = s.controller.restartToUpdate()
    await vi.advanceTimersByTimeAsync(60_000)
    expect(await restart).toBe('outbox-busy')
    expect(s.updater.quitAndInstall).not.toHaveBeenCalled()
    expect(s.controller.state()).toEqual({ status: 'ready', currentVersion: '1.2.0', version: '1.3.0' })
  })

  it('quits without installing when a send outlived the shutdown', async () => {
    const s = setup()
    await downloaded(s)
    s.prepareForRestart.mockResolvedValueOnce({ outboxIdle: false })
    expect(await s.controller.restartToUpdate()).toBe('outbox-busy')
    expect(s.updater.quitAndInstall).not.toHaveBeenCalled()
    expect(s.updater.autoInstallOnAppQuit).toBe(false)
    expect(s.quit).toHaveBeenCalled()
  })

  it('is refused until an update is downloaded', async () => {
    const s = setup()
    expect(await s.controller.restartToUpdate()).toBe('not-ready')
    expect(s.prepareForRestart).not.toHaveBeenCalled()
  })

  it('does not install on quit when quitting gave up waiting for the outbox', async () => {
    const s = setup()
    await downloaded(s)
    expect(s.updater.autoInstallOnAppQuit).toBe(true)
    s.controller.setInstallOnQuit(false)
    expect(s.updater.autoInstallOnAppQuit).toBe(false)
  })
})

describe('errors', () => {
  it('are logged and shown as a state, never thrown', async () => {
    const s = setup()
    s.updater.checkForUpdates.mockRejectedValueOnce(new Error('net::ERR_NAME_NOT_RESOLVED'))
    await expect(s.controller.checkNow()).resolves.toBeUndefined()
    expect(s.controller.state()).toMatchObject({ status: 'error', message: 'net::ERR_NAME_NOT_RESOLVED' })
    expect(s.entries.some((entry) => entry.level === 'error' && entry.message === 'update check failed')).toBe(true)
    s.updater.emit('error', new Error('sha512 checksum mismatch'))
    expect(s.controller.state()).toMatchObject({ status: 'error', message: 'sha512 checksum mismatch' })
    // The next check starts afresh.
    await s.controller.checkNow()
    s.updater.emit('update-not-available', { version: '1.2.0' })
    expect(s.controller.state()).toMatchObject({ status: 'idle', lastCheckedAt: expect.any(Number) })
  })

  it('after a download do not hide "Restart to update"', async () => {
    const s = setup()
    await downloaded(s)
    s.updater.emit('error', new Error('a later check failed'))
    expect(s.controller.state().status).toBe('ready')
  })

  it('when the installer cannot start, quit rather than run on with a closed database', async () => {
    const s = setup()
    await downloaded(s)
    s.updater.quitAndInstall.mockImplementationOnce(() => s.updater.emit('error', new Error('installer missing')))
    await s.controller.restartToUpdate()
    expect(s.controller.state()).toMatchObject({ status: 'error', message: 'installer missing' })
    expect(s.quit).toHaveBeenCalled()
  })
})
