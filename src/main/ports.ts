/**
 * The core's effects, passed in rather than reached for, so the Electron shell, the CLI, the test
 * bridge and the tests each hand the same core their own implementations.
 */
import type { EventName } from '../shared/channels'
import type { EventPayload } from '../shared/contract'
import type { UpdateState } from '../shared/desktop'
import type { ProfileList } from '../shared/profiles'

export interface Clock {
  /** Milliseconds since the epoch. The service's serverTimestamp, not this, drives sync cursors. */
  now(): number
  /**
   * Milliseconds on a clock that only moves forward at a steady rate and ignores changes to the wall
   * clock, for measuring how long something took in this process (performance.now in the app). A
   * clock without it (a test's hand-driven clock) measures with now().
   */
  monotonic?(): number
}

export type LogFields = Record<string, unknown>

export interface Logger {
  debug(message: string, fields?: LogFields): void
  info(message: string, fields?: LogFields): void
  warn(message: string, fields?: LogFields): void
  error(message: string, fields?: LogFields): void
  child(bindings: LogFields): Logger
}

export type SecretName = 'apiSecret' | 'userToken'

/** Keeps credentials out of the database and out of plain files. */
export interface Keychain {
  /** False where the platform offers no safe storage (for example Linux's plain-text backend). */
  isAvailable(): boolean
  get(name: SecretName): Promise<string | null>
  set(name: SecretName, value: string): Promise<void>
  delete(name: SecretName): Promise<void>
}

/**
 * The keychain beneath the profiles: any name, so each profile's names carry its prefix (see
 * src/main/profiles/keychain.ts). A SecretStore serves as a Keychain of the first profile as it is.
 */
export interface SecretStore {
  isAvailable(): boolean
  get(name: string): Promise<string | null>
  set(name: string, value: string): Promise<void>
  delete(name: string): Promise<void>
}

/**
 * One sync at a time across the profiles of one app: a sync waits here for its turn before it talks
 * to the service, and hands the turn on when done. Without a gate, a core syncs whenever it likes.
 */
export interface SyncGate {
  /** Resolves with the function that hands the turn on; rejects when `signal` aborts first. */
  enter(signal: AbortSignal): Promise<() => void>
}

/** The profiles above this core, where a profile manager composed it (src/main/profiles/manager.ts). */
export interface ProfilesPort {
  list(): ProfileList
  /** Each profile's database file, by profile id: the support bundle reads every one (read-only). */
  databasePaths(): Map<string, string>
  switchTo(id: string): Promise<ProfileList>
  add(name: string): Promise<ProfileList>
  remove(id: string): Promise<ProfileList>
}

export interface EventSink {
  emit<E extends EventName>(name: E, payload: EventPayload<E>): void
}

/** What only the desktop app can do; the test bridge and the CLI have none of it. */
export interface DesktopPort {
  updates?: {
    state(): UpdateState
    onChange(listener: (state: UpdateState) => void): () => void
    checkNow(): Promise<void>
    restartToUpdate(): Promise<'restarting' | 'not-ready' | 'outbox-busy'>
  }
  /** Opens the log folder; resolves to an error message, or null on success. */
  openLogsFolder?(): Promise<string | null>
  /** The folder the app writes its log files to (the support bundle takes the last week of them). */
  logsDirectory?: string
  /** Versions of the runtime beyond Node's (Electron, Chromium), for the support bundle. */
  runtime?: Record<string, string>
  /** A save dialog, then `contents` written where the rep chose; resolves the path, or null when cancelled. */
  saveFile?(suggestedName: string, contents: Buffer): Promise<string | null>
  /** The window's page (the document view) to paper or to a PDF the rep names. */
  printing?: {
    /** The system print dialog; resolves false when the rep cancelled it. */
    print(): Promise<boolean>
    /** printToPDF, then a save dialog; resolves the path written, or null when the rep cancelled. */
    savePdf(suggestedName: string): Promise<string | null>
  }
}

/** The operating system's word on whether any network is up (Electron's net.isOnline in the app). */
export interface NetworkPort {
  isUp(): boolean
  /**
   * The operating system's network-change events, where the platform gives them; without them the
   * connectivity monitor polls isUp and the interfaces' addresses (locally, no request).
   */
  onChange?(listener: () => void): () => void
}

export const systemClock: Clock = { now: () => Date.now(), monotonic: () => performance.now() }

export const silentLogger: Logger = {
  debug() {},
  info() {},
  warn() {},
  error() {},
  child() {
    return silentLogger
  },
}

/** A logger that writes one JSON line per entry to stderr; secrets must never be passed in fields. */
export function createConsoleLogger(
  level: 'debug' | 'info' | 'warn' | 'error' = 'info',
  bindings: LogFields = {},
): Logger {
  const order = { debug: 10, info: 20, warn: 30, error: 40 } as const
  const write = (lvl: keyof typeof order) => (message: string, fields?: LogFields) => {
    if (order[lvl] < order[level]) return
    process.stderr.write(
      JSON.stringify({ time: new Date().toISOString(), level: lvl, message, ...bindings, ...fields }) + '\n',
    )
  }
  return {
    debug: write('debug'),
    info: write('info'),
    warn: write('warn'),
    error: write('error'),
    child: (more) => createConsoleLogger(level, { ...bindings, ...more }),
  }
}

/** Keeps secrets in memory only: for tests, the bridge and one-shot CLI runs. */
export function createMemoryKeychain(): SecretStore {
  const secrets = new Map<string, string>()
  return {
    isAvailable: () => true,
    get: async (name) => secrets.get(name) ?? null,
    set: async (name, value) => {
      secrets.set(name, value)
    },
    delete: async (name) => {
      secrets.delete(name)
    },
  }
}
