/**
 * The service's records as the columns of the local tables: pure functions, no SQLite. Each row keeps
 * the record's original JSON beside the columns Satchel queries, so fields the spec does not show
 * survive; version is the record's latest change in the service's clock (see time.ts). listed_run is
 * the full listing the row came in (null for a delta page).
 */
import type { CustomerConnection } from '../ordering-client/client'
import {
  catalogItemSchema,
  priceGroupNameProblem,
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
 * Why a catalog item cannot be stored, or null when it can (issue 11): the values Satchel prices and
 * checks orders with must be possible ones (schemas.ts says which). A refused item is not written; the
 * local copy, if any, stays as it was.
 */
export function catalogItemProblem(item: unknown): string | null {
  const checked = catalogItemSchema.safeParse(item)
  if (checked.success) return null
  return checked.error.issues
    .slice(0, 3)
    .map((issue) => (issue.path.length > 0 ? `${issue.path.map(String).join('.')}: ${issue.message}` : issue.message))
    .join('; ')
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
      if (!seen || versionOf(category.updated_at, null) > versionOf(seen.updated_at, null)) categories.set(category.id, category)
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

/** syncedAt: the serverTimestamp of the page the item came on. */
export function catalogItemRow(catalogGuid: string, item: CatalogItemRecord, listingId: number | null, syncedAt: string | null) {
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
    json: JSON.stringify(item),
  }
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
    version: Math.max(versionOf(customer.updated_at, deletedAt), versionOf(row.connection.updated_at as string | undefined, null)),
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
