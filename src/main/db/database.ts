import BetterSqlite3, { type Database } from 'better-sqlite3'
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, readSync, statSync } from 'node:fs'
import { dirname } from 'node:path'
import { CoreError } from '../errors'
import type { Logger } from '../ports'
import {
  DatabaseFileError,
  explainDatabaseError,
  hasContent,
  isNoRoom,
  readOnlyCause,
  type Audience,
  type DatabaseFileProblem,
} from './file-errors'
import { defaultLargeCatalogItems, type Migration, type MigrationOptions } from './migration'
import { migrations as defaultMigrations } from './migrations'

export interface OpenDatabaseOptions {
  /** Path to a better_sqlite3.node built for the running runtime (Electron's ABI differs from Node's). */
  nativeBinding?: string
  logger?: Logger
  migrations?: Migration[]
  /**
   * Opens for reading only: never creates, upgrades or writes anything (not even SQLite's -wal and
   * -shm where the folder is read-only). A schema older than this code is refused, not read.
   */
  readOnly?: boolean
  /** Whether a missing or empty (0-byte) file becomes a new database. Default true; never when readOnly. */
  create?: boolean
  /** Who reads the messages of the errors thrown (what to do differs for the app and the CLI). Default 'app'. */
  audience?: Audience
  /** See MigrationOptions.largeCatalogItems (defaultLargeCatalogItems unless a test lowers it). */
  largeCatalogItems?: number
  /**
   * Reads the file through a memory map (PRAGMA mmap_size). A broad search's count at a million items
   * ran 1.5-2x faster so (each page read through SQLite's cache is a system call and a copy), but the
   * app does not use it: SQLite's own notes warn that a process that maps the file beside one that
   * does not (the CLI, the sync writer) relies on the system's unified buffer cache, and the pages read
   * show as the app's resident memory (1.2 GB after bench:search). Kept for bench:search --mapped.
   */
  mappedReads?: boolean
}

export type { Database }
export { DatabaseFileError, explainDatabaseError } from './file-errors'

/**
 * Opens the local copy and brings its schema up to date. All migrations run in one transaction, so
 * a laptop that loses power mid-upgrade keeps its old schema and its unsent orders.
 *
 * A file that is not a Satchel database (another program's, damaged, cut short), or one this user
 * may not write, is refused with a DatabaseFileError saying so and what to do, before anything is
 * written to it.
 */
export function openDatabase(path: string, options: OpenDatabaseOptions = {}): Database {
  const audience = options.audience ?? 'app'
  try {
    return options.readOnly ? openForReading(path, options, audience) : openForWriting(path, options, audience)
  } catch (error) {
    throw explainDatabaseError(error, path, audience) ?? error
  }
}

function binding(options: OpenDatabaseOptions): { nativeBinding?: string } {
  return options.nativeBinding ? { nativeBinding: options.nativeBinding } : {}
}

function isFile(path: string): boolean {
  return path !== '' && path !== ':memory:'
}

function notADatabase(path: string, reason: string, audience: Audience): DatabaseFileError {
  return new DatabaseFileError(path, { kind: 'notADatabase', reason }, audience)
}

/**
 * Looks at the file before SQLite does, for what SQLite would not refuse: an empty file (SQLite
 * makes it a new database, and deletes a -wal beside it with whatever that held) and a file cut
 * short mid-page (SQLite reads the pages it finds).
 */
function inspectFile(path: string, audience: Audience): 'missing' | 'empty' | 'present' {
  let size: number
  try {
    size = statSync(path).size
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 'missing'
    return 'present' // SQLite gives the reason.
  }
  const wal = `${path}-wal`
  if (size === 0) {
    if (hasContent(wal))
      throw notADatabase(path, `the file is empty, but ${wal} beside it is not (the database was cut short)`, audience)
    return 'empty'
  }
  const header = Buffer.alloc(100)
  let read: number
  try {
    const fd = openSync(path, 'r')
    try {
      read = readSync(fd, header, 0, 100, 0)
    } finally {
      closeSync(fd)
    }
  } catch {
    return 'present' // Unreadable: SQLite gives the reason.
  }
  const raw = header.readUInt16BE(16)
  const pageSize = raw === 1 ? 65_536 : raw
  const validPageSize = pageSize >= 512 && (pageSize & (pageSize - 1)) === 0
  if (read < 100 || header.toString('latin1', 0, 16) !== 'SQLite format 3\0' || !validPageSize) {
    throw notADatabase(path, 'it is not an SQLite database file', audience)
  }
  // With a -wal beside it, a checkpoint may have been cut off while extending the file; the -wal
  // still holds those pages and SQLite puts them back, so only SQLite may judge such a file.
  if (size % pageSize !== 0 && !hasContent(wal))
    throw notADatabase(path, 'its size is not a whole number of pages (the file was cut short)', audience)
  return 'present'
}

/**
 * A Satchel database has its settings table from schema 1 on; a file with tables but none of ours,
 * or with a schema version but no settings, belongs to another program and must not be migrated.
 */
function checkIdentity(db: Database, path: string, audience: Audience, options: { allowEmpty: boolean }): number {
  const version = db.pragma('user_version', { simple: true }) as number
  const names = db.prepare<[], string>("SELECT name FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'").pluck().all()
  if (names.length === 0 && version === 0) {
    if (!options.allowEmpty)
      throw notADatabase(path, "it is an empty SQLite database, with none of Satchel's tables", audience)
    return version
  }
  if (!names.includes('settings'))
    throw notADatabase(path, "it is an SQLite database of another program (it has none of Satchel's tables)", audience)
  return version
}

function newerSchemaError(current: number, latest: number): CoreError {
  return new CoreError(
    'CONFLICT',
    `This database was written by a newer Satchel (schema ${current}; this version knows up to ${latest}). Update Satchel before opening it.`,
  )
}

/**
 * The database holds the supplier's customers, prices and the rep's orders: a new one is the user's
 * alone. SQLite would make it 0644 (less the umask); made here first, empty, it is 0600, and SQLite
 * gives its -wal, -shm and any journal the mode of the database file, on every connection (the sync
 * writer thread's too). A folder made for it is 0700; an existing folder is the user's choice and is
 * left as it is. POSIX only: Windows ignores these modes.
 */
function createPrivateFile(path: string, audience: Audience): void {
  try {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 })
    closeSync(openSync(path, 'wx', 0o600))
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    // Another process made it meanwhile: SQLite opens theirs.
    if (code === 'EEXIST') return
    // A folder this user may not write (or a read-only mount): said so, with the folder to fix.
    if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS')
      throw new DatabaseFileError(path, { kind: 'readOnly', cause: 'create', folder: nearestFolder(path) }, audience)
    throw error
  }
}

/** The nearest folder above `path` that exists: the one a new file or folder would be made in. */
function nearestFolder(path: string): string {
  let folder = dirname(path)
  while (!existsSync(folder) && dirname(folder) !== folder) folder = dirname(folder)
  return folder
}

function openForWriting(path: string, options: OpenDatabaseOptions, audience: Audience): Database {
  const create = options.create ?? true
  if (isFile(path)) {
    const state = inspectFile(path, audience)
    if (state === 'missing' && !create) throw new CoreError('NOT_FOUND', `No Satchel database at ${path}`)
    if (state === 'missing') createPrivateFile(path, audience)
    if (state === 'empty') {
      if (!create) throw notADatabase(path, 'the file is empty', audience)
      options.logger?.warn('the database file was empty: a new database is made in it', { path })
    }
  }
  const migrations = options.migrations ?? defaultMigrations
  const db = new BetterSqlite3(path, { ...binding(options), fileMustExist: !create })
  try {
    db.pragma('busy_timeout = 5000')
    // Identity first, so another program's file is refused before anything is written to it. In a
    // folder SQLite cannot write this read already fails (the -shm cannot be made).
    checkIdentity(db, path, audience, { allowEmpty: true })
    // SQLite opens a file it may not write read-only without saying so; the first write would fail.
    const readOnly = isFile(path) ? readOnlyCause(path) : null
    if (readOnly) throw new DatabaseFileError(path, readOnly, audience)
    db.pragma('journal_mode = WAL')
    db.pragma('foreign_keys = ON')
    // NORMAL is durable across application crashes in WAL mode; the outbox asks for FULL where a
    // power cut must not lose a queued order.
    db.pragma('synchronous = NORMAL')
    // A WAL file keeps its largest size unless told: a sync's writer lets it grow to 256 MB between
    // checkpoints (sync/writer-thread.ts), which a laptop's disk should get back once copied.
    db.pragma('journal_size_limit = 67108864')
    migrate(
      db,
      migrations,
      { largeCatalogItems: options.largeCatalogItems ?? defaultLargeCatalogItems },
      options.logger,
    )
    // SQLite's compiled limit (2 GB): the whole file of a million-item catalog.
    if (options.mappedReads) db.pragma('mmap_size = 2147418112')
    return db
  } catch (error) {
    db.close()
    throw error
  }
}

function isFolderRefusal(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code
  return code === 'SQLITE_READONLY_DIRECTORY' || (typeof code === 'string' && code.startsWith('SQLITE_CANTOPEN'))
}

function openForReading(path: string, options: OpenDatabaseOptions, audience: Audience): Database {
  if (!isFile(path)) throw new CoreError('INVALID_ARGUMENT', 'A database held in memory cannot be opened read-only')
  const state = inspectFile(path, audience)
  if (state === 'missing') throw new CoreError('NOT_FOUND', `No Satchel database at ${path}`)
  if (state === 'empty') throw notADatabase(path, 'the file is empty', audience)
  let db = new BetterSqlite3(path, { ...binding(options), readonly: true, fileMustExist: true })
  let noRoom: boolean
  try {
    db.pragma('busy_timeout = 5000')
    checkReadable(db, path, options, audience)
    return db
  } catch (error) {
    db.close()
    noRoom = isNoRoom(error, path)
    if (!noRoom && !isFolderRefusal(error)) throw error
  }
  // A WAL database needs its -shm (and a -wal) made beside it even to be read. In a folder where
  // they cannot be made, or on a disk with no room for them, a database closed cleanly (no -wal) is
  // whole in its one file: it is read from a copy in memory instead, which costs memory the size of
  // the file but writes nothing. With a -wal left behind, that copy would miss the latest changes,
  // so it is refused instead.
  if (hasContent(`${path}-wal`)) {
    const problem: DatabaseFileProblem = noRoom
      ? { kind: 'diskFull', cause: 'walWithoutShm' }
      : { kind: 'readOnly', cause: 'walWithoutShm' }
    throw new DatabaseFileError(path, problem, audience)
  }
  const image = readFileSync(path)
  // Bytes 18 and 19 say "WAL"; as rollback-journal SQLite reads the copy without looking for a -wal.
  image[18] = 1
  image[19] = 1
  db = new BetterSqlite3(image, { ...binding(options), readonly: true })
  try {
    checkReadable(db, path, options, audience)
    return db
  } catch (error) {
    db.close()
    throw error
  }
}

/** A read-only open neither creates nor upgrades: anything but this code's own schema is refused. */
function checkReadable(db: Database, path: string, options: OpenDatabaseOptions, audience: Audience): void {
  const version = checkIdentity(db, path, audience, { allowEmpty: false })
  const latest = latestSchemaVersion(options.migrations ?? defaultMigrations)
  if (version > latest) throw newerSchemaError(version, latest)
  if (version < latest) throw new DatabaseFileError(path, { kind: 'olderSchema', version, latest }, audience)
}

export function latestSchemaVersion(migrations: Migration[] = defaultMigrations): number {
  return migrations.reduce((max, m) => Math.max(max, m.version), 0)
}

function migrate(db: Database, migrations: Migration[], options: MigrationOptions, logger?: Logger): void {
  const current = db.pragma('user_version', { simple: true }) as number
  const latest = latestSchemaVersion(migrations)
  if (current > latest) throw newerSchemaError(current, latest)
  const pending = migrations.filter((m) => m.version > current).sort((a, b) => a.version - b.version)
  if (pending.length === 0) return
  db.transaction(() => {
    for (const migration of pending) {
      migration.up(db, options)
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
