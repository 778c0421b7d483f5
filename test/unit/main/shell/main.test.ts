/**
 * The entry point, src/main/shell/index.ts, run for real against a stand-in for the `electron`
 * module (the binary is not installed here) and a stand-in autoUpdater: proves the wiring, not just
 * the parts. Electron's own behaviour is the Playwright _electron smoke test's job where it can run.
 */
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterAll, describe, expect, it, vi } from 'vitest'
import { channelOf } from '../../../../src/shared/channels'

const stand = await vi.hoisted(async () => {
  const { EventEmitter } = await import('node:events')
  const { mkdtempSync } = await import('node:fs')
  const { tmpdir } = await import('node:os')
  const { join } = await import('node:path')
  const root = mkdtempSync(join(tmpdir(), 'satchel-main-'))
  const paths: Record<string, string> = { userData: join(root, 'userData'), logs: join(root, 'userData', 'logs') }

  const quitEvent = () => ({
    defaultPrevented: false,
    preventDefault() {
      this.defaultPrevented = true
    },
  })
  class FakeApp extends EventEmitter {
    isPackaged = false
    exited = false
    enableSandbox = vi.fn()
    requestSingleInstanceLock = vi.fn(() => true)
    setAppUserModelId = vi.fn()
    whenReady = () => Promise.resolve()
    getPath = (name: string) => paths[name] ?? join(root, name)
    getVersion = () => '0.1.0'
    getLocale = () => 'en-US'
    getAppPath = () => process.cwd()
    exit = vi.fn()
    // Like Electron: before-quit may be prevented; otherwise windows close and will-quit follows.
    quit = vi.fn(() => {
      const event = quitEvent()
      this.emit('before-quit', event)
      if (event.defaultPrevented) return
      this.emit('will-quit', quitEvent())
      this.exited = true
    })
  }
  const app = new FakeApp()

  const makeContents = () =>
    Object.assign(new EventEmitter(), {
      setWindowOpenHandler: vi.fn(),
      closeDevTools: vi.fn(),
      isDestroyed: () => false,
      send: vi.fn(),
    })
  const windows: BrowserWindow[] = []
  class BrowserWindow extends EventEmitter {
    static getAllWindows = () => windows
    webContents = makeContents()
    loaded: string[] = []
    constructor(readonly options: Record<string, unknown>) {
      super()
      windows.push(this)
      app.emit('web-contents-created', {}, this.webContents)
    }
    loadFile = (file: string) => Promise.resolve(void this.loaded.push(file))
    loadURL = (url: string) => Promise.resolve(void this.loaded.push(url))
    isDestroyed = () => false
    isMinimized = () => false
    isMaximized = () => false
    getNormalBounds = () => ({ x: 10, y: 10, width: 1280, height: 820 })
    show = vi.fn()
    focus = vi.fn()
    maximize = vi.fn()
    restore = vi.fn()
  }

  const ipcHandlers = new Map<string, (...args: unknown[]) => unknown>()
  const protocolHandlers = new Map<string, (request: { url: string }) => Response>()
  const sessionHandlers: Record<string, (...args: unknown[]) => unknown> = {}
  const safeStorage = {
    isEncryptionAvailable: () => true,
    getSelectedStorageBackend: () => 'gnome_libsecret',
    encryptString: (text: string) => Buffer.from(text, 'utf8').map((byte) => byte ^ 0x5a),
    decryptString: (blob: Buffer) => Buffer.from(blob.map((byte) => byte ^ 0x5a)).toString('utf8'),
  }
  const electron = {
    app,
    BrowserWindow,
    ipcMain: {
      handle: (channel: string, listener: (...args: unknown[]) => unknown) => ipcHandlers.set(channel, listener),
      removeHandler: (channel: string) => ipcHandlers.delete(channel),
    },
    session: {
      defaultSession: {
        webRequest: {
          onHeadersReceived: (listener: (...args: unknown[]) => unknown) => (sessionHandlers.headers = listener),
          onBeforeRequest: (listener: (...args: unknown[]) => unknown) => (sessionHandlers.request = listener),
        },
        setPermissionRequestHandler: (handler: (...args: unknown[]) => unknown) =>
          (sessionHandlers.permissionRequest = handler),
        setPermissionCheckHandler: (handler: (...args: unknown[]) => unknown) =>
          (sessionHandlers.permissionCheck = handler),
        setDevicePermissionHandler: (handler: (...args: unknown[]) => unknown) => (sessionHandlers.device = handler),
      },
    },
    protocol: {
      registerSchemesAsPrivileged: vi.fn(),
      handle: (scheme: string, handler: (request: { url: string }) => Response) =>
        protocolHandlers.set(scheme, handler),
    },
    screen: { getAllDisplays: () => [{ workArea: { x: 0, y: 0, width: 1920, height: 1040 } }] },
    net: { isOnline: () => false },
    powerMonitor: new EventEmitter(),
    safeStorage,
    shell: { openExternal: vi.fn(async () => undefined), openPath: vi.fn(async () => '') },
    dialog: { showMessageBox: vi.fn(async () => ({ response: 1 })), showErrorBox: vi.fn() },
  }
  const autoUpdater = { on: vi.fn(), checkForUpdates: vi.fn(), quitAndInstall: vi.fn() }
  return { root, paths, app, windows, ipcHandlers, protocolHandlers, sessionHandlers, electron, autoUpdater }
})

vi.mock('electron', () => stand.electron)
vi.mock('electron-updater', () => ({ autoUpdater: stand.autoUpdater }))
// electron-vite turns this import into a worker factory at build time; from source, the same worker
// runs through tsx, as the core's own tests run it.
vi.mock('../../../../src/main/sync/writer-thread?nodeWorker', async () => {
  const { sourceSyncThread } = await import('../../../../src/main/sync/page-writer')
  return {
    default: (options: { workerData: Parameters<typeof sourceSyncThread>[0] }) => sourceSyncThread(options.workerData),
  }
})
vi.mock('../../../../src/main/sync/reader-thread?nodeWorker', async () => {
  const { sourceSyncThread } = await import('../../../../src/main/sync/page-writer')
  return {
    default: (options: { workerData: Parameters<typeof sourceSyncThread>[0] }) => sourceSyncThread(options.workerData),
  }
})
vi.mock('../../../../src/main/housekeeping/purge-worker?nodeWorker', async () => {
  const { sourcePurgeWorker } = await import('../../../../src/main/housekeeping/purge-slices')
  return {
    default: (options: { workerData: Parameters<NonNullable<ReturnType<typeof sourcePurgeWorker>>>[0] }) =>
      sourcePurgeWorker()!(options.workerData),
  }
})

await import('../../../../src/main/shell/index')

afterAll(() => {
  rmSync(stand.root, { recursive: true, force: true })
})

const rendererFile = resolve(__dirname, '../../../../src/main/renderer/index.html')
const fromApp = { senderFrame: { url: pathToFileURL(rendererFile).href, parent: null }, sender: {} }
const invoke = (method: Parameters<typeof channelOf>[0], argument?: unknown, event: unknown = fromApp) =>
  stand.ipcHandlers.get(channelOf(method))?.(event, argument)

describe('the Electron entry point', () => {
  it('sandboxes every renderer and holds the single-instance lock before anything else', async () => {
    await vi.waitFor(() => expect(stand.windows).toHaveLength(1))
    expect(stand.app.enableSandbox).toHaveBeenCalled()
    expect(stand.app.requestSingleInstanceLock).toHaveBeenCalled()
  })

  it('opens one window with the secure preferences and the built renderer', () => {
    const [window] = stand.windows
    expect(window?.options.webPreferences).toMatchObject({
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webSecurity: true,
    })
    expect(window?.loaded).toEqual([rendererFile])
  })

  it('guards the window’s webContents and the session', () => {
    const contents = stand.windows[0]?.webContents
    const navigation = { url: 'https://example.com/', isMainFrame: true, preventDefault: vi.fn() }
    contents?.emit('will-navigate', navigation)
    expect(navigation.preventDefault).toHaveBeenCalled()
    expect(stand.electron.shell.openExternal).toHaveBeenCalledWith('https://example.com/')
    expect(contents?.setWindowOpenHandler).toHaveBeenCalled()
    const permission = vi.fn()
    stand.sessionHandlers.permissionRequest?.({}, 'media', permission)
    expect(permission).toHaveBeenCalledWith(false)
    let headers: Record<string, string[]> | undefined
    stand.sessionHandlers.headers?.(
      { url: pathToFileURL(rendererFile).href, responseHeaders: {} },
      (response: { responseHeaders: Record<string, string[]> }) => (headers = response.responseHeaders),
    )
    expect(headers?.['Content-Security-Policy']?.[0]).toContain("script-src 'self'")
  })

  it('serves item pictures through satchel-picture:, registered privileged, from the cache only', () => {
    expect(stand.electron.protocol.registerSchemesAsPrivileged).toHaveBeenCalledWith([
      expect.objectContaining({ scheme: 'satchel-picture' }),
    ])
    // The profile on screen has fetched no picture: an empty answer, which the <img> takes quietly.
    expect(stand.protocolHandlers.get('satchel-picture')?.({ url: 'satchel-picture://thumb/item-1' }).status).toBe(204)
  })

  it('serves the contract over IPC to the app’s frame only, keeping secrets in safeStorage', async () => {
    expect(await invoke('getAppInfo')).toMatchObject({ ok: true, value: { version: '0.1.0' } })
    expect(
      await invoke('getAppInfo', undefined, {
        senderFrame: { url: 'https://evil.example/', parent: null },
        sender: {},
      }),
    ).toMatchObject({
      ok: false,
      error: { code: 'FORBIDDEN_SENDER' },
    })
    const saved = await invoke('saveConnection', {
      baseUrl: 'https://orders.satchel.invalid',
      auth: { kind: 'apiKey', apiKey: 'key-1', apiSecret: 'wired-secret-value', userGuid: null },
    })
    expect(saved).toMatchObject({ ok: true, value: { auth: { hasSecret: true } } })
    const secretsFile = readFileSync(join(stand.paths.userData ?? '', 'secrets.json'), 'utf8')
    expect(secretsFile).toContain('apiSecret')
    expect(secretsFile).not.toContain('wired-secret-value')
  })

  it('offers the desktop port through the contract, with the logs folder in userData', async () => {
    expect(await invoke('openLogsFolder')).toEqual({ ok: true, value: null })
    expect(stand.electron.shell.openPath).toHaveBeenCalledWith(stand.paths.logs)
    expect(await invoke('getUpdateState')).toMatchObject({ ok: true, value: { status: 'disabled' } })
    await vi.waitFor(async () =>
      expect(await invoke('getConnectivity')).toMatchObject({ ok: true, value: { status: 'offline' } }),
    )
    expect(readdirSync(stand.paths.logs ?? '')).toContain('main.log')
  })

  it('serves the profile on screen: satchel.db as the first profile, a second with its own database and keychain names', async () => {
    const userData = stand.paths.userData ?? ''
    expect(await invoke('listProfiles')).toMatchObject({
      ok: true,
      value: { profiles: [{ name: 'Main', supplier: 'https://orders.satchel.invalid', onScreen: true }] },
    })
    const registry = JSON.parse(readFileSync(join(userData, 'profiles.json'), 'utf8')) as {
      profiles: { databaseFile: string; secretsNamespace: string }[]
    }
    expect(registry.profiles).toMatchObject([{ databaseFile: 'satchel.db', secretsNamespace: '' }])
    const added = await invoke('addProfile', { name: 'Coastal' })
    expect(added).toMatchObject({ ok: true })
    const coastal = (added as { value: { profiles: { id: string; name: string }[] } }).value.profiles.find(
      (profile) => profile.name === 'Coastal',
    )!
    expect(await invoke('switchProfile', { id: coastal.id })).toMatchObject({ ok: true })
    expect(await invoke('getConnection')).toEqual({ ok: true, value: null })
    await invoke('saveConnection', {
      baseUrl: 'https://coastal.satchel.invalid',
      auth: { kind: 'apiKey', apiKey: 'key-2', apiSecret: 'coastal-secret-value', userGuid: null },
    })
    const secrets = JSON.parse(readFileSync(join(userData, 'secrets.json'), 'utf8')) as {
      secrets: Record<string, string>
    }
    expect(Object.keys(secrets.secrets).sort()).toEqual(['apiSecret', `profile-${coastal.id}:apiSecret`])
    const main = (await invoke('listProfiles')) as { value: { profiles: { id: string; name: string }[] } }
    expect(
      await invoke('switchProfile', { id: main.value.profiles.find((profile) => profile.name === 'Main')!.id }),
    ).toMatchObject({ ok: true })
    expect(await invoke('getConnection')).toMatchObject({
      ok: true,
      value: { baseUrl: 'https://orders.satchel.invalid', auth: { hasSecret: true } },
    })
  })

  it('closes the database before letting the quit through', async () => {
    const database = join(stand.paths.userData ?? '', 'satchel.db')
    expect(existsSync(`${database}-wal`)).toBe(true)
    stand.app.quit()
    // Quitting waits for the core to stop (sync, outbox, probes); on a loaded CI machine that takes
    // over vi.waitFor's default second.
    await vi.waitFor(() => expect(stand.app.exited).toBe(true), { timeout: 15_000 })
    // SQLite removes the write-ahead log only on a clean close.
    expect(existsSync(`${database}-wal`)).toBe(false)
    expect(readFileSync(join(stand.paths.logs ?? '', 'main.log'), 'utf8')).not.toContain('wired-secret-value')
  })
})
