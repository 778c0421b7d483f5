/**
 * The fixtures tests build synced data from, in one place: a test names only what it changes.
 */
import type { CatalogItemRecord } from '../../src/main/ordering-client/schemas'

/**
 * A catalog item as the service sends it: `item-${id}`, SKU `SKU-${id}`, named `Item ${id}`, active,
 * 10 to the Retail group, last changed on 1 January 2026 and not deleted; `fields` change or add
 * any of the record's fields (a field the schema does not know too, as the service may send one).
 */
export function catalogItem(id: number, fields: Record<string, unknown> = {}): CatalogItemRecord {
  return {
    id,
    guid: `item-${id}`,
    sku: `SKU-${id}`,
    name: `Item ${id}`,
    active: true,
    pricing: { Retail: 10 },
    updated_at: '2026-01-01T00:00:00.000Z',
    deleted_at: null,
    ...fields,
  } as CatalogItemRecord
}
