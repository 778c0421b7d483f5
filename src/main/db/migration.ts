import type { Database } from 'better-sqlite3'

/**
 * One schema version. Its own module, so each file under migrations/ can name its type without
 * importing the list that imports them all.
 */
export interface Migration {
  version: number
  name: string
  up(db: Database): void
}
