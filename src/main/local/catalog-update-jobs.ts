/**
 * Catalog work a migration left for later. A migration that would read or rewrite every catalog item
 * of a large catalog (past MigrationOptions.largeCatalogItems) does only what touches no item at start
 * and leaves the rest here, so the app opens at once and drafts, the outbox and sending work while it
 * is done. The jobs are told by the schema itself, not by a list that could disagree with it: a table
 * migration 10 or 13 set aside (job 'leanItems', the rows copied), an index migration 17 could not
 * build ('families'), the note of how far migration 20's search filters are filled ('filters'), the
 * note of migration 21's catalog keys or an item index still on the guid ('itemKeys'), a catalog whose
 * items are not counted yet (migration 18, 'counts'). So a laptop already upgraded by a version before
 * this one, or one that crashed or quit mid-job, is picked up where it is.
 *
 * It runs on the sync writer's thread (sync/catalog-update.ts), one slice per call, each slice one short
 * transaction; sync waits for it, since it writes the same rows.
 */
import type { Database } from 'better-sqlite3'
import { SettingsTable } from '../db/settings'
import { CatalogItemUpdate } from './catalog-items/catalog-update'
import { CatalogItemWrites } from './catalog-items/writes'
import { CatalogWrites as CatalogListWrites } from './catalogs'

export type CatalogUpdateJob = 'leanItems' | 'families' | 'filters' | 'itemKeys' | 'counts'

export interface CatalogUpdateProgress {
  /** The job under way, or null when none is left. */
  job: CatalogUpdateJob | null
  /** Of the items the job goes through: done so far, and in all. */
  done: number
  total: number
  /** Whether every catalog item is browsable meanwhile (not while migration 10's copy runs). */
  itemsBrowsable: boolean
}

/**
 * Where the family fill has got to, so a restart goes on from there (settings: one JSON value per key).
 * The key keeps the update's old name, "upkeep": it is stored on laptops, and a new name would lose it.
 */
const familiesAfterKey = 'catalogUpkeep.familiesAfter'

/**
 * How long one slice holds the write lock, aimed at: the window's own write (a draft saved) waits at
 * most about this long. The row count of the next slice follows from the last one's rate.
 */
const sliceTargetMs = 30
/** Rows the family fill looks at per slice by default: a json_extract each, far cheaper than a copy. */
const defaultFamilySpan = 20_000
/**
 * Items whose filter rows one slice derives by default: 15 ms at the median at a million items, 1.3 s
 * in all (a slice whose item rows are not in the page cache takes longer: 350 ms once, of 67).
 */
const defaultFilterSpan = 15_000
/** Items given their catalog's key per slice by default: each row rewritten, so fewer than the filters'. */
const defaultKeySpan = 5_000

export class CatalogUpdateJobs {
  private readonly items: CatalogItemUpdate
  private readonly writes: CatalogItemWrites
  private readonly catalogs: CatalogListWrites
  private readonly settings: SettingsTable
  private rowsPerSlice = 200
  private copyTotals: { total: number; done: number } | null = null

  private readonly familySpan: number
  private readonly filterSpan: number
  private readonly keySpan: number
  private keysRebuilt = 0

  constructor(db: Database, options: { familySpan?: number; filterSpan?: number; keySpan?: number } = {}) {
    this.familySpan = options.familySpan ?? defaultFamilySpan
    this.filterSpan = options.filterSpan ?? defaultFilterSpan
    this.keySpan = options.keySpan ?? defaultKeySpan
    this.items = new CatalogItemUpdate(db)
    this.writes = new CatalogItemWrites(db)
    this.catalogs = new CatalogListWrites(db)
    this.settings = new SettingsTable(db)
  }

  /** The first job left, by cheap schema reads: nothing on this laptop's catalog is counted. */
  next(): CatalogUpdateJob | null {
    if (this.items.rowsWaiting()) return 'leanItems'
    if (this.items.familiesWaiting()) return 'families'
    // After the copy and the family fill, whose writes the triggers would otherwise carry to rows filled already.
    if (this.items.filtersWaiting()) return 'filters'
    if (this.items.keysWaiting()) return 'itemKeys'
    if (this.writes.uncounted(this.catalogs.liveCatalogGuids()).length > 0) return 'counts'
    return null
  }

  /** One slice of the first job left, and where the jobs stand after it. */
  slice(): CatalogUpdateProgress {
    const job = this.next()
    switch (job) {
      case 'leanItems':
        return this.copySlice()
      case 'families':
        return this.familySlice()
      case 'filters':
        return this.filterSlice()
      case 'itemKeys':
        return this.keySlice()
      case 'counts': {
        const live = this.catalogs.liveCatalogGuids()
        const uncounted = this.writes.uncounted(live)
        this.writes.recount(uncounted, live)
        return this.progressAfter('counts', uncounted.length, uncounted.length)
      }
      case null:
        return { job: null, done: 0, total: 0, itemsBrowsable: true }
    }
  }

  private copySlice(): CatalogUpdateProgress {
    if (!this.copyTotals) {
      const { waiting, stored } = this.items.rowsCounts()
      this.copyTotals = { total: waiting + stored, done: stored }
    }
    const started = performance.now()
    const copied = this.items.copyRows(this.rowsPerSlice)
    const elapsed = performance.now() - started
    if (copied > 0) {
      this.copyTotals.done += copied
      // Towards sliceTargetMs, by at most half or double at a time (the first slices warm the cache).
      const scaled = Math.round((this.rowsPerSlice * sliceTargetMs) / Math.max(elapsed, 1))
      this.rowsPerSlice = Math.min(
        5_000,
        Math.max(20, Math.min(this.rowsPerSlice * 2, Math.max(Math.round(this.rowsPerSlice / 2), scaled))),
      )
      return { job: 'leanItems', done: this.copyTotals.done, total: this.copyTotals.total, itemsBrowsable: false }
    }
    const { total } = this.copyTotals
    this.copyTotals = null
    return this.progressAfter('leanItems', total, total)
  }

  private familySlice(): CatalogUpdateProgress {
    const kept = this.settings.get(familiesAfterKey)
    const after = typeof kept === 'number' ? kept : 0
    const last = this.items.lastLocalId()
    const until = after + this.familySpan
    const done = until >= last
    this.items.fillFamilies(after, until, done, () =>
      done ? this.settings.delete(familiesAfterKey) : this.settings.set(familiesAfterKey, until),
    )
    const reached = Math.min(until, last)
    return done
      ? this.progressAfter('families', last, last)
      : { job: 'families', done: reached, total: Math.max(last, 1), itemsBrowsable: true }
  }

  private filterSlice(): CatalogUpdateProgress {
    const filled = this.items.fillFilters(this.filterSpan)
    if (filled === null || !this.items.filtersWaiting()) {
      const total = filled ? Math.max(filled.last - filled.first, 1) : 1
      return this.progressAfter('filters', total, total)
    }
    return {
      job: 'filters',
      done: filled.reached - filled.first,
      total: Math.max(filled.last - filled.first, 1),
      itemsBrowsable: true,
    }
  }

  /**
   * The keys filled are the first 80 % of the job shown, each index rebuilt on them 5 % more (four of
   * them): a rebuild takes about as long as a tenth of the fill.
   */
  private keySlice(): CatalogUpdateProgress {
    const filled = this.items.fillKeys(this.keySpan)
    if (filled !== null) {
      const span = Math.max(filled.last - filled.first, 1)
      return {
        job: 'itemKeys',
        done: Math.round(((filled.reached - filled.first) / span) * 80),
        total: 100,
        itemsBrowsable: true,
      }
    }
    const rebuilt = this.items.rekeyIndex()
    if (rebuilt === null || !this.items.keysWaiting()) return this.progressAfter('itemKeys', 100, 100)
    this.keysRebuilt++
    return { job: 'itemKeys', done: Math.min(99, 80 + 5 * this.keysRebuilt), total: 100, itemsBrowsable: true }
  }

  /** A job just finished: the next one, if any, is named with nothing of it done yet. */
  private progressAfter(finished: CatalogUpdateJob, done: number, total: number): CatalogUpdateProgress {
    const next = this.next()
    if (next === null) return { job: null, done, total, itemsBrowsable: true }
    return { job: next === finished ? finished : next, done: 0, total: 1, itemsBrowsable: next !== 'leanItems' }
  }
}
