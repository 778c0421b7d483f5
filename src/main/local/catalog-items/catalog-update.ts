/**
 * The catalog update: the per-item work migrations 10 to 21 leave for later on a large catalog, a
 * slice at a time, with the migrations' own SQL; catalog-update-jobs.ts picks the job.
 */
import type { Database, Statement } from 'better-sqlite3'
import {
  itemSearchFill,
  itemsBefore10,
  leanItemColumns,
  leanItemsSelect,
} from '../../db/migrations/0010-lean-catalog-items'
import { itemsBefore13 } from '../../db/migrations/0013-item-guid-index'
import { familyColumnsFill, familyIndex } from '../../db/migrations/0017-item-families'
import { catalogKeysFill, itemFiltersFill } from '../../db/migrations/0020-catalog-item-filters'
import { keyedItemIndexes } from '../../db/migrations/0021-item-indexes-by-catalog-key'
import { catalogKeyOf, withIndexBuildCache } from './sql'

/** The items `i` of a fill's slice (CatalogItemUpdate.fillSlice): local_id after the first parameter, up to the second. */
const byRange = 'WHERE i.local_id > ? AND i.local_id <= ?'

/** The SQL of the key of the catalog that `alias`'s row names by guid. */
function keyOf(alias: string): string {
  return catalogKeyOf(`${alias}.catalog_guid`)
}

/**
 * The per-item work a migration leaves for later on a large catalog (local/catalog-update-jobs.ts orders
 * it), each call one slice in one short transaction, so the window's own writes (a draft, the
 * outbox) wait for one slice at most:
 *
 * - migration 10's copy: schema 9's rows, set aside as they were, become catalog_item_rows (with
 *   their family columns and full-text entries) in local_id order, and leave the table set aside in
 *   the same transaction, so what is left to copy is what that table still holds, whatever stopped
 *   the copy; migration 13's likewise, rows copied as they are;
 * - migration 17's family columns and their index, on a laptop whose catalog was already past the
 *   limit at that migration;
 * - migration 20's search filters of the items stored before it (those written since have theirs
 *   from its triggers);
 * - migration 21's catalog keys of the items stored before it, then its item indexes rebuilt on them.
 *
 * The SQL is the migrations' own (leanItemsSelect, itemSearchFill, familyColumnsFill, itemFiltersFill), so a large catalog ends up
 * with the rows, full-text entries and indexes a small one gets at start.
 */
export class CatalogItemUpdate {
  private readonly exists: Statement<[string, string], number>
  private copy: {
    from: string
    keys: Statement<[number]>
    keysOne: Statement<[number]>
    bounds: Statement<[number], { lo: number | null; hi: number | null }>
    insert: Statement<[number]>
    insertOne: Statement<[number]>
    needed: Statement<[], number>
    neededDone: boolean
    removeOne: Statement<[number]>
    families: Statement<[number, number]>
    search: Statement<[number, number]> | null
    remove: Statement<[number]>
  } | null = null
  private families: Statement<[number, number]> | null = null
  /** The statements of each fill by local_id (fillSlice), by the table that notes how far it got. */
  private readonly fills = new Map<
    string,
    {
      after: Statement<[], number>
      work: Statement<[number, number]>[]
      note: Statement<[number]>
      done: Statement<[]>
    }
  >()
  private ends: {
    until: Statement<[number, number], number | null>
    first: Statement<[], number | null>
    last: Statement<[], number | null>
  } | null = null

  constructor(private readonly db: Database) {
    this.exists = db
      .prepare<[string, string], number>('SELECT 1 FROM sqlite_schema WHERE type = ? AND name = ?')
      .pluck()
  }

  /** The table migration 10 or 13 set aside with rows still to copy, or null. */
  private setAside(): string | null {
    if (this.exists.get('table', itemsBefore10) !== undefined) return itemsBefore10
    if (this.exists.get('table', itemsBefore13) !== undefined) return itemsBefore13
    return null
  }

  /** Whether migration 10 or 13 left rows to copy. */
  rowsWaiting(): boolean {
    return this.setAside() !== null
  }

  /** Rows left to copy and rows already in catalog_item_rows: a count of each table, for the progress shown. */
  rowsCounts(): { waiting: number; stored: number } {
    const aside = this.setAside()
    const waiting = aside ? (this.db.prepare<[], number>(`SELECT count(*) FROM ${aside}`).pluck().get() ?? 0) : 0
    const stored = this.db.prepare<[], number>('SELECT count(*) FROM catalog_item_rows').pluck().get() ?? 0
    return { waiting, stored }
  }

  /**
   * Copies the next `rows` rows set aside by migration 10 (made lean, with their full-text entries)
   * or 13 (as they were: their full-text entries, keyed by local_id, stayed); returns how many it
   * copied, 0 once none is left (the emptied table is then dropped).
   */
  copyRows(rows: number): number {
    const aside = this.setAside()
    if (!aside) return 0
    if (this.copy?.from !== aside) {
      const columns = this.db
        .prepare<[], string>(`SELECT name FROM pragma_table_info('${aside}')`)
        .pluck()
        .all()
        .join(', ')
      this.copy = {
        from: aside,
        bounds: this.db.prepare(
          `SELECT min(local_id) AS lo, max(local_id) AS hi FROM (SELECT local_id FROM ${aside} ORDER BY local_id LIMIT ?)`,
        ),
        // With the catalog's key (migration 21), given to each catalog of the slice first, so no row is
        // written twice to get it.
        keys: this.db.prepare(
          `INSERT OR IGNORE INTO catalog_keys (catalog_guid) SELECT DISTINCT catalog_guid FROM ${aside} WHERE local_id <= ?`,
        ),
        keysOne: this.db.prepare(
          `INSERT OR IGNORE INTO catalog_keys (catalog_guid) SELECT catalog_guid FROM ${aside} WHERE local_id = ?`,
        ),
        insert: this.db.prepare(
          aside === itemsBefore10
            ? `INSERT INTO catalog_item_rows (${leanItemColumns}, catalog_key) SELECT lean.*, ${keyOf('lean')} FROM (${leanItemsSelect(aside, 'WHERE i.local_id <= ?')}) AS lean`
            : `INSERT INTO catalog_item_rows (${columns}, catalog_key) SELECT ${columns}, ${keyOf(aside)} FROM ${aside} WHERE local_id <= ?`,
        ),
        insertOne: this.db.prepare(
          aside === itemsBefore10
            ? `INSERT INTO catalog_item_rows (${leanItemColumns}, catalog_key) SELECT lean.*, ${keyOf('lean')} FROM (${leanItemsSelect(aside, 'WHERE i.local_id = ?')}) AS lean`
            : `INSERT INTO catalog_item_rows (${columns}, catalog_key) SELECT ${columns}, ${keyOf(aside)} FROM ${aside} WHERE local_id = ?`,
        ),
        needed: this.db
          .prepare<[], number>(
            `SELECT local_id FROM ${aside} WHERE guid IN (SELECT guid FROM retained_refs WHERE kind = 'catalogItem')`,
          )
          .pluck(),
        neededDone: false,
        removeOne: this.db.prepare(`DELETE FROM ${aside} WHERE local_id = ?`),
        families: this.db.prepare(familyColumnsFill('AND local_id BETWEEN ? AND ?')),
        search: aside === itemsBefore10 ? this.db.prepare(itemSearchFill('AND local_id BETWEEN ? AND ?')) : null,
        remove: this.db.prepare(`DELETE FROM ${aside} WHERE local_id <= ?`),
      }
    }
    const copy = this.copy
    return this.db
      .transaction(() => {
        // First the items drafts, quotes and the outbox name (retained_refs, local/retention.ts), so
        // checking and sending a draft finds them while the rest is copied.
        if (!copy.neededDone) {
          copy.neededDone = true
          let copied = 0
          for (const localId of copy.needed.all()) {
            copy.keysOne.run(localId)
            copied += copy.insertOne.run(localId).changes
            copy.families.run(localId, localId)
            copy.search?.run(localId, localId)
            copy.removeOne.run(localId)
          }
          if (copied > 0) return copied
        }
        const { lo, hi } = copy.bounds.get(rows) ?? { lo: null, hi: null }
        if (lo === null || hi === null) {
          this.copy = null
          this.db.exec(`DROP TABLE ${aside}`)
          return 0
        }
        copy.keys.run(hi)
        const copied = copy.insert.run(hi).changes
        copy.families.run(lo, hi)
        copy.search?.run(lo, hi)
        copy.remove.run(hi)
        return copied
      })
      .immediate()
  }

  /**
   * Whether migration 17 left the family columns of stored rows empty and their index unbuilt (the
   * catalog was past the limit then). A first sync defers other indexes, never this one.
   */
  familiesWaiting(): boolean {
    return (
      this.exists.get('index', 'catalog_items_by_family') === undefined &&
      this.exists.get('table', 'catalog_item_rows') !== undefined
    )
  }

  /** The last local_id of catalog_item_rows: where the family fill ends. */
  lastLocalId(): number {
    return this.db.prepare<[], number | null>('SELECT max(local_id) FROM catalog_item_rows').pluck().get() ?? 0
  }

  /** Whether migration 20 left the filter rows of stored items to fill (a row of catalog_item_filters_fill says how far it got). */
  filtersWaiting(): boolean {
    return (
      this.exists.get('table', 'catalog_item_filters_fill') !== undefined &&
      this.db.prepare('SELECT 1 FROM catalog_item_filters_fill').get() !== undefined
    )
  }

  /**
   * Derives the filter rows of the next `rows` items by local_id, after those filled already, and
   * notes how far it got in the same transaction, so a restart goes on from there; the last slice
   * takes the note away, which puts searches on the filter table. Items written meanwhile have
   * theirs from the triggers. Returns the local_id reached and the first and last stored, for the
   * progress shown; null when nothing was left to fill.
   */
  fillFilters(rows: number): { reached: number; first: number; last: number } | null {
    return this.fillSlice(
      'catalog_item_filters_fill',
      [catalogKeysFill('', byRange), itemFiltersFill('', byRange)],
      rows,
    )
  }

  /**
   * One slice of a fill that goes through the items by local_id: `work` (SQL over the range, `?` and
   * `?`) on the next `rows` items after where `table`'s one row says it has got, and that note moved
   * on, or taken away by the last slice, in the same transaction, so a restart goes on from there.
   * Returns the local_id reached and the first and last stored, for the progress shown; null when
   * nothing was left to fill.
   */
  private fillSlice(
    table: string,
    work: string[],
    rows: number,
  ): { reached: number; first: number; last: number } | null {
    const ends = (this.ends ??= {
      until: this.db
        .prepare<[number, number], number | null>(
          'SELECT max(local_id) FROM (SELECT local_id FROM catalog_item_rows WHERE local_id > ? ORDER BY local_id LIMIT ?)',
        )
        .pluck(),
      first: this.db.prepare<[], number | null>('SELECT min(local_id) FROM catalog_item_rows').pluck(),
      last: this.db.prepare<[], number | null>('SELECT max(local_id) FROM catalog_item_rows').pluck(),
    })
    let fill = this.fills.get(table)
    if (!fill) {
      fill = {
        after: this.db.prepare<[], number>(`SELECT filled_until FROM ${table} LIMIT 1`).pluck(),
        work: work.map((sql) => this.db.prepare<[number, number]>(sql)),
        note: this.db.prepare<[number]>(`UPDATE ${table} SET filled_until = ?`),
        done: this.db.prepare(`DELETE FROM ${table}`),
      }
      this.fills.set(table, fill)
    }
    const { after, note, done } = fill
    const statements = fill.work
    return this.db
      .transaction(() => {
        const reachedBefore = after.get()
        if (reachedBefore === undefined) return null
        const until = ends.until.get(reachedBefore, rows) ?? null
        const first = ends.first.get() ?? 0
        const last = ends.last.get() ?? 0
        if (until !== null) for (const statement of statements) statement.run(reachedBefore, until)
        if (until === null || until >= last) done.run()
        else note.run(until)
        return { reached: until ?? last, first, last }
      })
      .immediate()
  }

  /**
   * Whether migration 21 left work: the catalog keys of rows stored before it to fill
   * (catalog_item_keys_fill), or an item index still headed by the guid. One a first sync deferred
   * meanwhile (DeferredItemIndexes.defer) is met once that sync has built it again.
   */
  keysWaiting(): boolean {
    return this.keysFillNote() !== undefined || this.guidHeadedIndex() !== null
  }

  private keysFillNote(): number | undefined {
    if (this.exists.get('table', 'catalog_item_keys_fill') === undefined) return undefined
    return this.db.prepare<[], number>('SELECT filled_until FROM catalog_item_keys_fill LIMIT 1').pluck().get()
  }

  /** An item index the catalog heads still by its guid, or null. */
  private guidHeadedIndex(): string | null {
    const definitions = this.db
      .prepare<[], { name: string; sql: string }>(
        "SELECT name, sql FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'catalog_item_rows' ORDER BY name",
      )
      .all()
    return (
      definitions.find((definition) => definition.name in keyedItemIndexes && / \(catalog_guid\b/.test(definition.sql))
        ?.name ?? null
    )
  }

  /**
   * Gives the catalog's key to the next `rows` items by local_id (their rows grow by a byte or two),
   * noting how far it got in the same transaction; the last slice takes the note away. Returns as
   * fillFilters does; null when nothing was left to fill.
   */
  fillKeys(rows: number): { reached: number; first: number; last: number } | null {
    // Rows the copy of migration 10 or 13 wrote have theirs: read, not written again.
    const keys = `UPDATE catalog_item_rows SET catalog_key = ${keyOf('catalog_item_rows')} WHERE local_id > ? AND local_id <= ? AND catalog_key IS NULL`
    return this.fillSlice('catalog_item_keys_fill', [catalogKeysFill('', byRange), keys], rows)
  }

  /**
   * Rebuilds one item index still headed by the guid on the catalog's key, once every row has its key:
   * one transaction, which the window's own writes wait for (an index's build: about a second at a
   * million items). Every query asks how the index it walks stands (ItemIndexLayout), so each goes
   * on the new one from the commit. Returns its name, or null when none was left.
   */
  rekeyIndex(): string | null {
    if (this.keysFillNote() !== undefined) return null
    const index = this.guidHeadedIndex()
    if (!index) return null
    withIndexBuildCache(this.db, () =>
      this.db
        .transaction(() => {
          this.db.exec(`DROP INDEX ${index}`)
          this.db.exec(keyedItemIndexes[index]!)
        })
        .immediate(),
    )
    return index
  }

  /** Fills the family columns of rows with local_id in (after, until]; `last` builds the index in the same transaction. */
  fillFamilies(after: number, until: number, last: boolean, alsoRecord: () => void): void {
    const families = (this.families ??= this.db.prepare(familyColumnsFill('AND local_id > ? AND local_id <= ?')))
    this.db
      .transaction(() => {
        families.run(after, until)
        if (last) {
          this.db.exec(familyIndex)
          // Kept counts took members filled here for plain items; the catalog update counts them again.
          this.db.exec('DELETE FROM catalog_item_counts')
        }
        alsoRecord()
      })
      .immediate()
  }
}
