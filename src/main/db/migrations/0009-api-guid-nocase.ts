import type { Migration } from '../migration'

export const migration: Migration = {
  version: 9,
  name: 'api_guid unique regardless of case',
  up(db) {
    // An api_guid is a UUID, so two keys differing only in case are one order. New keys are stored
    // in lower case (src/main/orders/desk.ts); this index makes the database refuse a second entry
    // for the same key in other capitals. A laptop whose outbox already holds two such entries (from
    // before) cannot take the index: the statement fails alone, the upgrade goes on without it, and
    // the outbox's case-insensitive check before each insert is what refuses a third.
    try {
      db.exec(`CREATE UNIQUE INDEX outbox_api_guid_nocase ON outbox (lower(api_guid))`)
    } catch {
      // Existing entries differ only in case: see above.
    }
  },
}
