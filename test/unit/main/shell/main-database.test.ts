/**
 * The Electron entry point, src/main/shell/index.ts, run against a stand-in for `electron` (as
 * main.test.ts does) on a profile whose database is damaged: start-up stops with the core's clear
 * message in the error box, opens no window, writes nothing to the file, and exits 1.
 */
import { readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, expect, it, vi } from 'vitest'

const stand = await vi.hoisted(async () => {
  const { EventEmitter } = await import('node:events')
  const { mkdirSync, mkdtempSync, writeFileSync } = await import('node:fs')
  const { tmpdir } = await import('node:os')
  const { join } = await import('node:path')
  const root = mkdtempSync(join(tmpdir(), 'satchel-main-db-'))
  const paths: Record<string, string> = { userData: join(root, 'userData'), logs: join(root, 'userData', 'logs') }
  mkdirSync(paths.userData!, { recursive: true })
  const database = join(paths.userData!, 'satchel.db')
  // Half a spreadsheet where the database should be: what a bad backup restore leaves.
  const contents = 'customer,sku,qty\nAcme,A-1,3\n'.repeat(300)
  writeFileSync(database, contents)

  class FakeApp extends EventEmitter {
    isPackaged = false
    enableSandbox = vi.fn()
    requestSingleInstanceLock = vi.fn(() => true)
    setAppUserModelId = vi.fn()
    whenReady = () => Promise.resolve()
    getPath = (name: string) => paths[name] ?? join(root, name)
    getVersion = () => '0.1.0'
    getLocale = () => 'en-US'
    getAppPath = () => process.cwd()
    exit = vi.fn()
    quit = vi.fn()
  }
  const app = new FakeApp()
  const BrowserWindow = vi.fn()
  const electron = {
    app,
    BrowserWindow,
    ipcMain: { handle: vi.fn(), removeHandler: vi.fn() },
    session: {
      defaultSession: {
        webRequest: { onHeadersReceived: vi.fn(), onBeforeRequest: vi.fn() },
        setPermissionRequestHandler: vi.fn(),
        setPermissionCheckHandler: vi.fn(),
        setDevicePermissionHandler: vi.fn(),
      },
    },
    protocol: { registerSchemesAsPrivileged: vi.fn(), handle: vi.fn() },
    screen: { getAllDisplays: () => [{ workArea: { x: 0, y: 0, width: 1920, height: 1040 } }] },
    net: { isOnline: () => false },
    powerMonitor: new EventEmitter(),
    safeStorage: {
      isEncryptionAvailable: () => true,
      getSelectedStorageBackend: () => 'gnome_libsecret',
      encryptString: (text: string) => Buffer.from(text, 'utf8'),
      decryptString: (blob: Buffer) => blob.toString('utf8'),
    },
    shell: { openExternal: vi.fn(async () => undefined), openPath: vi.fn(async () => '') },
    dialog: { showMessageBox: vi.fn(async () => ({ response: 1 })), showErrorBox: vi.fn() },
  }
  return { root, paths, database, contents, app, electron }
})

vi.mock('electron', () => stand.electron)
vi.mock('electron-updater', () => ({ autoUpdater: { on: vi.fn(), checkForUpdates: vi.fn(), quitAndInstall: vi.fn() } }))
vi.mock('../../../../src/main/sync/writer-thread?nodeWorker', () => ({ default: vi.fn() }))
vi.mock('../../../../src/main/sync/reader-thread?nodeWorker', () => ({ default: vi.fn() }))
vi.mock('../../../../src/main/housekeeping/purge-worker?nodeWorker', () => ({ default: vi.fn() }))

await import('../../../../src/main/shell/index')

afterAll(() => {
  rmSync(stand.root, { recursive: true, force: true })
})

it('a damaged database stops start-up with the clear message, no window, the file untouched, exit 1', async () => {
  await vi.waitFor(() => expect(stand.app.exit).toHaveBeenCalledWith(1))
  expect(stand.electron.dialog.showErrorBox).toHaveBeenCalledTimes(1)
  const [title, message] = stand.electron.dialog.showErrorBox.mock.calls[0] as [string, string]
  expect(title).toBe('Satchel cannot open its database')
  expect(
    message.startsWith(
      `${stand.database} is not a Satchel database (or is damaged): it is not an SQLite database file.`,
    ),
  ).toBe(true)
  expect(message).toMatch(/start Satchel again/)
  expect(message).not.toMatch(/SQLITE_|file is not a database/)
  expect(stand.electron.BrowserWindow).not.toHaveBeenCalled()
  expect(readFileSync(stand.database, 'utf8')).toBe(stand.contents)
  expect(readFileSync(join(stand.paths.logs ?? '', 'main.log'), 'utf8')).toContain('is not a Satchel database')
})
