import BetterSqlite3, { type Database } from 'better-sqlite3'
import { CoreError } from '../errors'
import type { Logger } from '../ports'
import { migrations as defaultMigrations, type Migration } from './migrations'

export interface OpenDatabaseOptions {
  /** Path to a better_sqlite3.node built for the running runtime (Electron's ABI differs from Node's). */
  nativeBinding?: string
  logger?: Logger
  migrations?: Migration[]
}

export type { Database }

/**
 * Opens the local store and brings its schema up to date. All migrations run in one transaction, so
 * a laptop that loses power mid-upgrade keeps its old schema and its unsent orders.
 */
export function openDatabase(path: string, options: OpenDatabaseOptions = {}): Database {
  const migrations = options.migrations ?? defaultMigrations
  const db = new BetterSqlite3(path, options.nativeBinding ? { nativeBinding: options.nativeBinding } : {})
  try {
    db.pragma('journal_mode = WAL')
    db.pragma('foreign_keys = ON')
    db.pragma('busy_timeout = 5000')
    // NORMAL is durable across application crashes in WAL mode; the outbox asks for FULL where a
    // power cut must not lose a queued order.
    db.pragma('synchronous = NORMAL')
    migrate(db, migrations, options.logger)
    return db
  } catch (error) {
    db.close()
    throw error
  }
}

export function latestSchemaVersion(migrations: Migration[] = defaultMigrations): number {
  return migrations.reduce((max, m) => Math.max(max, m.version), 0)
}

function migrate(db: Database, migrations: Migration[], logger?: Logger): void {
  const current = db.pragma('user_version', { simple: true }) as number
  const latest = latestSchemaVersion(migrations)
  if (current > latest) {
    throw new CoreError(
      'CONFLICT',
      `This database was written by a newer Satchel (schema ${current}; this version knows up to ${latest}). Update Satchel before opening it.`,
    )
  }
  const pending = migrations.filter((m) => m.version > current).sort((a, b) => a.version - b.version)
  if (pending.length === 0) return
  db.transaction(() => {
    for (const migration of pending) {
      migration.up(db)
      db.pragma(`user_version = ${migration.version}`)
    }
  }).immediate()
  logger?.info('database migrated', { from: current, to: latest, applied: pending.map((m) => m.name) })
}

/**
 * Lets SQLite refresh its planner statistics, as its documentation advises, before closing. That is
 * advice, not work the caller asked for: when it cannot write (another process holds the write lock,
 * or the file is read-only) it is skipped at once rather than waited for or reported as a failure of
 * a command that has already done its job.
 */
export function closeDatabase(db: Database): void {
  if (!db.open) return
  try {
    if (!db.readonly) {
      db.pragma('busy_timeout = 0')
      db.pragma('optimize')
    }
  } catch {
    // Skipped: see above.
  } finally {
    db.close()
  }
}
