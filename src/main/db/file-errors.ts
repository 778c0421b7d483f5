/**
 * What is wrong with a database file, in words a rep or a support person can act on. The one place
 * SQLite's codes become messages: openDatabase throws these, and the CLI passes anything SQLite
 * throws later (a damaged page found by a query, a write refused) through explainDatabaseError.
 *
 * No better-sqlite3 import here: the CLI loads this only on its error path, and SqliteError is
 * recognised by its `code`.
 */
import { accessSync, constants, existsSync, statfsSync, statSync } from 'node:fs'
import { dirname } from 'node:path'
import { CoreError } from '../errors'
import { isFencedWrite } from './fence'

/** Who reads the message: the remedy differs (a command to run, or the app to restart). */
export type Audience = 'app' | 'cli'

export type DatabaseFileProblem =
  | { kind: 'notADatabase'; reason: string }
  /**
   * Pages quick_check could not read (health.ts): `areas` in the rep's words, `unsent` the orders the
   * outbox still holds unsent, or null when the outbox itself is damaged and cannot be trusted.
   */
  | { kind: 'damaged'; areas: string[]; unsent: number | null }
  /** `file`: the one this user may not write (the database, its -wal or -shm); `folder`: SQLite cannot make -wal/-shm there. */
  | { kind: 'readOnly'; cause: 'file'; file: string }
  | { kind: 'readOnly'; cause: 'folder' }
  /** No file yet, and it cannot be made: `folder` (the nearest one that exists) cannot be written by this user. */
  | { kind: 'readOnly'; cause: 'create'; folder: string }
  /** A read-only folder holding a -wal without its -shm: SQLite cannot read the latest changes there. */
  | { kind: 'readOnly'; cause: 'walWithoutShm' }
  | { kind: 'olderSchema'; version: number; latest: number }
  /**
   * No room on the disk. `writing`: a write was refused; `kept`, where known, says in a sentence what
   * the work had written before it (kept: each step commits on its own). `walWithoutShm`: even reading
   * is impossible, as the latest changes are in the -wal and SQLite must make a -shm beside it to read them.
   */
  | { kind: 'diskFull'; cause: 'writing'; kept?: string }
  | { kind: 'diskFull'; cause: 'walWithoutShm' }
  /** A write refused by the fence of a profile being removed (fence.ts). */
  | { kind: 'removed' }

const codes = {
  notADatabase: 'NOT_A_DATABASE',
  damaged: 'NOT_A_DATABASE',
  readOnly: 'DATABASE_READ_ONLY',
  olderSchema: 'CONFLICT',
  diskFull: 'DISK_FULL',
  removed: 'NOT_FOUND',
} as const

export class DatabaseFileError extends CoreError {
  constructor(
    readonly path: string,
    readonly problem: DatabaseFileProblem,
    audience: Audience,
  ) {
    super(codes[problem.kind], describe(path, problem, audience))
    this.name = 'DatabaseFileError'
  }
}

function describe(path: string, problem: DatabaseFileProblem, audience: Audience): string {
  const cli = audience === 'cli'
  switch (problem.kind) {
    case 'notADatabase':
      // Sync brings back everything that came from the service; what only ever lived in the file does not.
      return cli
        ? `${path} is not a Satchel database (or is damaged): ${problem.reason}. Move it aside (keep it: support may recover something from it) and run \`satchel sync\` to build a new one from the ordering service; the drafts, unsent orders and saved settings in it cannot be read.`
        : `${path} is not a Satchel database (or is damaged): ${problem.reason}. Quit Satchel, move the file aside (keep it: support may recover something from it) and start Satchel again: it makes a new database and, once the connection settings are entered again, downloads the catalogs and customers. The drafts, unsent orders and settings in the old file cannot be read.`
    case 'damaged':
      return describeDamage(path, problem.areas, problem.unsent, cli)
    case 'readOnly': {
      const folder = dirname(path)
      if (problem.cause === 'walWithoutShm') {
        return `The database at ${path} is read-only and cannot be read here: its folder ${folder} cannot be written, and its latest changes are in ${path}-wal, which SQLite reads only with a ${path}-shm it can make beside it. Make the folder writable, or copy the database and its -wal file together to a writable folder and use the copy.`
      }
      if (problem.cause === 'create') {
        const instead = cli
          ? 'or choose a folder this user can write (--db, or --data-dir for a profile)'
          : 'or ask your IT support'
        return `The database at ${path} cannot be made: the folder ${problem.folder} cannot be written by this user. Make it writable for this user, ${instead}, then try again.`
      }
      const why =
        problem.cause === 'folder'
          ? ` (its folder ${folder} cannot be written, and SQLite must make its -wal and -shm files there)`
          : ` (${problem.file === path ? 'the file' : problem.file} cannot be written by this user)`
      const what = problem.cause === 'folder' ? 'the folder' : 'the file'
      return cli
        ? `The database at ${path} is read-only${why}. status, outbox, items search and customers search can still read it; to sync, queue or send orders, make ${what} writable for this user.`
        : `The database at ${path} is read-only${why}. Satchel must write to it to save drafts and sync. Make ${what} writable for your user account (or ask your IT support), then start Satchel again.`
    }
    case 'diskFull': {
      const disk = `The disk holding the database at ${path} is full (disk full)`
      if (problem.cause === 'walWithoutShm') {
        return `${disk}, and the database cannot be read until there is room: its latest changes are in ${path}-wal, which SQLite reads only with a ${path}-shm it must make beside it. Free some space on that disk (the folder ${dirname(path)}), then try again.`
      }
      return cli
        ? `${disk}: ${problem.kept ?? 'the change that needed the room was not made, and what was saved before it is kept'}. Free some space on that disk (the folder ${dirname(path)}), then try again; status, outbox, items search and customers search can still read the database meanwhile.`
        : `${disk}: Satchel cannot save changes or sync. What is already saved is safe. Free some space on that disk (empty the trash, move or delete large files), then try again.`
    }
    case 'removed':
      return cli
        ? `The profile whose database is ${path} was removed while this command ran: nothing more was written to it. If \`satchel profiles list\` still lists the profile, its removal was cut short: run \`satchel profiles remove <name> --yes\` again.`
        : `This profile was removed while Satchel was using it (its database ${path}): nothing more was written to it. Restart Satchel.`
    case 'olderSchema':
      return `The database at ${path} was written by an older Satchel (schema ${problem.version}; this Satchel reads ${problem.latest}), and commands that only read never upgrade it. Run \`satchel sync\` (or start the desktop app) once to upgrade it, then try again.`
  }
}

function isFile(path: string): boolean {
  return path !== '' && path !== ':memory:'
}

function plural(count: number, one: string): string {
  return `${count} ${one}${count === 1 ? '' : 's'}`
}

/** Keeping the unsent orders comes first in the advice: sync brings back everything else. */
function describeDamage(path: string, areas: string[], unsent: number | null, cli: boolean): string {
  const what = `${path} is not a Satchel database (or is damaged): parts of it cannot be read (${areas.join('; ')}).`
  if (!cli) {
    const orders =
      unsent === null
        ? 'The orders waiting in it cannot be read.'
        : unsent === 0
          ? 'It holds no unsent orders.'
          : `The ${plural(unsent, 'unsent order')} in it can still be read: ask support to keep them (satchel outbox --export) before the file is moved.`
    return `${what} ${orders} Quit Satchel, move the file aside (keep it: support may recover something from it) and start Satchel again: it makes a new database and downloads the catalogs and customers. The drafts, quotes and settings in the old file are not carried over.`
  }
  const aside =
    'move the file aside (keep it: support may recover something from it) and run `satchel sync` to build a new one from the ordering service; the drafts, quotes and settings in it are not carried over'
  if (unsent === null) {
    return `${what} The outbox is damaged, so nothing is sent or queued from this file: the unsent orders in it cannot be read here. Do not delete it: ${aside}, and ask support to recover the orders from the old file.`
  }
  if (unsent === 0)
    return `${what} The outbox can be read and holds no unsent orders. Nothing more is written to this file: ${aside}.`
  return `${what} The outbox can be read: keep its ${plural(unsent, 'unsent order')} first, with \`satchel flush\` (sending saves them) or \`satchel outbox --export FOLDER\` (a draft file each). Then ${aside}, and \`satchel order queue --file\` each saved draft. Until then sync and order queue write nothing to this file.`
}

function isWritable(path: string): boolean {
  try {
    accessSync(path, constants.W_OK)
    return true
  } catch {
    return false
  }
}

/** Whether a file exists with something in it (a -wal of 0 bytes holds nothing). */
export function hasContent(path: string): boolean {
  try {
    return statSync(path).size > 0
  } catch {
    return false
  }
}

/**
 * Which file or folder keeps this user from writing the database, if any. The file's mode bits
 * (and a read-only mount or an immutable file, which stop root too) are what `access` reports; the
 * folder matters only while SQLite still has its -wal and -shm to make there.
 */
export function readOnlyCause(path: string): DatabaseFileProblem | null {
  for (const file of [path, `${path}-wal`, `${path}-shm`]) {
    if (existsSync(file) && !isWritable(file)) return { kind: 'readOnly', cause: 'file', file }
  }
  const needsFolder = !existsSync(path) || !existsSync(`${path}-wal`) || !existsSync(`${path}-shm`)
  if (needsFolder && !isWritable(dirname(path))) return { kind: 'readOnly', cause: 'folder' }
  return null
}

/** Below this, SQLite cannot be sure of room for a -shm (32 KB) and a page or two of -wal. */
const nearlyFullBytes = 64 * 1024

/**
 * Whether the disk holding the database has (next to) no room left for this user. SQLite reports a
 * full disk as SQLITE_FULL only sometimes: a -shm it cannot grow is SQLITE_IOERR_SHMSIZE, a -wal it
 * cannot extend another SQLITE_IOERR, so an I/O error is read as "disk full" when the disk is.
 */
function diskIsFull(path: string): boolean {
  try {
    const stats = statfsSync(dirname(path))
    return stats.bavail * stats.bsize < nearlyFullBytes
  } catch {
    return false
  }
}

/** Whether `error` is a write that failed for want of room on the database's disk. */
export function isNoRoom(error: unknown, path: string): boolean {
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined
  if (code === 'SQLITE_FULL' || code === 'ENOSPC') return true
  return typeof code === 'string' && code.startsWith('SQLITE_IOERR') && diskIsFull(path)
}

/**
 * The error to report for `error` met while using the database at `path`: a CoreError as it is,
 * SQLite's file-level failures as a DatabaseFileError, and null for anything else (a bug, to be
 * reported as such).
 */
export function explainDatabaseError(error: unknown, path: string, audience: Audience): CoreError | null {
  if (error instanceof CoreError) return error
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined
  const explained = isFencedWrite(error)
    ? new DatabaseFileError(path, { kind: 'removed' }, audience)
    : isNoRoom(error, path)
      ? new DatabaseFileError(path, { kind: 'diskFull', cause: 'writing' }, audience)
      : typeof code === 'string' && code.startsWith('SQLITE_')
        ? explainSqliteCode(code, path, audience)
        : null
  // SQLite's own words stay with the error, for the log and support; the person reads the message.
  if (explained) explained.cause = error
  return explained
}

function explainSqliteCode(code: string, path: string, audience: Audience): CoreError | null {
  // The file went between a command's look for it and SQLite's open (a profile removed meanwhile).
  if (code.startsWith('SQLITE_CANTOPEN') && isFile(path) && !existsSync(path))
    return new CoreError('NOT_FOUND', `No Satchel database at ${path} (it was removed or moved while this command ran)`)
  if (code === 'SQLITE_NOTADB')
    return new DatabaseFileError(path, { kind: 'notADatabase', reason: 'it is not an SQLite database file' }, audience)
  if (code.startsWith('SQLITE_CORRUPT'))
    return new DatabaseFileError(path, { kind: 'notADatabase', reason: 'parts of it are damaged or missing' }, audience)
  if (code === 'SQLITE_READONLY_DIRECTORY')
    return new DatabaseFileError(path, { kind: 'readOnly', cause: 'folder' }, audience)
  if (code.startsWith('SQLITE_READONLY') || code.startsWith('SQLITE_CANTOPEN')) {
    const cause = readOnlyCause(path)
    if (cause) return new DatabaseFileError(path, cause, audience)
    // SQLite says read-only where `access` sees nothing (another mount's rules): the file, then.
    if (code.startsWith('SQLITE_READONLY'))
      return new DatabaseFileError(path, { kind: 'readOnly', cause: 'file', file: path }, audience)
  }
  return null
}
