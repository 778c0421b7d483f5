/**
 * Seeded data that reads like a real supplier. Everything is drawn from forked PRNG streams, so the
 * same seed gives the same catalogs, items, customers and orders. Timestamps are placed before the
 * epoch (midnight UTC of the start day unless pinned), so every seeded row is older than the double's
 * clock and a first full sync followed by a delta sees only what the test changed.
 */
import type { ServiceSize } from './types'
import { Rng, round2 } from './prng'
import { ORDER_STATES, STATE, type CatalogItemRec, type Price, type UserRec } from './model'
import { imagePath } from './images'
import {
  makeAddress,
  type CatalogEntry,
  type CategoryEntry,
  type ItemEntry,
  type OrderEntry,
  type Store,
  type VendorEntry,
} from './store'
import {
  catalogSpecs,
  cities,
  customerKinds,
  customerPrefixes,
  firstNames,
  lastNames,
  sellingPoints,
  streets,
  type LeafSpec,
} from './words'
import { computeTotals, pricedLine } from './orders'

const DAY = 86_400_000

export interface SizeProfile {
  items: number
  customers: number
  orders: number
}

export function sizeProfile(size: ServiceSize): SizeProfile {
  if (size === 'tiny') return { items: 250, customers: 30, orders: 20 }
  if (size === 'demo') return { items: 3000, customers: 300, orders: 200 }
  if (size === 'bench') return { items: 100_000, customers: 20_000, orders: 2000 }
  const items = Math.max(20, Math.floor(size))
  const clamp = (value: number, min: number, max: number): number => Math.min(max, Math.max(min, Math.round(value)))
  return { items, customers: clamp(items / 10, 30, 20_000), orders: clamp(items / 15, 20, 2000) }
}

function iso(ms: number): string {
  return new Date(ms).toISOString()
}

function slug(text: string): string {
  return text
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9]+/g, '')
}

/** A 12-digit UPC-A with a valid check digit. */
function upc(rng: Rng): string {
  const body = '0' + rng.digits(10)
  let sum = 0
  for (let i = 0; i < 11; i++) sum += Number(body[i]) * (i % 2 === 0 ? 3 : 1)
  return body + String((10 - (sum % 10)) % 10)
}

function areaCode(state: string): string {
  return (
    ({ OR: '503', WA: '206', ID: '208', MT: '406', CA: '916', NV: '775' } as Record<string, string>)[state] ?? '555'
  )
}

function phone(rng: Rng, state: string): string {
  return `(${areaCode(state)}) 555-${rng.digits(4)}`
}

function personName(rng: Rng): string {
  return `${rng.pick(firstNames)} ${rng.pick(lastNames)}`
}

export function leafCategories(catalog: CatalogEntry): CategoryEntry[] {
  const parents = new Set(catalog.categories.map((category) => category.rec.parent_category_id))
  return catalog.categories.filter((category) => !parents.has(category.rec.id) && category.rec.deleted_at === null)
}

function pricingFor(
  store: Store,
  catalog: CatalogEntry,
  base: number,
  rng: Rng,
  forceNotOffered: boolean,
): Record<string, Price> {
  const pricing: Record<string, Price> = {}
  for (const group of store.livePriceGroups(catalog)) {
    const notOffered = !group.rec.is_main && (forceNotOffered || rng.chance(0.05))
    pricing[group.rec.value] = notOffered ? 'N/A' : round2(base * (1 + group.rec.percentage / 100))
  }
  return pricing
}

export interface ItemTimes {
  created: string
  updated: string
}

/**
 * One catalog item (or, for size-grouped leaves, a product group parent and its children). `slot`
 * forces the rarer shapes at fixed positions, so even the tiny data set has a short item, a
 * backorderable one, an inactive one, an 'N/A' price, qty breaks and a minimum order quantity.
 */
export function makeItems(
  store: Store,
  rng: Rng,
  catalog: CatalogEntry,
  leaf: CategoryEntry,
  times: ItemTimes,
  slot: number,
): CatalogItemRec[] {
  const spec = store.leafSpecs.get(leaf.rec.id)
  if (!spec) throw new Error(`category ${leaf.rec.id} has no vocabulary`)
  const brand = rng.pick(spec.brands)
  const variant = rng.pick(spec.variants)
  const noun = rng.pick(spec.nouns)
  const size = rng.pick(spec.sizes)
  const pack = rng.pick(spec.packs)
  const color = spec.colors && rng.chance(0.6) ? rng.pick(spec.colors) : ''
  const nameParts = [`${brand.brand} ${variant} ${noun}`, color, spec.sizeGroup ? '' : size, pack].filter(Boolean)
  const name = nameParts.join(', ')
  const base = rng.money(spec.price[0], spec.price[1])
  const short = slot === 1 || slot === 2 || (slot > 10 && rng.chance(0.08))
  const hasInventory = short || rng.chance(0.88)
  const allowBackorder = slot === 2 || (slot !== 1 && rng.chance(0.15))
  const onHand = !hasInventory ? 0 : short ? rng.int(1, 3) : rng.int(24, 640)
  const reserved = !hasInventory ? 0 : short ? (slot === 1 || slot === 2 ? 0 : rng.int(0, onHand)) : rng.int(0, 18)
  const qtyBreak = slot === 5 || (slot > 10 && rng.chance(0.22)) ? rng.pick([10, 24, 48]) : 0
  const caseMatch = /^(\d+)\//.exec(pack)
  const itemWeight = rng.money(0.2, spec.price[1] > 500 ? 60 : 25)
  const common = {
    catalog_id: catalog.rec.id,
    category_id: leaf.rec.id,
    subsection_id: 0,
    manufacturer: brand.manufacturer,
    third_party_pricing: '',
    third_party_size: '',
    is_taxable: spec.taxable,
    has_serials: spec.serials ?? false,
    has_lots: spec.perishable && rng.chance(0.5),
    has_exp_date: spec.perishable,
    msrp: round2(base * 1.35),
    cost_per_uom: round2(base * 0.62),
    width: rng.money(2, 30),
    height: rng.money(1, 24),
    depth: rng.money(1, 24),
    item_weight: itemWeight,
    shipping_weight: round2(itemWeight * 1.1 + 0.3),
    pricing: pricingFor(store, catalog, base, rng, slot === 4),
    created_at: times.created,
    updated_at: times.updated,
    deleted_at: null,
    supplier_id: store.supplier.id,
    uom: pack === 'Each' || pack === 'Pair' ? 'EA' : 'CS',
    case_pack: caseMatch ? Number(caseMatch[1]) : 1,
  }
  const nextSku = (): string => {
    const n = (store.skuCounters.get(spec.prefix) ?? 10000) + 1
    store.skuCounters.set(spec.prefix, n)
    return `${spec.prefix}-${n}`
  }
  const description = `${variant} ${noun.toLowerCase()} from ${brand.brand}${color ? ` in ${color.toLowerCase()}` : ''}, ${spec.sizeGroup ? 'sold by size' : size}, packed ${pack}. ${rng.pick(sellingPoints)}`
  const single = (overrides: Partial<CatalogItemRec>): CatalogItemRec => {
    const sku = nextSku()
    return {
      id: store.id('item'),
      ...common,
      group_parent_catalog_item_id: 0,
      group_sequence: 0,
      guid: rng.uuid(),
      sku,
      upc: upc(rng),
      name,
      description,
      color,
      style: '',
      product_group_type: '',
      product_group_display_style: '',
      group_title: '',
      third_party_sku: rng.chance(0.1) ? `${slug(brand.brand).slice(0, 4).toUpperCase()}-${rng.digits(6)}` : '',
      active: slot !== 3 && rng.chance(0.97),
      has_inventory: hasInventory,
      allow_backorder: allowBackorder,
      is_product_group: false,
      qty_on_hand: onHand,
      qty_incoming: rng.chance(0.3) ? rng.int(12, 240) : 0,
      reserved_qty_on_hand: reserved,
      qty_backordered: allowBackorder && short ? rng.int(1, 24) : 0,
      qty_held_for_backorders: hasInventory && rng.chance(0.05) ? rng.int(1, 12) : 0,
      min_qty_on_hand: hasInventory ? rng.pick([6, 12, 24]) : 0,
      max_qty_on_hand: hasInventory ? rng.pick([240, 480, 720]) : 0,
      min_order_qty: slot === 6 ? 6 : rng.chance(0.9) ? 1 : rng.pick([2, 6, 12]),
      qty_break: qtyBreak,
      qty_break_price: qtyBreak ? round2(base * 0.92) : 0,
      image_url: imagePath(sku),
      ...overrides,
    } as CatalogItemRec
  }
  if (!spec.sizeGroup) return [single({})]
  const parent = single({
    is_product_group: true,
    product_group_type: 'Size',
    product_group_display_style: 'dropdown',
    group_title: name,
    has_inventory: false,
    qty_on_hand: 0,
    reserved_qty_on_hand: 0,
  })
  const children = spec.sizeGroup.map((groupSize, index) =>
    single({
      name: `${name}, Size ${groupSize}`,
      style: groupSize,
      group_parent_catalog_item_id: parent.id,
      group_sequence: index + 1,
      group_title: name,
      product_group_type: 'Size',
      product_group_display_style: 'dropdown',
    }),
  )
  return [parent, ...children]
}

function customerName(store: Store, rng: Rng, suffix: string): string {
  const names = store.customerNames
  const base = `${rng.pick(customerPrefixes)} ${suffix}`
  const seen = (names.get(base) ?? 0) + 1
  names.set(base, seen)
  return seen === 1 ? base : `${base} #${seen}`
}

/**
 * A seeded or inserted customer with its addresses and connection row. `slot` forces the rarer
 * shapes (inactive, require_po, locked to the second catalog, tax exempt) at fixed positions.
 */
export function makeVendor(store: Store, rng: Rng, created: string, updated: string, slot: number): VendorEntry {
  const kind = rng.pick(customerKinds)
  const place = rng.pick(cities)
  const name = customerName(store, rng, rng.pick(kind.suffixes))
  const id = store.id('vendor')
  const domain = `${slug(name)}.example`
  const contactName = personName(rng)
  const street = `${rng.int(100, 9899)} ${rng.pick(streets)}`
  const postal = place.zip + rng.digits(2)
  const catalogs = store.catalogs.filter((catalog) => catalog.rec.deleted_at === null)
  const first = catalogs[0]
  const second = catalogs[1] ?? first
  if (!first || !second) throw new Error('customers need a catalog')
  const locked = slot === 7 || (slot > 10 && rng.chance(0.05)) ? second : slot === 8 ? first : undefined
  const groups = store.livePriceGroups(locked ?? first)
  const weighted = groups.flatMap((group, index) => Array<typeof group>(Math.max(1, 4 - index)).fill(group))
  const group = rng.pick(weighted)
  const requirePo = slot === 5 || (slot > 10 && rng.chance(0.18))
  const creditLimit = rng.pick([2500, 5000, 10000, 25000])
  const shipTo = makeAddress(
    store,
    rng,
    {
      vendor_id: id,
      name: contactName,
      company_name: name,
      address_line_one: street,
      city: place.city,
      state: place.state,
      postal_code: postal,
      phone: phone(rng, place.state),
      email: `receiving@${domain}`,
      is_vendor_main_ship_to: true,
      verified: rng.chance(0.8),
      lat: round2(place.lat + (rng.next() - 0.5) / 5),
      lng: round2(place.lng + (rng.next() - 0.5) / 5),
      address_internal_id: `ST-${id}`,
      note: rng.chance(0.2) ? 'Deliver to the back door before 10am.' : '',
      created_at: created,
      updated_at: updated,
    },
    created,
  )
  const separateBilling = rng.chance(0.25)
  const billTo = makeAddress(
    store,
    rng,
    {
      vendor_id: id,
      name: `Accounts Payable, ${name}`,
      company_name: name,
      address_line_one: separateBilling ? `PO Box ${rng.int(100, 9999)}` : street,
      city: place.city,
      state: place.state,
      postal_code: separateBilling ? place.zip + rng.digits(2) : postal,
      phone: shipTo.phone,
      email: `ap@${domain}`,
      verified: shipTo.verified,
      lat: shipTo.lat,
      lng: shipTo.lng,
      address_internal_id: `BT-${id}`,
      created_at: created,
      updated_at: updated,
    },
    created,
  )
  const rec: VendorEntry['rec'] = {
    id,
    guid: rng.uuid(),
    supplier_id: store.supplier.id,
    parent_vendor_id: 0,
    customer_internal_id: `C${id}`,
    name,
    email: `purchasing@${domain}`,
    shipping_email: `receiving@${domain}`,
    phone: shipTo.phone,
    cell: rng.chance(0.5) ? phone(rng, place.state) : '',
    fax: rng.chance(0.15) ? phone(rng, place.state) : '',
    address_line_one: street,
    address_line_two: rng.chance(0.2) ? `Suite ${rng.int(100, 450)}` : '',
    city: place.city,
    state: place.state,
    postal_code: postal,
    country: 'US',
    active: slot !== 3 && rng.chance(0.97),
    tax_exempt: slot === 9 || ((kind.category === 'School' || kind.category === 'Healthcare') && rng.chance(0.5)),
    require_payment: rng.chance(0.05),
    is_ecomm_user: rng.chance(0.4),
    net_term_ecomm_user: rng.chance(0.2),
    require_po: requirePo,
    hide_pricing: rng.chance(0.03),
    resale_tax_id: kind.category === 'Grocery' ? `RS-${rng.digits(8)}` : '',
    standing_po: requirePo && rng.chance(0.3) ? `PO-BLANKET-${rng.digits(4)}` : '',
    notes: rng.chance(0.2) ? `Prefers ${rng.pick(['morning', 'afternoon'])} deliveries; ask for ${contactName}.` : '',
    timezone: place.tz,
    lock_catalog_id: locked ? locked.rec.id : 0,
    price_group_id: group.rec.id,
    payment_type_id: rng.pick([1, 2, 3]),
    payment_term_id: rng.pick([1, 1, 2, 3]),
    currency_id: 1,
    default_order_category_id: 0,
    route_id: rng.int(1, 8),
    bill_to_id: billTo.id,
    ship_to_id: shipTo.id,
    credit_limit: creditLimit,
    open_balance: rng.money(0, creditLimit * 0.6),
    created_at: created,
    updated_at: updated,
    deleted_at: null,
  }
  const connection = {
    id: store.id('connection'),
    guid: rng.uuid(),
    supplier_id: store.supplier.id,
    vendor_id: id,
    category: kind.category,
    state_license:
      (kind.category === 'Grocery' || kind.category === 'Restaurant') && rng.chance(0.4)
        ? `${place.state}-LIC-${rng.digits(6)}`
        : '',
    token_options: {},
    created_at: created,
  }
  return store.addVendor({
    rec,
    billTo,
    shipTo,
    connection,
    contacts: [],
    notes: [],
    shippingDetails: [],
    shippingAccounts: [],
  })
}

function makeUser(
  store: Store,
  rng: Rng,
  id: number,
  name: string,
  type: UserRec['type'],
  vendorId: number,
  isMaster: boolean,
): UserRec {
  const guid = rng.uuid()
  const header = Buffer.from(JSON.stringify({ alg: 'HS256', typ: 'JWT' })).toString('base64url')
  const payload = Buffer.from(
    JSON.stringify({ sub: guid, sup: store.supplier.guid, typ: type, iat: Math.floor(store.epoch.getTime() / 1000) }),
  ).toString('base64url')
  const user: UserRec = {
    id,
    guid,
    name,
    email: `${slug(name.split(' ')[0] ?? name)}.${slug(name.split(' ')[1] ?? '')}@harborpointsupply.example`,
    token: `${header}.${payload}.${Buffer.from(rng.hex(32), 'hex').toString('base64url')}`,
    type,
    vendor_id: vendorId,
    is_master: isMaster,
  }
  store.addUser(user)
  return user
}

export interface GenerateOptions {
  seed: number
  size: ServiceSize
}

export function generate(store: Store, options: GenerateOptions): void {
  const root = new Rng(options.seed)
  const epochMs = store.epoch.getTime()
  const profile = sizeProfile(options.size)
  const setup = root.fork('setup')

  store.supplier = {
    id: 42,
    guid: setup.uuid(),
    name: 'Harbor Point Supply Co.',
    email: 'orders@harborpointsupply.example',
  }
  store.apiKey = `hpk_${setup.hex(12)}`
  store.apiSecret = setup.hex(24)
  store.masterUser = makeUser(store, setup, 1, 'Harbor Point Admin', 'supplier', 0, true)
  store.sessionUser = makeUser(store, setup, 2, 'Dana Whitfield', 'supplier', 0, false)
  const reps = ['Miguel Ortega', 'Sarah Lindqvist', 'Jamal Carter', 'Wen Zhao', 'Brooke Sullivan'].map((name, index) =>
    makeUser(store, setup, 3 + index, name, 'supplier', 0, false),
  )

  // Catalogs, price groups and category trees.
  const catalogRng = root.fork('catalogs')
  for (const spec of catalogSpecs) {
    const created = iso(epochMs - 900 * DAY + catalogRng.int(0, 30) * DAY)
    const catalog = store.addCatalog({
      id: store.id('catalog'),
      guid: catalogRng.uuid(),
      supplier_id: store.supplier.id,
      order_item_type_id: 1,
      currency_id: 1,
      name: spec.name,
      email: store.supplier.email,
      version: spec.version,
      order_prefix_override: spec.orderPrefix,
      active: true,
      last_inventory_update: iso(epochMs - 2 * 3_600_000),
      created_at: created,
      updated_at: iso(epochMs - catalogRng.int(2, 20) * DAY),
      deleted_at: null,
    })
    const groups = [
      ...spec.priceGroups,
      ...(spec.deletedPriceGroup ? [{ name: spec.deletedPriceGroup, percentage: -22 }] : []),
    ]
    groups.forEach((group, index) => {
      const deleted = group.name === spec.deletedPriceGroup
      store.addPriceGroup(catalog, {
        id: store.id('priceGroup'),
        guid: catalogRng.uuid(),
        catalog_id: catalog.rec.id,
        value: group.name,
        is_main: index === 0,
        percentage: group.percentage,
        price_upcharge_type_id: group.percentage === 0 ? 1 : 2,
        created_at: created,
        updated_at: deleted ? iso(epochMs - 200 * DAY) : created,
        deleted_at: deleted ? iso(epochMs - 200 * DAY) : null,
      })
    })
    spec.branches.forEach((branch, branchIndex) => {
      const parent = store.addCategory(catalog, {
        id: store.id('category'),
        guid: catalogRng.uuid(),
        catalog_id: catalog.rec.id,
        parent_category_id: 0,
        name: branch.name,
        sequence: branchIndex + 1,
        hide_category: false,
        created_at: created,
        updated_at: created,
        deleted_at: null,
      })
      branch.leaves.forEach((leaf: LeafSpec, leafIndex) => {
        const child = store.addCategory(catalog, {
          id: store.id('category'),
          guid: catalogRng.uuid(),
          catalog_id: catalog.rec.id,
          parent_category_id: parent.rec.id,
          name: leaf.name,
          sequence: leafIndex + 1,
          hide_category: catalogRng.chance(0.04),
          created_at: created,
          updated_at: created,
          deleted_at: null,
        })
        store.leafSpecs.set(child.rec.id, leaf)
      })
    })
  }

  // Catalog items, split between the catalogs by their share. The later streams are forked here,
  // in the order they always were, so families and accounts draw from streams of their own.
  const itemRng = root.fork('items')
  const vendorRng = root.fork('customers')
  const orderRng = root.fork('orders')
  const familyRng = root.fork('families')
  const accountRng = root.fork('accounts')
  let remaining = profile.items
  store.catalogs.forEach((catalog, catalogIndex) => {
    const spec = catalogSpecs[catalogIndex]
    const isLast = catalogIndex === store.catalogs.length - 1
    const target = isLast ? remaining : Math.round(profile.items * (spec?.share ?? 0.5))
    remaining -= target
    const leaves = leafCategories(catalog)
    const recs: CatalogItemRec[] = []
    let made = 0
    for (let i = 0; made < target; i++) {
      const leaf = leaves[i % leaves.length]
      if (!leaf) break
      const created = epochMs - itemRng.int(30, 730) * DAY - itemRng.int(0, DAY)
      const updated = created + Math.floor(itemRng.next() * (epochMs - 3_600_000 - created))
      const times = { created: iso(created), updated: iso(updated) }
      let items = makeItems(store, itemRng, catalog, leaf, times, i % 50)
      if (made + items.length > target) items = items.slice(0, target - made)
      for (const rec of items) {
        if (i % 50 > 10 && itemRng.chance(0.01)) {
          rec.deleted_at = iso(updated + itemRng.int(1, 20) * 60_000)
          rec.updated_at = rec.deleted_at
        }
        recs.push(rec)
      }
      made += items.length
    }
    makeFamilies(store, familyRng, catalog, leaves, recs)
    for (const rec of recs) store.addItem(catalog, rec)
  })

  // Customers.
  for (let i = 0; i < profile.customers; i++) {
    const created = epochMs - vendorRng.int(20, 1400) * DAY - vendorRng.int(0, DAY)
    const updated = created + Math.floor(vendorRng.next() * (epochMs - 3_600_000 - created))
    const vendor = makeVendor(store, vendorRng, iso(created), iso(updated), i % 15)
    shapeAccount(accountRng, vendor, i % 15)
  }
  const customerHome = store.vendors.find(
    (vendor) => vendor.rec.active && vendor.rec.lock_catalog_id === 0 && !vendor.rec.require_po,
  )
  if (!customerHome) throw new Error('no active customer for the customer-level user')
  store.customerUser = makeUser(store, setup, 20, personName(setup), 'customer', customerHome.rec.id, false)

  // Order history.
  generateOrders(store, orderRng, profile.orders, reps, epochMs)
}

const SIZE_RUN = ['XS', 'S', 'M', 'L', 'XL', '2XL', '3XL'] as const

interface FamilyShape {
  leaf: CategoryEntry
  spec: LeafSpec
  colors: string[]
  sizes: string[]
}

/** Colour × size where the leaf has both, one axis (sizes, or colours) otherwise; 4 to 24 members. */
function familyShape(rng: Rng, leaf: CategoryEntry, spec: LeafSpec, crossed: boolean): FamilyShape | null {
  const colors = [...(spec.colors ?? [])]
  const sizes = spec.sizes.length >= 3 ? [...spec.sizes] : spec.colors ? [...SIZE_RUN] : []
  if (crossed) {
    if (colors.length < 2 || sizes.length < 2) return null
    const colorCount = rng.int(2, Math.min(colors.length, 4))
    const sizeCount = Math.min(sizes.length, Math.floor(24 / colorCount))
    return { leaf, spec, colors: colors.slice(0, colorCount), sizes: sizes.slice(0, sizeCount) }
  }
  if (sizes.length >= 4) return { leaf, spec, colors: [], sizes: sizes.slice(0, rng.int(4, sizes.length)) }
  if (colors.length >= 4) return { leaf, spec, colors: colors.slice(0, rng.int(4, colors.length)), sizes: [] }
  return null
}

/**
 * Product families, written over the last plain items of a catalog (their ids and times kept), so
 * the item count, the ids and every other item stay what they were. The first family of each catalog
 * is colour × size and carries the rare shapes at fixed places: its last member is not offered to any
 * price group but the main one, the one before is inactive, and the first is short with stock arriving.
 */
function makeFamilies(
  store: Store,
  rng: Rng,
  catalog: CatalogEntry,
  leaves: CategoryEntry[],
  recs: CatalogItemRec[],
): void {
  const wanted = Math.max(2, Math.round(recs.length / 400))
  const plain = recs.filter((rec) => !rec.is_product_group && rec.group_parent_catalog_item_id === 0)
  let free = plain.length - Math.floor(recs.length / 2)
  for (let f = 0; f < wanted; f++) {
    const crossed = f % 2 === 0
    const candidates = leaves.flatMap((leaf) => {
      const spec = store.leafSpecs.get(leaf.rec.id)
      if (!spec || spec.sizeGroup) return []
      const shape = familyShape(rng, leaf, spec, crossed)
      return shape ? [shape] : []
    })
    if (candidates.length === 0) continue
    const shape = rng.pick(candidates)
    const axes =
      shape.colors.length > 0 && shape.sizes.length > 0
        ? shape.colors.flatMap((color) => shape.sizes.map((size, sizeIndex) => ({ color, size, sizeIndex })))
        : shape.sizes.length > 0
          ? shape.sizes.map((size, sizeIndex) => ({ color: '', size, sizeIndex }))
          : shape.colors.map((color) => ({ color, size: '', sizeIndex: 0 }))
    if (axes.length + 1 > free) break
    free -= axes.length + 1
    const slots = plain.splice(plain.length - axes.length - 1, axes.length + 1)
    const { spec } = shape
    const brand = rng.pick(spec.brands)
    const title = `${brand.brand} ${rng.pick(spec.variants)} ${rng.pick(spec.nouns)}`
    const base = rng.money(spec.price[0], spec.price[1])
    const type = axes[0]?.color && axes[0]?.size ? 'Color/Size' : axes[0]?.size ? 'Size' : 'Color'
    const nextSku = (): string => {
      const n = (store.skuCounters.get(spec.prefix) ?? 10000) + 1
      store.skuCounters.set(spec.prefix, n)
      return `${spec.prefix}-${n}`
    }
    const shapeSlot = (rec: CatalogItemRec, fields: Partial<CatalogItemRec>): void => {
      const sku = nextSku()
      Object.assign(rec, {
        category_id: shape.leaf.rec.id,
        manufacturer: brand.manufacturer,
        sku,
        upc: upc(rng),
        guid: rng.uuid(),
        description: `${title} from ${brand.brand}, sold by ${type.toLowerCase()}. ${rng.pick(sellingPoints)}`,
        group_title: title,
        product_group_type: type,
        product_group_display_style: type === 'Color/Size' ? 'grid' : 'dropdown',
        third_party_sku: '',
        third_party_size: '',
        deleted_at: null,
        updated_at: rec.deleted_at ?? rec.updated_at,
        image_url: imagePath(sku),
        msrp: round2(base * 1.35),
        cost_per_uom: round2(base * 0.62),
        ...fields,
      })
    }
    const [parentRec, ...memberRecs] = slots
    if (!parentRec) continue
    shapeSlot(parentRec, {
      name: title,
      is_product_group: true,
      group_parent_catalog_item_id: 0,
      group_sequence: 0,
      color: '',
      style: '',
      active: true,
      has_inventory: false,
      allow_backorder: false,
      qty_on_hand: 0,
      reserved_qty_on_hand: 0,
      qty_incoming: 0,
      qty_backordered: 0,
      qty_held_for_backorders: 0,
      qty_break: 0,
      qty_break_price: 0,
      min_order_qty: 1,
      pricing: pricingFor(store, catalog, base, rng, false),
    })
    memberRecs.forEach((rec, index) => {
      const { color, size, sizeIndex } = axes[index] ?? { color: '', size: '', sizeIndex: 0 }
      const price = round2(base * (1 + sizeIndex * 0.06))
      const short = f === 0 && index === 0
      const onHand = short ? 2 : rng.chance(0.1) ? 0 : rng.int(6, 180)
      shapeSlot(rec, {
        name: [title, color, size ? `Size ${size}` : ''].filter(Boolean).join(', '),
        is_product_group: false,
        group_parent_catalog_item_id: parentRec.id,
        group_sequence: index + 1,
        color,
        style: size,
        active: !(f === 0 && index === memberRecs.length - 2),
        has_inventory: true,
        allow_backorder: rng.chance(0.3),
        qty_on_hand: onHand,
        reserved_qty_on_hand: onHand > 0 && !short ? rng.int(0, Math.min(6, onHand)) : 0,
        qty_incoming: short || rng.chance(0.3) ? rng.int(12, 144) : 0,
        qty_backordered: 0,
        qty_held_for_backorders: 0,
        qty_break: 0,
        qty_break_price: 0,
        min_order_qty: 1,
        pricing: pricingFor(store, catalog, price, rng, f === 0 && index === memberRecs.length - 1),
      })
    })
  }
}

/**
 * The account's shape, drawn from a stream of its own so the rest of the customer stays as it was:
 * by position, some customers are just under their credit limit, some over it, and some order on a
 * standing PO.
 */
function shapeAccount(rng: Rng, vendor: VendorEntry, slot: number): void {
  const limit = vendor.rec.credit_limit
  if (slot === 10) vendor.rec.open_balance = round2(limit * (1.02 + rng.next() * 0.1))
  if (slot === 11 || slot === 12) vendor.rec.open_balance = round2(limit * (0.9 + rng.next() * 0.08))
  if (slot === 12 || slot === 13) vendor.rec.standing_po = `PO-BLANKET-${rng.digits(4)}`
}

function generateOrders(store: Store, rng: Rng, count: number, reps: UserRec[], epochMs: number): void {
  const activeVendors = store.vendors.filter((vendor) => vendor.rec.active)
  const forcedStates = [STATE.PRELIMINARY, STATE.SUBMITTED, STATE.SHIPPED, STATE.COMPLETED, STATE.CANCELLED]
  const weightedStates = [1, 2, 2, 2, 8, 8, 9, 9, 9, 9, 23]
  const offered = new Map<string, ItemEntry[]>()
  const createdTimes = Array.from({ length: count }, () => epochMs - rng.int(2 * 3_600_000, 180 * DAY)).sort(
    (a, b) => a - b,
  )
  const made: OrderEntry[] = []
  for (let i = 0; i < count; i++) {
    const vendor = i === 0 ? store.vendorsById.get(store.customerUser.vendor_id) : rng.pick(activeVendors)
    if (!vendor) continue
    const catalog =
      store.catalogsById.get(vendor.rec.lock_catalog_id) ?? (rng.chance(0.85) ? store.catalogs[0] : store.catalogs[1])
    if (!catalog) continue
    const ownGroup = store.priceGroupsById.get(vendor.rec.price_group_id)
    const groups = store.livePriceGroups(catalog)
    const group = groups.find((candidate) => candidate.rec.value === ownGroup?.rec.value) ?? groups[0]
    if (!group) continue
    const key = `${catalog.rec.id}:${group.rec.value}`
    let pool = offered.get(key)
    if (!pool) {
      pool = catalog.items.filter(
        (item) =>
          item.rec.active &&
          item.rec.deleted_at === null &&
          !item.rec.is_product_group &&
          typeof item.rec.pricing[group.rec.value] === 'number',
      )
      offered.set(key, pool)
    }
    if (pool.length === 0) continue
    const stateId = forcedStates[i] ?? rng.pick(weightedStates)
    const createdMs = createdTimes[i] ?? epochMs - DAY
    const fromApp = rng.chance(0.45)
    const rep = rng.pick(reps)
    const user = fromApp ? rep : rng.chance(0.5) ? store.sessionUser : store.masterUser
    const entry = seedOrder(store, rng, {
      vendor,
      catalog,
      group: group.rec.id,
      pool,
      stateId,
      createdMs,
      user,
      rep,
      fromApp,
    })
    made.push(entry)
    // A few shipped orders left a backorder behind (always the first, so every size has one).
    if ((stateId === STATE.SHIPPED || stateId === STATE.COMPLETED) && (i === 2 || rng.chance(0.12))) {
      const child = seedOrder(store, rng, {
        vendor,
        catalog,
        group: group.rec.id,
        pool,
        stateId: rng.pick([STATE.PRELIMINARY, STATE.SUBMITTED]),
        createdMs: createdMs + Math.floor(Math.max(0, epochMs - 3_600_000 - createdMs) / 2),
        user,
        rep,
        fromApp: false,
      })
      child.rec.parent_order_id = entry.rec.id
      child.rec.name = `${entry.rec.name}-BO1`
      child.rec.po_no = entry.rec.po_no
    }
  }
  markFulfilment(made)
}

/**
 * Every state an order can be in after Send, also in the smallest data: one submitted order on hold
 * and one shipped order whose last line is still pending (partially shipped). Chosen by position,
 * without drawing from the generator, so the rest of the seeded data stays as it was.
 */
function markFulfilment(made: OrderEntry[]): void {
  const held = made.find((entry, index) => index >= 5 && entry.rec.order_state_id === STATE.SUBMITTED)
  if (held) held.rec.is_on_hold = true
  const partial = made.find(
    (entry, index) => index >= 5 && entry.rec.order_state_id === STATE.SHIPPED && entry.lines.length >= 2,
  )
  const last = partial?.lines.at(-1)
  if (partial && last) {
    last.qty_shipped = 0
    last.qty_pending = last.qty
    partial.rec.partially_shipped = true
  }
}

export interface SeedOrderArgs {
  vendor: VendorEntry
  catalog: CatalogEntry
  group: number
  pool: ItemEntry[]
  stateId: number
  createdMs: number
  user: UserRec
  rep: UserRec
  fromApp: boolean
  /** Lines on the order; drawn (1 to 8) when absent. */
  lineCount?: number
}

export function seedOrder(store: Store, rng: Rng, args: SeedOrderArgs): OrderEntry {
  const { vendor, catalog, pool, stateId, createdMs, user, rep, fromApp } = args
  const created = iso(createdMs)
  const id = store.id('order')
  const prefix = catalog.rec.order_prefix_override || 'HP-'
  const lineCount = args.lineCount ?? rng.int(1, 8)
  const chosen = new Set<ItemEntry>()
  while (chosen.size < Math.min(lineCount, pool.length)) chosen.add(rng.pick(pool))
  const groupRec = store.priceGroupsById.get(args.group)
  const groupName = groupRec?.rec.value ?? 'Retail'
  const lines = [...chosen].map((item, index) => {
    const step = Math.max(1, item.rec.min_order_qty)
    const qty = step * rng.int(1, 6)
    const line = pricedLine(store, item, groupName, qty, index + 1, id, created)
    if (stateId === STATE.SUBMITTED) line.qty_reserved = qty
    if (stateId === STATE.SHIPPED || stateId === STATE.COMPLETED) line.qty_shipped = qty
    return line
  })
  const shipTo = makeAddress(
    store,
    rng,
    {
      ...vendor.shipTo,
      id: store.id('address'),
      guid: rng.uuid(),
      order_id: id,
      is_vendor_main_ship_to: false,
      created_at: created,
      updated_at: created,
    },
    created,
  )
  const shipped = stateId === STATE.SHIPPED || stateId === STATE.COMPLETED
  const updatedMs =
    createdMs + Math.floor(rng.next() * Math.max(0, Math.min(20 * DAY, store.epoch.getTime() - 3_600_000 - createdMs)))
  const entry: OrderEntry = {
    rec: {
      id,
      guid: rng.uuid(),
      name: `${prefix}${store.nextId.orderNumber++}`,
      api_guid: fromApp ? rng.uuid() : null,
      supplier_id: store.supplier.id,
      vendor_id: vendor.rec.id,
      user_id: user.id,
      catalog_id: catalog.rec.id,
      price_group_id: args.group,
      category_id: null,
      parent_order_id: null,
      client_id: null,
      project_id: null,
      sales_rep_id: args.rep.id,
      ship_to_id: shipTo.id,
      order_source_id: fromApp ? 21 : rng.chance(0.85) ? 1 : 20,
      order_state_id: stateId,
      po_no: vendor.rec.require_po || rng.chance(0.4) ? `PO-${rng.digits(5)}` : null,
      invoice_no: stateId === STATE.COMPLETED ? `INV-${rng.digits(6)}` : null,
      description: null,
      note: rng.chance(0.25)
        ? rng.pick(['Please call on arrival.', 'Leave at loading dock B.', 'Rush if possible.', 'Split delivery OK.'])
        : null,
      internal_note: null,
      shipping_instructions: rng.chance(0.2) ? 'Liftgate required.' : null,
      is_quote: false,
      is_sample: false,
      is_local_pickup: rng.chance(0.05),
      is_local_delivery: rng.chance(0.3),
      is_shipped: shipped,
      partially_shipped: false,
      is_on_hold: false,
      is_cancelled: stateId === STATE.CANCELLED,
      sub_total: null,
      tax: null,
      shipping: rng.chance(0.3) ? rng.pick([15, 25, 45]) : 0,
      labor: 0,
      discount: 0,
      discount_total: 0,
      other: 0,
      grand_total: null,
      delivery_date: shipped ? iso(createdMs + 3 * DAY).slice(0, 10) : null,
      ship_date: shipped ? iso(createdMs + 2 * DAY).slice(0, 10) : null,
      do_not_ship_before_date: null,
      created_at: created,
      updated_at: iso(updatedMs),
      deleted_at: null,
    },
    lines,
    shipTo,
    logs: [{ created_at: created, userId: user.id, stateId: STATE.PRELIMINARY }],
    assignedUserIds: [rep.id],
    detail: null,
    refs: undefined,
    reserved: stateId !== STATE.PRELIMINARY && stateId !== STATE.CANCELLED,
    updatedMs,
  }
  let at = createdMs
  for (const step of [STATE.SUBMITTED, STATE.SHIPPED, STATE.COMPLETED]) {
    if (stateId === STATE.PRELIMINARY || stateId === STATE.CANCELLED) break
    at += rng.int(1, 3) * 3_600_000
    entry.logs.push({ created_at: iso(Math.min(at, updatedMs)), userId: user.id, stateId: step })
    if (step === stateId) break
  }
  if (stateId === STATE.CANCELLED)
    entry.logs.push({ created_at: iso(updatedMs), userId: store.sessionUser.id, stateId })
  if (!ORDER_STATES[stateId]) throw new Error(`unknown state ${stateId}`)
  computeTotals(store, entry)
  return store.addOrder(entry)
}
