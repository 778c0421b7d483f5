/**
 * Auto-update with electron-updater, behind a small controller: check at start-up and every few
 * hours, download in the background, then offer "Restart to update" and install only on the rep's
 * word and never while an order request is on the wire. Errors are logged and shown as a state,
 * never thrown: a broken update server must not break order entry.
 *
 * Staged rollout: electron-updater reads `stagingPercentage` from the published latest*.yml and
 * offers the update only to that share of installs (by a random id it keeps in userData). This
 * controller never touches `isUserWithinRollout`, `allowDowngrade` or `forceDevUpdateConfig`, so the
 * percentage is honoured; test/unit/main/shell/updater.test.ts pins that.
 */
import type { Logger } from '../ports'
import type { OutboxActivity } from '../orders'

/** The part of electron-updater's AppUpdater the controller uses; the tests hand it a fake. */
interface AppUpdaterLike {
  autoDownload: boolean
  autoInstallOnAppQuit: boolean
  allowPrerelease: boolean
  logger: unknown
  on(event: 'checking-for-update', listener: () => void): unknown
  on(
    event: 'update-available' | 'update-not-available' | 'update-downloaded',
    listener: (info: { version: string }) => void,
  ): unknown
  on(event: 'download-progress', listener: (progress: { percent: number }) => void): unknown
  on(event: 'error', listener: (error: Error) => void): unknown
  checkForUpdates(): Promise<unknown>
  quitAndInstall(isSilent?: boolean, isForceRunAfter?: boolean): void
}

/** What Settings shows, serialisable as is. */
export type UpdateState =
  | { status: 'disabled'; currentVersion: string; reason: string }
  | { status: 'idle'; currentVersion: string; lastCheckedAt: number | null }
  | { status: 'checking'; currentVersion: string; lastCheckedAt: number | null }
  | { status: 'downloading'; currentVersion: string; version: string; percent: number }
  /** Downloaded: "Restart to update" is offered. */
  | { status: 'ready'; currentVersion: string; version: string }
  /** The rep asked to restart while an order was being sent; the restart follows when it is done. */
  | { status: 'waiting-for-outbox'; currentVersion: string; version: string }
  | { status: 'installing'; currentVersion: string; version: string }
  | { status: 'error'; currentVersion: string; message: string; lastCheckedAt: number | null }

type RestartOutcome = 'restarting' | 'not-ready' | 'outbox-busy'

export interface UpdateController {
  state(): UpdateState
  onChange(listener: (state: UpdateState) => void): () => void
  /** Checks now (the Settings button); resolves when the check is done, never rejects. */
  checkNow(): Promise<void>
  /** "Restart to update": defers while the outbox is sending, then shuts down and installs. */
  restartToUpdate(): Promise<RestartOutcome>
  /**
   * Whether a downloaded update may install when the app quits normally. Turned off when quitting
   * had to give up waiting for an order request, so even then nothing installs over a send.
   */
  setInstallOnQuit(allowed: boolean): void
  start(): void
  stop(): void
}

export interface UpdateControllerOptions {
  /** Created lazily: electron-updater reads app-update.yml and sets up its session on first access. */
  updater: () => AppUpdaterLike
  currentVersion: string
  /** From isAutoUpdateSupported; when false the controller stays 'disabled' and never touches `updater`. */
  supported: { ok: true } | { ok: false; reason: string }
  outbox: OutboxActivity
  /** Waits (bounded) for the outbox, closes the database and saves state: the quit controller's shutdown. */
  prepareForRestart: () => Promise<{ outboxIdle: boolean }>
  /** Quits the app without installing; used only when the shutdown could not wait the outbox out. */
  quit: () => void
  logger: Logger
  now?: () => number
  /** Skip a scheduled check while offline rather than log a predictable error. */
  isOnline?: () => boolean
  /** The first check waits a little, so start-up work (first sync, window) goes first. */
  firstCheckDelayMs?: number
  checkIntervalMs?: number
  /** How long "Restart to update" waits for an order request to finish before giving up. */
  outboxWaitMs?: number
}

export interface SupportEnvironment {
  isPackaged: boolean
  platform: NodeJS.Platform
  env: NodeJS.ProcessEnv
  /** For Linux: does <resources>/package-type exist (deb, rpm)? */
  hasPackageTypeFile: () => boolean
}

/**
 * Updates run only in an installed, packaged app. Development runs (electron-vite dev), test runs
 * (vitest, Playwright's _electron launch the unpackaged app) and CI never check, and on Linux only
 * the formats electron-updater can replace (AppImage, deb) do.
 */
export function isAutoUpdateSupported(environment: SupportEnvironment): { ok: true } | { ok: false; reason: string } {
  const { env } = environment
  if (!environment.isPackaged) return { ok: false, reason: 'Updates are off in development.' }
  if (env.SATCHEL_DISABLE_AUTO_UPDATE === '1')
    return { ok: false, reason: 'Updates are turned off by SATCHEL_DISABLE_AUTO_UPDATE.' }
  if (env.CI || env.VITEST || env.NODE_ENV === 'test') return { ok: false, reason: 'Updates are off in tests.' }
  if (environment.platform === 'linux' && !env.APPIMAGE && !environment.hasPackageTypeFile()) {
    return {
      ok: false,
      reason: 'This copy was not installed from an AppImage or a .deb package, so it cannot update itself.',
    }
  }
  return { ok: true }
}

export function createUpdateController(options: UpdateControllerOptions): UpdateController {
  const now = options.now ?? Date.now
  const firstCheckDelayMs = options.firstCheckDelayMs ?? 15_000
  const checkIntervalMs = options.checkIntervalMs ?? 4 * 60 * 60_000
  const outboxWaitMs = options.outboxWaitMs ?? 10 * 60_000
  const currentVersion = options.currentVersion
  const listeners = new Set<(state: UpdateState) => void>()
  let state: UpdateState = options.supported.ok
    ? { status: 'idle', currentVersion, lastCheckedAt: null }
    : { status: 'disabled', currentVersion, reason: options.supported.reason }
  let lastCheckedAt: number | null = null
  let updater: AppUpdaterLike | undefined
  let firstCheck: ReturnType<typeof setTimeout> | undefined
  let interval: ReturnType<typeof setInterval> | undefined
  let checking: Promise<void> | undefined

  function set(next: UpdateState): void {
    state = next
    for (const listener of listeners) listener(next)
  }

  /** A downloaded update stays on offer: later checks and their errors must not hide the button. */
  function holdsDownload(): boolean {
    return state.status === 'ready' || state.status === 'waiting-for-outbox' || state.status === 'installing'
  }

  function errorMessage(error: unknown): string {
    return error instanceof Error ? error.message : String(error)
  }

  function connect(): AppUpdaterLike {
    if (updater) return updater
    const instance = options.updater()
    instance.autoDownload = true
    instance.autoInstallOnAppQuit = true
    instance.allowPrerelease = false
    instance.logger = {
      info: (message: unknown) => options.logger.info('updater', { detail: String(message) }),
      warn: (message: unknown) => options.logger.warn('updater', { detail: String(message) }),
      error: (message: unknown) => options.logger.error('updater', { detail: String(message) }),
      debug: (message: unknown) => options.logger.debug('updater', { detail: String(message) }),
    }
    instance.on('checking-for-update', () => {
      if (!holdsDownload()) set({ status: 'checking', currentVersion, lastCheckedAt })
    })
    instance.on('update-not-available', () => {
      lastCheckedAt = now()
      if (!holdsDownload()) set({ status: 'idle', currentVersion, lastCheckedAt })
    })
    instance.on('update-available', (info) => {
      lastCheckedAt = now()
      options.logger.info('update available; downloading in the background', { version: info.version })
      if (!holdsDownload()) set({ status: 'downloading', currentVersion, version: info.version, percent: 0 })
    })
    instance.on('download-progress', (progress) => {
      if (state.status === 'downloading') set({ ...state, percent: Math.round(progress.percent) })
    })
    instance.on('update-downloaded', (info) => {
      options.logger.info('update downloaded; offering restart', { version: info.version })
      if (state.status !== 'waiting-for-outbox' && state.status !== 'installing')
        set({ status: 'ready', currentVersion, version: info.version })
    })
    instance.on('error', (error) => {
      options.logger.error('update failed', { error: errorMessage(error) })
      if (state.status === 'installing') {
        // The installer could not start after the database was closed for it: the app cannot go on
        // with a closed database, so it quits; the update is offered again on the next start.
        set({ status: 'error', currentVersion, message: errorMessage(error), lastCheckedAt })
        options.quit()
        return
      }
      if (!holdsDownload()) set({ status: 'error', currentVersion, message: errorMessage(error), lastCheckedAt })
    })
    updater = instance
    return instance
  }

  function check(trigger: 'scheduled' | 'requested'): Promise<void> {
    if (state.status === 'disabled') return Promise.resolve()
    if (trigger === 'scheduled' && options.isOnline && !options.isOnline()) {
      options.logger.debug('update check skipped while offline')
      return Promise.resolve()
    }
    checking ??= (async () => {
      try {
        await connect().checkForUpdates()
      } catch (error) {
        // electron-updater also emits 'error' for most failures; this catches the ones it throws.
        options.logger.error('update check failed', { error: errorMessage(error) })
        if (!holdsDownload()) set({ status: 'error', currentVersion, message: errorMessage(error), lastCheckedAt })
      } finally {
        checking = undefined
      }
    })()
    return checking
  }

  return {
    state: () => state,
    onChange(listener) {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
    checkNow: () => check('requested'),

    async restartToUpdate() {
      if (state.status === 'waiting-for-outbox' || state.status === 'installing') return 'restarting'
      if (state.status !== 'ready') return 'not-ready'
      const version = state.version
      if (options.outbox.isSending()) {
        options.logger.info('restart to update deferred until the order request in flight is answered', { version })
        set({ status: 'waiting-for-outbox', currentVersion, version })
        const idle = await options.outbox.waitUntilIdle(outboxWaitMs).catch(() => false)
        if (!idle) {
          options.logger.warn('restart to update given up: the outbox stayed busy', { version, waitedMs: outboxWaitMs })
          set({ status: 'ready', currentVersion, version })
          return 'outbox-busy'
        }
      }
      set({ status: 'installing', currentVersion, version })
      try {
        const { outboxIdle } = await options.prepareForRestart()
        if (!outboxIdle) {
          // An order request started in the moment between the wait and the shutdown and outlived the
          // shutdown's own wait. The database is closed now, so the app must go, but without
          // installing: the update stays downloaded and is offered again on the next start.
          options.logger.warn('restart to update: an order request is still in flight; quitting without installing', {
            version,
          })
          connect().autoInstallOnAppQuit = false
          options.quit()
          return 'outbox-busy'
        }
        options.logger.info('installing update', { version })
        connect().quitAndInstall(false, true)
        return 'restarting'
      } catch (error) {
        options.logger.error('installing the update failed', { error: errorMessage(error) })
        set({ status: 'error', currentVersion, message: errorMessage(error), lastCheckedAt })
        return 'not-ready'
      }
    },

    setInstallOnQuit(allowed) {
      if (updater) updater.autoInstallOnAppQuit = allowed
    },

    start() {
      if (state.status === 'disabled' || interval) {
        if (state.status === 'disabled') options.logger.info('auto-update disabled', { reason: state.reason })
        return
      }
      firstCheck = setTimeout(() => void check('scheduled'), firstCheckDelayMs)
      interval = setInterval(() => void check('scheduled'), checkIntervalMs)
    },
    stop() {
      if (firstCheck) clearTimeout(firstCheck)
      if (interval) clearInterval(interval)
      firstCheck = undefined
      interval = undefined
    },
  }
}
