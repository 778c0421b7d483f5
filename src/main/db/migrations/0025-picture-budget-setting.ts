import type { Migration } from '../migration'

export const migration: Migration = {
  version: 25,
  name: 'the picture budget setting named as the rest of the pictures',
  up(db) {
    // The setting was `imageBudgetMB` while the code said "images" and "pictures" for one thing; the
    // rep's budget is kept under its new name, and a value set under both (impossible through the
    // app) keeps the newer name's.
    db.exec(`
      INSERT INTO settings (key, value)
        SELECT 'pictureBudgetMB', value FROM settings WHERE key = 'imageBudgetMB'
        ON CONFLICT(key) DO NOTHING;
      DELETE FROM settings WHERE key = 'imageBudgetMB';
    `)
  },
}
