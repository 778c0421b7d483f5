import type { Database } from './database'
import { SettingsTable } from './settings'

/** What a purge removed, and the space it freed inside the database file. */
export interface PurgeRecord {
  at: string
  sentOrders: number
  quotes: number
  bytesFreed: number
}

const lastPurgeKey = 'lastPurge'

/**
 * The file's size as SQLite counts it (pages × page size), and the part of it on the free list.
 * Deleted rows free pages for reuse rather than shrinking the file: without auto-vacuum, giving the
 * space back to the disk takes a VACUUM, which rewrites the whole file and would hold the app.
 */
export function databaseSize(db: Database): { sizeBytes: number; freeBytes: number } {
  const pageSize = db.pragma('page_size', { simple: true }) as number
  const pages = db.pragma('page_count', { simple: true }) as number
  const free = db.pragma('freelist_count', { simple: true }) as number
  return { sizeBytes: pages * pageSize, freeBytes: free * pageSize }
}

export function lastPurge(db: Database): PurgeRecord | null {
  return (new SettingsTable(db).get(lastPurgeKey) as PurgeRecord | undefined) ?? null
}

export function recordPurge(db: Database, record: PurgeRecord): void {
  new SettingsTable(db).set(lastPurgeKey, record)
}
