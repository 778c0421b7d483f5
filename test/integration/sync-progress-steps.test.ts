/**
 * The sync's progress as the status bar reads it (issue 54): each catalog's items start their own bar
 * from 0%, so every catalog-items event names which catalog of how many it is ("Catalog items of
 * Spring (2 of 3)… 40%"), and the bar never goes back within one step.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, expect, test } from 'vitest'
import { createCore } from '../../src/main/core/compose'
import type { Core } from '../../src/main/core/types'
import { call } from '../../src/main/core/handlers'
import { createMemoryKeychain } from '../../src/main/ports'
import type { SyncProgress } from '../../src/shared/synced'
import { startService } from '../service/index'
import type { RunningService } from '../service/types'

let service: RunningService | undefined
let core: Core | undefined
let directory: string | undefined
afterEach(async () => {
  await core?.close()
  await service?.close()
  if (directory) rmSync(directory, { recursive: true, force: true })
})

test('every catalog’s items say which catalog of how many they are, in the order the sync takes them', async () => {
  service = await startService({ size: 'tiny', seed: 5 })
  directory = mkdtempSync(join(tmpdir(), 'satchel-progress-'))
  core = createCore({
    databasePath: join(directory, 'satchel.db'),
    appVersion: '0.0.0-test',
    backgroundSync: false,
    ports: { secrets: createMemoryKeychain() },
  })
  const progress: SyncProgress[] = []
  core.events.subscribe((event) => {
    if (event.name === 'syncProgress') progress.push(event.payload)
  })
  const { apiKey, apiSecret } = service.credentials
  const saved = await call(core.handlers, 'saveConnection', {
    baseUrl: service.url,
    auth: { kind: 'apiKey', apiKey, apiSecret },
  })
  expect(saved.ok).toBe(true)
  const synced = await call(core.handlers, 'syncNow', {})
  expect(synced.ok && synced.value.ok).toBe(true)

  const catalogs = service.control.catalogs().filter((catalog) => catalog.deleted_at === null)
  expect(catalogs.length).toBeGreaterThan(1)
  const itemEvents = progress.filter((event) => event.resource === 'catalogItems')
  const seen = new Map<string, number>()
  for (const event of itemEvents) {
    expect(event.catalogOf, event.scope).toEqual({ number: expect.any(Number), count: catalogs.length })
    seen.set(event.catalogGuid!, event.catalogOf!.number)
  }
  // One number per catalog, 1 to N, in the order the sync took them.
  expect([...seen.values()]).toEqual(catalogs.map((_, index) => index + 1))
  // Other steps carry no catalog number.
  expect(progress.filter((event) => event.resource !== 'catalogItems' && event.catalogOf)).toEqual([])
})
