/**
 * The Electron entry point: wiring only. The product lives in the core built by createCore; the
 * rules live in small modules beside this one (security, lifecycle, updater, logging, secrets,
 * window state), each tested without Electron.
 */
import {
  app,
  BrowserWindow,
  dialog,
  ipcMain,
  net,
  powerMonitor,
  protocol,
  safeStorage,
  screen,
  session,
  shell,
} from 'electron'
import log from 'electron-log/node'
import { autoUpdater } from 'electron-updater'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { z } from 'zod'
import createSyncWriter from '../sync/writer-thread?nodeWorker'
import createSyncReader from '../sync/reader-thread?nodeWorker'
import createPurgeWorker from '../housekeeping/purge-worker?nodeWorker'
import { purgeThreadOptions } from '../housekeeping/purge-slices'
import { syncThreadOptions } from '../sync/page-writer'
import { createMemoryKeychain, type DesktopPort } from '../ports'
import type { UpdateState } from '../../shared/desktop'
import { connectionInputSchema } from '../../shared/contract'
import { electronNativeBinding } from '../native'
import { askAboutUnsentOrders, saveFileWithDialog } from './dialogs'
import { forwardEvents, registerIpc } from './ipc'
import { createQuitController } from './lifecycle'
import { configureFileLogging } from './logging'
import { refreshOnResume } from './network'
import { registerPictureScheme, servePictures } from './pictures'
import { createPrinting } from './printing'
import { createSafeStorageKeychain, secretsFileName } from '../profiles/secrets-file'
import { layeredSecrets, openOsKeyring } from '../profiles/os-keyring'
import { connectDemoProfiles } from '../profiles/demo'
import { createProfileManager } from '../profiles/manager'
import { reportStartFailure } from './startup'
import { createAppUrlCheck, guardWebContents, sandboxAllRenderers, secureSession } from './security'
import { createUpdateController, isAutoUpdateSupported, type UpdateController } from './updater'
import { createMainWindow, mainWindowSizing } from './window'
import { placeWindow, readWindowState, trackWindowState, windowStateFileName, writeWindowState } from './window-state'

const isDevelopment = !app.isPackaged
// Only an unpackaged app may load its renderer from a URL given in the environment.
const devServerUrl = isDevelopment ? process.env.ELECTRON_RENDERER_URL : undefined
const rendererFile = join(__dirname, '../renderer/index.html')
const preloadFile = join(__dirname, '../preload/index.js')

sandboxAllRenderers(app)
registerPictureScheme(protocol)

/**
 * `npm run demo`: an unpackaged app told demo services through the environment runs on a throwaway
 * data folder, keeps the demo keys in memory, and connects a profile to each at start. A packaged
 * app ignores all of it.
 */
const demoConnections = z
  .array(z.object({ name: z.string().min(1), baseUrl: z.url(), auth: connectionInputSchema.shape.auth }))
  .min(1)
const demo =
  isDevelopment && process.env.SATCHEL_DEMO_PROFILE && process.env.SATCHEL_DEMO_CONNECTIONS
    ? {
        folder: process.env.SATCHEL_DEMO_PROFILE,
        connections: demoConnections.parse(JSON.parse(process.env.SATCHEL_DEMO_CONNECTIONS)),
      }
    : null
if (demo) app.setPath('userData', demo.folder)

async function start(): Promise<void> {
  await app.whenReady()
  if (process.platform === 'win32') app.setAppUserModelId('com.satchel.desktop')
  const userData = app.getPath('userData')

  const logging = configureFileLogging(log, {
    directory: app.getPath('logs'),
    level: isDevelopment ? 'debug' : 'info',
    console: isDevelopment,
  })
  const logger = logging.logger
  process.on('uncaughtException', (error) => logger.error('uncaught exception', { error }))
  process.on('unhandledRejection', (reason) => logger.error('unhandled rejection', { error: reason }))
  logger.info('starting', {
    version: app.getVersion(),
    electron: process.versions.electron,
    platform: process.platform,
    packaged: app.isPackaged,
  })

  const isAppUrl = createAppUrlCheck({ devServerUrl, rendererFile })
  const onBlocked = (what: string, url: string) => logger.warn('blocked by a security rule', { what, url })
  secureSession(session.defaultSession, { devServerUrl, onBlocked })
  const guard = {
    isAppUrl,
    isDevelopment,
    onBlocked,
    openExternal: (url: string) =>
      void shell.openExternal(url).catch((error: unknown) => logger.warn('could not open a link', { url, error })),
  }
  app.on('web-contents-created', (_event, contents) => guardWebContents(contents, guard))

  // The system keyring, shared with the CLI, over the safeStorage file of earlier versions (whose
  // secrets move into the keyring as they are read) and of machines the keyring does not answer on.
  const secretsLogger = logger.child({ area: 'secrets' })
  const onSecret = (value: string) => logging.redactor.addSecret(value)
  const secrets = layeredSecrets(
    await openOsKeyring({ dataDir: userData, logger: secretsLogger, onSecret }),
    createSafeStorageKeychain({ safeStorage, file: join(userData, secretsFileName), logger: secretsLogger, onSecret }),
    secretsLogger,
  )
  const secretProblem = secrets.unavailableReason()
  if (secretProblem) logger.warn('secrets cannot be stored on this machine', { reason: secretProblem })

  // The updater needs the core's outbox, so it is created after the core; the core's view of it
  // forwards to it once it exists.
  const late: { updates?: UpdateController } = {}
  const updateListeners = new Set<(state: UpdateState) => void>()
  const desktop: DesktopPort = {
    updates: {
      state: () => late.updates?.state() ?? { status: 'idle', currentVersion: app.getVersion(), lastCheckedAt: null },
      onChange: (listener) => {
        updateListeners.add(listener)
        return () => updateListeners.delete(listener)
      },
      checkNow: () => late.updates?.checkNow() ?? Promise.resolve(),
      restartToUpdate: () => late.updates?.restartToUpdate() ?? Promise.resolve('not-ready'),
    },
    openLogsFolder: async () => (await shell.openPath(logging.directory)) || null,
    logsDirectory: logging.directory,
    runtime: { electron: process.versions.electron, chrome: process.versions.chrome },
    saveFile: (suggestedName, contents) => saveFileWithDialog(mainWindow, suggestedName, contents),
    printing: createPrinting(() => mainWindow),
  }

  // A core per profile (one per supplier connection); the one on screen answers the window.
  const nativeBinding = isDevelopment ? electronNativeBinding(app.getAppPath()) : undefined
  const profiles = createProfileManager({
    dataDir: userData,
    secrets: demo ? createMemoryKeychain() : secrets,
    logger: logger.child({ area: 'profiles' }),
    coreConfig: (profile) => ({
      nativeBinding,
      appVersion: app.getVersion(),
      backgroundPictures: true,
      // The window formats amounts in this locale too (navigator.language): the core's messages match it.
      locale: app.getLocale(),
      ports: {
        logger: logger.child({ profile: profile.id }),
        network: { isUp: () => net.isOnline() },
        desktop,
        // Sync reads and writes its pages on threads of their own, so the window never waits on a
        // page's decoding or its commit.
        syncThread: (data) => (data.role === 'reader' ? createSyncReader : createSyncWriter)(syncThreadOptions(data)),
        // The purge after a sync deletes on a thread of its own too.
        purgeWorker: (data) => createPurgeWorker(purgeThreadOptions(data)),
      },
    }),
  })
  // Connected, not synced: the window opens at once and the first sync runs behind it.
  if (demo)
    await connectDemoProfiles(profiles, demo.connections, undefined, { waitForSync: false }).catch((error: unknown) =>
      logger.error('the demo profiles were not connected', { error }),
    )

  const outbox = profiles.outboxActivity
  // Item pictures from the on-screen profile's cache, never from the network (shell/pictures.ts).
  servePictures(
    protocol,
    (itemGuid, size, position) => profiles.onScreen().core.pictures?.read(itemGuid, size, position) ?? null,
  )

  let mainWindow: BrowserWindow | undefined

  // Each core watches the service (and syncs and flushes when it answers again); waking from sleep
  // and a changed network are the shell's to report.
  refreshOnResume(() => profiles.openCores().map((core) => core.connectivity), powerMonitor)

  const quit = createQuitController({
    outbox,
    confirmQuit: (unsent) => askAboutUnsentOrders(mainWindow, unsent),
    closeCore: () => profiles.close(),
    beforeClose: ({ outboxIdle }) => {
      for (const core of profiles.openCores()) core.connectivity.stop()
      updateController.stop()
      updateController.setInstallOnQuit(outboxIdle)
    },
    logger: logger.child({ area: 'lifecycle' }),
  })
  app.on('before-quit', (event) => quit.handleBeforeQuit(event, () => app.quit()))
  // Windows skips before-quit when the user logs off; close the database synchronously at least.
  app.on('will-quit', () => void profiles.close())
  powerMonitor.on('shutdown', () => void quit.shutdown().then(() => app.quit()))

  const updateController = createUpdateController({
    updater: () => autoUpdater,
    currentVersion: app.getVersion(),
    supported: isAutoUpdateSupported({
      isPackaged: app.isPackaged,
      platform: process.platform,
      env: process.env,
      hasPackageTypeFile: () => existsSync(join(process.resourcesPath, 'package-type')),
    }),
    outbox,
    prepareForRestart: () => quit.shutdown(),
    quit: () => app.quit(),
    logger: logger.child({ area: 'updates' }),
    isOnline: () => net.isOnline(),
  })
  late.updates = updateController
  updateController.onChange((state) => {
    for (const listener of updateListeners) listener(state)
  })

  registerIpc(ipcMain, profiles.handlers, isAppUrl, logger.child({ area: 'ipc' }))
  forwardEvents(profiles.events, () => mainWindow?.webContents)

  const windowStateFile = join(userData, windowStateFileName)
  const linuxIcon = app.isPackaged
    ? join(process.resourcesPath, 'icon.png')
    : join(app.getAppPath(), 'resources', 'icons', '512x512.png')
  const openWindow = (): BrowserWindow => {
    const placement = placeWindow(
      readWindowState(windowStateFile),
      screen.getAllDisplays().map((display) => display.workArea),
      mainWindowSizing,
    )
    const window = createMainWindow({
      preload: preloadFile,
      placement,
      isDevelopment,
      icon: process.platform === 'linux' ? linuxIcon : undefined,
    })
    trackWindowState(window, (state) => {
      try {
        writeWindowState(windowStateFile, state)
      } catch (error) {
        logger.warn('could not save the window position', { error })
      }
    })
    // On macOS closing the window keeps the app running, so only quitting asks.
    if (process.platform !== 'darwin') window.on('close', (event) => quit.handleWindowClose(event, () => app.quit()))
    window.on('session-end', () => void profiles.close())
    window.on('closed', () => {
      if (mainWindow === window) mainWindow = undefined
    })
    window.webContents.on('render-process-gone', (_event, details) =>
      logger.error('the window’s renderer stopped', { reason: details.reason, exitCode: details.exitCode }),
    )
    if (devServerUrl) void window.loadURL(devServerUrl)
    else void window.loadFile(rendererFile)
    return window
  }

  app.on('second-instance', () => {
    if (!mainWindow) return
    if (mainWindow.isMinimized()) mainWindow.restore()
    mainWindow.focus()
  })
  app.on('activate', () => {
    if (!mainWindow) mainWindow = openWindow()
  })

  mainWindow = openWindow()
  updateController.start()
}

app.on('window-all-closed', () => {
  if (process.platform !== 'darwin') app.quit()
})

// One instance per user: two would write the same database and send the same outbox twice.
if (!app.requestSingleInstanceLock()) {
  app.quit()
} else {
  start().catch((error: unknown) =>
    reportStartFailure(error, {
      showErrorBox: (title, message) => dialog.showErrorBox(title, message),
      logError: (message) => log.error(message),
      exit: (code) => app.exit(code),
    }),
  )
}
