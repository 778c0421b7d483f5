/**
 * A laptop's database as schema 9 left it, synced from the ordering-service double, and a hold on the
 * catalog update: opened with `largeCatalogItems` below its item count, the items wait for the catalog
 * update (local/catalog-update-jobs.ts) as after the upgrade of a large catalog. For the tests that look at
 * the app while the update runs (the sync's status, the catalog screen's notice): the update on a
 * catalog small enough to build in seconds is over in a blink, so the test lets its slices through
 * one at a time.
 */
import { closeDatabase } from '../../src/main/db/database'
import { startHarness, type Harness } from '../integration/sync-support'
import { schema9Database, serviceItems } from '../integration/schema9-support'

export interface Schema9Laptop {
  /** The synced store the schema 9 file was written from, and the double it was synced from. */
  harness: Harness
  /** The schema 9 file, in the harness's folder (removed by close). */
  path: string
  /** The catalogs by the order their items were written in, which is the order the update copies them in. */
  catalogGuids: string[]
  close(): Promise<void>
}

export async function schema9Laptop(options: { size: number; seed?: number }): Promise<Schema9Laptop> {
  const harness = await startHarness({ size: options.size, seed: options.seed ?? 7, pageSize: 100 })
  try {
    const report = await harness.sync()
    if (!report.ok) throw new Error(`the sync the schema 9 file is written from failed: ${report.error?.message}`)
    const items = await serviceItems(harness)
    const listingId = harness.db.prepare<[], number>('SELECT max(id) FROM sync_listings').pluck().get()!
    const path = harness.db.name.replace(/satchel\.db$/, 'schema9.db')
    closeDatabase(schema9Database(path, harness.db, items, listingId))
    return { harness, path, catalogGuids: [...items.keys()], close: () => harness.close() }
  } catch (error) {
    await harness.close()
    throw error
  }
}

/**
 * Given to the core as `beforeCatalogUpdateSlice`: each slice of the catalog update waits for a turn.
 * `let(n)` lets n slices through; `release()` lets every one through from then on (before the core is
 * closed, or its close waits on a slice that never comes).
 */
export class UpdateHold {
  private turns = 0
  private released = false
  private readonly waiting: (() => void)[] = []
  /** Slices that have asked for a turn so far. */
  asked = 0

  readonly beforeSlice = (): Promise<void> => {
    this.asked++
    if (this.released) return Promise.resolve()
    if (this.turns > 0) {
      this.turns--
      return Promise.resolve()
    }
    return new Promise((resolve) => this.waiting.push(resolve))
  }

  let(slices = 1): void {
    for (let i = 0; i < slices; i++) {
      const next = this.waiting.shift()
      if (next) next()
      else this.turns++
    }
  }

  release(): void {
    this.released = true
    for (const next of this.waiting.splice(0)) next()
  }
}
