/**
 * Catalog items in every state a catalog search filters and folds on, the searches that tell them
 * apart, and what each search lists and counts: shared by the tests that change how a search finds
 * its rows (the search filters of migration 20, the catalog-keyed indexes of migration 21) and must
 * not change what it finds.
 */
import { wordPrefixQuery } from '../../src/main/browse/search'
import type { Database } from '../../src/main/db/database'
import type { CatalogItems } from '../../src/main/local/catalog-items/reads'
import { LocalCopy } from '../../src/main/local/copy'
import { Retention } from '../../src/main/local/retention'
import type { CatalogItemRecord } from '../../src/main/ordering-client/schemas'
import { catalogItem } from './builders'

/** An apron of category 1, SKU `APR-${id}`, with no UPC: the items whose states a search tells apart. */
export function apron(id: number, fields: Record<string, unknown> = {}): CatalogItemRecord {
  return catalogItem(id, { sku: `APR-${id}`, upc: null, name: `Apron ${id}`, category_id: 1, ...fields })
}

export const unlisted = { listingId: null, serverTime: null }

/**
 * Two catalogs whose items share words, with every state a search filters on: families whose parent
 * is active, inactive, deleted or unlisted (kept for a draft), a member whose parent is another
 * catalog's, inactive, deleted and unlisted items, three categories, and more matches of "apron"
 * than are ranked (streamed) besides words with a few (ranked).
 */
export function catalogWithEveryState(db: Database): void {
  const kept = new Set(['item-6000', 'item-6001', 'item-2005', 'item-2015'])
  const retention = new Retention(db)
  retention.register((kind, guids) => (kind === 'catalogItem' ? guids.filter((guid) => kept.has(guid)) : []))
  const copy = new LocalCopy(db, retention)
  const families = [
    apron(10, { is_product_group: true, name: 'Bib apron', category_id: 2 }),
    apron(11, { group_parent_catalog_item_id: 10, name: 'Bib apron navy S', category_id: 2 }),
    apron(12, { group_parent_catalog_item_id: 10, name: 'Bib apron navy M', category_id: 3 }),
    apron(13, { group_parent_catalog_item_id: 10, name: 'Bib apron navy L', category_id: 2, active: false }),
    apron(4000, { is_product_group: true, name: 'Shop apron', active: false }),
    apron(4001, { group_parent_catalog_item_id: 4000, name: 'Shop apron red' }),
    apron(4002, { group_parent_catalog_item_id: 4000, name: 'Shop apron blue', category_id: 2 }),
    apron(5000, { is_product_group: true, name: 'Grill apron' }),
    apron(5001, { group_parent_catalog_item_id: 5000, name: 'Grill apron black' }),
    apron(5002, { group_parent_catalog_item_id: 5000, name: 'Grill apron white' }),
    apron(6000, { is_product_group: true, name: 'Chef apron' }),
    apron(6001, { group_parent_catalog_item_id: 6000, name: 'Chef apron white' }),
    apron(6002, { group_parent_catalog_item_id: 6000, name: 'Chef apron black' }),
    // Its parent is cat-b's: listed as itself in cat-a.
    apron(7001, { group_parent_catalog_item_id: 10_000, name: 'Stray apron' }),
  ]
  const fillers = Array.from({ length: 1200 }, (_, k) =>
    apron(2000 + k, {
      name: `Apron filler ${k}`,
      category_id: 1 + (k % 3),
      active: k % 10 !== 3,
      ...(k % 50 === 7 ? { deleted_at: '2026-01-02T00:00:00.000Z' } : {}),
    }),
  )
  copy.applyCatalogItems('cat-a', [...families, ...fillers], { listingId: 1, serverTime: '2026-01-03T00:00:00.000Z' })
  // A listing that no longer holds the grill apron's parent (deleted), the chef apron's parent and
  // two fillers kept for a draft (unlisted), and one filler not kept (removed).
  copy.applyCatalogItems(
    'cat-a',
    [
      apron(5000, {
        is_product_group: true,
        name: 'Grill apron',
        updated_at: '2026-01-05T00:00:00.000Z',
        deleted_at: '2026-01-05T00:00:00.000Z',
      }),
    ],
    unlisted,
  )
  const relisted = [...families, ...fillers].filter(
    (record) => !['item-6000', 'item-2005', 'item-2015', 'item-2025', 'item-5000'].includes(String(record.guid)),
  )
  copy.applyCatalogItems('cat-a', relisted, { listingId: 2, serverTime: '2026-01-06T00:00:00.000Z' })
  copy.pruneUnlisted('catalogItems', 'cat-a', 2, '2026-01-06T00:00:00.000Z')
  copy.applyCatalogItems(
    'cat-b',
    [
      apron(10_000, { is_product_group: true, name: 'Canvas apron' }),
      ...Array.from({ length: 1500 }, (_, k) =>
        apron(10_001 + k, { name: `Apron b ${k}`, category_id: 1 + (k % 2), active: k % 7 !== 0 }),
      ),
    ],
    unlisted,
  )
}

export interface Search {
  catalogGuid: string
  text: string
  includeInactive?: boolean
  familyMembers?: boolean
  categoryId?: number
  categoryIds?: number[]
}

/** Every row a search lists, `pageSize` at a time, its count in full and capped at 100. */
export function outcome(items: CatalogItems, search: Search, pageSize = 200) {
  const { text, ...rest } = search
  const spec = { ...rest, match: wordPrefixQuery(text) }
  const rows: string[] = []
  for (let offset = 0; ; offset += pageSize) {
    const page = items.search({ ...spec, limit: pageSize, offset })
    rows.push(...page.rows.map((row) => row.guid))
    if (!page.more) break
  }
  return { rows, count: items.count(spec, 100_000), capped: items.count(spec, 100) }
}

export const searches: Search[] = [
  ...['cat-a', 'cat-b'].flatMap((catalogGuid) =>
    [
      'apron',
      'a',
      'ap',
      'filler 7',
      'bib',
      'APR-4001',
      'apron navy',
      'grill',
      'chef',
      'stray',
      'canvas',
      'b 14',
    ].flatMap((text) => [
      { catalogGuid, text },
      { catalogGuid, text, includeInactive: true },
      { catalogGuid, text, familyMembers: true },
      { catalogGuid, text, categoryId: 2 },
      { catalogGuid, text, categoryId: 2, categoryIds: [2, 3], includeInactive: true },
    ]),
  ),
  { catalogGuid: 'cat-none', text: 'apron' },
]
