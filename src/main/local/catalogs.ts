/**
 * The catalogs and categories tables' one home: how sync writes them and every read of them (the
 * catalog list, the order checks' catalogs, the category tree, a catalog's name for messages).
 */
import type { Database, Statement } from 'better-sqlite3'
import { prepareTableStatements, upsertGuard, type SyncedTable } from './synced-table'

export const catalogsTable = {
  table: 'catalogs',
  kind: 'catalog',
  scopeColumn: null,
  retainable: true,
} as const satisfies SyncedTable
export const categoriesTable = {
  table: 'categories',
  kind: null,
  scopeColumn: 'catalog_guid',
  retainable: false,
} as const satisfies SyncedTable

/** What sync writes of catalogs and their categories. */
export class CatalogWrites {
  readonly upsertCatalog: Statement
  readonly upsertCategory: Statement
  readonly catalogRows
  readonly categoryRows
  private readonly guidById
  private readonly markCategoryListed
  private readonly deleteCategoriesOf
  private readonly liveCatalogs

  constructor(db: Database) {
    this.upsertCatalog = db.prepare(`
      INSERT INTO catalogs (guid, id, name, active, version, updated_at, deleted_at, unlisted_at, listed_run, json)
      VALUES (@guid, @id, @name, @active, @version, @updated_at, @deleted_at, NULL, @listed_run, @json)
      ON CONFLICT (guid) DO UPDATE SET id = excluded.id, name = excluded.name, active = excluded.active,
        version = excluded.version, updated_at = excluded.updated_at, deleted_at = excluded.deleted_at, unlisted_at = NULL,
        listed_run = coalesce(excluded.listed_run, catalogs.listed_run), json = excluded.json
      ${upsertGuard('catalogs')}`)
    this.upsertCategory = db.prepare(`
      INSERT INTO categories (catalog_guid, id, guid, parent_id, name, sequence, hidden, version, deleted_at, listed_run, json)
      VALUES (@catalog_guid, @id, @guid, @parent_id, @name, @sequence, @hidden, @version, @deleted_at, @listed_run, @json)
      ON CONFLICT (catalog_guid, id) DO UPDATE SET guid = excluded.guid, parent_id = excluded.parent_id, name = excluded.name,
        sequence = excluded.sequence, hidden = excluded.hidden, version = excluded.version, deleted_at = excluded.deleted_at,
        listed_run = coalesce(excluded.listed_run, categories.listed_run), json = excluded.json
      ${upsertGuard('categories')}`)
    this.catalogRows = prepareTableStatements(db, catalogsTable)
    this.categoryRows = prepareTableStatements(db, categoriesTable)
    this.guidById = db.prepare<[number], string>('SELECT guid FROM catalogs WHERE id = ?').pluck()
    this.markCategoryListed = db.prepare<[number, string, number]>(
      'UPDATE categories SET listed_run = ? WHERE catalog_guid = ? AND id = ?',
    )
    this.deleteCategoriesOf = db.prepare<[string]>('DELETE FROM categories WHERE catalog_guid = ?')
    this.liveCatalogs = db
      .prepare<[], string>(
        'SELECT guid FROM catalogs WHERE deleted_at IS NULL AND unlisted_at IS NULL ORDER BY name, guid',
      )
      .pluck()
  }

  /** The local guid of a catalog by the service's id, for orders that carry only the id. */
  guidOf(id: number): string | null {
    return this.guidById.get(id) ?? null
  }

  /** A category the listing saw whose local copy stays as it is. */
  markCategorySeen(listingId: number, catalogGuid: string, categoryId: number): void {
    this.markCategoryListed.run(listingId, catalogGuid, categoryId)
  }

  removeCategoriesOf(catalogGuid: string): void {
    this.deleteCategoriesOf.run(catalogGuid)
  }

  liveCatalogGuids(): string[] {
    return this.liveCatalogs.all()
  }
}

const live = 'deleted_at IS NULL AND unlisted_at IS NULL'

interface CategoryRow {
  id: number
  guid: string | null
  parent_id: number | null
  name: string
  sequence: number | null
  hidden: number
}

/** Every read of catalogs and categories. */
export class Catalogs {
  private readonly statements

  constructor(db: Database) {
    this.statements = {
      live: db.prepare<[], { guid: string; id: number | null; name: string; active: number }>(
        `SELECT guid, id, name, active FROM catalogs WHERE ${live} ORDER BY name COLLATE NOCASE, guid`,
      ),
      liveById: db.prepare<[number], string>(`SELECT guid FROM catalogs WHERE id = ? AND ${live}`).pluck(),
      orderable: db.prepare<[], { guid: string; id: number | null }>(
        'SELECT guid, id FROM catalogs WHERE deleted_at IS NULL AND unlisted_at IS NULL AND active = 1',
      ),
      forNewCustomers: db
        .prepare<[], string>(
          'SELECT guid FROM catalogs WHERE deleted_at IS NULL AND unlisted_at IS NULL AND active = 1 ORDER BY id IS NULL, id, guid LIMIT 1',
        )
        .pluck(),
      nameOf: db.prepare<[string], string>('SELECT name FROM catalogs WHERE guid = ?').pluck(),
      idOf: db.prepare<[string], number | null>('SELECT id FROM catalogs WHERE guid = ?').pluck(),
      countLive: db.prepare<[], number>(`SELECT count(*) FROM catalogs WHERE ${live}`).pluck(),
      categoriesOf: db.prepare<[string], CategoryRow>(
        'SELECT id, guid, parent_id, name, sequence, hidden FROM categories WHERE catalog_guid = ? AND deleted_at IS NULL ORDER BY sequence, name COLLATE NOCASE',
      ),
      categoryTree: db
        .prepare<[string, number, string], number>(
          `WITH RECURSIVE tree(id) AS (
         SELECT id FROM categories WHERE catalog_guid = ? AND id = ?
         UNION SELECT c.id FROM categories c JOIN tree ON c.parent_id = tree.id WHERE c.catalog_guid = ?
       ) SELECT id FROM tree`,
        )
        .pluck(),
    }
  }

  /** Live catalogs by name, active or not. */
  live(): { guid: string; id: number | null; name: string; active: number }[] {
    return this.statements.live.all()
  }

  /** The guid of a live catalog by the service's id. */
  liveGuidOf(id: number): string | undefined {
    return this.statements.liveById.get(id)
  }

  /** Live, active catalogs: those an order may be placed in. */
  orderable(): { guid: string; id: number | null }[] {
    return this.statements.orderable.all()
  }

  /**
   * The catalog the service puts a customer it makes on (the spec does not say; docs/interface.md):
   * the orderable one it made first, by its id. Null when none is orderable here.
   */
  forNewCustomers(): string | null {
    return this.statements.forNewCustomers.get() ?? null
  }

  /** The service's id of the catalog, as last synced; null when it is not here or came without one. */
  idOf(catalogGuid: string): number | null {
    return this.statements.idOf.get(catalogGuid) ?? null
  }

  /** The catalog's name as last synced; undefined when it is not here. */
  nameOf(catalogGuid: string): string | undefined {
    return this.statements.nameOf.get(catalogGuid)
  }

  countLive(): number {
    return this.statements.countLive.get() ?? 0
  }

  /** A catalog's categories that are not deleted, by sequence then name. */
  categoriesOf(catalogGuid: string): CategoryRow[] {
    return this.statements.categoriesOf.all(catalogGuid)
  }

  /** A category's id and the ids of every category below it. */
  categoryTree(catalogGuid: string, categoryId: number): number[] {
    return this.statements.categoryTree.all(catalogGuid, categoryId, catalogGuid)
  }
}
