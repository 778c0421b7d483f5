/**
 * The set-up the CLI's writes-after-Send tests share: a double, a folder, the CLI signed in to it as
 * a user through the environment, one sync, and an orderable customer of what it brought.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { expect } from 'vitest'
import { closeDatabase, openDatabase, type Database } from '../../src/main/db/database'
import { startService } from '../service/index'
import type { RunningService } from '../service/types'
import { cli } from './cli'
import { findOrderable, type Orderable } from './orderable'

export interface CliSession {
  service: RunningService
  directory: string
  dbPath: string
  /** SATCHEL_DB and a user session on the double, for `cli(args, env)`. */
  env: Record<string, string>
  orderable: Orderable
  close(): Promise<void>
}

/** Signed in and synced; `read` sees the synced database once, before it is closed again. */
export async function startCliSession(
  seed: number,
  read: (db: Database, orderable: Orderable) => void = () => undefined,
): Promise<CliSession> {
  const service = await startService({ size: 'tiny', seed })
  const directory = mkdtempSync(join(tmpdir(), 'satchel-cli-session-'))
  const dbPath = join(directory, 'satchel.db')
  const env = {
    SATCHEL_DB: dbPath,
    SATCHEL_BASE_URL: service.url,
    SATCHEL_USER_TOKEN: service.credentials.userToken,
    SATCHEL_USER_GUID: service.credentials.userGuid,
    SATCHEL_SUPPLIER_GUID: service.credentials.supplierGuid,
  }
  const synced = await cli(['sync', '--json'], env)
  expect(synced.code, synced.stderr).toBe(0)
  const db = openDatabase(dbPath, { readOnly: true, create: false })
  let orderable: Orderable
  try {
    orderable = findOrderable(db, 1)
    read(db, orderable)
  } finally {
    closeDatabase(db)
  }
  return {
    service,
    directory,
    dbPath,
    env,
    orderable,
    async close() {
      await service.close()
      rmSync(directory, { recursive: true, force: true })
    },
  }
}
