/**
 * The double's in-memory state. Records are kept in the service's field names; everything served
 * from here is either assembled per request from small objects (orders) or from per-record JSON
 * strings cached until the record changes (catalog items, customers), so a listing page costs
 * O(page) string joins rather than O(page × fields) serialization.
 */
import { Rng } from './prng'
import type { LeafSpec } from './words'
import {
  categoryFields,
  fixedItemFields,
  type AddressRec,
  type CatalogItemRec,
  type CatalogRec,
  type CategoryRec,
  type ClientRec,
  type ConnectionRec,
  type ContactRec,
  type NoteRec,
  type OrderItemRec,
  type OrderRec,
  type PriceGroupRec,
  type SupplierRec,
  type UserRec,
  type VendorRec,
} from './model'

export interface CatalogEntry {
  rec: CatalogRec
  priceGroups: PriceGroupEntry[]
  categories: CategoryEntry[]
  /** Every item of the catalog, deleted ones included, ascending id. */
  items: ItemEntry[]
}

export interface PriceGroupEntry {
  rec: PriceGroupRec
  catalog: CatalogEntry
}

export interface CategoryEntry {
  rec: CategoryRec
  catalog: CatalogEntry
  json: string | undefined
  hierarchyJson: string | undefined
  /** `,"Category":…,"CategoryHierarchy":[…]}`: shared by every item of the category. */
  tail: Buffer | undefined
}

export interface ItemEntry {
  rec: CatalogItemRec
  catalog: CatalogEntry
  updatedMs: number
  /** The item's own JSON without its closing brace, [fixed set, full model], as UTF-8 bytes: pages
   * are Buffer.concat of these and the shared category tails, never re-encoded. */
  json: (Buffer | undefined)[] | undefined
  search: string | undefined
}

export interface VendorEntry {
  rec: VendorRec
  billTo: AddressRec
  shipTo: AddressRec
  connection: ConnectionRec
  contacts: ContactRec[]
  notes: NoteRec[]
  /** Shipping preferences and third-party accounts (PUT /v1/vendors replaces them; shapes not shown). */
  shippingDetails: unknown[]
  shippingAccounts: unknown[]
  updatedMs: number
  json: Map<string, Buffer> | undefined
}

export interface OrderRefs {
  vendor: number | null
  billTo: EntityRef | null
  shipTo: EntityRef | null
  contact: EntityRef | null
  note: EntityRef | null
}

export interface EntityRef {
  id: number
  guid: string
}

interface StateLog {
  created_at: string
  userId: number
  stateId: number
}

export interface OrderEntry {
  rec: OrderRec
  lines: OrderItemRec[]
  shipTo: AddressRec
  logs: StateLog[]
  assignedUserIds: number[]
  detail: Record<string, unknown> | null
  /** What the create call answered with, so an api_guid retry answers the same. */
  refs: OrderRefs | undefined
  /** Whether inventory has been reserved for this order (it is, once, on leaving PRELIMINARY). */
  reserved: boolean
  updatedMs: number
}

export class ControlError extends Error {}

const LISTING_CACHE_SIZE = 64
const COMMA = Buffer.from(',')
const CLOSE = Buffer.from('}')
const NO_CATEGORY_TAIL = Buffer.from(',"Category":null,"CategoryHierarchy":[]}')

/** A JSON document made of a prefix, comma-joined rows (each one buffer or several) and a suffix, copied once. */
export function jsonPage(prefix: string, rows: readonly (Buffer | readonly Buffer[])[], suffix: string): Buffer {
  const chunks: Buffer[] = [Buffer.from(prefix)]
  rows.forEach((row, index) => {
    if (index > 0) chunks.push(COMMA)
    if (Buffer.isBuffer(row)) chunks.push(row)
    else chunks.push(...(row as readonly Buffer[]))
  })
  chunks.push(Buffer.from(suffix))
  return Buffer.concat(chunks)
}

export class Store {
  /** Runtime stream: ids and GUIDs of records created after start, drift and inserts. */
  readonly rng: Rng
  readonly epoch: Date
  private clockOffsetMs = 0

  supplier!: SupplierRec
  masterUser!: UserRec
  sessionUser!: UserRec
  customerUser!: UserRec
  apiKey = ''
  apiSecret = ''
  /** Session tokens that expired (control.expireSession): a 401 that says so, not "invalid". */
  readonly expiredTokens = new Set<string>()
  /** Orders whose workflow step control.lockOrderStep made read-only: PUT /v1/orders/{guid} answers 403. */
  readonly lockedOrders = new Set<string>()
  /** Items whose single read lists more than one picture (control.imageGallery), by SKU: how many, and which answer 404. */
  readonly imageGalleries = new Map<string, { count: number; missing: number[] }>()
  readonly settings = { remainInPreliminary: false, apiKeyCustomers: false }

  readonly users: UserRec[] = []
  readonly usersByGuid = new Map<string, UserRec>()
  readonly usersById = new Map<number, UserRec>()

  readonly catalogs: CatalogEntry[] = []
  readonly catalogsByGuid = new Map<string, CatalogEntry>()
  readonly catalogsById = new Map<number, CatalogEntry>()
  readonly priceGroupsByGuid = new Map<string, PriceGroupEntry>()
  readonly priceGroupsById = new Map<number, PriceGroupEntry>()
  readonly categoriesByGuid = new Map<string, CategoryEntry>()
  readonly categoriesById = new Map<number, CategoryEntry>()
  readonly itemsByGuid = new Map<string, ItemEntry>()
  readonly itemsById = new Map<number, ItemEntry>()

  readonly vendors: VendorEntry[] = []
  readonly vendorsByGuid = new Map<string, VendorEntry>()
  readonly vendorsById = new Map<number, VendorEntry>()
  readonly clientsById = new Map<number, ClientRec>()

  readonly orders: OrderEntry[] = []
  readonly ordersByGuid = new Map<string, OrderEntry>()
  readonly ordersById = new Map<number, OrderEntry>()
  readonly ordersByApiGuid = new Map<string, OrderEntry[]>()

  /** Which vocabulary each leaf category draws from, and each SKU prefix's counter (for runtime inserts). */
  readonly leafSpecs = new Map<number, LeafSpec>()
  readonly skuCounters = new Map<string, number>()
  /** How often each generated customer name was used, so a later one gets "#2" (kept here so a reset forgets it). */
  readonly customerNames = new Map<string, number>()

  readonly nextId = {
    catalog: 11,
    priceGroup: 101,
    category: 1001,
    item: 10001,
    vendor: 5001,
    connection: 70001,
    address: 200001,
    contact: 300001,
    note: 400001,
    client: 500001,
    order: 900001,
    orderItem: 3000001,
    orderNumber: 100001,
  }

  private readonly versions = new Map<string, number>()
  private readonly listings = new Map<string, { version: number; rows: unknown[] }>()

  constructor(seed: number, epoch: Date) {
    this.rng = new Rng(seed ^ 0x5eed5eed).fork('runtime')
    this.epoch = epoch
  }

  /**
   * Takes every field of a store generated afresh (control.reset), in place: the routes, the image
   * host and the control surface hold this object, so it is the one that must change.
   */
  replaceWith(fresh: Store): void {
    Object.assign(this, fresh)
  }

  // ---- clock -------------------------------------------------------------------------------------

  nowMs(): number {
    return Date.now() + this.clockOffsetMs
  }
  now(): Date {
    return new Date(this.nowMs())
  }
  nowIso(): string {
    return this.now().toISOString()
  }
  shiftClock(ms: number): void {
    this.clockOffsetMs += ms
  }

  id(kind: keyof Store['nextId']): number {
    return this.nextId[kind]++
  }

  // ---- listing cache -----------------------------------------------------------------------------

  version(collection: string): number {
    return this.versions.get(collection) ?? 0
  }
  bump(collection: string): void {
    this.versions.set(collection, this.version(collection) + 1)
  }

  /** Memoizes a filtered, sorted row set until its collection changes, so paging through it is O(page). */
  listing<T>(collection: string, key: string, build: () => T[]): T[] {
    const version = this.version(collection)
    const cacheKey = `${collection}|${key}`
    const hit = this.listings.get(cacheKey)
    if (hit && hit.version === version) {
      this.listings.delete(cacheKey)
      this.listings.set(cacheKey, hit)
      return hit.rows as T[]
    }
    const rows = build()
    this.listings.set(cacheKey, { version, rows })
    if (this.listings.size > LISTING_CACHE_SIZE) {
      const oldest = this.listings.keys().next().value
      if (oldest !== undefined) this.listings.delete(oldest)
    }
    return rows
  }

  itemsCollection(catalog: CatalogEntry): string {
    return `items:${catalog.rec.id}`
  }

  // ---- registration (generator and runtime inserts) ----------------------------------------------

  addUser(user: UserRec): void {
    this.users.push(user)
    this.usersByGuid.set(user.guid, user)
    this.usersById.set(user.id, user)
  }

  addCatalog(rec: CatalogRec): CatalogEntry {
    const entry: CatalogEntry = { rec, priceGroups: [], categories: [], items: [] }
    this.catalogs.push(entry)
    this.catalogsByGuid.set(rec.guid, entry)
    this.catalogsById.set(rec.id, entry)
    return entry
  }

  addPriceGroup(catalog: CatalogEntry, rec: PriceGroupRec): PriceGroupEntry {
    const entry: PriceGroupEntry = { rec, catalog }
    catalog.priceGroups.push(entry)
    this.priceGroupsByGuid.set(rec.guid, entry)
    this.priceGroupsById.set(rec.id, entry)
    return entry
  }

  addCategory(catalog: CatalogEntry, rec: CategoryRec): CategoryEntry {
    const entry: CategoryEntry = { rec, catalog, json: undefined, hierarchyJson: undefined, tail: undefined }
    catalog.categories.push(entry)
    this.categoriesByGuid.set(rec.guid, entry)
    this.categoriesById.set(rec.id, entry)
    return entry
  }

  addItem(catalog: CatalogEntry, rec: CatalogItemRec): ItemEntry {
    const entry: ItemEntry = { rec, catalog, updatedMs: Date.parse(rec.updated_at), json: undefined, search: undefined }
    catalog.items.push(entry)
    this.itemsByGuid.set(rec.guid, entry)
    this.itemsById.set(rec.id, entry)
    this.bump(this.itemsCollection(catalog))
    return entry
  }

  addVendor(entry: Omit<VendorEntry, 'updatedMs' | 'json'>): VendorEntry {
    const full: VendorEntry = { ...entry, updatedMs: Date.parse(entry.rec.updated_at), json: undefined }
    this.vendors.push(full)
    this.vendorsByGuid.set(full.rec.guid, full)
    this.vendorsById.set(full.rec.id, full)
    this.bump('vendors')
    return full
  }

  addOrder(entry: OrderEntry): OrderEntry {
    this.orders.push(entry)
    this.ordersByGuid.set(entry.rec.guid, entry)
    this.ordersById.set(entry.rec.id, entry)
    if (entry.rec.api_guid) {
      const list = this.ordersByApiGuid.get(entry.rec.api_guid) ?? []
      list.push(entry)
      this.ordersByApiGuid.set(entry.rec.api_guid, list)
    }
    this.bump('orders')
    return entry
  }

  // ---- lookups -----------------------------------------------------------------------------------

  liveCatalog(guid: string): CatalogEntry | undefined {
    const catalog = this.catalogsByGuid.get(guid)
    return catalog && catalog.rec.deleted_at === null ? catalog : undefined
  }

  livePriceGroups(catalog: CatalogEntry): PriceGroupEntry[] {
    return catalog.priceGroups.filter((group) => group.rec.deleted_at === null)
  }

  liveVendor(guid: string): VendorEntry | undefined {
    const vendor = this.vendorsByGuid.get(guid)
    return vendor && vendor.rec.deleted_at === null ? vendor : undefined
  }

  /** Customers are unique per supplier by email, case-insensitively (the create endpoints' idempotency key). */
  vendorByEmail(email: string): VendorEntry | undefined {
    const wanted = email.trim().toLowerCase()
    if (!wanted) return undefined
    return this.vendors.find((vendor) => vendor.rec.deleted_at === null && vendor.rec.email.toLowerCase() === wanted)
  }

  // ---- change tracking ---------------------------------------------------------------------------

  touchItem(entry: ItemEntry, at = this.nowIso()): void {
    entry.rec.updated_at = at
    entry.updatedMs = Date.parse(at)
    entry.json = undefined
    entry.search = undefined
    this.bump(this.itemsCollection(entry.catalog))
  }

  touchVendor(entry: VendorEntry, at = this.nowIso()): void {
    entry.rec.updated_at = at
    entry.updatedMs = Date.parse(at)
    entry.json = undefined
    this.bump('vendors')
  }

  touchOrder(entry: OrderEntry, at = this.nowIso()): void {
    entry.rec.updated_at = at
    entry.updatedMs = Date.parse(at)
    this.bump('orders')
  }

  /** A catalog-level change (price groups, categories) alters every item's served JSON. */
  invalidateCatalog(catalog: CatalogEntry): void {
    for (const category of catalog.categories) {
      category.json = undefined
      category.hierarchyJson = undefined
      category.tail = undefined
    }
    for (const item of catalog.items) item.json = undefined
    this.bump(this.itemsCollection(catalog))
  }

  // ---- serialization -----------------------------------------------------------------------------

  categoryJson(entry: CategoryEntry): string {
    if (entry.json === undefined) entry.json = JSON.stringify(categoryObject(entry.rec))
    return entry.json
  }

  /** Root first, the item's own category last. */
  hierarchyJson(entry: CategoryEntry): string {
    if (entry.hierarchyJson === undefined) {
      const chain: CategoryEntry[] = []
      const seen = new Set<number>()
      for (
        let at: CategoryEntry | undefined = entry;
        at && !seen.has(at.rec.id);
        at = this.categoriesById.get(at.rec.parent_category_id)
      ) {
        seen.add(at.rec.id)
        chain.unshift(at)
      }
      entry.hierarchyJson = `[${chain.map((category) => this.categoryJson(category)).join(',')}]`
    }
    return entry.hierarchyJson
  }

  /** The JSON that closes an item of this category: its Category and CategoryHierarchy. */
  categoryTail(entry: CategoryEntry): Buffer {
    entry.tail ??= Buffer.from(
      `,"Category":${this.categoryJson(entry)},"CategoryHierarchy":${this.hierarchyJson(entry)}}`,
    )
    return entry.tail
  }

  /**
   * One item's JSON as chunks: `full` (user sessions) serves every stored field, otherwise the
   * spec's fixed field set; `categories` closes it with Category/CategoryHierarchy; `attributes`
   * adds the item's attributes. The item part is cached until the item changes.
   */
  itemChunks(entry: ItemEntry, full: boolean, categories: boolean, attributes: boolean): Buffer[] {
    const slot = full ? 1 : 0
    entry.json ??= []
    let base = entry.json[slot]
    if (base === undefined) {
      const json = JSON.stringify(full ? entry.rec : fixedItemFields(entry.rec))
      base = Buffer.from(json.slice(0, -1))
      entry.json[slot] = base
    }
    const category = categories ? this.categoriesById.get(entry.rec.category_id) : undefined
    const tail = !categories ? CLOSE : category ? this.categoryTail(category) : NO_CATEGORY_TAIL
    if (!attributes) return [base, tail]
    return [base, Buffer.from(`,"attributes":${JSON.stringify(itemAttributes(entry.rec))}`), tail]
  }

  itemJson(entry: ItemEntry, full: boolean, categories: boolean, attributes: boolean): string {
    return Buffer.concat(this.itemChunks(entry, full, categories, attributes)).toString('utf8')
  }

  itemObject(entry: ItemEntry, full: boolean, categories: boolean, attributes: boolean): Record<string, unknown> {
    return JSON.parse(this.itemJson(entry, full, categories, attributes)) as Record<string, unknown>
  }

  /** The text typeahead searches: name, SKU, description and UPC. */
  itemSearchText(entry: ItemEntry): string {
    entry.search ??= `${entry.rec.name}\n${entry.rec.sku}\n${entry.rec.description}\n${entry.rec.upc}`.toLowerCase()
    return entry.search
  }

  vendorObject(entry: VendorEntry): Record<string, unknown> {
    return {
      ...entry.rec,
      Bill_To: { ...entry.billTo },
      Ship_To: { ...entry.shipTo },
      shipping_details: entry.shippingDetails,
      shipping_accounts: entry.shippingAccounts,
    }
  }

  vendorBuffer(entry: VendorEntry): Buffer {
    entry.json ??= new Map()
    let buffer = entry.json.get('v')
    if (buffer === undefined) {
      buffer = Buffer.from(JSON.stringify(this.vendorObject(entry)))
      entry.json.set('v', buffer)
    }
    return buffer
  }

  /** A GET /vendors row: the supplier-to-customer connection with the customer under `Vendor`. */
  connectionBuffer(entry: VendorEntry, nameGuidOnly: boolean): Buffer {
    const variant = nameGuidOnly ? 'cn' : 'c'
    entry.json ??= new Map()
    let buffer = entry.json.get(variant)
    if (buffer === undefined) {
      const { connection, rec } = entry
      const row = {
        id: connection.id,
        guid: connection.guid,
        supplier_id: connection.supplier_id,
        vendor_id: connection.vendor_id,
        active: rec.active,
        category: connection.category,
        state_license: connection.state_license,
        price_group_id: rec.price_group_id,
        lock_catalog_id: rec.lock_catalog_id,
        token_options: connection.token_options,
        created_at: connection.created_at,
        updated_at: rec.updated_at,
        deleted_at: rec.deleted_at,
        Vendor: nameGuidOnly ? { id: rec.id, guid: rec.guid, name: rec.name } : this.vendorObject(entry),
      }
      buffer = Buffer.from(JSON.stringify(row))
      entry.json.set(variant, buffer)
    }
    return buffer
  }

  catalogObject(entry: CatalogEntry, includeDeletedPriceGroups: boolean): Record<string, unknown> {
    const groups = includeDeletedPriceGroups ? entry.priceGroups : this.livePriceGroups(entry)
    return { ...entry.rec, Price_Groups: groups.map((group) => ({ ...group.rec })) }
  }
}

function pick<T extends object>(source: T, fields: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  const record = source as Record<string, unknown>
  for (const field of fields) out[field] = record[field]
  return out
}

function categoryObject(rec: CategoryRec): Record<string, unknown> {
  const out = pick(rec, categoryFields)
  if (rec.deleted_at !== null) out.deleted_at = rec.deleted_at
  return out
}

/** Attributes (structure not shown by the spec): name/value pairs derived from the item's descriptive fields. */
export function itemAttributes(rec: CatalogItemRec): { name: string; value: string }[] {
  const out: { name: string; value: string }[] = []
  if (rec.color) out.push({ name: 'Color', value: rec.color })
  if (rec.style) out.push({ name: 'Size', value: rec.style })
  if (rec.manufacturer) out.push({ name: 'Brand', value: rec.manufacturer })
  if (typeof rec.uom === 'string') out.push({ name: 'Unit of Measure', value: rec.uom })
  return out
}

export function makeAddress(store: Store, rng: Rng, fields: Partial<AddressRec>, at: string): AddressRec {
  return {
    id: store.id('address'),
    guid: rng.uuid(),
    vendor_id: 0,
    order_id: 0,
    name: '',
    company_name: '',
    address_line_one: '',
    address_line_two: '',
    address_line_three: '',
    city: '',
    state: '',
    postal_code: '',
    country: 'US',
    phone: '',
    fax: '',
    email: '',
    note: '',
    address_internal_id: '',
    is_vendor_main_ship_to: false,
    verified: false,
    lat: 0,
    lng: 0,
    created_at: at,
    updated_at: at,
    ...fields,
  }
}
