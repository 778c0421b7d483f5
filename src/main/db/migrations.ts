import type { Database } from 'better-sqlite3'

export interface Migration {
  version: number
  name: string
  up(db: Database): void
}

/**
 * Numbered, append-only: a released migration is never edited, because laptops in the field already
 * ran it. The database's PRAGMA user_version is the number of the last one applied.
 */
export const migrations: Migration[] = [
  {
    version: 1,
    name: 'settings',
    up(db) {
      db.exec(`
        CREATE TABLE settings (
          key TEXT PRIMARY KEY,
          value TEXT NOT NULL
        ) STRICT;
      `)
    },
  },
]
