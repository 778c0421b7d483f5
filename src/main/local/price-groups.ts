import type { Statement } from 'better-sqlite3'
import type { Database } from '../db/database'
import { choosePriceGroup, type PriceGroupChoice, type PriceGroupOption } from '../pricing'
import { Customers } from './customers'
import { prepareTableStatements, upsertGuard, type SyncedTable } from './synced-table'

export const priceGroupsTable = {
  table: 'price_groups',
  kind: 'priceGroup',
  scopeColumn: null,
  retainable: true,
} as const satisfies SyncedTable

/** What sync writes: a catalog's price groups come nested in its record (copy.ts, applyCatalogs). */
export class PriceGroupWrites {
  readonly upsert: Statement
  readonly rows

  constructor(db: Database) {
    this.upsert = db.prepare(`
      INSERT INTO price_groups (guid, id, catalog_guid, name, is_main, version, updated_at, deleted_at, unlisted_at, listed_run, json)
      VALUES (@guid, @id, @catalog_guid, @name, @is_main, @version, @updated_at, @deleted_at, NULL, @listed_run, @json)
      ON CONFLICT (guid) DO UPDATE SET id = excluded.id, catalog_guid = excluded.catalog_guid, name = excluded.name,
        is_main = excluded.is_main, version = excluded.version, updated_at = excluded.updated_at, deleted_at = excluded.deleted_at,
        unlisted_at = NULL, listed_run = coalesce(excluded.listed_run, price_groups.listed_run), json = excluded.json
      ${upsertGuard('price_groups')}`)
    this.rows = prepareTableStatements(db, priceGroupsTable)
  }
}

/**
 * The local copy's price groups, read in one place: the catalog screen, the draft checks, usual items,
 * quotes and documents all take a customer's group in a catalog from `choose`, so none can price an
 * item by a group another screen would not. (Sync writes the table through PriceGroupWrites.)
 */
export class PriceGroups {
  private readonly statements

  constructor(
    db: Database,
    private readonly customers = new Customers(db),
  ) {
    this.statements = {
      ofCatalog: db.prepare<[string], { guid: string; id: number | null; name: string; is_main: number }>(
        'SELECT guid, id, name, is_main FROM price_groups WHERE catalog_guid = ? AND deleted_at IS NULL AND unlisted_at IS NULL ORDER BY is_main DESC, name COLLATE NOCASE',
      ),
      // A customer's group may have been removed since; its name still says which group they had.
      nameOf: db
        .prepare<[number], string>(
          'SELECT name FROM price_groups WHERE id = ? ORDER BY deleted_at IS NULL DESC, local_id LIMIT 1',
        )
        .pluck(),
      catalogOf: db
        .prepare<[number], string>(
          'SELECT catalog_guid FROM price_groups WHERE id = ? AND deleted_at IS NULL AND unlisted_at IS NULL ORDER BY local_id LIMIT 1',
        )
        .pluck(),
      countLive: db
        .prepare<[], number>('SELECT count(*) FROM price_groups WHERE deleted_at IS NULL AND unlisted_at IS NULL')
        .pluck(),
    }
  }

  /** A catalog's live price groups, its main group first. */
  ofCatalog(catalogGuid: string): PriceGroupOption[] {
    return this.statements.ofCatalog
      .all(catalogGuid)
      .map((row) => ({ guid: row.guid, id: row.id, name: row.name, isMain: row.is_main === 1 }))
  }

  /** The name of a price group of any catalog, or null when it is not on this laptop. */
  nameOf(id: number): string | null {
    return this.statements.nameOf.get(id) ?? null
  }

  /** The catalog a live price group belongs to, or null when it is not on this laptop. */
  catalogOf(id: number): string | null {
    return this.statements.catalogOf.get(id) ?? null
  }

  /** How many live price groups the local copy holds, across catalogs. */
  countLive(): number {
    return this.statements.countLive.get() ?? 0
  }

  /** The group that prices a customer's items in a catalog (choosePriceGroup), with why. */
  choose(
    catalogGuid: string,
    options: { draftGroupGuid?: string | null; customerGuid?: string | null; customerGroupId?: number | null } = {},
  ): PriceGroupChoice<PriceGroupOption> {
    const groupId =
      options.customerGroupId !== undefined
        ? options.customerGroupId
        : options.customerGuid
          ? (this.customers.priceGroupIdOf(options.customerGuid) ?? null)
          : null
    const customerGroup = groupId !== null && groupId !== undefined ? { id: groupId, name: this.nameOf(groupId) } : null
    return choosePriceGroup(this.ofCatalog(catalogGuid), options.draftGroupGuid ?? null, customerGroup)
  }
}
