/**
 * The app on a laptop just upgraded past a large catalog: a schema 9 database (1,500 items, synced
 * from the double) opened by a core whose `largeCatalogItems` is lowered to 500, so its items wait for
 * the catalog update, behind the test bridge. The update's slices wait for the spec's `hold`, so it
 * can look at the app part-way through an update that would otherwise be over in a blink.
 */
import { createCore } from '../../src/main/core/compose'
import type { Core } from '../../src/main/core/types'
import { startBridge, type Bridge } from '../bridge/server'
import { schema9Laptop, UpdateHold, type Schema9Laptop } from '../support/upgraded-laptop'
import { rendererDir } from './harness'

export interface UpgradedLaptop {
  laptop: Schema9Laptop
  core: Core
  bridge: Bridge
  hold: UpdateHold
  /** How long the core took to open the database, migrate it and be ready to answer. */
  openedInMs: number
  close(): Promise<void>
}

export async function openUpgradedLaptop(): Promise<UpgradedLaptop> {
  const laptop = await schema9Laptop({ size: 1500, seed: 11 })
  const hold = new UpdateHold()
  const started = performance.now()
  const core = createCore({
    databasePath: laptop.path,
    appVersion: '0.1.0-e2e',
    largeCatalogItems: 500,
    beforeCatalogUpdateSlice: hold.beforeSlice,
    connectivity: {
      pollIntervalMs: 250,
      activeOnlineMs: 1_000,
      activeOfflineMs: 500,
      recheckOnlineMs: 1_000,
      recheckOfflineMs: 500,
    },
  })
  const openedInMs = performance.now() - started
  // The laptop was connected before its upgrade. Saved below the contract: saved through it, the
  // change starts a sync, and the spec starts the one it looks at itself.
  const { apiKey, apiSecret } = laptop.harness.service.credentials
  await core.connection.save({ baseUrl: laptop.harness.service.url, auth: { kind: 'apiKey', apiKey, apiSecret } })
  const bridge = await startBridge({ handlers: core.handlers, events: core.events, rendererDir })
  return {
    laptop,
    core,
    bridge,
    hold,
    openedInMs,
    async close() {
      // A slice held at close would hold the core's close with it.
      hold.release()
      await bridge.close()
      await core.close()
      await laptop.close()
    },
  }
}
