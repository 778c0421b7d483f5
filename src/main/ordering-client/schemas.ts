/**
 * Runtime checks of what the ordering service sends. Only the fields Satchel reads are checked; every
 * schema is loose, so fields the spec does not show pass through, and the store keeps each record's
 * original JSON beside the columns it queries.
 */
import { z } from 'zod'

const text = z.string().nullish()
const int = z.number().int().nullish()
const num = z.number().nullish()
const flag = z.boolean().nullish()
/** ISO 8601 or `YYYY-MM-DD HH:mm:ss`; parsed by the store, which keeps the string as received. */
const timestamp = z.string().nullish()

export const addressSchema = z.looseObject({
  id: int,
  guid: text,
  name: text,
  company_name: text,
  address_line_one: text,
  address_line_two: text,
  city: text,
  state: text,
  postal_code: text,
  country: text,
  is_vendor_main_ship_to: flag,
})
export type AddressRecord = z.infer<typeof addressSchema>

export const customerSchema = z.looseObject({
  id: int,
  guid: z.string().min(1),
  name: text,
  customer_internal_id: text,
  email: text,
  phone: text,
  city: text,
  state: text,
  active: flag,
  require_po: flag,
  hide_pricing: flag,
  lock_catalog_id: int,
  price_group_id: int,
  credit_limit: num,
  open_balance: num,
  Bill_To: addressSchema.nullish(),
  Ship_To: addressSchema.nullish(),
  updated_at: timestamp,
  deleted_at: timestamp,
})
export type CustomerRecord = z.infer<typeof customerSchema>

/** A row of the customer list: the supplier-to-customer connection, with the customer under `Vendor`. */
export const customerConnectionSchema = z.looseObject({
  Vendor: customerSchema,
  updated_at: timestamp,
  deleted_at: timestamp,
})

export const priceGroupSchema = z.looseObject({
  id: int,
  guid: z.string().min(1),
  catalog_id: int,
  /** The group's name when nested under a catalog; `name` on the price group list. */
  value: text,
  name: text,
  is_main: flag,
  updated_at: timestamp,
  deleted_at: timestamp,
})
export type PriceGroupRecord = z.infer<typeof priceGroupSchema>

export const catalogSchema = z.looseObject({
  id: int,
  guid: z.string().min(1),
  name: text,
  active: flag,
  updated_at: timestamp,
  deleted_at: timestamp,
  Price_Groups: z.array(priceGroupSchema).nullish(),
})
export type CatalogRecord = z.infer<typeof catalogSchema>

export const categorySchema = z.looseObject({
  id: z.number().int(),
  guid: text,
  catalog_id: int,
  parent_category_id: int,
  name: text,
  sequence: num,
  hide_category: flag,
  updated_at: timestamp,
})
export type CategoryRecord = z.infer<typeof categorySchema>

/** A price, or "N/A" when the item is not offered to that price group. */
const price = z.union([z.number(), z.string(), z.null()])

export const catalogItemSchema = z.looseObject({
  id: int,
  guid: z.string().min(1),
  catalog_id: int,
  category_id: int,
  sku: text,
  upc: text,
  name: text,
  description: text,
  manufacturer: text,
  active: flag,
  msrp: num,
  qty_on_hand: num,
  min_order_qty: num,
  has_inventory: flag,
  allow_backorder: flag,
  pricing: z.record(z.string(), price).nullish(),
  Category: categorySchema.nullish(),
  CategoryHierarchy: z.array(categorySchema).nullish(),
  updated_at: timestamp,
  deleted_at: timestamp,
})
export type CatalogItemRecord = z.infer<typeof catalogItemSchema>

const reference = z.looseObject({ id: int, guid: text, name: text })

export const orderSchema = z.looseObject({
  id: int,
  guid: z.string().min(1),
  name: text,
  api_guid: text,
  vendor_id: int,
  catalog_id: int,
  order_state_id: int,
  po_no: text,
  sub_total: num,
  grand_total: num,
  Vendor: reference.nullish(),
  Catalog: reference.nullish(),
  Order_State: reference.nullish(),
  created_at: timestamp,
  updated_at: timestamp,
  deleted_at: timestamp,
})
export type OrderRecord = z.infer<typeof orderSchema>

export const catalogListSchema = z.looseObject({ catalogs: z.array(catalogSchema) })
export const priceGroupListSchema = z.looseObject({ priceGroups: z.array(priceGroupSchema) })
export const catalogItemPageSchema = z.looseObject({
  catalog_items: z.array(catalogItemSchema),
  totalCatalogItems: int,
  hasMoreItems: flag,
  serverTimestamp: text,
})
export const catalogItemResponseSchema = z.looseObject({ catalog_item: catalogItemSchema })
export const catalogItemBatchSchema = z.looseObject({ catalog_items: z.array(catalogItemSchema) })
export const orderResponseSchema = z.looseObject({ order: orderSchema })

const entityRef = z.looseObject({ id: int, guid: text })
export const orderWithItemsResponseSchema = z.looseObject({
  order: orderSchema,
  vendor: customerSchema.nullish(),
  billTo: entityRef.nullish(),
  shipTo: entityRef.nullish(),
  contact: entityRef.nullish(),
  note: entityRef.nullish(),
})
