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

/** 200,000 items: at 100,000 a schema 9 laptop's whole upgrade took about 7 s; past that, start-up would wait longer. */
export const defaultLargeCatalogItems = 200_000
