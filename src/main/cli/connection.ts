import type { Database } from '../db/database'
import { SettingsTable } from '../db/settings'
import { savedConnection } from '../settings/connection'
import type { ServiceConnection } from '../ordering-client/connection'
import { profileKeychain } from '../profiles/keychain'
import { openOsKeyring } from '../profiles/os-keyring'
import type { Profile } from '../profiles/registry'
import { plainHttpProblem } from '../../shared/contract'
import { CoreError } from '../errors'
import { CliFailure, UsageError, type GlobalOptions } from './errors'

/**
 * The connection for commands that talk to the service. Options and environment first; the
 * non-secret parts of the app's saved connection fill in the rest. A user token makes it a user
 * session (no API key needed: the session-only writes need one). The API secret never comes from
 * the database: options, environment, else the profile's entry in the system keyring
 * (storedApiSecret, filled in before this runs).
 */
export function cliConnection(global: GlobalOptions, db: Database, command: string): ServiceConnection {
  const settings = new SettingsTable(db)
  const saved = savedConnection(settings)
  const savedKey = saved?.auth.kind === 'apiKey' ? saved.auth : undefined
  const savedSession = saved?.auth.kind === 'session' ? saved.auth : undefined
  const baseUrl = global.baseUrl ?? saved?.baseUrl
  if (!baseUrl) throw new UsageError(`${command} needs --base-url (or SATCHEL_BASE_URL)`)
  if (!/^https?:\/\/[^/]/.test(baseUrl) || !URL.canParse(baseUrl))
    throw new UsageError(`--base-url must be an http(s) address (got '${baseUrl}')`)
  // A session saved by the app asks for its token here: the token lives in the app's secret store only.
  if (global.userToken || (savedSession && !global.apiKey)) {
    const userGuid = global.userGuid ?? savedSession?.userGuid
    const supplierGuid = global.supplierGuid ?? savedSession?.supplierGuid
    if (!global.userToken)
      throw new UsageError(`${command} needs --user-token (or SATCHEL_USER_TOKEN) for the signed-in user`)
    if (!userGuid) throw new UsageError(`${command} with --user-token needs --user-guid (or SATCHEL_USER_GUID)`)
    if (!supplierGuid)
      throw new UsageError(`${command} with --user-token needs --supplier-guid (or SATCHEL_SUPPLIER_GUID)`)
    allowPlainHttp(global, settings, baseUrl)
    return { baseUrl, auth: { kind: 'session', userGuid, userToken: global.userToken, supplierGuid } }
  }
  const apiKey = global.apiKey ?? savedKey?.apiKey
  const userGuid = global.userGuid ?? savedKey?.userGuid ?? undefined
  allowPlainHttp(global, settings, baseUrl)
  if (!apiKey) throw new UsageError(`${command} needs --api-key (or SATCHEL_API_KEY), or a user session (--user-token)`)
  if (!global.apiSecret)
    throw new UsageError(
      `${command} needs --api-secret (or SATCHEL_API_SECRET)${global.noStoredSecret ? `: ${global.noStoredSecret}` : ''}`,
    )
  return { baseUrl, auth: { kind: 'apiKey', apiKey, apiSecret: global.apiSecret, ...(userGuid ? { userGuid } : {}) } }
}

/**
 * The profile's API secret from the system keyring the app and `profiles add` keep it in, for a
 * command that reaches the service and was given none; where there is none, why, for the error.
 */
export async function storedApiSecret(
  global: GlobalOptions,
  dataDir: string,
  profile: Pick<Profile, 'name' | 'secretsNamespace'>,
): Promise<void> {
  if (global.apiSecret) return
  const keyring = await openOsKeyring({ dataDir })
  const problem = keyring.unavailableReason()
  if (problem) {
    global.noStoredSecret = `no secret could be read for the profile '${profile.name}': ${problem}`
    return
  }
  const secret = await profileKeychain(keyring, profile.secretsNamespace)
    .get('apiSecret')
    .catch((error: unknown) => {
      // A locked keyring: the operator may unlock it, or give the secret another way.
      if (error instanceof CoreError && error.code === 'SECRET_STORE_UNAVAILABLE')
        throw new CliFailure(`${error.message} Or give it with --api-secret (or SATCHEL_API_SECRET).`, error.code)
      throw error
    })
  if (secret) global.apiSecret = secret
  else
    global.noStoredSecret = `the system keyring holds none for the profile '${profile.name}' (store it with the app, or with profiles add --api-secret)`
}

/** Where `--allow-insecure-http` was given: the one origin later runs may reach over plain http. */
const insecureHttpKey = 'insecureHttpAllowed'

/**
 * Plain http to another computer is refused, as the app refuses it, unless the operator allowed it
 * for this address (a lab without https) with --allow-insecure-http, now or in an earlier run on this
 * database. Every run that uses it says so on stderr, so an allowance kept from a lab is never silent.
 */
export function allowPlainHttp(global: GlobalOptions, settings: SettingsTable, baseUrl: string): void {
  const problem = plainHttpProblem(baseUrl)
  if (!problem) return
  const origin = new URL(baseUrl).origin
  const keptOrigin = settings.get(insecureHttpKey) ?? null
  if (keptOrigin !== origin) {
    if (!global.allowInsecureHttp)
      throw new UsageError(`${problem} For a lab without https, pass --allow-insecure-http.`)
    settings.set(insecureHttpKey, origin)
  }
  process.stderr.write(
    `satchel: warning: plain http to ${origin}: the API secret and orders travel unencrypted (allowed with --allow-insecure-http and kept for this address in this database; use https:// outside a lab)\n`,
  )
}
