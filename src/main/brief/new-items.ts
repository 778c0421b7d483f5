/**
 * "New since their last order": how many items of a catalog the service created after a moment. The
 * items keep created_at inside their record, so counting them is a read of every row of the catalog
 * (90-250 ms at 100,000 items, too slow for a brief that opens in 150 ms). Each catalog's creation
 * times are kept here instead, sorted, 4 bytes an item (4 MB at a million), read a slice per turn of
 * the event loop so the window never waits on the whole, and read again after each sync.
 */
import type { CatalogItems } from '../local/catalog-items/reads'
import { parseServerTime } from '../local/time'
import { Turns } from '../turns'

/** Rows read per turn: a few milliseconds. */
const sliceRows = 5000

export class NewItemCounts {
  private times: Map<string, Uint32Array> | null = null
  private building: Promise<void> | null = null
  /** Moves on when the items change: a build started before is not kept. */
  private generation = 0
  private readonly turns = new Turns()

  constructor(private readonly items: CatalogItems) {}

  /**
   * The items changed (a sync): read again, at once where a brief has been opened since the app
   * started (the next one should not wait), else when one is.
   */
  itemsChanged(): void {
    const used = this.times !== null || this.building !== null
    this.generation += 1
    this.times = null
    this.building = null
    if (used) void this.ready().catch(() => undefined)
  }

  /** Reads the creation times, if not held, a slice per turn (again, when the items change meanwhile). */
  async ready(): Promise<void> {
    while (!this.times) {
      this.building ??= this.build()
      await this.building
    }
  }

  /** Items of the catalog created after `sinceIso`: from what ready() read (0 before it). */
  countSince(catalogGuid: string, sinceIso: string): number {
    const since = parseServerTime(sinceIso)
    const sorted = this.times?.get(catalogGuid)
    if (since === null || !sorted) return 0
    const seconds = Math.floor(since / 1000)
    let low = 0
    let high = sorted.length
    while (low < high) {
      const middle = (low + high) >>> 1
      if (sorted[middle]! <= seconds) low = middle + 1
      else high = middle
    }
    return sorted.length - low
  }

  private async build(): Promise<void> {
    const generation = this.generation
    const byCatalog = new Map<string, number[]>()
    let after = 0
    for (;;) {
      await this.turns.next()
      if (generation !== this.generation) return
      const rows = this.items.createdTimes(after, sliceRows)
      for (const row of rows) {
        const created = typeof row.created_at === 'string' ? parseServerTime(row.created_at) : null
        if (created !== null) {
          let list = byCatalog.get(row.catalog_guid)
          if (!list) byCatalog.set(row.catalog_guid, (list = []))
          list.push(Math.floor(created / 1000))
        }
      }
      if (rows.length < sliceRows) break
      after = rows[rows.length - 1]!.local_id
    }
    if (generation === this.generation)
      this.times = new Map([...byCatalog].map(([catalog, list]) => [catalog, Uint32Array.from(list).sort()]))
  }
}
