/**
 * A sync asked for while the catalog update an upgrade left is running waits for it (both write the
 * catalog's rows). The sync's status says so, so the status bar can tell the rep why nothing syncs
 * yet, instead of "Starting sync…" for as long as the update takes: whether the app started the
 * update at start-up and the run waits for it, or the run does the update itself first.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { createCore } from '../../src/main/core/compose'
import { call } from '../../src/main/core/handlers'
import { createConsoleLogger } from '../../src/main/ports'
import type { SatchelEvent } from '../../src/shared/contract'
import type { SyncStatus } from '../../src/shared/synced'
import { schema9Laptop, UpdateHold, type Schema9Laptop } from '../support/upgraded-laptop'
import { until } from '../support/until'

/** A wait is guarded for 20 s. */
const guard = { timeoutMs: 20_000 }

let laptop: Schema9Laptop | undefined
afterEach(async () => {
  await laptop?.close()
  laptop = undefined
})

describe('a sync while the catalog update runs (issue 28)', () => {
  for (const [name, backgroundSync] of [
    ['the update the app started at start-up', true],
    ['the update the run does itself first', false],
  ] as const) {
    it(`the sync's status says it waits for ${name}, then that it syncs`, async () => {
      laptop = await schema9Laptop({ size: 1500 })
      const hold = new UpdateHold()
      const statuses: SyncStatus[] = []
      const core = createCore({
        databasePath: laptop.path,
        appVersion: '0.0.0-test',
        largeCatalogItems: 500,
        backgroundSync,
        beforeCatalogUpdateSlice: hold.beforeSlice,
        ports: { logger: createConsoleLogger('error') },
      })
      core.events.subscribe(
        (event: SatchelEvent) => void (event.name === 'syncStatusChanged' && statuses.push(event.payload)),
      )
      try {
        const { apiKey, apiSecret } = laptop.harness.service.credentials
        await core.connection.save({ baseUrl: laptop.harness.service.url, auth: { kind: 'apiKey', apiKey, apiSecret } })
        if (backgroundSync)
          await until(() => hold.asked === 1, 'the update started at start-up asks for its first slice', guard)
        const syncing = call(core.handlers, 'syncNow', {})
        await until(() => statuses.some((status) => status.running), 'the run is announced', guard)
        // Held before a slice: the run has started and waits for the update.
        await until(() => hold.asked >= 1, 'a slice asks for its turn', guard)
        const waiting = await call(core.handlers, 'getSyncStatus')
        expect(waiting.ok && waiting.value).toMatchObject({
          running: true,
          waitingFor: 'catalogUpdate',
          progress: null,
        })
        expect(statuses.at(-1)).toMatchObject({ running: true, waitingFor: 'catalogUpdate' })

        hold.release()
        const report = await syncing
        expect(report.ok && report.value.ok).toBe(true)
        // Once the update was done the run said it syncs (no longer waits), before it synced anything.
        const after = statuses.slice(statuses.findIndex((status) => status.waitingFor === 'catalogUpdate'))
        expect(after.map((status) => [status.running, status.waitingFor])).toEqual([
          [true, 'catalogUpdate'],
          [true, null],
          [false, null],
        ])
        const done = await call(core.handlers, 'getSyncStatus')
        expect(done.ok && done.value).toMatchObject({ running: false, waitingFor: null })
        expect((await call(core.handlers, 'getCatalogUpdate')).ok).toBe(true)
        expect(core.sync.copy.catalogUpdateJobs().next()).toBeNull()
      } finally {
        hold.release()
        await core.close()
      }
    })
  }
})
