/**
 * A database synced in full from the double, made once per test run for each data set and copied by
 * every test that starts "after the first sync": a tiny first sync costs about 2 s of CPU, and some
 * fifty tests start that way. `test/support/templates.ts` (vitest's globalSetup) names the folder
 * the templates of one run share, across workers; without it (a file run by other means) each
 * process keeps its own.
 */
import { createHash } from 'node:crypto'
import { existsSync, mkdtempSync, renameSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createCore } from '../../src/main/core/compose'
import { call } from '../../src/main/core/handlers'
import { createMemoryKeychain } from '../../src/main/ports'
import type { RunningService } from '../service/types'

let ownFolder: string | null = null

function folder(): string {
  const shared = process.env.SATCHEL_TEST_TEMPLATES
  if (shared) return shared
  ownFolder ??= mkdtempSync(join(tmpdir(), 'satchel-templates-'))
  return ownFolder
}

/**
 * The path of a database synced in full from a double like `service`: `dataSet` names its size and
 * seed, and the session token (its payload holds the double's epoch) tells one day's data from the
 * next, so a template is only ever copied for the data it was synced from.
 */
export async function syncedTemplate(service: RunningService, dataSet: string): Promise<string> {
  const key = createHash('sha1').update(`${dataSet}\n${service.credentials.userToken}`).digest('hex').slice(0, 16)
  const file = join(folder(), `${dataSet}-${key}.db`)
  if (existsSync(file)) return file
  const work = mkdtempSync(join(tmpdir(), 'satchel-template-'))
  const core = createCore({
    databasePath: join(work, 'satchel.db'),
    appVersion: '0.0.0-test',
    backgroundSync: false,
    ports: { secrets: createMemoryKeychain() },
  })
  try {
    const { apiKey, apiSecret } = service.credentials
    const saved = await call(core.handlers, 'saveConnection', {
      baseUrl: service.url,
      auth: { kind: 'apiKey', apiKey, apiSecret },
    })
    if (!saved.ok) throw new Error(`the template's connection: ${saved.error.message}`)
    const synced = await call(core.handlers, 'syncNow', { full: true })
    if (!synced.ok || !synced.value.ok) throw new Error(`the template's first sync failed: ${JSON.stringify(synced)}`)
    // One file, checkpointed: a copy of it is a whole database. Written aside and renamed into place,
    // so a worker making the same template at the same time never copies half of one.
    const aside = `${file}.${process.pid}.tmp`
    core.db.exec(`VACUUM INTO '${aside.replaceAll("'", "''")}'`)
    renameSync(aside, file)
  } finally {
    await core.close()
    rmSync(work, { recursive: true, force: true })
  }
  return file
}
