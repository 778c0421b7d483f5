import { existsSync } from 'node:fs'
import { closeDatabase, openDatabase, type Database } from '../db/database'
import { CliFailure } from './errors'
import { damageError, knownDamage } from './health'

/**
 * The database of a command that needs one already there. `status`, `outbox` and the searches open
 * it read-only: they work on a read-only file or folder and never create, upgrade or write it. The
 * other commands but `sync` need data in it, so an empty file is refused rather than made new.
 *
 * A file an earlier command found damaged (cli/health.ts) is refused with the same story, unless the
 * command tells it its own way (`damage: 'handled'`: status, outbox, flush, order queue, the bundle).
 */
export function openExisting(
  path: string,
  access: 'read' | 'write',
  options: { damage?: 'refused' | 'handled' } = {},
): Database {
  if (!existsSync(path))
    throw new CliFailure(`No Satchel database at ${path} (run sync first, or pass --db)`, 'NOT_FOUND')
  const db = openDatabase(path, { readOnly: access === 'read', create: false, audience: 'cli' })
  if (options.damage === 'handled') return db
  const damage = knownDamage(path)
  if (!damage) return db
  try {
    throw damageError(db, path, damage)
  } finally {
    closeDatabase(db)
  }
}
