import { existsSync } from 'node:fs'
import { openDatabase, type Database } from '../db/database'
import { CliFailure } from './errors'

/**
 * The database of a command that needs one already there. `status`, `outbox` and the searches open
 * it read-only: they work on a read-only file or folder and never create, upgrade or write it. The
 * other commands but `sync` need data in it, so an empty file is refused rather than made new.
 */
export function openExisting(path: string, access: 'read' | 'write'): Database {
  if (!existsSync(path)) throw new CliFailure(`No Satchel database at ${path} (run sync first, or pass --db)`, 'NOT_FOUND')
  return openDatabase(path, { readOnly: access === 'read', create: false, audience: 'cli' })
}
