/**
 * The Electron entry point. Everything here is transport and window management; the product lives
 * in the core built by createCore.
 */
import { app, BrowserWindow, ipcMain, shell } from 'electron'
import { join } from 'node:path'
import { createCore, type Core } from '../core/compose'
import { createConsoleLogger } from '../ports'
import { electronNativeBinding } from '../native'
import { databaseFileName } from '../paths'
import { forwardEvents, registerIpc } from './ipc'

let core: Core | undefined
let mainWindow: BrowserWindow | undefined

const rendererDevUrl = process.env.ELECTRON_RENDERER_URL
const rendererFile = join(__dirname, '../renderer/index.html')

function isAppUrl(url: string): boolean {
  if (rendererDevUrl && !app.isPackaged) return url.startsWith(rendererDevUrl)
  return url.startsWith('file://') && decodeURIComponent(new URL(url).pathname).endsWith('/renderer/index.html')
}

function createWindow(): BrowserWindow {
  const window = new BrowserWindow({
    width: 1280,
    height: 820,
    minWidth: 900,
    minHeight: 600,
    show: false,
    title: 'Satchel',
    webPreferences: {
      preload: join(__dirname, '../preload/index.js'),
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webSecurity: true,
    },
  })
  window.once('ready-to-show', () => window.show())
  window.webContents.setWindowOpenHandler(({ url }) => {
    if (url.startsWith('https://')) void shell.openExternal(url)
    return { action: 'deny' }
  })
  if (rendererDevUrl && !app.isPackaged) void window.loadURL(rendererDevUrl)
  else void window.loadFile(rendererFile)
  return window
}

async function start(): Promise<void> {
  await app.whenReady()
  const logger = createConsoleLogger(app.isPackaged ? 'info' : 'debug')
  core = createCore({
    databasePath: join(app.getPath('userData'), databaseFileName),
    nativeBinding: app.isPackaged ? undefined : electronNativeBinding(app.getAppPath()),
    appVersion: app.getVersion(),
    ports: { logger },
  })
  registerIpc(ipcMain, core.handlers, isAppUrl)
  forwardEvents(core.events, () => mainWindow?.webContents)
  mainWindow = createWindow()
  app.on('activate', () => {
    if (BrowserWindow.getAllWindows().length === 0) mainWindow = createWindow()
  })
}

app.on('window-all-closed', () => {
  if (process.platform !== 'darwin') app.quit()
})

app.on('will-quit', () => {
  void core?.close()
})

void start()
