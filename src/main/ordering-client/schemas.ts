/**
 * Runtime checks of what the ordering service sends. Only the fields Satchel reads are checked; every
 * schema is loose, so fields the spec does not show pass through, and the local copy keeps each record's
 * original JSON beside the columns it queries.
 */
import { z } from 'zod'

const text = z.string().nullish()
const int = z.number().int().nullish()
const num = z.number().nullish()
const flag = z.boolean().nullish()
/** ISO 8601 or `YYYY-MM-DD HH:mm:ss`; parsed by the local copy, which keeps the string as received. */
const timestamp = z.string().nullish()

const addressSchema = z.looseObject({
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

const priceGroupSchema = z.looseObject({
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

const catalogSchema = z.looseObject({
  id: int,
  guid: z.string().min(1),
  name: text,
  active: flag,
  updated_at: timestamp,
  deleted_at: timestamp,
  Price_Groups: z.array(priceGroupSchema).nullish(),
})
export type CatalogRecord = z.infer<typeof catalogSchema>

const categorySchema = z.looseObject({
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

/**
 * What the service may send for a catalog item's money and quantities, so that nothing is priced or
 * checked from an impossible value. zod's number is
 * already finite (a raw `1e400` parses to Infinity and fails it); on top of that none of these may be
 * negative. A numeric string such as "12.50" is refused, not parsed: the contract shows a number, the
 * local copy keeps the record as received (the order desk prices from it), and a string price is the sign
 * of a broken serializer whose format ("12,50"? "1.250"?) Satchel would only be guessing.
 */
const amount = z.number().nonnegative().nullish()

/** The longest price group name Satchel accepts, as a key of `pricing` or a group's name. */
const MAX_PRICE_GROUP_NAME_LENGTH = 200

/** Names that would reach an object's prototype when used as a key. */
const reservedKeys = new Set(['__proto__', 'constructor', 'prototype'])

/** Why a price group name cannot be used, or null when it can: non-empty, at most 200 characters, not a prototype key. */
export function priceGroupNameProblem(name: string): string | null {
  if (name.trim() === '') return 'an empty price group name'
  if (name.length > MAX_PRICE_GROUP_NAME_LENGTH)
    return `a price group name of ${name.length} characters (at most ${MAX_PRICE_GROUP_NAME_LENGTH})`
  if (reservedKeys.has(name)) return `the reserved price group name ${JSON.stringify(name)}`
  return null
}

/** A price: a finite, non-negative number, or "N/A" when the item is not offered to that price group. */
export function priceProblem(value: unknown): string | null {
  if (value === 'N/A' || value === null) return null
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return `the price ${value}`
    return value < 0 ? `the negative price ${value}` : null
  }
  if (typeof value === 'string') return `the price ${JSON.stringify(value.slice(0, 40))} sent as a string`
  return `a price of type ${typeof value}`
}

/**
 * `pricing`: an object keyed by price group name. Checked by walking its own keys, never by building a
 * copy (zod's record would assign every key, `__proto__` included, to a fresh plain object).
 */
const pricingSchema = z
  .custom<Record<string, unknown>>((value) => typeof value === 'object' && value !== null && !Array.isArray(value), {
    message: 'pricing is not an object',
  })
  .superRefine((pricing, context) => {
    for (const key of Object.keys(pricing)) {
      const shown = JSON.stringify(key.length > 40 ? `${key.slice(0, 40)}…` : key)
      const problem = priceGroupNameProblem(key) ?? priceProblem(pricing[key])
      if (problem) context.addIssue({ code: 'custom', message: `key ${shown}: ${problem}` })
    }
  })
  .nullish()

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
  msrp: amount,
  qty_on_hand: num,
  min_order_qty: amount,
  qty_break: amount,
  qty_break_price: amount,
  has_inventory: flag,
  allow_backorder: flag,
  pricing: pricingSchema,
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

/** Where a reply's checks found a problem, and which: zod's issues, and catalogItemsIssues'. */
export interface ReplyIssue {
  path: PropertyKey[]
  message: string
}

/**
 * The catalog items of a page or batch: only what identifies each row is checked here (an object with
 * a non-empty string guid). Each item's values are checked against catalogItemSchema as it is applied
 * (local/rows.ts, catalogItemProblem), so one item with an impossible price is refused on its own,
 * with its reason, while the rest of the page is applied and the refused row keeps its last good
 * local copy. Plain code, not a schema: zod builds a copy of every object it parses (every key of
 * 100 items a page), thrown away unread, and that copy was the main thread's largest cost in a first
 * sync after parsing the JSON. And with the items array given to zod (as a refinement of it), the
 * page's records outlived the main thread's young collections: 2-2.5 MB of every one moved into the
 * old generation during a first sync, 0.1-0.25 MB once zod no longer saw the array (--trace-gc-nvp,
 * bench:first-sync-memory; by what path inside zod was not found, none holds a page once checked).
 * Paths are relative to the array; messages are zod's.
 */
export function catalogItemsIssues(items: unknown): ReplyIssue[] {
  if (!Array.isArray(items)) return [{ path: [], message: 'Invalid input: expected array' }]
  const issues: ReplyIssue[] = []
  items.forEach((item: unknown, index) => {
    if (typeof item !== 'object' || item === null || Array.isArray(item))
      return void issues.push({ path: [index], message: 'Invalid input: expected object' })
    const guid = (item as { guid?: unknown }).guid
    if (typeof guid !== 'string') issues.push({ path: [index, 'guid'], message: 'Invalid input: expected string' })
    else if (guid.length === 0)
      issues.push({ path: [index, 'guid'], message: 'Too small: expected string to have >=1 characters' })
  })
  return issues
}

/**
 * A catalog item as the SKU lookup and the typeahead name it: the spec shows neither reply, and the
 * lookup's is "a lightweight projection", so only what finds the full item is required (its guid,
 * under the names a projection may give it); the rest is kept as sent and never priced from.
 */
export const itemReferenceSchema = z.looseObject({
  guid: text,
  catalog_item_guid: text,
  catalogItemGuid: text,
  sku: text,
  upc: text,
})

export const catalogListSchema = z.looseObject({ catalogs: z.array(catalogSchema) })
export const priceGroupListSchema = z.looseObject({ priceGroups: z.array(priceGroupSchema) })
/** A page of catalog items but its `catalog_items`, which catalogItemsIssues checks. */
export const catalogItemPageSchema = z.looseObject({
  totalCatalogItems: int,
  hasMoreItems: flag,
  serverTimestamp: text,
})
export const catalogItemResponseSchema = z.looseObject({ catalog_item: catalogItemSchema })
/** A batch of catalog items but its `catalog_items`, which catalogItemsIssues checks. */
export const catalogItemBatchSchema = z.looseObject({})
/** GET /v1/orders/{guid}: the full order and its related orders (backorders, the parent order). */
export const orderResponseSchema = z.looseObject({ order: orderSchema, relatedOrders: z.array(orderSchema).nullish() })

const entityRef = z.looseObject({ id: int, guid: text })
export const orderWithItemsResponseSchema = z.looseObject({
  order: orderSchema,
  vendor: customerSchema.nullish(),
  billTo: entityRef.nullish(),
  shipTo: entityRef.nullish(),
  contact: entityRef.nullish(),
  note: entityRef.nullish(),
})

/** POST /v1/order/submit: the order after the step, and the lines it filled from stock. */
export const submitResponseSchema = z.looseObject({
  order: orderSchema,
  autoFulfilledItems: z.array(z.looseObject({})).nullish(),
})
