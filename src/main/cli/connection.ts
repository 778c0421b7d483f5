import type { Database } from '../db/database'
import type { ServiceConnection } from '../ordering-client/connection'
import { UsageError, type GlobalOptions } from './errors'

interface SavedConnection {
  baseUrl?: string
  auth?: { kind?: string; apiKey?: string; userGuid?: string | null }
}

/**
 * The connection for commands that talk to the service. Options and environment first; the
 * non-secret parts of the app's saved connection fill in the rest. The API secret never comes from
 * the database: the app keeps it in the operating system's secret store.
 */
export function cliConnection(global: GlobalOptions, db: Database, command: string): ServiceConnection {
  const savedJson = db.prepare<[], string>("SELECT value FROM settings WHERE key = 'connection'").pluck().get()
  const saved = savedJson ? (JSON.parse(savedJson) as SavedConnection) : {}
  const savedKey = saved.auth?.kind === 'apiKey' ? saved.auth : undefined
  const baseUrl = global.baseUrl ?? saved.baseUrl
  const apiKey = global.apiKey ?? savedKey?.apiKey
  const userGuid = global.userGuid ?? savedKey?.userGuid ?? undefined
  if (!baseUrl) throw new UsageError(`${command} needs --base-url (or SATCHEL_BASE_URL)`)
  if (!/^https?:\/\/[^/]/.test(baseUrl) || !URL.canParse(baseUrl)) throw new UsageError(`--base-url must be an http(s) address (got '${baseUrl}')`)
  if (!apiKey) throw new UsageError(`${command} needs --api-key (or SATCHEL_API_KEY)`)
  if (!global.apiSecret) throw new UsageError(`${command} needs --api-secret (or SATCHEL_API_SECRET)`)
  return { baseUrl, auth: { kind: 'apiKey', apiKey, apiSecret: global.apiSecret, ...(userGuid ? { userGuid } : {}) } }
}
