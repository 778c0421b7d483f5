/**
 * The Keychain port over Electron's safeStorage: the API secret and the session token are
 * encrypted with the operating system's keychain (Keychain on macOS, DPAPI on Windows, libsecret or
 * KWallet on Linux) and kept as encrypted blobs in one small file in userData. Clear text exists
 * only in main's memory: never on disk, never in the log (values are registered with the redactor),
 * never in the renderer (the contract only ever says hasSecret/hasToken).
 */
import { chmodSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { dirname } from 'node:path'
import { z } from 'zod'
import { CoreError } from '../errors'
import { silentLogger, type Logger, type SecretStore } from '../ports'

export const secretsFileName = 'secrets.json'

/** The part of Electron's safeStorage this store uses; the tests hand it a reversible fake cipher. */
export interface SafeStorageLike {
  isEncryptionAvailable(): boolean
  encryptString(plainText: string): Buffer
  decryptString(encrypted: Buffer): string
  /** Linux only. */
  getSelectedStorageBackend?(): string
}

export interface SafeStorageKeychain extends SecretStore {
  /** Why secrets cannot be kept here, in words for the rep, or null when they can. */
  unavailableReason(): string | null
}

export interface SafeStorageKeychainOptions {
  safeStorage: SafeStorageLike
  /** The encrypted-blob file, normally <userData>/secrets.json. */
  file: string
  platform?: NodeJS.Platform
  logger?: Logger
  /** Sees each clear-text value stored or read, so the log redactor can mask it anywhere. */
  onSecret?: (value: string) => void
}

const secretsFileSchema = z.object({
  version: z.literal(1),
  secrets: z.record(z.string(), z.string()),
})

export const linuxPlainTextMessage =
  'No keyring is available, so Electron would store secrets with a fixed, publicly known key (the "basic_text" backend). ' +
  'Install and unlock GNOME Keyring or KWallet (package gnome-keyring or kwalletmanager), sign out and back in, then start Satchel again.'

/**
 * Why safeStorage cannot be trusted on this machine, or null when it can. Linux's basic_text backend
 * reports itself as available but encrypts with a hard-coded password, which on disk is as good as
 * clear text; it counts as unavailable. 'unknown' means the backend was never selected (safeStorage
 * used before the app was ready), which must not pass either.
 */
function safeStorageProblem(safeStorage: SafeStorageLike, platform: NodeJS.Platform): string | null {
  if (platform === 'linux') {
    const backend = safeStorage.getSelectedStorageBackend?.() ?? 'unknown'
    if (backend === 'basic_text') return linuxPlainTextMessage
    if (backend === 'unknown')
      return 'The system keyring has not been selected yet, so secrets cannot be stored safely.'
  }
  if (!safeStorage.isEncryptionAvailable()) {
    return platform === 'linux'
      ? linuxPlainTextMessage
      : 'The operating system refused to provide encryption for stored secrets (is the user keychain locked?).'
  }
  return null
}

export function createSafeStorageKeychain(options: SafeStorageKeychainOptions): SafeStorageKeychain {
  const platform = options.platform ?? process.platform
  const logger = options.logger ?? silentLogger
  // Decrypting may prompt the keychain on macOS; each secret is decrypted once per run at most.
  const cache = new Map<string, string | null>()

  function readBlobs(): Record<string, string> {
    let text: string
    try {
      text = readFileSync(options.file, 'utf8')
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {}
      throw error
    }
    try {
      const parsed = secretsFileSchema.safeParse(JSON.parse(text))
      if (parsed.success) return parsed.data.secrets
    } catch {
      // falls through: an unreadable file counts as holding no secrets
    }
    logger.warn('the stored secrets file is unreadable; the secrets must be entered again', { file: options.file })
    return {}
  }

  function writeBlobs(blobs: Record<string, string>): void {
    mkdirSync(dirname(options.file), { recursive: true })
    const temporary = `${options.file}.tmp`
    writeFileSync(temporary, JSON.stringify({ version: 1, secrets: blobs }), { mode: 0o600 })
    chmodSync(temporary, 0o600)
    renameSync(temporary, options.file)
  }

  const store: SafeStorageKeychain = {
    unavailableReason: () => safeStorageProblem(options.safeStorage, platform),
    isAvailable: () => store.unavailableReason() === null,

    async get(name) {
      if (cache.has(name)) return cache.get(name) ?? null
      const blob = readBlobs()[name]
      if (blob === undefined) return null
      const problem = store.unavailableReason()
      if (problem) {
        logger.warn('a stored secret cannot be read: safe storage is unavailable', { secret: name, reason: problem })
        return null
      }
      try {
        const value = options.safeStorage.decryptString(Buffer.from(blob, 'base64'))
        options.onSecret?.(value)
        cache.set(name, value)
        return value
      } catch (error) {
        // A different OS user, a reset keychain or a copied profile: the blob is useless, not fatal.
        logger.warn('a stored secret could not be decrypted; it must be entered again', {
          secret: name,
          error: error instanceof Error ? error.message : String(error),
        })
        return null
      }
    },

    async set(name, value) {
      const problem = store.unavailableReason()
      if (problem) throw new CoreError('SECRET_STORE_UNAVAILABLE', problem)
      options.onSecret?.(value)
      const blobs = readBlobs()
      blobs[name] = options.safeStorage.encryptString(value).toString('base64')
      writeBlobs(blobs)
      cache.set(name, value)
    },

    async delete(name) {
      cache.set(name, null)
      const blobs = readBlobs()
      if (!(name in blobs)) return
      delete blobs[name]
      writeBlobs(blobs)
    },
  }
  return store
}
