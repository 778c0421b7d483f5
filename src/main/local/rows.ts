/**
 * The service's records as the columns of the local tables: pure functions, no SQLite. Each row keeps
 * the record's original JSON beside the columns Satchel queries, so fields the spec does not show
 * survive; version is the record's latest change in the service's clock (see time.ts). listed_run is
 * the full listing the row came in (null for a delta page).
 */
import type { CustomerConnection } from '../ordering-client/client'
import {
  priceGroupNameProblem,
  priceProblem,
  type CatalogItemRecord,
  type CatalogRecord,
  type CategoryRecord,
  type OrderRecord,
  type PriceGroupRecord,
} from '../ordering-client/schemas'
import { versionOf } from './time'

/** The local guids of customers and catalogs by the service's numeric id, for orders that carry only the id. */
export interface GuidLookup {
  customer(id: number): string | null
  catalog(id: number): string | null
}

function bool(value: boolean | null | undefined, fallback: 0 | 1 | null): 0 | 1 | null {
  return value === true ? 1 : value === false ? 0 : fallback
}

/** Ids the service sends as 0 for "none". */
function positive(value: unknown): number | null {
  return typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : null
}

function nullable<T>(value: T | null | undefined): T | null {
  return value === undefined ? null : value
}

export function catalogRow(catalog: CatalogRecord, listingId: number | null) {
  return {
    guid: catalog.guid,
    id: nullable(catalog.id),
    name: catalog.name ?? '',
    active: bool(catalog.active, 1),
    version: versionOf(catalog.updated_at, catalog.deleted_at),
    updated_at: nullable(catalog.updated_at),
    deleted_at: nullable(catalog.deleted_at),
    listed_run: listingId,
    json: JSON.stringify(catalog),
  }
}

/**
 * Why a catalog item cannot be stored, or null when it can: the values Satchel prices and checks
 * orders with must be possible ones. The same rules as catalogItemSchema (schemas.ts), written
 * out by hand: the schema's parse builds a checked copy of every item and its categories, which cost a
 * first sync more than writing the row did. store-rows.test.ts holds the two to the same
 * verdicts. A refused item is not written; the local copy, if any, stays as it was.
 */
export function catalogItemProblem(item: unknown): string | null {
  if (!isObject(item)) return 'Invalid input: expected object'
  const problems: string[] = []
  const note = (path: string, message: string) => void (problems.length < 3 && problems.push(`${path}: ${message}`))
  if (typeof item.guid !== 'string') note('guid', 'Invalid input: expected string')
  else if (item.guid.length < 1) note('guid', 'Too small: expected string to have >=1 characters')
  for (const key of itemInts) checkInt(item[key], key, note)
  for (const key of itemTexts)
    if (!isNullish(item[key]) && typeof item[key] !== 'string') note(key, 'Invalid input: expected string')
  for (const key of itemFlags)
    if (!isNullish(item[key]) && typeof item[key] !== 'boolean') note(key, 'Invalid input: expected boolean')
  for (const key of itemAmounts) checkNumber(item[key], key, note, true)
  checkNumber(item.qty_on_hand, 'qty_on_hand', note, false)
  const pricing = item.pricing
  if (!isNullish(pricing)) {
    if (!isObject(pricing)) note('pricing', 'pricing is not an object')
    else {
      for (const key of Object.keys(pricing)) {
        const shown = JSON.stringify(key.length > 40 ? `${key.slice(0, 40)}…` : key)
        const problem = priceGroupNameProblem(key) ?? priceProblem(pricing[key])
        if (problem) note('pricing', `key ${shown}: ${problem}`)
      }
    }
  }
  if (!isNullish(item.Category)) checkCategory(item.Category, 'Category', note)
  const hierarchy = item.CategoryHierarchy
  if (!isNullish(hierarchy)) {
    if (!Array.isArray(hierarchy)) note('CategoryHierarchy', 'Invalid input: expected array')
    else hierarchy.forEach((category, index) => checkCategory(category, `CategoryHierarchy.${index}`, note))
  }
  return problems.length > 0 ? problems.join('; ') : null
}

type Note = (path: string, message: string) => void

const itemInts = ['id', 'catalog_id', 'category_id'] as const
const itemTexts = ['sku', 'upc', 'name', 'description', 'manufacturer', 'updated_at', 'deleted_at'] as const
const itemFlags = ['active', 'has_inventory', 'allow_backorder'] as const
const itemAmounts = ['msrp', 'min_order_qty', 'qty_break', 'qty_break_price'] as const

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function isNullish(value: unknown): value is null | undefined {
  return value === null || value === undefined
}

function checkInt(value: unknown, path: string, note: Note, required = false): void {
  if (!required && isNullish(value)) return
  if (typeof value !== 'number' || Number.isNaN(value)) note(path, 'Invalid input: expected number')
  else if (!Number.isSafeInteger(value))
    note(
      path,
      Number.isInteger(value) || !Number.isFinite(value)
        ? 'Invalid input: expected int'
        : 'Invalid input: expected int, received number',
    )
}

function checkNumber(value: unknown, path: string, note: Note, nonNegative: boolean): void {
  if (isNullish(value)) return
  if (typeof value !== 'number' || !Number.isFinite(value)) note(path, 'Invalid input: expected number')
  else if (nonNegative && value < 0) note(path, 'Too small: expected number to be >=0')
}

function checkCategory(category: unknown, path: string, note: Note): void {
  if (!isObject(category)) return note(path, 'Invalid input: expected object')
  checkInt(category.id, `${path}.id`, note, true)
  checkInt(category.catalog_id, `${path}.catalog_id`, note)
  checkInt(category.parent_category_id, `${path}.parent_category_id`, note)
  for (const key of ['guid', 'name', 'updated_at'] as const) {
    if (!isNullish(category[key]) && typeof category[key] !== 'string')
      note(`${path}.${key}`, 'Invalid input: expected string')
  }
  checkNumber(category.sequence, `${path}.sequence`, note, false)
  if (!isNullish(category.hide_category) && typeof category.hide_category !== 'boolean')
    note(`${path}.hide_category`, 'Invalid input: expected boolean')
}

/** Why a price group cannot be stored, or null: its name is the key of every item's `pricing`. */
export function priceGroupProblem(group: PriceGroupRecord): string | null {
  const name = group.value ?? group.name
  // A tombstone or a group the list names nowhere is still a row; only a name it does send is checked.
  if (typeof name !== 'string') return null
  return priceGroupNameProblem(name)
}

/** A price group nested under its catalog: named by `value` there, by `name` on the price group list. */
export function priceGroupRow(catalogGuid: string, group: PriceGroupRecord, listingId: number | null) {
  return {
    guid: group.guid,
    id: nullable(group.id),
    catalog_guid: catalogGuid,
    name: group.value ?? group.name ?? '',
    is_main: bool(group.is_main, 0),
    version: versionOf(group.updated_at, group.deleted_at),
    updated_at: nullable(group.updated_at),
    deleted_at: nullable(group.deleted_at),
    listed_run: listingId,
    json: JSON.stringify(group),
  }
}

/** The categories a page of items carries (Category, CategoryHierarchy), each once, in its newest version. */
export function categoriesOf(items: CatalogItemRecord[]): CategoryRecord[] {
  const categories = new Map<number, CategoryRecord>()
  for (const item of items) {
    for (const category of [...(item.CategoryHierarchy ?? []), ...(item.Category ? [item.Category] : [])]) {
      const seen = categories.get(category.id)
      if (!seen || versionOf(category.updated_at, null) > versionOf(seen.updated_at, null))
        categories.set(category.id, category)
    }
  }
  return [...categories.values()]
}

export function categoryRow(catalogGuid: string, category: CategoryRecord, listingId: number | null) {
  // The schema shows no deleted_at on a category; one that carries a string is a tombstone.
  const deletedAt = typeof category.deleted_at === 'string' ? category.deleted_at : null
  return {
    catalog_guid: catalogGuid,
    id: category.id,
    guid: nullable(category.guid),
    parent_id: category.parent_category_id ? category.parent_category_id : null,
    name: category.name ?? '',
    sequence: nullable(category.sequence),
    hidden: bool(category.hide_category, 0),
    version: versionOf(category.updated_at, deletedAt),
    deleted_at: deletedAt,
    listed_run: listingId,
    json: JSON.stringify(category),
  }
}

/** A catalog item's columns, as both shapes below store them. syncedAt: the serverTimestamp of the page the item came on. */
function catalogItemColumns(
  catalogGuid: string,
  item: CatalogItemRecord,
  listingId: number | null,
  syncedAt: string | null,
) {
  return {
    guid: item.guid,
    id: nullable(item.id),
    catalog_guid: catalogGuid,
    category_id: nullable(item.category_id),
    sku: item.sku ?? '',
    upc: nullable(item.upc),
    name: item.name ?? '',
    description: nullable(item.description),
    manufacturer: nullable(item.manufacturer),
    active: bool(item.active, 1),
    msrp: nullable(item.msrp),
    qty_on_hand: nullable(item.qty_on_hand),
    min_order_qty: nullable(item.min_order_qty),
    has_inventory: bool(item.has_inventory, null),
    allow_backorder: bool(item.allow_backorder, null),
    // The price per price group ("N/A" where the item is not offered to a group), kept as sent.
    pricing: item.pricing ? JSON.stringify(item.pricing) : null,
    version: versionOf(item.updated_at, item.deleted_at),
    updated_at: nullable(item.updated_at),
    deleted_at: nullable(item.deleted_at),
    listed_run: listingId,
    // The service's clock on the page that brought this version: how fresh stock figures are.
    synced_at: syncedAt,
  }
}

/**
 * A catalog item as schema 9 stored it, with the whole record in `json`: what the catalog_items view
 * still answers, and what the migration tests write to stand for a laptop before migration 10.
 */
export function catalogItemRow(
  catalogGuid: string,
  item: CatalogItemRecord,
  listingId: number | null,
  syncedAt: string | null,
) {
  return { ...catalogItemColumns(catalogGuid, item, listingId, syncedAt), json: JSON.stringify(item) }
}

/**
 * A catalog item as catalog_item_rows stores it (migration 10): the columns of catalogItemRow, the
 * service's id as the row's key where it has one, and `extra`, the rest of the record stored once (see
 * leanItemExtra). The catalog_items view puts catalogItemRow's `json` back together from these.
 */
function catalogItemStored(
  catalogGuid: string,
  item: CatalogItemRecord,
  listingId: number | null,
  syncedAt: string | null,
) {
  const columns = catalogItemColumns(catalogGuid, item, listingId, syncedAt)
  const updatedAt = storedUpdatedAt(columns.updated_at, columns.deleted_at, columns.version)
  return {
    local_id: positive(item.id),
    ...columns,
    updated_at: updatedAt,
    // A row whose updated_at the view puts back is one written since migration 22, whose category
    // path the view may put back too.
    extra: leanItemExtra(item, updatedAt === null && columns.updated_at !== null),
    // Copies of fields `extra` keeps too (migration 17): 0, not NULL, for "not a member", so NULL
    // marks only rows stored before the column existed.
    group_parent_id: positive(item.group_parent_catalog_item_id) ?? 0,
    is_product_group: item.is_product_group === true ? 1 : 0,
    // The catalog's small key (migration 21) is the database's: this place holds the catalog's guid,
    // which the writer's insert turns into its key (CatalogItemWrites); updates leave the key alone.
    catalog_key: catalogGuid,
  }
}

/** The last instant SQLite's strftime writes in four digits of year, as toISOString does (years 0 to 9999). */
const lastFourDigitYear = Date.UTC(9999, 11, 31, 23, 59, 59, 999)

/**
 * An item's updated_at as catalog_item_rows stores it (migration 22): none where the catalog_items
 * view can put it back, which is a live item's whose version is that instant and who was sent it the
 * way the service writes it (ISO 8601, milliseconds, UTC); 24 bytes an item, 25 MB at a million. A
 * deleted item keeps it (its version may be its deleted_at), and so does one sent none (version 0,
 * or its deleted_at), which the view, reading none at version 0 or on a deleted row, gives back as none.
 */
function storedUpdatedAt(updatedAt: string | null, deletedAt: string | null, version: number): string | null {
  if (updatedAt === null || deletedAt !== null || version <= 0 || version > lastFourDigitYear) return updatedAt
  return new Date(version).toISOString() === updatedAt ? null : updatedAt
}

/** The columns of catalogItemStored in the order storedItemValues gives them (and the writer binds them). */
export const storedItemColumns = [
  'local_id',
  'guid',
  'id',
  'catalog_guid',
  'category_id',
  'sku',
  'upc',
  'name',
  'description',
  'manufacturer',
  'active',
  'msrp',
  'qty_on_hand',
  'min_order_qty',
  'has_inventory',
  'allow_backorder',
  'pricing',
  'version',
  'updated_at',
  'deleted_at',
  'listed_run',
  'synced_at',
  'extra',
  'group_parent_id',
  'is_product_group',
  'catalog_key',
] as const

export type StoredItemColumn = (typeof storedItemColumns)[number]

/** A stored item as its column values, in storedItemColumns order. */
export type StoredItemValues = unknown[]

/** Where each column sits in StoredItemValues. */
export const storedItemAt = Object.fromEntries(storedItemColumns.map((column, index) => [column, index])) as Record<
  StoredItemColumn,
  number
>

/**
 * catalogItemStored as a flat array of its column values: what crosses to the writer thread. A
 * structured clone of an array of strings and numbers costs a fraction of the item it came from.
 */
export function storedItemValues(
  catalogGuid: string,
  item: CatalogItemRecord,
  listingId: number | null,
  syncedAt: string | null,
): StoredItemValues {
  const row = catalogItemStored(catalogGuid, item, listingId, syncedAt)
  return storedItemColumns.map((column) => row[column])
}

/** The spec's CatalogItem fields that have a column of their own in catalog_item_rows. */
const itemColumnFields = new Set([
  'id',
  'guid',
  'category_id',
  'sku',
  'upc',
  'name',
  'description',
  'manufacturer',
  'active',
  'msrp',
  'qty_on_hand',
  'min_order_qty',
  'has_inventory',
  'allow_backorder',
  'pricing',
  'updated_at',
  'deleted_at',
])

/**
 * The spec's other CatalogItem fields and the value the service sends for "none" (test/service/README.md,
 * choice 1): not stored at that value, put back by the catalog_items view. Migration 10 lists the same.
 */
const itemDefaults = new Map<string, unknown>([
  ...['catalog_id', 'group_parent_catalog_item_id', 'group_sequence', 'subsection_id'].map((key) => [key, 0] as const),
  ...[
    'color',
    'style',
    'product_group_type',
    'product_group_display_style',
    'group_title',
    'third_party_sku',
    'third_party_pricing',
    'third_party_size',
  ].map((key) => [key, ''] as const),
  ...['is_taxable', 'has_serials', 'has_lots', 'has_exp_date', 'is_product_group'].map((key) => [key, false] as const),
  ...[
    'cost_per_uom',
    'qty_incoming',
    'reserved_qty_on_hand',
    'qty_backordered',
    'qty_held_for_backorders',
    'min_qty_on_hand',
    'max_qty_on_hand',
    'qty_break',
    'qty_break_price',
    'width',
    'height',
    'depth',
    'item_weight',
    'shipping_weight',
  ].map((key) => [key, 0] as const),
])

function isCategoryList(value: unknown): value is { id: number }[] {
  return (
    Array.isArray(value) &&
    value.every(
      (entry) => typeof entry === 'object' && entry !== null && Number.isInteger((entry as { id?: unknown }).id),
    )
  )
}

/**
 * What of an item no column holds, as JSON: fields at their default left out, Category left out when
 * it is the item's category_id (categories has it), CategoryHierarchy kept as its ids
 * (CategoryHierarchy_ids). Everything else, fields the spec does not show included, as sent.
 * A key named __proto__ is kept as data like any other (defined, not assigned).
 *
 * `pathFromCategories`: the row is one the catalog_items view knows for written since migration 22
 * (its updated_at left out, storedUpdatedAt), and it puts back a CategoryHierarchy that is the path
 * from the catalog's root to the item's category by the categories' parents, as this item's own
 * category records give it (36 bytes an item at a million): such a path is left out. The view reads
 * it from the categories table, which holds the same records (newest version): a category moved
 * since shows in its new place. A hierarchy that is not that path, or none sent, is kept (none as []).
 */
export function leanItemExtra(item: CatalogItemRecord, pathFromCategories = false): string {
  // A plain object: one without a prototype is a dictionary to V8, several times slower to stringify.
  const lean: Record<string, unknown> = {}
  let hierarchy: number[] | null = null
  for (const key of Object.keys(item)) {
    if (itemColumnFields.has(key)) continue
    const value = (item as Record<string, unknown>)[key]
    if (itemDefaults.has(key) && itemDefaults.get(key) === value) continue
    if (key === 'Category') {
      const categoryId = typeof item.category_id === 'number' ? item.category_id : 0
      if (value === null ? categoryId <= 0 : typeof value === 'object' && (value as { id?: unknown }).id === categoryId)
        continue
    }
    if (key === 'CategoryHierarchy' && isCategoryList(value)) {
      hierarchy = value.map((category) => category.id)
      continue
    }
    if (key === '__proto__')
      Object.defineProperty(lean, key, { value, enumerable: true, writable: true, configurable: true })
    else lean[key] = value
  }
  if (pathFromCategories) {
    if (!hierarchy) lean.CategoryHierarchy_ids = []
    else if (!isCategoryPath(item, hierarchy)) lean.CategoryHierarchy_ids = hierarchy
  } else if (hierarchy) {
    lean.CategoryHierarchy_ids = hierarchy
  }
  return JSON.stringify(lean)
}

/** Deepest category path the view walks (and this checks): a longer one, or a loop, is kept as sent. */
const categoryPathLimit = 64

/** Whether `ids` is the path from the root to the item's category by the parents its own category records name. */
function isCategoryPath(item: CatalogItemRecord, ids: number[]): boolean {
  const records = new Map<number, unknown>()
  for (const category of [...(item.CategoryHierarchy ?? []), ...(item.Category ? [item.Category] : [])])
    records.set(category.id, category.parent_category_id)
  const path: number[] = []
  for (let id = typeof item.category_id === 'number' ? item.category_id : 0; id > 0;) {
    if (!records.has(id) || path.length >= Math.min(ids.length, categoryPathLimit)) return false
    path.unshift(id)
    const parent = records.get(id)
    id = typeof parent === 'number' ? parent : 0
  }
  return path.length === ids.length && path.every((id, at) => id === ids[at])
}

export function customerRow(row: CustomerConnection, listingId: number | null) {
  const customer = row.customer
  // A connection that carries deleted_at means the customer left this supplier's list.
  const deletedAt = customer.deleted_at ?? row.connectionDeletedAt ?? null
  return {
    guid: customer.guid,
    id: nullable(customer.id),
    name: customer.name ?? '',
    customer_internal_id: nullable(customer.customer_internal_id),
    email: nullable(customer.email),
    phone: nullable(customer.phone),
    city: nullable(customer.city),
    state: nullable(customer.state),
    active: bool(customer.active, 1),
    // The connection row carries the supplier's own assignment for this customer; it wins.
    price_group_id: positive(row.connection.price_group_id) ?? positive(customer.price_group_id),
    lock_catalog_id: positive(row.connection.lock_catalog_id) ?? positive(customer.lock_catalog_id),
    require_po: bool(customer.require_po, 0),
    hide_pricing: bool(customer.hide_pricing, 0),
    version: Math.max(
      versionOf(customer.updated_at, deletedAt),
      versionOf(row.connection.updated_at as string | undefined, null),
    ),
    updated_at: nullable(customer.updated_at),
    deleted_at: deletedAt,
    listed_run: listingId,
    json: JSON.stringify(customer),
    // The supplier-to-customer connection row around the customer, minus Vendor.
    connection_json: Object.keys(row.connection).length > 0 ? JSON.stringify(row.connection) : null,
  }
}

/** An order from the list's reduced projection (ids only) or a full one (Vendor, Catalog, Order_State). */
export function orderRow(order: OrderRecord, listingId: number | null, guids: GuidLookup) {
  const customerId = nullable(order.vendor_id ?? order.Vendor?.id)
  const catalogId = nullable(order.catalog_id ?? order.Catalog?.id)
  return {
    guid: order.guid,
    id: nullable(order.id),
    name: nullable(order.name),
    api_guid: nullable(order.api_guid),
    customer_guid: order.Vendor?.guid ?? (customerId !== null ? guids.customer(customerId) : null),
    customer_id: customerId,
    catalog_guid: order.Catalog?.guid ?? (catalogId !== null ? guids.catalog(catalogId) : null),
    catalog_id: catalogId,
    order_state_id: nullable(order.order_state_id ?? order.Order_State?.id),
    order_state_name: nullable(order.Order_State?.name),
    po_no: nullable(order.po_no),
    sub_total: nullable(order.sub_total),
    grand_total: nullable(order.grand_total),
    created_at: nullable(order.created_at),
    created_ms: versionOf(order.created_at, null) || null,
    version: versionOf(order.updated_at, order.deleted_at),
    updated_at: nullable(order.updated_at),
    deleted_at: nullable(order.deleted_at),
    listed_run: listingId,
    json: JSON.stringify(order),
  }
}
