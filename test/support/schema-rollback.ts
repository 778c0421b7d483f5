/**
 * Takes a database written by this version back to what an earlier schema left, for tests of the
 * upgrade from it: each function removes what one migration added, newest first, so that migration
 * runs again on the next open as on a laptop still at the version before it. The rows stay.
 */
import type { Database } from 'better-sqlite3'
import { guidItemIndexes } from '../../src/main/db/migrations/0021-item-indexes-by-catalog-key'

/** Migration 21: the item indexes on the guid again, and no catalog_key column. */
export function undoItemIndexesByCatalogKey(db: Database): void {
  db.exec('DROP TRIGGER IF EXISTS catalog_item_key_insert; DROP TRIGGER IF EXISTS catalog_item_key_update')
  for (const [name, sql] of Object.entries(guidItemIndexes)) {
    db.exec(`DROP INDEX IF EXISTS ${name}`)
    db.exec(sql)
  }
  db.exec('DROP TABLE IF EXISTS catalog_item_keys_fill')
  db.exec('ALTER TABLE catalog_item_rows DROP COLUMN catalog_key')
}

/** Migration 20: no search filters, catalog keys or their triggers. */
export function undoCatalogItemFilters(db: Database): void {
  for (const trigger of [
    'catalog_keys_insert',
    'catalog_keys_update',
    'catalog_item_filters_insert',
    'catalog_item_filters_update',
    'catalog_item_filters_delete',
  ]) {
    db.exec(`DROP TRIGGER IF EXISTS ${trigger}`)
  }
  db.exec(
    'DROP TABLE IF EXISTS catalog_item_filters; DROP TABLE IF EXISTS catalog_item_filters_fill; DROP TABLE IF EXISTS catalog_keys',
  )
}
