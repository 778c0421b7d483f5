import type { ConnectionInput, Implementations } from '../../shared/contract'
import { CoreError } from '../errors'
import type { EventHub } from '../events'
import type { ServiceClients } from '../ordering-client/clients'
import type { ServiceConnection } from '../ordering-client/connection'
import { errorCodeOf, isServiceError } from '../ordering-client/errors'
import type { AppSettings } from './app-settings'
import type { ConnectionSettings } from './connection'

type SettingsMethods = Pick<
  Implementations,
  'getSettings' | 'updateSettings' | 'getConnection' | 'saveConnection' | 'testConnection'
>

export interface SettingsWiring {
  settings: AppSettings
  connection: ConnectionSettings
  clients: ServiceClients
  /** settingsChanged and connectionChanged tell the rest of the core (and the window) what changed. */
  events: EventHub
}

/**
 * The connection to test: the one typed in, with a secret left blank taken from the saved one, else
 * the saved one.
 */
async function connectionToTest(
  connection: ConnectionSettings,
  input: ConnectionInput | undefined,
): Promise<ServiceConnection> {
  const saved = await connection.resolve()
  if (!input) {
    if (!saved) throw new CoreError('NOT_CONFIGURED', 'Set up the connection to the ordering service first.')
    return saved
  }
  const baseUrl = input.baseUrl.replace(/\/+$/, '')
  if (input.auth.kind === 'apiKey') {
    const apiSecret = input.auth.apiSecret ?? (saved?.auth.kind === 'apiKey' ? saved.auth.apiSecret : undefined)
    if (!apiSecret)
      throw new CoreError('INVALID_ARGUMENT', 'Enter the API secret.', [
        { path: 'auth.apiSecret', message: 'Required' },
      ])
    return {
      baseUrl,
      auth: {
        kind: 'apiKey',
        apiKey: input.auth.apiKey,
        apiSecret,
        ...(input.auth.userGuid ? { userGuid: input.auth.userGuid } : {}),
      },
    }
  }
  const userToken = input.auth.userToken ?? (saved?.auth.kind === 'session' ? saved.auth.userToken : undefined)
  if (!userToken)
    throw new CoreError('INVALID_ARGUMENT', 'Enter the user token.', [{ path: 'auth.userToken', message: 'Required' }])
  return {
    baseUrl,
    auth: { kind: 'session', userGuid: input.auth.userGuid, userToken, supplierGuid: input.auth.supplierGuid },
  }
}

/** The contract's settings and connection methods. What follows a change is the listeners' (core/reactions.ts). */
export function settingsMethods({ settings, connection, clients, events }: SettingsWiring): SettingsMethods {
  return {
    getSettings: () => settings.get(),
    updateSettings: (patch) => {
      const next = settings.update(patch)
      events.emit('settingsChanged', next)
      return next
    },
    getConnection: () => connection.get(),
    saveConnection: async (input) => {
      const saved = await connection.save(input)
      events.emit('connectionChanged', saved)
      return saved
    },
    testConnection: async (input) => {
      // One attempt, no retries: the rep is waiting for a yes or a no.
      const tester = clients.forConnection(await connectionToTest(connection, input), { retry: { maxAttempts: 1 } })
      try {
        return await tester.ping()
      } catch (error) {
        throw isServiceError(error) ? new CoreError(errorCodeOf(error.kind), error.message) : error
      }
    },
  }
}
