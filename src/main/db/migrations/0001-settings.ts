import type { Migration } from '../migration'

export const migration: Migration = {
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
}
