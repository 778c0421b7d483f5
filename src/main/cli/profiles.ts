/**
 * `profiles list|add|remove`: one profile per supplier connection, each with its own database in the
 * data folder (src/main/profiles/registry.ts). `add` keeps the address and key in the database and
 * the secret in the system keyring the app reads too (src/main/profiles/os-keyring.ts); `remove`
 * deletes the profile's secrets there and in the app's safeStorage file, along with its database.
 */
import { existsSync, readlinkSync } from 'node:fs'
import { hostname } from 'node:os'
import { join } from 'node:path'
import { closeDatabase, openDatabase } from '../db/database'
import { SettingsTable } from '../db/settings'
import { CoreError } from '../errors'
import { systemClock, type SecretStore } from '../ports'
import {
  deleteDatabaseFiles,
  fenceProfileDatabase,
  profileHoldings,
  refuseRemoval,
  RemovalRefused,
  type ProfileHoldings,
} from '../profiles/holdings'
import { forgetProfileSecrets, profileKeychain } from '../profiles/keychain'
import { ProfileRegistry, supplierOrigin, type Profile } from '../profiles/registry'
import { openOsKeyring } from '../profiles/os-keyring'
import { createSafeStorageKeychain, secretsFileName } from '../profiles/secrets-file'
import { plainHttpProblem } from '../../shared/contract'
import { saveConnectionWithoutSecret } from '../settings/connection'
import { allowPlainHttp } from './connection'
import { openExisting } from './database'
import { CliFailure, UsageError, type GlobalOptions, type Output } from './errors'
import { table } from './format'

/**
 * The app's safeStorage file, as seen from a process without safeStorage: nothing can be read or
 * stored, but a removed profile's blobs (kept there by an app from before the keyring, or where the
 * keyring was unreachable) can be deleted.
 */
function appSecrets(dataDir: string): SecretStore {
  return createSafeStorageKeychain({
    safeStorage: { isEncryptionAvailable: () => false, encryptString: () => Buffer.alloc(0), decryptString: () => '' },
    file: join(dataDir, secretsFileName),
  })
}

/** Counts from the profile's database, opened read-only; a profile never opened holds nothing. */
function holdingsOf(registry: ProfileRegistry, profile: Profile): ProfileHoldings {
  const path = registry.databasePath(profile)
  if (!existsSync(path)) return { unsent: 0, needsAttention: 0, openQuotes: 0 }
  const db = openExisting(path, 'read')
  try {
    return profileHoldings(db, systemClock.now())
  } finally {
    closeDatabase(db)
  }
}

function describe(registry: ProfileRegistry, profile: Profile, defaultId: string | null) {
  let holdings: ProfileHoldings | null = null
  let problem: string | null = null
  try {
    holdings = holdingsOf(registry, profile)
  } catch (error) {
    problem = error instanceof Error ? error.message : String(error)
  }
  return {
    name: profile.name,
    supplier: profile.supplier,
    database: registry.databasePath(profile),
    lastUsedAt: profile.lastUsedAt,
    default: profile.id === defaultId,
    unsent: holdings?.unsent ?? null,
    needsAttention: holdings?.needsAttention ?? null,
    openQuotes: holdings?.openQuotes ?? null,
    ...(problem ? { problem } : {}),
  }
}

/**
 * Whether the desktop app runs on this data folder now. Electron's single-instance lock (Chromium's
 * process singleton) keeps a symlink SingletonLock → "<host>-<pid>" in it while the app runs, on
 * Linux and macOS; Windows keeps none, and there the advice of docs/cli.md stands alone.
 */
function appRunningIn(dataDir: string): boolean {
  let target: string
  try {
    target = readlinkSync(join(dataDir, 'SingletonLock'))
  } catch {
    return false
  }
  const dash = target.lastIndexOf('-')
  const pid = Number(target.slice(dash + 1))
  if (dash < 1 || target.slice(0, dash) !== hostname() || !Number.isInteger(pid) || pid <= 0) return false
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

export function runProfilesList(dataDir: string, output: Output): number {
  const registry = ProfileRegistry.open(dataDir)
  // Listing adopts a data folder from before profiles (the list only points at satchel.db); a
  // read-only folder is listed all the same.
  try {
    registry.save()
  } catch {
    // the list stays in memory; the next writable run writes it
  }
  // A folder with no profile yet (no list, no satchel.db) lists none: `profiles add` makes the first.
  const defaultId = registry.list().length > 0 ? registry.resolve().id : null
  const profiles = registry.list().map((profile) => describe(registry, profile, defaultId))
  const human = table(
    ['', 'Profile', 'Supplier', 'Unsent', 'Attention', 'Open quotes'],
    profiles.map((profile) => [
      profile.default ? '*' : '',
      profile.name,
      profile.supplier ?? '—',
      String(profile.unsent ?? '?'),
      String(profile.needsAttention ?? '?'),
      String(profile.openQuotes ?? '?'),
    ]),
  )
  if (profiles.length === 0) {
    output.result(
      { dataDir, profiles },
      `No profile in ${dataDir} yet: add one with \`profiles add <name> --base-url URL --api-key K --api-secret S\`.`,
    )
    return 0
  }
  output.result({ dataDir, profiles }, `${human}\n(* the default: the only profile, or the one used last)`)
  return 0
}

export async function runProfilesAdd(
  dataDir: string,
  global: GlobalOptions,
  name: string,
  output: Output,
): Promise<number> {
  if (!global.baseUrl) throw new UsageError('profiles add needs --base-url (or SATCHEL_BASE_URL)')
  if (!/^https?:\/\/[^/]/.test(global.baseUrl) || !URL.canParse(global.baseUrl))
    throw new UsageError(`--base-url must be an http(s) address (got '${global.baseUrl}')`)
  if (!global.apiKey) throw new UsageError('profiles add needs --api-key (or SATCHEL_API_KEY)')
  if (plainHttpProblem(global.baseUrl) && !global.allowInsecureHttp)
    throw new UsageError(`${plainHttpProblem(global.baseUrl)} For a lab without https, pass --allow-insecure-http.`)
  const registry = ProfileRegistry.open(dataDir)
  let profile: Profile
  try {
    profile = registry.add(
      { name, supplier: supplierOrigin(global.baseUrl) },
      new Date(systemClock.now()).toISOString(),
    )
  } catch (error) {
    if (error instanceof CoreError && error.code === 'INVALID_ARGUMENT') throw new UsageError(error.message)
    throw error
  }
  const path = registry.databasePath(profile)
  try {
    const db = openDatabase(path, { audience: 'cli' })
    try {
      const settings = new SettingsTable(db)
      allowPlainHttp(global, settings, global.baseUrl)
      saveConnectionWithoutSecret(settings, {
        baseUrl: global.baseUrl,
        auth: { kind: 'apiKey', apiKey: global.apiKey, userGuid: global.userGuid ?? null },
      })
    } finally {
      closeDatabase(db)
    }
  } catch (error) {
    registry.remove(profile.id)
    deleteDatabaseFiles(path)
    throw error
  }
  let secretStored = false
  if (global.apiSecret) {
    const keyring = await openOsKeyring({ dataDir })
    let problem = keyring.unavailableReason()
    if (!problem) {
      try {
        await profileKeychain(keyring, profile.secretsNamespace).set('apiSecret', global.apiSecret)
        secretStored = true
      } catch (error) {
        problem = error instanceof Error ? error.message : String(error)
      }
    }
    if (problem) {
      process.stderr.write(
        `satchel: the API secret was not stored: ${problem}. The profile is added without it: enter the secret in the app (Settings, Connection), ` +
          `or pass --api-secret (or SATCHEL_API_SECRET) to the commands that reach the service (sync, flush).\n`,
      )
    }
  }
  output.result(
    { profile: { name: profile.name, supplier: profile.supplier, database: path }, secretStored },
    `Added profile '${profile.name}' (${profile.supplier ?? 'no supplier'}), database ${path}`,
  )
  return 0
}

export async function runProfilesRemove(dataDir: string, name: string, yes: boolean, output: Output): Promise<number> {
  const registry = ProfileRegistry.open(dataDir)
  const profile = registry.resolve(name)
  if (registry.list().length === 1)
    throw new CliFailure(`'${profile.name}' is the only profile; Satchel keeps at least one.`, 'CONFLICT')
  const refused = (error: RemovalRefused) =>
    new CliFailure(error.message, error.code, {
      error: { code: error.code, message: error.message },
      unsent: error.holdings.unsent,
      openQuotes: error.holdings.openQuotes,
    })
  // A first look, read-only, so a profile that cannot go is refused before --yes is asked for.
  try {
    refuseRemoval(profile.name, holdingsOf(registry, profile))
  } catch (error) {
    throw error instanceof RemovalRefused ? refused(error) : error
  }
  if (!yes)
    throw new UsageError(`Removing '${profile.name}' deletes its database and its secrets; pass --yes to go ahead.`)
  // The app may have the database open, on screen or sending in the background.
  if (appRunningIn(dataDir))
    throw new CliFailure(
      `Satchel is running on ${dataDir}: remove '${profile.name}' in the app (Settings, Profiles), or quit the app first.`,
      'CONFLICT',
    )
  // The look that counts: another process may have queued an order since the first one.
  try {
    fenceProfileDatabase(registry.databasePath(profile), profile.name, systemClock, 'cli')
  } catch (error) {
    throw error instanceof RemovalRefused ? refused(error) : error
  }
  registry.remove(profile.id)
  deleteDatabaseFiles(registry.databasePath(profile))
  await forgetProfileSecrets(appSecrets(dataDir), profile.secretsNamespace)
  const keyring = await openOsKeyring({ dataDir })
  if (keyring.isAvailable()) await forgetProfileSecrets(keyring, profile.secretsNamespace)
  else
    process.stderr.write(
      `satchel: the system keyring is not reachable (${keyring.unavailableReason()}), so any secret it keeps for '${profile.name}' is left there.\n`,
    )
  output.result(
    { removed: { name: profile.name, database: registry.databasePath(profile) } },
    `Removed profile '${profile.name}' and its database`,
  )
  return 0
}
