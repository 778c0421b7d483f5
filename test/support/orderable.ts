import type { Database } from '../../src/main/db/database'

export interface Orderable {
  customerGuid: string
  customerName: string
  catalogGuid: string
  skus: string[]
  itemGuids: string[]
}

/**
 * From a synced database: the `nth` (from 0) active customer without a PO rule, and `count` items of
 * its catalog priced for its group, with no minimum, no qty break and stock to spare, so an order of
 * them passes every rule and the double takes it.
 */
export function findOrderable(db: Database, count = 2, nth = 0): Orderable {
  let skip = nth
  const customers = db
    .prepare<[], { guid: string; name: string; price_group_id: number; lock_catalog_id: number | null }>(
      `SELECT guid, name, price_group_id, lock_catalog_id FROM customers
       WHERE active = 1 AND deleted_at IS NULL AND require_po = 0 AND price_group_id IS NOT NULL ORDER BY id`,
    )
    .all()
  for (const customer of customers) {
    // A customer locked to a catalog orders from that one; the others from the first.
    const catalog = db
      .prepare<[number, number], { guid: string }>(
        'SELECT guid FROM catalogs WHERE active = 1 AND deleted_at IS NULL AND (id = ? OR ? = 0) ORDER BY id LIMIT 1',
      )
      .get(customer.lock_catalog_id ?? 0, customer.lock_catalog_id ?? 0)
    if (!catalog) continue
    const group = db
      .prepare<[string, number], { name: string }>('SELECT name FROM price_groups WHERE catalog_guid = ? AND id = ?')
      .get(catalog.guid, customer.price_group_id)
    if (!group) continue
    const items = db
      .prepare<[string], { guid: string; sku: string; json: string }>(
        'SELECT guid, sku, json FROM catalog_items WHERE catalog_guid = ? AND active = 1 AND deleted_at IS NULL ORDER BY id',
      )
      .all(catalog.guid)
      .filter((row) => {
        const item = JSON.parse(row.json) as Record<string, unknown>
        const price = (item.pricing as Record<string, unknown>)[group.name]
        const spare =
          item.has_inventory !== true ||
          item.allow_backorder === true ||
          Number(item.qty_on_hand) - Number(item.reserved_qty_on_hand ?? 0) >= 50
        // A family's parent is never ordered: its members are.
        return (
          typeof price === 'number' &&
          item.is_product_group !== true &&
          spare &&
          Number(item.min_order_qty ?? 0) <= 1 &&
          Number(item.qty_break ?? 0) === 0
        )
      })
      .slice(0, count)
    if (items.length === count && skip-- === 0) {
      return {
        customerGuid: customer.guid,
        customerName: customer.name,
        catalogGuid: catalog.guid,
        skus: items.map((i) => i.sku),
        itemGuids: items.map((i) => i.guid),
      }
    }
  }
  throw new Error('no orderable customer in the seeded data')
}
