/**
 * The command line as words: the options every command may be given, the global options (which
 * database, which service, which credentials) read from them or the environment, and the values a
 * command's own options must hold.
 */
import { existsSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { credentialsInAddressProblem } from '../../shared/service-address'
import { UsageError, type GlobalOptions } from './errors'
import { readUserFile } from './input-files'

export const options = {
  db: { type: 'string' },
  profile: { type: 'string' },
  'data-dir': { type: 'string' },
  yes: { type: 'boolean' },
  none: { type: 'boolean' },
  'base-url': { type: 'string' },
  'api-key': { type: 'string' },
  'api-secret': { type: 'string' },
  'api-secret-file': { type: 'string' },
  'user-guid': { type: 'string' },
  'user-token': { type: 'string' },
  'user-token-file': { type: 'string' },
  'supplier-guid': { type: 'string' },
  'allow-insecure-http': { type: 'boolean' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  full: { type: 'boolean' },
  catalog: { type: 'string' },
  customer: { type: 'string' },
  limit: { type: 'string' },
  file: { type: 'string' },
  out: { type: 'string' },
  logs: { type: 'string' },
  changed: { type: 'boolean' },
  state: { type: 'string' },
  export: { type: 'string' },
  partial: { type: 'boolean' },
  whole: { type: 'boolean' },
  hold: { type: 'boolean' },
  release: { type: 'boolean' },
  cancel: { type: 'boolean' },
  po: { type: 'string' },
  note: { type: 'string' },
  'ship-after': { type: 'string' },
  'cancel-after': { type: 'string' },
  name: { type: 'string' },
  email: { type: 'string' },
  phone: { type: 'string' },
  refresh: { type: 'boolean' },
} as const

export type OptionValues = {
  [name in keyof typeof options]?: (typeof options)[name]['type'] extends 'boolean' ? boolean : string
}

/** Where the database is, as the options and environment say; a profile is found from it by the caller. */
export interface Whereabouts {
  explicitDb: string | undefined
  profileName: string | undefined
  dataDir: string
}

export function readWhereabouts(values: OptionValues, env: NodeJS.ProcessEnv, defaultDataDir: string): Whereabouts {
  const explicitDb = nonEmpty(values.db) ?? nonEmpty(env.SATCHEL_DB)
  const profileName = nonEmpty(values.profile)
  if (explicitDb && profileName)
    throw new UsageError('--db and --profile do not go together: --db names the database itself')
  // A folder is no database: said here, not as SQLite's "disk I/O error" from deep in the open.
  if (explicitDb && existsSync(explicitDb) && statSync(explicitDb).isDirectory())
    throw new UsageError(
      `--db ${explicitDb} is a folder: give the database file (for example ${join(explicitDb, 'satchel.db')})`,
    )
  const dataDir = nonEmpty(values['data-dir']) ?? nonEmpty(env.SATCHEL_DATA_DIR) ?? defaultDataDir
  return { explicitDb, profileName, dataDir }
}

/** The service and credentials, from the options or the environment; the database is filled in later. */
export function readGlobalOptions(values: OptionValues, env: NodeJS.ProcessEnv, explicitDb?: string): GlobalOptions {
  const baseUrl = nonEmpty(values['base-url']) ?? nonEmpty(env.SATCHEL_BASE_URL)
  const addressProblem = baseUrl ? credentialsInAddressProblem(baseUrl) : null
  if (addressProblem) throw new UsageError(`--base-url: ${addressProblem}`)
  return {
    db: explicitDb ?? '',
    baseUrl,
    apiKey: nonEmpty(values['api-key']) ?? nonEmpty(env.SATCHEL_API_KEY),
    apiSecret:
      secretOption(values['api-secret'], values['api-secret-file'], 'api-secret') ?? nonEmpty(env.SATCHEL_API_SECRET),
    userGuid: nonEmpty(values['user-guid']) ?? nonEmpty(env.SATCHEL_USER_GUID),
    userToken:
      secretOption(values['user-token'], values['user-token-file'], 'user-token') ?? nonEmpty(env.SATCHEL_USER_TOKEN),
    supplierGuid: nonEmpty(values['supplier-guid']) ?? nonEmpty(env.SATCHEL_SUPPLIER_GUID),
    allowInsecureHttp: values['allow-insecure-http'] === true,
    json: values.json === true,
  }
}

/**
 * A secret given on the command line, or by a file that holds it (`-`: standard input), so it need
 * not show in the process list as an argument does. The file's first line, trimmed.
 */
function secretOption(value: string | undefined, file: string | undefined, name: string): string | undefined {
  if (file === undefined) return nonEmpty(value)
  if (value !== undefined) throw new UsageError(`--${name} and --${name}-file do not go together`)
  const secret = nonEmpty(readUserFile(file, 64 * 1024, { stdin: true }).split(/\r?\n/)[0])
  if (!secret) throw new UsageError(`--${name}-file ${file} holds no ${name.replace('-', ' ')} on its first line`)
  return secret
}

export function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value.trim()
}

export function parseLimit(value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback
  if (!/^\d+$/.test(value) || Number(value) < 1 || Number(value) > 500)
    throw new UsageError(`--limit must be a whole number from 1 to 500 (got '${value}')`)
  return Number(value)
}

/** How many items one `pictures fetch` asks about: a catalog's worth at most. */
export function parsePictureLimit(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) < 1 || Number(value) > 10_000_000)
    throw new UsageError(`--limit must be a whole number from 1 to 10000000 (got '${value}')`)
  return Number(value)
}
