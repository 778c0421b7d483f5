import { closeDatabase, latestSchemaVersion, openDatabase, type Database } from '../db/database'
import { EventHub, type EventStream } from '../events'
import { createMemorySecretStore, silentLogger, systemClock, type Clock, type EventSink, type Logger, type SecretStore } from '../ports'
import { createHandlerTable, type HandlerTable } from './handlers'
import { ConnectionStore } from './connection'
import { SettingsRepository } from './settings'
import { createSyncServices, type SyncServices } from '../sync/service'

export interface CoreConfig {
  /** SQLite file; ':memory:' for throwaway cores in tests. */
  databasePath: string
  /** better_sqlite3.node for the running runtime, when it is not the one in node_modules. */
  nativeBinding?: string
  appName?: string
  appVersion: string
  ports?: {
    clock?: Clock
    logger?: Logger
    secrets?: SecretStore
    events?: EventSink
  }
  /** Sync at start-up and every settings.syncIntervalMinutes (default true; tests that drive sync themselves turn it off). */
  backgroundSync?: boolean
}

export interface Core {
  handlers: HandlerTable
  events: EventStream
  /** For the CLI and tests that drive the core below the contract. */
  readonly db: Database
  readonly connection: ConnectionStore
  /** The scheduler (connectivityRestored, syncNow), the query layer, and the retention hook for drafts. */
  readonly sync: SyncServices
  close(): Promise<void>
}

/**
 * Builds the whole Electron-free core from a config. The Electron shell and the test bridge both call
 * this and differ only in the transport they put in front of `handlers` and `events`.
 */
export function createCore(config: CoreConfig): Core {
  const logger = config.ports?.logger ?? silentLogger
  const hub = new EventHub(config.ports?.events)
  const db = openDatabase(config.databasePath, { nativeBinding: config.nativeBinding, logger })
  const settings = new SettingsRepository(db)
  const connection = new ConnectionStore(db, config.ports?.secrets ?? createMemorySecretStore())
  const sync = createSyncServices({
    db,
    connection,
    syncIntervalMinutes: () => settings.get().syncIntervalMinutes,
    clock: config.ports?.clock ?? systemClock,
    logger,
    events: hub,
  })

  const handlers = createHandlerTable(
    {
      getAppInfo: () => ({
        name: config.appName ?? 'Satchel',
        version: config.appVersion,
        database: {
          path: config.databasePath,
          schemaVersion: db.pragma('user_version', { simple: true }) as number,
          journalMode: String(db.pragma('journal_mode', { simple: true })),
        },
      }),
      getSettings: () => settings.get(),
      updateSettings: (patch) => {
        const next = settings.update(patch)
        sync.scheduler.settingsChanged()
        hub.emit('settingsChanged', next)
        return next
      },
      getConnection: () => connection.get(),
      saveConnection: async (input) => {
        const saved = await connection.save(input)
        hub.emit('connectionChanged', saved)
        sync.scheduler.trigger('connection-changed')
        return saved
      },
      ...sync.methods,
    },
    logger,
  )

  if (config.backgroundSync !== false) sync.scheduler.start()

  let closed = false
  return {
    handlers,
    events: hub,
    db,
    connection,
    sync,
    async close() {
      if (closed) return
      closed = true
      await sync.close()
      closeDatabase(db)
    },
  }
}

export { latestSchemaVersion }
