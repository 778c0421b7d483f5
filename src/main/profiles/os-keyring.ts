/**
 * The SecretStore port over the operating system's keyring itself (Keychain on macOS, Credential
 * Manager on Windows, the Secret Service of GNOME Keyring or KWallet on Linux), through
 * @napi-rs/keyring: the one store the CLI can reach without Electron, and so the one the app and the
 * CLI share. A secret `profiles add` stored is the app's at its next start, and one the rep typed
 * in the app is there for `satchel sync`.
 *
 * Each entry is named by the data folder and the profile's name for it, so a test's or a script's
 * folder (--data-dir) never reads or overwrites the desktop app's secrets.
 */
import { resolve } from 'node:path'
import { CoreError } from '../errors'
import { silentLogger, type Logger } from '../ports'
import type { SafeStorageKeychain } from './secrets-file'

/** The part of @napi-rs/keyring this store uses; unit tests hand it an in-memory stand-in. */
interface KeyringEntryLike {
  getPassword(signal?: AbortSignal | null): Promise<string | null>
  setPassword(password: string, signal?: AbortSignal | null): Promise<void>
  deletePassword(signal?: AbortSignal | null): Promise<boolean>
}

export interface KeyringModuleLike {
  AsyncEntry: new (
    service: string,
    account: string,
    options?: { linux?: { store?: 'secret-service' | 'keyutils' } } | null,
  ) => KeyringEntryLike
}

export interface OsKeyringOptions {
  /** The folder whose profiles these secrets belong to. */
  dataDir: string
  /** The binding; by default @napi-rs/keyring, loaded when the store opens. */
  keyring?: KeyringModuleLike
  platform?: NodeJS.Platform
  logger?: Logger
  /** Sees each clear-text value stored or read, so the log redactor can mask it anywhere. */
  onSecret?: (value: string) => void
  /** How long a keyring may take to answer before it counts as unreachable. */
  timeoutMs?: number
}

const service = 'Satchel'
const probeName = 'keyring-check'

function message(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? ''
}

/**
 * A keyring that is there but locked, whose unlock prompt was dismissed (or could not be shown, as
 * over ssh): the binding says so only in its text. The rep can fix this one, so it is told with the fix.
 */
const lockedText = /prompt was dismissed|is locked/i
const locked =
  'the system keyring is locked (its unlock prompt was dismissed or could not be shown): unlock it (sign out and in again, or unlock the "Login" keyring in Passwords and Keys or KWallet Manager), then try again'

/** A call to the keyring, whose failure is told with a next step where there is one; any other as it came. */
async function asked<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call()
  } catch (error) {
    if (!lockedText.test(message(error))) throw error
    const failure = new CoreError('SECRET_STORE_UNAVAILABLE', `The secret could not be read or stored: ${locked}.`)
    failure.cause = error
    throw failure
  }
}

async function loadKeyring(): Promise<KeyringModuleLike> {
  return (await import('@napi-rs/keyring')) as unknown as KeyringModuleLike
}

/**
 * Opens the keyring and asks it once for an entry that is never written, so a machine without one
 * (no Secret Service on the session bus, no session bus at all, a binding that did not load) is known
 * at once and says why, rather than on the first secret.
 */
export async function openOsKeyring(options: OsKeyringOptions): Promise<SafeStorageKeychain> {
  const platform = options.platform ?? process.platform
  const logger = options.logger ?? silentLogger
  const timeoutMs = options.timeoutMs ?? 5000
  const dataDir = resolve(options.dataDir)
  // Linux's default would fall back to the kernel's keyring, which forgets everything at sign-out.
  const entryOptions = platform === 'linux' ? { linux: { store: 'secret-service' as const } } : null
  let binding: KeyringModuleLike | null = null
  let problem: string | null = null
  try {
    binding = options.keyring ?? (await loadKeyring())
  } catch (error) {
    problem = `the keyring binding could not be loaded (${message(error)})`
  }
  const entry = (name: string): KeyringEntryLike => {
    if (!binding) throw new CoreError('SECRET_STORE_UNAVAILABLE', `No system keyring: ${problem}`)
    return new binding.AsyncEntry(service, `${name} @ ${dataDir}`, entryOptions)
  }
  if (!problem) {
    try {
      await entry(probeName).getPassword(AbortSignal.timeout(timeoutMs))
    } catch (error) {
      problem = lockedText.test(message(error))
        ? locked
        : platform === 'linux'
          ? `no Secret Service answered on the session bus (${message(error)}); install and unlock GNOME Keyring or KWallet`
          : `the system keychain did not answer (${message(error)})`
    }
  }
  if (problem) logger.info('the system keyring is not reachable', { reason: problem })
  const unavailable = () => new CoreError('SECRET_STORE_UNAVAILABLE', `No system keyring: ${problem}`)

  const store: SafeStorageKeychain = {
    unavailableReason: () => problem,
    isAvailable: () => problem === null,
    async get(name) {
      if (problem) return null
      const value = await asked(() => entry(name).getPassword(AbortSignal.timeout(timeoutMs)))
      if (value !== null) options.onSecret?.(value)
      return value
    },
    async set(name, value) {
      if (problem) throw unavailable()
      options.onSecret?.(value)
      await asked(() => entry(name).setPassword(value, AbortSignal.timeout(timeoutMs)))
    },
    async delete(name) {
      if (problem) return
      await asked(() => entry(name).deletePassword(AbortSignal.timeout(timeoutMs)))
    },
  }
  return store
}

/**
 * The app's store: the system keyring, which the CLI shares, with Electron's safeStorage file
 * beneath it. A secret an earlier version kept in the file moves into the keyring the first time it
 * is read (then the file forgets it), so after one start both the app and the CLI see one copy and
 * a secret changed in either is the one both use. Where the keyring cannot be reached (no Secret
 * Service, a binding that did not load), the file keeps the secrets as before.
 */
export function layeredSecrets(
  keyring: SafeStorageKeychain,
  file: SafeStorageKeychain,
  logger: Logger = silentLogger,
): SafeStorageKeychain {
  const warn = (what: string, name: string, error: unknown) =>
    logger.warn(`the system keyring failed to ${what} a secret; the app's own file serves`, {
      secret: name,
      error: message(error),
    })
  const store: SafeStorageKeychain = {
    unavailableReason: () => (keyring.isAvailable() ? null : file.unavailableReason()),
    isAvailable: () => keyring.isAvailable() || file.isAvailable(),
    async get(name) {
      if (keyring.isAvailable()) {
        try {
          const value = await keyring.get(name)
          if (value !== null) return value
        } catch (error) {
          warn('read', name, error)
          return file.get(name)
        }
      }
      const kept = await file.get(name)
      if (kept === null || !keyring.isAvailable()) return kept
      try {
        await keyring.set(name, kept)
        await file.delete(name)
      } catch (error) {
        warn('take over', name, error)
      }
      return kept
    },
    async set(name, value) {
      if (keyring.isAvailable()) {
        try {
          await keyring.set(name, value)
          await file.delete(name)
          return
        } catch (error) {
          warn('store', name, error)
        }
      }
      await file.set(name, value)
    },
    async delete(name) {
      await file.delete(name)
      try {
        await keyring.delete(name)
      } catch (error) {
        warn('delete', name, error)
      }
    },
  }
  return store
}
