import type { Connection, ConnectionInput } from '../../shared/contract'
import type { Database } from '../db/database'
import { SettingsTable } from '../db/settings'
import { CoreError } from '../errors'
import type { Keychain } from '../ports'
import type { ConnectionSource, ServiceConnection } from '../ordering-client/connection'

export type StoredConnection =
  | { baseUrl: string; auth: { kind: 'apiKey'; apiKey: string; userGuid: string | null } }
  | { baseUrl: string; auth: { kind: 'session'; userGuid: string; supplierGuid: string } }

const settingsKey = 'connection'

/** The non-secret parts of the saved connection (the CLI fills in what its options leave out from them). */
export function savedConnection(table: SettingsTable): StoredConnection | null {
  return (table.get(settingsKey) as StoredConnection | undefined) ?? null
}

/**
 * The non-secret parts alone, for the CLI's `profiles add`: the CLI has no keychain to put the
 * secret in, so the app asks for it when the profile is opened, and commands take it as an option.
 */
export function saveConnectionWithoutSecret(table: SettingsTable, stored: StoredConnection): void {
  table.set(settingsKey, { ...stored, baseUrl: stored.baseUrl.replace(/\/+$/, '') })
}

/**
 * The service address and credentials. The non-secret parts sit in the settings table; the API
 * secret and the session token go only to the Keychain (safeStorage in the app), so the database
 * file never holds them in clear.
 */
export class ConnectionSettings implements ConnectionSource {
  private readonly table: SettingsTable

  constructor(
    db: Database,
    private readonly secrets: Keychain,
  ) {
    this.table = new SettingsTable(db)
  }

  private stored(): StoredConnection | null {
    return savedConnection(this.table)
  }

  async get(): Promise<Connection | null> {
    const stored = this.stored()
    if (!stored) return null
    if (stored.auth.kind === 'apiKey') {
      return {
        baseUrl: stored.baseUrl,
        auth: { ...stored.auth, hasSecret: (await this.secrets.get('apiSecret')) !== null },
      }
    }
    return {
      baseUrl: stored.baseUrl,
      auth: { ...stored.auth, hasToken: (await this.secrets.get('userToken')) !== null },
    }
  }

  async save(input: ConnectionInput): Promise<Connection> {
    const secret = input.auth.kind === 'apiKey' ? input.auth.apiSecret : input.auth.userToken
    const secretName = input.auth.kind === 'apiKey' ? 'apiSecret' : 'userToken'
    if (secret !== undefined && !this.secrets.isAvailable()) {
      throw new CoreError(
        'SECRET_STORE_UNAVAILABLE',
        'This computer offers no safe place for passwords (on Linux, install and unlock a keyring such as GNOME Keyring or KWallet), so Satchel will not store the secret.',
      )
    }
    if (secret === undefined && (await this.secrets.get(secretName)) === null) {
      throw new CoreError(
        'INVALID_ARGUMENT',
        input.auth.kind === 'apiKey' ? 'Enter the API secret.' : 'Enter the user token.',
        [{ path: `auth.${secretName}`, message: 'Required' }],
      )
    }
    const baseUrl = input.baseUrl.replace(/\/+$/, '')
    const stored: StoredConnection =
      input.auth.kind === 'apiKey'
        ? { baseUrl, auth: { kind: 'apiKey', apiKey: input.auth.apiKey, userGuid: input.auth.userGuid ?? null } }
        : { baseUrl, auth: { kind: 'session', userGuid: input.auth.userGuid, supplierGuid: input.auth.supplierGuid } }
    if (secret !== undefined) await this.secrets.set(secretName, secret)
    // A switch of header set must not leave the other set's secret behind.
    await this.secrets.delete(secretName === 'apiSecret' ? 'userToken' : 'apiSecret')
    this.table.set(settingsKey, stored)
    const saved = await this.get()
    if (!saved) throw new CoreError('INTERNAL', 'The connection was not saved.')
    return saved
  }

  /** Every credential value kept for this connection (the key, and whichever secret is saved), to be kept out of what leaves the laptop. */
  async credentialValues(): Promise<string[]> {
    const stored = this.stored()
    const values = await Promise.all([this.secrets.get('apiSecret'), this.secrets.get('userToken')])
    if (stored?.auth.kind === 'apiKey') values.push(stored.auth.apiKey)
    return values.filter((value): value is string => value !== null && value !== '')
  }

  /** The full credentials for the service client, or null when no complete connection is saved. */
  /**
   * Which secret a saved connection lacks on this laptop (the keyring lost it, or cannot be read), by
   * the kind of connection: the outbox then waits with "Sign in again" or "Connect again" instead of
   * looking as if nothing were wrong. Null when nothing is saved, or the secret is there.
   */
  async missingSecret(): Promise<'apiKey' | 'session' | null> {
    const stored = this.stored()
    if (!stored) return null
    const secret = await this.secrets.get(stored.auth.kind === 'apiKey' ? 'apiSecret' : 'userToken').catch(() => null)
    return secret === null ? stored.auth.kind : null
  }

  async resolve(): Promise<ServiceConnection | null> {
    const stored = this.stored()
    if (!stored) return null
    if (stored.auth.kind === 'apiKey') {
      const apiSecret = await this.secrets.get('apiSecret')
      if (apiSecret === null) return null
      return {
        baseUrl: stored.baseUrl,
        auth: {
          kind: 'apiKey',
          apiKey: stored.auth.apiKey,
          apiSecret,
          ...(stored.auth.userGuid ? { userGuid: stored.auth.userGuid } : {}),
        },
      }
    }
    const userToken = await this.secrets.get('userToken')
    if (userToken === null) return null
    return {
      baseUrl: stored.baseUrl,
      auth: { kind: 'session', userGuid: stored.auth.userGuid, userToken, supplierGuid: stored.auth.supplierGuid },
    }
  }
}
