/**
 * A data folder of two profiles as the CLI finds it, for the tests and the drill that race
 * `profiles remove` against other processes: Main on satchel.db and B on profile-b.db, both copies
 * of one synced database with nothing unsent.
 */
import { copyFileSync, mkdtempSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

export interface ProfileFolder {
  dataDir: string
  /** B's database. */
  bDb: string
  /** The CLI's environment for this folder, with no keyring to answer (as on a server). */
  env: Record<string, string>
}

export function folderWithProfileB(template: string, parent: string): ProfileFolder {
  const dataDir = mkdtempSync(join(parent, 'data-'))
  copyFileSync(template, join(dataDir, 'satchel.db'))
  const bDb = join(dataDir, 'profile-b.db')
  copyFileSync(template, bDb)
  const profiles = [
    {
      id: 'main',
      name: 'Main',
      supplier: null,
      databaseFile: 'satchel.db',
      secretsNamespace: '',
      lastUsedAt: '2026-11-01T00:00:00.000Z',
    },
    {
      id: 'b',
      name: 'B',
      supplier: null,
      databaseFile: 'profile-b.db',
      secretsNamespace: 'profile-b:',
      lastUsedAt: null,
    },
  ]
  writeFileSync(join(dataDir, 'profiles.json'), JSON.stringify({ version: 1, profiles }))
  return {
    dataDir,
    bDb,
    env: { SATCHEL_DATA_DIR: dataDir, DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent/satchel-test-bus' },
  }
}
