import type { Database } from '../db/database'
import { choosePriceGroup, type PriceGroupChoice, type PriceGroupOption } from '../pricing'

/**
 * The local copy's price groups, read in one place: the catalog screen, the draft checks, usual items,
 * quotes and documents all take a customer's group in a catalog from `choose`, so none can price an
 * item by a group another screen would not. (Sync writes the table; see copy.ts.)
 */
export class PriceGroups {
  private readonly statements

  constructor(db: Database) {
    this.statements = {
      ofCatalog: db.prepare<[string], { guid: string; id: number | null; name: string; is_main: number }>(
        'SELECT guid, id, name, is_main FROM price_groups WHERE catalog_guid = ? AND deleted_at IS NULL AND unlisted_at IS NULL ORDER BY is_main DESC, name COLLATE NOCASE',
      ),
      // A customer's group may have been removed since; its name still says which group they had.
      nameOf: db.prepare<[number], string>('SELECT name FROM price_groups WHERE id = ? ORDER BY deleted_at IS NULL DESC, local_id LIMIT 1').pluck(),
      countLive: db.prepare<[], number>('SELECT count(*) FROM price_groups WHERE deleted_at IS NULL AND unlisted_at IS NULL').pluck(),
      customerGroupId: db.prepare<[string], number | null>('SELECT price_group_id FROM customers WHERE guid = ?').pluck(),
    }
  }

  /** A catalog's live price groups, its main group first. */
  ofCatalog(catalogGuid: string): PriceGroupOption[] {
    return this.statements.ofCatalog.all(catalogGuid).map((row) => ({ guid: row.guid, id: row.id, name: row.name, isMain: row.is_main === 1 }))
  }

  /** The name of a price group of any catalog, or null when it is not on this laptop. */
  nameOf(id: number): string | null {
    return this.statements.nameOf.get(id) ?? null
  }

  /** How many live price groups the local copy holds, across catalogs. */
  countLive(): number {
    return this.statements.countLive.get() ?? 0
  }

  /** The group that prices a customer's items in a catalog (choosePriceGroup), with why. */
  choose(catalogGuid: string, options: { draftGroupGuid?: string | null; customerGuid?: string | null; customerGroupId?: number | null } = {}): PriceGroupChoice<PriceGroupOption> {
    const groupId = options.customerGroupId !== undefined ? options.customerGroupId : options.customerGuid ? (this.statements.customerGroupId.get(options.customerGuid) ?? null) : null
    const customerGroup = groupId !== null && groupId !== undefined ? { id: groupId, name: this.nameOf(groupId) } : null
    return choosePriceGroup(this.ofCatalog(catalogGuid), options.draftGroupGuid ?? null, customerGroup)
  }
}
