/**
 * The item indexes a first sync defers: dropped before its first page, their definitions kept in
 * deferred_indexes, built once, sorted, after its last catalog, with crash recovery and duplicate
 * repair. The one write of the local copy that changes the schema; LocalCopy only says when
 * (applyItemPage, finishBulk).
 */
import type { Database } from 'better-sqlite3'
import { catalogItemsTable, deferrableItemIndexes, withIndexBuildCache } from './catalog-items/sql'
import { storedCountPlace, type CatalogItemWrites } from './catalog-items/writes'

/** A first sync's deferred item indexes, and the few items it stores off their service ids meanwhile. */
export class DeferredItemIndexes {
  /**
   * While a first sync has the item indexes deferred (guid's among them): the local_id, by guid, of
   * each item not stored under its service id (local_id = id, rows.ts), so finding a row never scans
   * the table. Every other item is found at its id, so this holds the few exceptions (an id another
   * row held, an item without one), not an entry per item: a map of every guid held 85 MB of the
   * writer's memory at a million items. Null otherwise.
   */
  itemsOffTheirIds: Map<string, number> | null = null
  private readonly indexExists
  private readonly secondaryIndexes
  private readonly saveDeferred
  private readonly deferredIndexes
  private readonly forgetDeferred

  constructor(
    private readonly db: Database,
    private readonly items: CatalogItemWrites,
  ) {
    this.indexExists = db
      .prepare<[string], number>("SELECT 1 FROM sqlite_schema WHERE type = 'index' AND name = ?")
      .pluck()
    this.secondaryIndexes = db.prepare<[string], { name: string; sql: string }>(
      "SELECT name, sql FROM sqlite_schema WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL",
    )
    this.saveDeferred = db.prepare<[string, string]>(
      'INSERT OR REPLACE INTO deferred_indexes (name, sql) VALUES (?, ?)',
    )
    this.deferredIndexes = db.prepare<[], { name: string; sql: string }>(
      'SELECT name, sql FROM deferred_indexes ORDER BY name',
    )
    this.forgetDeferred = db.prepare<[string]>('DELETE FROM deferred_indexes WHERE name = ?')
  }

  /**
   * A first sync inserts a table's rows while its indexes would otherwise be updated row by row, in an
   * order that is random for each of them: measured, three such indexes halved the insert rate, and
   * the guid index alone cost a sixth of the writer's time. They are dropped for the first sync of
   * catalog_item_rows and built once, sorted, after the run's last catalog (build); meanwhile
   * LocalCopy finds items at their ids (findIndexed). Their definitions wait in deferred_indexes
   * (migration 10) so a crash or a lost network only postpones the rebuild: a later store that meets
   * them takes the deferral over and reads which items are off their ids from the table. A catalog
   * that is new to a laptop already holding items keeps the indexes (the window reads through them
   * meanwhile). The full-text index stays: items are searchable as their pages land.
   */
  defer(): void {
    if (this.itemsOffTheirIds) return
    if (this.deferredIndexes.all().length === 0 && this.items.anyRow()) return
    this.db
      .transaction(() => {
        for (const index of this.secondaryIndexes.all(catalogItemsTable.table)) {
          if (!deferrableItemIndexes.has(index.name)) continue
          this.saveDeferred.run(index.name, index.sql)
          this.db.exec(`DROP INDEX ${index.name}`)
        }
      })
      .immediate()
    this.itemsOffTheirIds = new Map(this.items.keysOffTheirIds())
  }

  /** Builds every index a first sync deferred (see defer); true when there were any. */
  build(): boolean {
    const waiting = this.deferredIndexes.all()
    this.itemsOffTheirIds = null
    if (waiting.length === 0) return false
    withIndexBuildCache(this.db, () => {
      // One transaction an index: another connection's write waits for one index's build (a few hundred
      // milliseconds at 100,000 items), not for all of them.
      for (const index of waiting) {
        this.db
          .transaction(() => {
            if (!this.indexExists.get(index.name)) this.buildDeferred(index.sql)
            this.forgetDeferred.run(index.name)
          })
          .immediate()
      }
    })
    return true
  }

  /**
   * One deferred index. The writer keeps guids unique (LocalCopy.findIndexed), but another connection may
   * have written an item meanwhile without knowing them (the order desk refreshing a draft's items
   * mid-sync): should the guid index find two rows of one guid, the newest version stays.
   */
  private buildDeferred(sql: string): void {
    try {
      this.db.exec(sql)
    } catch (error) {
      if ((error as { code?: unknown })?.code !== 'SQLITE_CONSTRAINT_UNIQUE' || !sql.includes('catalog_items_by_guid'))
        throw error
      this.removeDuplicateItems()
      this.db.exec(sql)
    }
  }

  private removeDuplicateItems(): void {
    const index = this.items.index
    const extra = this.items.duplicateKeys()
    try {
      for (const localId of extra) {
        const row = index.findByLocalId(localId)
        if (row) index.drop(row)
        if (row?.indexed) this.items.noteCounted(...storedCountPlace(row), -1)
        this.items.rows.remove.run(localId)
      }
      this.items.writeCounted()
    } finally {
      this.items.dropCounted()
    }
  }
}
