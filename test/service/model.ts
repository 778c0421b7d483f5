/**
 * The double's stored records, in the service's own field names (ordering-service-interface.md
 * v1.19). Each record type has an index signature because control.update() may merge fields the
 * spec does not list: they are kept and served (in the full models), the way a newer server would.
 */

export type Price = number | 'N/A'

export interface SupplierRec {
  id: number
  guid: string
  name: string
  email: string
  [extra: string]: unknown
}

type UserType = 'supplier' | 'customer'

export interface UserRec {
  id: number
  guid: string
  name: string
  email: string
  /** Internal: the session token (a JWT-shaped string) and who the user is. Never served. */
  token: string
  type: UserType
  vendor_id: number
  is_master: boolean
}

export interface CatalogRec {
  id: number
  guid: string
  supplier_id: number
  order_item_type_id: number
  currency_id: number
  name: string
  email: string
  version: string
  order_prefix_override: string
  active: boolean
  last_inventory_update: string
  created_at: string
  updated_at: string
  deleted_at: string | null
  [extra: string]: unknown
}

/** The nested shape (`value` is the name); the list endpoint projects it to `name`. */
export interface PriceGroupRec {
  id: number
  guid: string
  catalog_id: number
  value: string
  is_main: boolean
  percentage: number
  price_upcharge_type_id: number
  created_at: string
  updated_at: string
  deleted_at: string | null
  [extra: string]: unknown
}

export interface CategoryRec {
  id: number
  guid: string
  catalog_id: number
  parent_category_id: number
  name: string
  sequence: number
  hide_category: boolean
  created_at: string
  updated_at: string
  deleted_at: string | null
  [extra: string]: unknown
}

export interface CatalogItemRec {
  id: number
  catalog_id: number
  category_id: number
  group_parent_catalog_item_id: number
  group_sequence: number
  subsection_id: number
  guid: string
  sku: string
  upc: string
  name: string
  description: string
  manufacturer: string
  color: string
  style: string
  product_group_type: string
  product_group_display_style: string
  group_title: string
  third_party_sku: string
  third_party_pricing: string
  third_party_size: string
  active: boolean
  is_taxable: boolean
  has_inventory: boolean
  allow_backorder: boolean
  has_serials: boolean
  has_lots: boolean
  has_exp_date: boolean
  is_product_group: boolean
  msrp: number
  cost_per_uom: number
  qty_on_hand: number
  qty_incoming: number
  reserved_qty_on_hand: number
  qty_backordered: number
  qty_held_for_backorders: number
  min_qty_on_hand: number
  max_qty_on_hand: number
  min_order_qty: number
  qty_break: number
  qty_break_price: number
  width: number
  height: number
  depth: number
  item_weight: number
  shipping_weight: number
  pricing: Record<string, Price>
  created_at: string
  updated_at: string
  deleted_at: string | null
  [extra: string]: unknown
}

/**
 * The CatalogItem fields of the spec, in its order: the fixed set served to API-key callers.
 * An object literal rather than a loop over names, because V8 serializes a literal-shaped object
 * about twice as fast, and the first full sync serializes every item once.
 */
export function fixedItemFields(r: CatalogItemRec): Record<string, unknown> {
  return {
    id: r.id,
    catalog_id: r.catalog_id,
    category_id: r.category_id,
    group_parent_catalog_item_id: r.group_parent_catalog_item_id,
    group_sequence: r.group_sequence,
    subsection_id: r.subsection_id,
    guid: r.guid,
    sku: r.sku,
    upc: r.upc,
    name: r.name,
    description: r.description,
    manufacturer: r.manufacturer,
    color: r.color,
    style: r.style,
    product_group_type: r.product_group_type,
    product_group_display_style: r.product_group_display_style,
    group_title: r.group_title,
    third_party_sku: r.third_party_sku,
    third_party_pricing: r.third_party_pricing,
    third_party_size: r.third_party_size,
    active: r.active,
    is_taxable: r.is_taxable,
    has_inventory: r.has_inventory,
    allow_backorder: r.allow_backorder,
    has_serials: r.has_serials,
    has_lots: r.has_lots,
    has_exp_date: r.has_exp_date,
    is_product_group: r.is_product_group,
    msrp: r.msrp,
    cost_per_uom: r.cost_per_uom,
    qty_on_hand: r.qty_on_hand,
    qty_incoming: r.qty_incoming,
    reserved_qty_on_hand: r.reserved_qty_on_hand,
    qty_backordered: r.qty_backordered,
    qty_held_for_backorders: r.qty_held_for_backorders,
    min_qty_on_hand: r.min_qty_on_hand,
    max_qty_on_hand: r.max_qty_on_hand,
    min_order_qty: r.min_order_qty,
    qty_break: r.qty_break,
    qty_break_price: r.qty_break_price,
    width: r.width,
    height: r.height,
    depth: r.depth,
    item_weight: r.item_weight,
    shipping_weight: r.shipping_weight,
    pricing: r.pricing,
    created_at: r.created_at,
    updated_at: r.updated_at,
    deleted_at: r.deleted_at,
  }
}

export const categoryFields = [
  'id',
  'guid',
  'catalog_id',
  'parent_category_id',
  'name',
  'sequence',
  'hide_category',
  'created_at',
  'updated_at',
] as const

export interface AddressRec {
  id: number
  guid: string
  vendor_id: number
  order_id: number
  name: string
  company_name: string
  address_line_one: string
  address_line_two: string
  address_line_three: string
  city: string
  state: string
  postal_code: string
  country: string
  phone: string
  fax: string
  email: string
  note: string
  address_internal_id: string
  is_vendor_main_ship_to: boolean
  verified: boolean
  lat: number
  lng: number
  created_at: string
  updated_at: string
  [extra: string]: unknown
}

export interface VendorRec {
  id: number
  guid: string
  supplier_id: number
  parent_vendor_id: number
  customer_internal_id: string
  name: string
  email: string
  shipping_email: string
  phone: string
  cell: string
  fax: string
  address_line_one: string
  address_line_two: string
  city: string
  state: string
  postal_code: string
  country: string
  active: boolean
  tax_exempt: boolean
  require_payment: boolean
  is_ecomm_user: boolean
  net_term_ecomm_user: boolean
  require_po: boolean
  hide_pricing: boolean
  resale_tax_id: string
  standing_po: string
  notes: string
  timezone: string
  lock_catalog_id: number
  price_group_id: number
  payment_type_id: number
  payment_term_id: number
  currency_id: number
  default_order_category_id: number
  route_id: number
  bill_to_id: number
  ship_to_id: number
  credit_limit: number
  open_balance: number
  created_at: string
  updated_at: string
  deleted_at: string | null
  [extra: string]: unknown
}

/** The supplier-to-customer connection row of GET /vendors (its own fields are not shown by the spec). */
export interface ConnectionRec {
  id: number
  guid: string
  supplier_id: number
  vendor_id: number
  category: string
  state_license: string
  token_options: Record<string, unknown>
  created_at: string
}

export interface ContactRec {
  id: number
  guid: string
  vendor_id: number
  name: string
  email: string
  created_at: string
}

export interface NoteRec {
  id: number
  guid: string
  vendor_id: number
  note: string
  created_at: string
}

export interface ClientRec {
  id: number
  guid: string
  name: string
  fields: Record<string, unknown>
}

export interface OrderRec {
  id: number
  guid: string
  name: string
  api_guid: string | null
  supplier_id: number
  vendor_id: number | null
  user_id: number | null
  catalog_id: number | null
  price_group_id: number | null
  category_id: number | null
  parent_order_id: number | null
  client_id: number | null
  project_id: number | null
  sales_rep_id: number | null
  ship_to_id: number | null
  order_source_id: number | null
  order_state_id: number
  po_no: string | null
  invoice_no: string | null
  description: string | null
  note: string | null
  internal_note: string | null
  shipping_instructions: string | null
  is_quote: boolean
  is_sample: boolean
  is_local_pickup: boolean
  is_local_delivery: boolean
  is_shipped: boolean
  partially_shipped: boolean
  is_on_hold: boolean
  is_cancelled: boolean
  sub_total: number | null
  tax: number | null
  shipping: number | null
  labor: number | null
  discount: number | null
  discount_total: number | null
  other: number | null
  grand_total: number | null
  delivery_date: string | null
  ship_date: string | null
  do_not_ship_before_date: string | null
  created_at: string
  updated_at: string
  deleted_at: string | null
  [extra: string]: unknown
}

export interface OrderItemRec {
  id: number
  guid: string
  order_id: number
  catalog_item_id: number
  catalog_item_guid: string
  parent_order_item_id: number
  item_no: number
  sku: string
  name: string
  description: string
  note: string
  qty: number
  qty_shipped: number
  qty_backordered: number
  qty_pending: number
  qty_reserved: number
  is_manual_price: boolean
  is_credit: boolean
  is_backordered: boolean
  list_price_frozen: number
  net_price: number
  discount: number
  discount_total: number
  tax: number
  total: number
  width: number
  height: number
  depth: number
  selected_options: unknown[]
  created_at: string
  updated_at: string
  [extra: string]: unknown
}

export const ORDER_STATES: Record<number, { id: number; guid: string; name: string }> = {
  1: { id: 1, guid: '0b1f2c3d-0001-4a00-8000-000000000001', name: 'PRELIMINARY' },
  2: { id: 2, guid: '0b1f2c3d-0002-4a00-8000-000000000002', name: 'SUBMITTED' },
  8: { id: 8, guid: '0b1f2c3d-0008-4a00-8000-000000000008', name: 'SHIPPED' },
  9: { id: 9, guid: '0b1f2c3d-0009-4a00-8000-000000000009', name: 'COMPLETED' },
  23: { id: 23, guid: '0b1f2c3d-0023-4a00-8000-000000000023', name: 'CANCELLED' },
}

export const STATE = { PRELIMINARY: 1, SUBMITTED: 2, SHIPPED: 8, COMPLETED: 9, CANCELLED: 23 } as const

/** The default workflow: PRELIMINARY → SUBMITTED → SHIPPED → COMPLETED. */
export const NEXT_STATE: Record<number, number | undefined> = { 1: 2, 2: 8, 8: 9 }

/** Order source names accepted on create (1 is the service's own web application). */
export const ORDER_SOURCES: Record<string, number> = { WEB: 1, OTHER: 20, APP: 21 }
