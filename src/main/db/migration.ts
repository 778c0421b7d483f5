import type { Database } from 'better-sqlite3'

/**
 * One schema version. Its own module, so each file under migrations/ can name its type without
 * importing the list that imports them all.
 */
export interface Migration {
  version: number
  name: string
  up(db: Database, options?: MigrationOptions): void
}

export interface MigrationOptions {
  /**
   * From how many catalog items a migration that would read or rewrite each of them leaves that work
   * to the catalog upkeep instead (local/catalog-upkeep.ts), so the app opens at once. Lowered by tests.
   */
  largeCatalogItems: number
}

/**
 * 10,000 items: a migration that reads or rewrites every item runs at start only below it. Migration
 * 10 alone held start 9.2 s at 100,000 items (bench:sync, 27 November), so a limit of 200,000 left
 * a mid-size laptop waiting; at 10,000 the whole chain stays near a second, and past it the catalog
 * update does the per-item work after the window is up.
 */
export const defaultLargeCatalogItems = 10_000
