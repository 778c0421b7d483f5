/**
 * `support-bundle --out FILE`: the zip the Settings screen's "Export support bundle…" saves, made
 * from the database (opened read-only) and the desktop app's log folder.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { buildSupportBundle, type BundleProfile } from '../housekeeping/support-bundle'
import { closeDatabase } from '../db/database'
import { SettingsTable } from '../db/settings'
import { systemClock } from '../ports'
import { savedConnection } from '../settings/connection'
import { openExisting } from './database'
import { CliFailure, type GlobalOptions, type Output } from './errors'
import { openLocalData } from '../local/data'

/** The version in the nearest package.json above this file (the source checkout's, or the app's). */
function appVersion(): string {
  for (let dir = __dirname; ; dir = dirname(dir)) {
    try {
      const { version } = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version?: unknown }
      if (typeof version === 'string') return version
    } catch {
      // No package.json here: look one folder up.
    }
    if (dirname(dir) === dir) return 'unknown'
  }
}

/** `profiles`: every profile of the data folder (none with --db, which names one database). */
export async function runSupportBundle(
  global: GlobalOptions,
  options: { out: string; logs: string; profiles?: BundleProfile[]; listProblem?: string },
  output: Output,
): Promise<number> {
  const db = openExisting(global.db, 'read', { damage: 'handled' })
  let bundle
  try {
    const stored = savedConnection(new SettingsTable(db))
    // The secret given, else the profile's in the system keyring (index.ts); the app's log was
    // masked of its secrets as it was written.
    const secrets = [
      global.apiKey,
      global.apiSecret,
      global.userToken,
      stored?.auth.kind === 'apiKey' ? stored.auth.apiKey : undefined,
    ].filter((value): value is string => !!value)
    const profiles = options.profiles
    bundle = await buildSupportBundle({
      local: openLocalData(db),
      appName: 'Satchel',
      appVersion: appVersion(),
      secrets: async () => secrets,
      logsDirectory: options.logs,
      clock: systemClock,
      ...(profiles ? { profiles: () => profiles } : {}),
      ...(options.listProblem ? { profilesListProblem: options.listProblem } : {}),
    })
  } finally {
    closeDatabase(db)
  }
  try {
    writeFileSync(options.out, bundle.bytes, { mode: 0o600 })
  } catch (error) {
    throw new CliFailure(`Could not write ${options.out}: ${error instanceof Error ? error.message : String(error)}`)
  }
  output.result(
    { path: options.out, bytes: bundle.bytes.length, files: bundle.files },
    `Wrote ${options.out} (${bundle.files.length} files, ${bundle.bytes.length} bytes):\n${bundle.files.map((name) => `  ${name}`).join('\n')}`,
  )
  return 0
}
