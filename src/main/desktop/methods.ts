import type { Implementations } from '../../shared/contract'
import type { Database } from '../db/database'
import { databaseSize, lastPurge } from '../db/storage'
import { CoreError } from '../errors'
import type { DesktopPort, ProfilesPort } from '../ports'

type DesktopMethods = Pick<
  Implementations,
  | 'getAppInfo'
  | 'getUpdateState'
  | 'checkForUpdates'
  | 'restartToUpdate'
  | 'openLogsFolder'
  | 'exportSupportBundle'
  | 'listProfiles'
  | 'switchProfile'
  | 'addProfile'
  | 'removeProfile'
>

export interface DesktopWiring {
  db: Database
  databasePath: string
  appName?: string
  appVersion: string
  /** The desktop shell's port; absent in a browser through the test bridge, and for the CLI. */
  desktop?: DesktopPort
  /** The support bundle's zip, made when asked for. */
  supportBundle: () => Promise<Buffer>
  /** The profile manager above this core; a core composed alone (the CLI, a test) has none. */
  profiles?: ProfilesPort
}

/** What the app itself is and does (version, database, updates, logs): the desktop port's, where there is one. */
export function desktopMethods({
  db,
  databasePath,
  appName,
  appVersion,
  desktop,
  supportBundle,
  profiles,
}: DesktopWiring): DesktopMethods {
  const noUpdates = {
    status: 'disabled' as const,
    currentVersion: appVersion,
    reason: 'Updates come with the desktop app; this window has none.',
  }
  return {
    getAppInfo: () => ({
      name: appName ?? 'Satchel',
      version: appVersion,
      database: {
        path: databasePath,
        schemaVersion: db.pragma('user_version', { simple: true }) as number,
        journalMode: String(db.pragma('journal_mode', { simple: true })),
        ...databaseSize(db),
        lastPurge: lastPurge(db),
      },
    }),
    getUpdateState: () => desktop?.updates?.state() ?? noUpdates,
    checkForUpdates: async () => {
      if (!desktop?.updates) return noUpdates
      await desktop.updates.checkNow()
      return desktop.updates.state()
    },
    restartToUpdate: async () => ({
      outcome: desktop?.updates ? await desktop.updates.restartToUpdate() : ('not-ready' as const),
    }),
    openLogsFolder: async () => {
      if (!desktop?.openLogsFolder)
        throw new CoreError('CONFLICT', 'Logs are kept by the desktop app; this window has none.')
      const problem = await desktop.openLogsFolder()
      if (problem) throw new CoreError('INTERNAL', `The log folder could not be opened: ${problem}`)
      return null
    },
    exportSupportBundle: async () => {
      if (!desktop?.saveFile) {
        throw new CoreError(
          'CONFLICT',
          'Support bundles are saved by the desktop app; in a terminal, run satchel support-bundle --out FILE.',
        )
      }
      const bytes = await supportBundle()
      return { path: await desktop.saveFile(supportBundleName(new Date()), bytes) }
    },
    ...profileMethods(profiles),
  }
}

function profileMethods(
  profiles: ProfilesPort | undefined,
): Pick<DesktopMethods, 'listProfiles' | 'switchProfile' | 'addProfile' | 'removeProfile'> {
  const kept = (): ProfilesPort => {
    if (!profiles)
      throw new CoreError('CONFLICT', 'Profiles are kept by the desktop app; this window shows one database.')
    return profiles
  }
  return {
    listProfiles: () => kept().list(),
    switchProfile: ({ id }) => kept().switchTo(id),
    addProfile: ({ name }) => kept().add(name),
    removeProfile: ({ id }) => kept().remove(id),
  }
}

/** satchel-support-2026-11-25-1513.zip: sorts by date in a folder, and says what it is. */
function supportBundleName(at: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0')
  return `satchel-support-${at.getFullYear()}-${pad(at.getMonth() + 1)}-${pad(at.getDate())}-${pad(at.getHours())}${pad(at.getMinutes())}.zip`
}
