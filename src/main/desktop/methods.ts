import type { Implementations } from '../../shared/contract'
import type { Database } from '../db/database'
import { databaseSize, lastPurge } from '../db/storage'
import { CoreError } from '../errors'
import type { DesktopPort } from '../ports'

type DesktopMethods = Pick<Implementations, 'getAppInfo' | 'getUpdateState' | 'checkForUpdates' | 'restartToUpdate' | 'openLogsFolder'>

export interface DesktopWiring {
  db: Database
  databasePath: string
  appName?: string
  appVersion: string
  /** The desktop shell's port; absent in a browser through the test bridge, and for the CLI. */
  desktop?: DesktopPort
}

/** What the app itself is and does (version, database, updates, logs): the desktop port's, where there is one. */
export function desktopMethods({ db, databasePath, appName, appVersion, desktop }: DesktopWiring): DesktopMethods {
  const noUpdates = { status: 'disabled' as const, currentVersion: appVersion, reason: 'Updates come with the desktop app; this window has none.' }
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
    restartToUpdate: async () => ({ outcome: desktop?.updates ? await desktop.updates.restartToUpdate() : ('not-ready' as const) }),
    openLogsFolder: async () => {
      if (!desktop?.openLogsFolder) throw new CoreError('CONFLICT', 'Logs are kept by the desktop app; this window has none.')
      const problem = await desktop.openLogsFolder()
      if (problem) throw new CoreError('INTERNAL', `The log folder could not be opened: ${problem}`)
      return null
    },
  }
}
