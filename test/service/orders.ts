/**
 * Orders: pricing and totals, the full model and the list projection, creation through the three
 * create endpoints (validation before any write, idempotency on api_guid), state transitions with
 * inventory reservation, and the partial header update.
 *
 * Creation and transitions never await between checking and writing: Node runs them to completion,
 * so two concurrent retries with one api_guid cannot both create.
 */
import { z } from 'zod'
import {
  addressInput,
  applyAddress,
  contactInput,
  createVendor,
  vendorInput,
  vendorRefs,
  type AddressInput,
  type NewVendorInput,
} from './customers'
import { HttpError, isUuid, parseBody, reconcileErrors, zodIssues, type AuthContext, type ReconcileIssue } from './http'
import { NEXT_STATE, ORDER_SOURCES, ORDER_STATES, STATE, type OrderItemRec, type UserRec } from './model'
import { round2 } from './prng'
import type { FulfilmentStep } from './types'
import {
  makeAddress,
  type CatalogEntry,
  type ItemEntry,
  type OrderEntry,
  type OrderRefs,
  type PriceGroupEntry,
  type Store,
  type VendorEntry,
} from './store'

/** Sales tax applied to taxable lines of customers that are not tax exempt, in percent. */
const TAX_RATE_PERCENT = 8.25

// ---- pricing and totals -----------------------------------------------------------------------

/** A line priced from the price group's entry in the item's `pricing`, with the qty break applied. */
export function pricedLine(
  store: Store,
  item: ItemEntry,
  groupName: string,
  qty: number,
  itemNo: number,
  orderId: number,
  at: string,
): OrderItemRec {
  const price = item.rec.pricing[groupName]
  const list = typeof price === 'number' ? price : 0
  const breakApplies = item.rec.qty_break > 0 && qty >= item.rec.qty_break && item.rec.qty_break_price > 0
  const net = breakApplies ? Math.min(list, item.rec.qty_break_price) : list
  const discount = round2(list - net)
  return {
    id: store.id('orderItem'),
    guid: store.rng.uuid(),
    order_id: orderId,
    catalog_item_id: item.rec.id,
    catalog_item_guid: item.rec.guid,
    parent_order_item_id: 0,
    item_no: itemNo,
    sku: item.rec.sku,
    name: item.rec.name,
    description: item.rec.description,
    note: '',
    qty,
    qty_shipped: 0,
    qty_backordered: 0,
    qty_pending: 0,
    qty_reserved: 0,
    is_manual_price: false,
    is_credit: false,
    is_backordered: false,
    list_price_frozen: list,
    net_price: net,
    discount,
    discount_total: round2(discount * qty),
    tax: 0,
    total: round2(net * qty),
    width: item.rec.width,
    height: item.rec.height,
    depth: item.rec.depth,
    selected_options: [],
    created_at: at,
    updated_at: at,
  }
}

export function computeTotals(store: Store, entry: OrderEntry): void {
  const rec = entry.rec
  const vendor = rec.vendor_id === null ? undefined : store.vendorsById.get(rec.vendor_id)
  const exempt = vendor?.rec.tax_exempt ?? false
  const rate = typeof rec.tax_rate_override === 'number' ? rec.tax_rate_override : TAX_RATE_PERCENT
  let subTotal = 0
  let lineTax = 0
  for (const line of entry.lines) {
    line.total = round2(line.net_price * line.qty)
    line.discount_total = round2(line.discount * line.qty)
    const taxable = store.itemsById.get(line.catalog_item_id)?.rec.is_taxable ?? false
    line.tax = exempt || !taxable ? 0 : round2((line.total * rate) / 100)
    subTotal += line.total
    lineTax += line.tax
  }
  rec.sub_total = round2(subTotal)
  rec.tax = typeof rec.manual_tax === 'number' ? rec.manual_tax : round2(lineTax)
  rec.discount_total = round2(rec.discount ?? 0)
  rec.grand_total = round2(
    rec.sub_total + rec.tax + (rec.shipping ?? 0) + (rec.labor ?? 0) + (rec.other ?? 0) - rec.discount_total,
  )
}

// ---- serialization ----------------------------------------------------------------------------

function userRef(user: UserRec | undefined): Record<string, unknown> | null {
  return user ? { id: user.id, guid: user.guid, name: user.name, email: user.email } : null
}

function stateObject(id: number): { id: number; guid: string; name: string } {
  return ORDER_STATES[id] ?? { id, guid: '', name: `STATE_${id}` }
}

/** The full Order model with all relations (single-order and create endpoints). */
export function orderObject(store: Store, entry: OrderEntry): Record<string, unknown> {
  const rec = entry.rec
  const vendor = rec.vendor_id === null ? undefined : store.vendorsById.get(rec.vendor_id)
  const catalog = rec.catalog_id === null ? undefined : store.catalogsById.get(rec.catalog_id)
  const group = rec.price_group_id === null ? undefined : store.priceGroupsById.get(rec.price_group_id)
  const parent = rec.parent_order_id === null ? undefined : store.ordersById.get(rec.parent_order_id)
  const client = rec.client_id === null ? undefined : store.clientsById.get(rec.client_id)
  return {
    ...rec,
    Order_Items: entry.lines.map((line) => {
      const item = store.itemsById.get(line.catalog_item_id)
      return { ...line, Catalog_Item: item ? store.itemObject(item, false, false, false) : null }
    }),
    Ship_To: { ...entry.shipTo },
    Vendor: vendor ? { ...vendor.rec } : null,
    Catalog: catalog ? { ...catalog.rec } : null,
    Price_Group: group ? { ...group.rec } : null,
    Category: null,
    Order_State: stateObject(rec.order_state_id),
    User: userRef(rec.user_id === null ? undefined : store.usersById.get(rec.user_id)),
    Supplier: {
      id: store.supplier.id,
      guid: store.supplier.guid,
      name: store.supplier.name,
      email: store.supplier.email,
    },
    Client: client ? { id: client.id, guid: client.guid, name: client.name } : null,
    Parent_Order: parent ? { id: parent.rec.id, guid: parent.rec.guid, name: parent.rec.name } : null,
    Order_Detail: entry.detail,
    Order_State_Logs: entry.logs.map((log) => ({
      created_at: log.created_at,
      User: userRef(store.usersById.get(log.userId)),
      Order_State: stateObject(log.stateId),
    })),
    Assigned_Users: entry.assignedUserIds.map((id) => userRef(store.usersById.get(id))).filter((user) => user !== null),
  }
}

function idGuidName(record: { id: number; guid: string; name: string } | undefined): Record<string, unknown> | null {
  return record ? { id: record.id, guid: record.guid, name: record.name } : null
}

/** GET /v1/orders and /v1/orders/list: header fields, id/guid/name of relations, slim lines. */
export function orderProjection(store: Store, entry: OrderEntry): Record<string, unknown> {
  const rec = entry.rec
  const group = rec.price_group_id === null ? undefined : store.priceGroupsById.get(rec.price_group_id)
  const parent = rec.parent_order_id === null ? undefined : store.ordersById.get(rec.parent_order_id)
  const client = rec.client_id === null ? undefined : store.clientsById.get(rec.client_id)
  const user = rec.user_id === null ? undefined : store.usersById.get(rec.user_id)
  return {
    ...rec,
    Vendor: idGuidName(rec.vendor_id === null ? undefined : store.vendorsById.get(rec.vendor_id)?.rec),
    Catalog: idGuidName(rec.catalog_id === null ? undefined : store.catalogsById.get(rec.catalog_id)?.rec),
    Price_Group: group
      ? { id: group.rec.id, guid: group.rec.guid, name: group.rec.value, value: group.rec.value }
      : null,
    Category: null,
    Order_State: stateObject(rec.order_state_id),
    User: user ? { id: user.id, guid: user.guid, name: user.name } : null,
    Supplier: { id: store.supplier.id, guid: store.supplier.guid, name: store.supplier.name },
    Client: client ? { id: client.id, guid: client.guid, name: client.name } : null,
    Parent_Order: parent ? { id: parent.rec.id, guid: parent.rec.guid, name: parent.rec.name } : null,
    Order_Items: entry.lines.map((line) => ({
      id: line.id,
      item_no: line.item_no,
      qty: line.qty,
      note: line.note,
      catalog_item_id: line.catalog_item_id,
      name: line.name,
      sku: line.sku,
      Catalog_Item: { id: line.catalog_item_id, name: line.name, sku: line.sku },
    })),
  }
}

// ---- creation ---------------------------------------------------------------------------------

const text = z.string().nullish()
const orderInput = z.looseObject({
  po_no: text,
  note: text,
  shipping_instructions: text,
  api_guid: z.string().trim().min(1).nullish(),
})
const lineInput = z.looseObject({
  catalog_item_guid: z.string().nullish(),
  catalog_item_id: z.number().int().nullish(),
  qty: z.number().positive('qty must be greater than 0'),
  note: text,
})
const sourceInput = z.union([z.string(), z.number().int()]).nullish()
const objectInput = z.record(z.string(), z.unknown()).nullish()

const withItemsSchema = z.looseObject({
  catalogGuid: z.string(),
  priceGroupGuid: z.string(),
  order: orderInput,
  orderItems: z.array(lineInput).min(1, 'orderItems must not be empty'),
  orderDetails: objectInput,
  shipTo: addressInput.nullish(),
  source: sourceInput,
  workflowGuid: z.string().nullish(),
  newVendor: vendorInput.nullish(),
  newVendorBillTo: addressInput.nullish(),
  newVendorShipTo: addressInput.nullish(),
  newVendorContact: contactInput.nullish(),
  newVendorNote: z.string().nullish(),
  remainInPreliminary: z.boolean().nullish(),
  utm: objectInput,
})

const v2Schema = z.looseObject({
  vendorGuid: z.string(),
  catalogGuid: z.string(),
  priceGroupGuid: z.string(),
  order: orderInput,
  orderItems: z.array(lineInput).min(1, 'orderItems must not be empty'),
  orderDetails: objectInput,
  shipTo: addressInput.nullish(),
  client: objectInput,
  source: sourceInput,
  remainInPreliminary: z.boolean().nullish(),
})

type LineInput = z.infer<typeof lineInput>

interface ResolvedLine {
  item: ItemEntry
  qty: number
  note: string
}

/** Either an existing customer (by GUID) or the customer a newVendor block describes. */
type CustomerSource = { guid: string } | { newVendor: NewVendorInput } | { missing: true }

interface Resolved {
  catalog: CatalogEntry
  group: PriceGroupEntry
  vendor: VendorEntry | undefined
  newVendor: NewVendorInput | undefined
  lines: ResolvedLine[]
}

function checkVendor(
  vendor: VendorEntry | undefined,
  catalog: CatalogEntry | undefined,
  guid: string,
  errors: ReconcileIssue[],
): void {
  if (!vendor) {
    errors.push({ type: 'VENDOR_NOT_ACCESSIBLE', message: `Customer ${guid} does not exist or is not accessible` })
  } else if (catalog && vendor.rec.lock_catalog_id !== 0 && vendor.rec.lock_catalog_id !== catalog.rec.id) {
    errors.push({
      type: 'VENDOR_NOT_ACCESSIBLE',
      message: `Customer ${vendor.rec.name} may not order from catalog ${catalog.rec.name}`,
    })
  } else if (!vendor.rec.active) {
    errors.push({ type: 'VENDOR_INACTIVE', message: `Customer ${vendor.rec.name} is inactive` })
  }
}

function findLineItem(store: Store, catalog: CatalogEntry, line: LineInput): ItemEntry | undefined {
  const item = line.catalog_item_guid
    ? store.itemsByGuid.get(line.catalog_item_guid)
    : typeof line.catalog_item_id === 'number'
      ? store.itemsById.get(line.catalog_item_id)
      : undefined
  return item && item.catalog === catalog && item.rec.deleted_at === null ? item : undefined
}

/** Every check that can fail, before anything is written; all failures are reported together. */
function reconcile(
  store: Store,
  catalogGuid: string,
  priceGroupGuid: string,
  customer: CustomerSource,
  lines: LineInput[],
): Resolved {
  const errors: ReconcileIssue[] = []
  const catalog = isUuid(catalogGuid) ? store.liveCatalog(catalogGuid) : undefined
  if (!catalog)
    errors.push({ type: 'INVALID_REQUEST', field: 'catalogGuid', message: `Unknown catalog ${catalogGuid}` })
  else if (!catalog.rec.active)
    errors.push({ type: 'INVALID_REQUEST', field: 'catalogGuid', message: `Catalog ${catalog.rec.name} is inactive` })
  const groupEntry = store.priceGroupsByGuid.get(priceGroupGuid)
  const group =
    groupEntry && groupEntry.rec.deleted_at === null && groupEntry.catalog === catalog ? groupEntry : undefined
  if (catalog && !group)
    errors.push({
      type: 'INVALID_REQUEST',
      field: 'priceGroupGuid',
      message: `Unknown price group ${priceGroupGuid} in this catalog`,
    })

  let vendor: VendorEntry | undefined
  let newVendor: NewVendorInput | undefined
  if ('guid' in customer) {
    vendor = isUuid(customer.guid) ? store.liveVendor(customer.guid) : undefined
    checkVendor(vendor, catalog, customer.guid, errors)
  } else if ('newVendor' in customer) {
    newVendor = customer.newVendor
    const email = newVendor.newVendor.email?.trim()
    vendor = email ? store.vendorByEmail(email) : undefined
    if (vendor) checkVendor(vendor, catalog, vendor.rec.guid, errors)
  } else {
    errors.push({
      type: 'INVALID_REQUEST',
      field: 'vendorGuid',
      message: 'A vendorGuid header (customer context) or newVendor is required',
    })
  }

  const resolved: ResolvedLine[] = []
  const requested = new Map<ItemEntry, number>()
  lines.forEach((line, index) => {
    const ids = {
      ...(line.catalog_item_guid ? { catalog_item_guid: line.catalog_item_guid } : {}),
      ...(typeof line.catalog_item_id === 'number' ? { catalog_item_id: line.catalog_item_id } : {}),
    }
    if (!line.catalog_item_guid && typeof line.catalog_item_id !== 'number') {
      errors.push({
        type: 'INVALID_REQUEST',
        line: index,
        field: `orderItems.${index}`,
        message: 'catalog_item_guid or catalog_item_id is required',
      })
      return
    }
    if (!catalog) return
    const item = findLineItem(store, catalog, line)
    if (!item) {
      errors.push({
        type: 'ITEM_NOT_FOUND',
        line: index,
        ...ids,
        message: `Item ${line.catalog_item_guid ?? line.catalog_item_id} is not in catalog ${catalog.rec.name}`,
      })
      return
    }
    const detail = { line: index, catalog_item_guid: item.rec.guid, catalog_item_id: item.rec.id, sku: item.rec.sku }
    if (!item.rec.active) {
      errors.push({ type: 'ITEM_INACTIVE', ...detail, message: `${item.rec.sku} ${item.rec.name} is inactive` })
      return
    }
    if (group && typeof item.rec.pricing[group.rec.value] !== 'number') {
      errors.push({
        type: 'ITEM_NOT_OFFERED',
        ...detail,
        message: `${item.rec.sku} is not offered to price group ${group.rec.value}`,
      })
      return
    }
    const before = requested.get(item) ?? 0
    requested.set(item, before + line.qty)
    const available = Math.max(0, item.rec.qty_on_hand - item.rec.reserved_qty_on_hand)
    if (item.rec.has_inventory && !item.rec.allow_backorder && before + line.qty > available) {
      errors.push({
        type: 'INSUFFICIENT_INVENTORY',
        ...detail,
        qty_requested: line.qty,
        qty_available: Math.max(0, available - before),
        message: `${item.rec.sku}: ${line.qty} requested, ${Math.max(0, available - before)} available`,
      })
      return
    }
    resolved.push({ item, qty: line.qty, note: line.note ?? '' })
  })
  if (errors.length > 0 || !catalog || !group) throw reconcileErrors(errors)
  return { catalog, group, vendor, newVendor, lines: resolved }
}

function parseSource(value: string | number | null | undefined, errors: ReconcileIssue[]): number {
  if (value === undefined || value === null || value === '') return ORDER_SOURCES.OTHER ?? 20
  if (typeof value === 'number') {
    if (value > 0) return value
  } else if (/^\d+$/.test(value.trim()) && Number(value) > 0) {
    return Number(value)
  } else {
    const id = ORDER_SOURCES[value.trim().toUpperCase()]
    if (id !== undefined) return id
  }
  errors.push({
    type: 'INVALID_REQUEST',
    field: 'source',
    message: `Unknown order source '${value}' (known: ${Object.keys(ORDER_SOURCES).join(', ')} or a numeric id)`,
  })
  return 0
}

interface CreateArgs {
  vendor: VendorEntry
  catalog: CatalogEntry
  group: PriceGroupEntry
  user: UserRec
  lines: ResolvedLine[]
  header: Record<string, unknown>
  shipTo: AddressInput | null | undefined
  sourceId: number
  detail: Record<string, unknown> | null
  client: Record<string, unknown> | null | undefined
  refs: OrderRefs | undefined
}

function str(value: unknown): string | null {
  return typeof value === 'string' ? value : null
}

function orderName(store: Store, catalog: CatalogEntry): string {
  return `${catalog.rec.order_prefix_override || 'HP-'}${store.nextId.orderNumber++}`
}

/** Writes the order in PRELIMINARY. Callers have validated everything. */
function insertOrder(store: Store, args: CreateArgs): OrderEntry {
  const at = store.nowIso()
  const id = store.id('order')
  const shipTo = makeAddress(
    store,
    store.rng,
    {
      ...args.vendor.shipTo,
      id: 0,
      guid: '',
      vendor_id: args.vendor.rec.id,
      order_id: id,
      is_vendor_main_ship_to: false,
      created_at: at,
      updated_at: at,
    },
    at,
  )
  shipTo.id = store.id('address')
  shipTo.guid = store.rng.uuid()
  applyAddress(shipTo, args.shipTo)
  let clientId: number | null = null
  if (args.client) {
    const client = {
      id: store.id('client'),
      guid: store.rng.uuid(),
      name: str(args.client.name) ?? str(args.client.company_name) ?? 'Client',
      fields: args.client,
    }
    store.clientsById.set(client.id, client)
    clientId = client.id
  }
  const { api_guid: apiGuid, po_no: poNo, note, shipping_instructions: shippingInstructions, ...extra } = args.header
  const entry: OrderEntry = {
    rec: {
      ...extra,
      id,
      guid: store.rng.uuid(),
      name: orderName(store, args.catalog),
      api_guid: str(apiGuid),
      supplier_id: store.supplier.id,
      vendor_id: args.vendor.rec.id,
      user_id: args.user.id,
      catalog_id: args.catalog.rec.id,
      price_group_id: args.group.rec.id,
      category_id: typeof extra.category_id === 'number' ? extra.category_id : null,
      parent_order_id: null,
      client_id: clientId,
      project_id: typeof extra.project_id === 'number' ? extra.project_id : null,
      sales_rep_id: args.user.is_master ? null : args.user.id,
      ship_to_id: shipTo.id,
      order_source_id: args.sourceId,
      order_state_id: STATE.PRELIMINARY,
      po_no: str(poNo),
      invoice_no: null,
      description: str(extra.description),
      note: str(note),
      internal_note: str(extra.internal_note),
      shipping_instructions: str(shippingInstructions),
      is_quote: extra.is_quote === true,
      is_sample: extra.is_sample === true,
      is_local_pickup: extra.is_local_pickup === true,
      is_local_delivery: extra.is_local_delivery === true,
      is_shipped: false,
      partially_shipped: false,
      is_on_hold: false,
      is_cancelled: false,
      sub_total: 0,
      tax: 0,
      shipping: typeof extra.shipping === 'number' ? extra.shipping : 0,
      labor: 0,
      discount: 0,
      discount_total: 0,
      other: 0,
      grand_total: 0,
      delivery_date: null,
      ship_date: null,
      do_not_ship_before_date: str(extra.do_not_ship_before_date),
      created_at: at,
      updated_at: at,
      deleted_at: null,
    },
    lines: [],
    shipTo,
    logs: [{ created_at: at, userId: args.user.id, stateId: STATE.PRELIMINARY }],
    assignedUserIds: args.user.is_master ? [] : [args.user.id],
    detail: args.detail,
    refs: args.refs,
    reserved: false,
    updatedMs: Date.parse(at),
  }
  // A header-only order may carry a fixed tax amount (POST /v1/order `tax`); lines never do.
  if (typeof extra.tax === 'number') entry.rec.manual_tax = extra.tax
  entry.lines = args.lines.map((line, index) => ({
    ...pricedLine(store, line.item, args.group.rec.value, line.qty, index + 1, id, at),
    note: line.note,
  }))
  computeTotals(store, entry)
  return store.addOrder(entry)
}

function existingResponse(store: Store, entry: OrderEntry): Record<string, unknown> {
  const vendor = entry.rec.vendor_id === null ? undefined : store.vendorsById.get(entry.rec.vendor_id)
  const refs =
    entry.refs ??
    (vendor ? vendorRefs(vendor) : { vendor: null, billTo: null, shipTo: null, contact: null, note: null })
  const refVendor = refs.vendor === null ? undefined : store.vendorsById.get(refs.vendor)
  return {
    order: orderObject(store, entry),
    vendor: refVendor ? store.vendorObject(refVendor) : null,
    billTo: refs.billTo,
    shipTo: refs.shipTo,
    contact: refs.contact,
    note: refs.note,
  }
}

function firstByApiGuid(store: Store, apiGuid: string | null | undefined): OrderEntry | undefined {
  return apiGuid ? store.ordersByApiGuid.get(apiGuid)?.[0] : undefined
}

/** POST /v1/orderWithItems */
export function createOrderWithItems(store: Store, auth: AuthContext, body: unknown): Record<string, unknown> {
  const parsed = withItemsSchema.safeParse(body ?? {})
  if (!parsed.success) throw reconcileErrors(zodIssues(parsed.error))
  const input = parsed.data
  const existing = firstByApiGuid(store, input.order.api_guid)
  if (existing) return existingResponse(store, existing)

  let customer: CustomerSource
  if (auth.user.type === 'customer') {
    const own = store.vendorsById.get(auth.user.vendor_id)
    if (!own || (auth.vendorGuidHeader && auth.vendorGuidHeader !== own.rec.guid)) {
      throw reconcileErrors([
        { type: 'VENDOR_NOT_ACCESSIBLE', message: 'Customer users may order only for their own customer' },
      ])
    }
    customer = { guid: own.rec.guid }
  } else if (auth.vendorGuidHeader) {
    customer = { guid: auth.vendorGuidHeader }
  } else if (input.newVendor) {
    customer = {
      newVendor: {
        newVendor: input.newVendor,
        newVendorBillTo: input.newVendorBillTo,
        newVendorShipTo: input.newVendorShipTo,
        newVendorContact: input.newVendorContact,
        newVendorNote: input.newVendorNote,
      },
    }
  } else {
    customer = { missing: true }
  }
  const sourceErrors: ReconcileIssue[] = []
  const sourceId = parseSource(input.source, sourceErrors)
  if (input.workflowGuid && !isUuid(input.workflowGuid))
    sourceErrors.push({ type: 'INVALID_REQUEST', field: 'workflowGuid', message: 'workflowGuid must be a UUID' })
  if (sourceErrors.length > 0) throw reconcileErrors(sourceErrors)
  const resolved = reconcile(store, input.catalogGuid, input.priceGroupGuid, customer, input.orderItems)

  let vendor = resolved.vendor
  let refs: OrderRefs | undefined = vendor ? vendorRefs(vendor) : undefined
  if (!vendor && resolved.newVendor) {
    const made = createVendor(store, resolved.newVendor)
    vendor = made.vendor
    refs = made.refs
  }
  if (!vendor || !refs) throw new HttpError(500, 'Customer resolution failed')
  const entry = insertOrder(store, {
    vendor,
    catalog: resolved.catalog,
    group: resolved.group,
    user: auth.actingUser,
    lines: resolved.lines,
    header: { ...input.order },
    shipTo: input.shipTo,
    sourceId,
    detail: input.orderDetails ?? null,
    client: undefined,
    refs,
  })
  if (input.utm) entry.rec.utm = input.utm
  const remain = input.remainInPreliminary ?? store.settings.remainInPreliminary
  if (!remain) transition(store, entry, STATE.SUBMITTED, auth.actingUser, undefined)
  return existingResponse(store, entry)
}

/** POST /v2/order (API key only; the supplier setting does not apply, only remainInPreliminary). */
export function createOrderV2(store: Store, auth: AuthContext, body: unknown): Record<string, unknown> {
  const parsed = v2Schema.safeParse(body ?? {})
  if (!parsed.success) throw reconcileErrors(zodIssues(parsed.error))
  const input = parsed.data
  const existing = firstByApiGuid(store, input.order.api_guid)
  if (existing) return { order: orderObject(store, existing) }
  const sourceErrors: ReconcileIssue[] = []
  const sourceId = parseSource(input.source, sourceErrors)
  if (sourceErrors.length > 0) throw reconcileErrors(sourceErrors)
  const resolved = reconcile(
    store,
    input.catalogGuid,
    input.priceGroupGuid,
    { guid: input.vendorGuid },
    input.orderItems,
  )
  const vendor = resolved.vendor
  if (!vendor) throw new HttpError(500, 'Customer resolution failed')
  const entry = insertOrder(store, {
    vendor,
    catalog: resolved.catalog,
    group: resolved.group,
    user: store.masterUser,
    lines: resolved.lines,
    header: { ...input.order },
    shipTo: input.shipTo,
    sourceId,
    detail: input.orderDetails ?? null,
    client: input.client,
    refs: undefined,
  })
  if (input.remainInPreliminary !== true) transition(store, entry, STATE.SUBMITTED, store.masterUser, undefined)
  return { order: orderObject(store, entry) }
}

const legacySchema = z.looseObject({
  catalogGuid: z.string().nullish(),
  priceGroupGuid: z.string().nullish(),
  api_guid: z.string().trim().min(1).nullish(),
  po_no: text,
  note: text,
  internal_note: text,
  description: text,
  shipping_instructions: text,
  is_quote: z.boolean().nullish(),
  is_sample: z.boolean().nullish(),
  is_template: z.boolean().nullish(),
  is_local_pickup: z.boolean().nullish(),
  is_local_delivery: z.boolean().nullish(),
  is_dropship: z.boolean().nullish(),
  allow_substitutions: z.boolean().nullish(),
  allow_backorders: z.boolean().nullish(),
  category_id: z.number().int().nullish(),
  project_id: z.number().int().nullish(),
  workflow_id: z.number().int().nullish(),
  shipping: z.number().nullish(),
  tax: z.number().nullish(),
  do_not_ship_before_date: text,
  cancel_date: text,
  tags: z.array(z.number().int()).nullish(),
  orderDetails: objectInput,
})

/** POST /v1/order: an empty header for the vendorGuid customer; it stays in PRELIMINARY. */
export function createLegacyOrder(
  store: Store,
  auth: AuthContext,
  vendor: VendorEntry,
  body: unknown,
): Record<string, unknown> {
  const input = parseBody(legacySchema, body)
  const existing = firstByApiGuid(store, input.api_guid)
  if (existing) return { order: orderObject(store, existing) }
  let catalog: CatalogEntry | undefined
  if (input.catalogGuid) {
    catalog = isUuid(input.catalogGuid) ? store.liveCatalog(input.catalogGuid) : undefined
    if (!catalog) throw new HttpError(400, `Unknown catalog ${input.catalogGuid}`, 'CATALOG_NOT_FOUND')
  } else {
    catalog =
      store.catalogsById.get(vendor.rec.lock_catalog_id) ??
      store.catalogs.find((candidate) => candidate.rec.deleted_at === null && candidate.rec.active)
  }
  if (!catalog) throw new HttpError(400, 'No catalog available', 'CATALOG_NOT_FOUND')
  if (vendor.rec.lock_catalog_id !== 0 && vendor.rec.lock_catalog_id !== catalog.rec.id) {
    throw new HttpError(
      403,
      `Customer ${vendor.rec.name} may not order from catalog ${catalog.rec.name}`,
      'VENDOR_NOT_ACCESSIBLE',
    )
  }
  let group: PriceGroupEntry | undefined
  if (input.priceGroupGuid) {
    const candidate = store.priceGroupsByGuid.get(input.priceGroupGuid)
    group = candidate && candidate.catalog === catalog && candidate.rec.deleted_at === null ? candidate : undefined
    if (!group)
      throw new HttpError(400, `Unknown price group ${input.priceGroupGuid} in this catalog`, 'PRICE_GROUP_NOT_FOUND')
  } else {
    group = customerGroupIn(store, vendor, catalog)
  }
  if (!group) throw new HttpError(400, 'The catalog has no price group', 'PRICE_GROUP_NOT_FOUND')
  const { catalogGuid: _catalogGuid, priceGroupGuid: _priceGroupGuid, orderDetails, ...header } = input
  const entry = insertOrder(store, {
    vendor,
    catalog,
    group,
    user: auth.actingUser,
    lines: [],
    header: Object.fromEntries(Object.entries(header).filter(([, value]) => value !== undefined && value !== null)),
    shipTo: undefined,
    sourceId: ORDER_SOURCES.WEB ?? 1,
    detail: orderDetails ?? null,
    client: undefined,
    refs: undefined,
  })
  return { order: orderObject(store, entry) }
}

/** The customer's own price group, or the same-named group of another catalog, or that catalog's main group. */
function customerGroupIn(store: Store, vendor: VendorEntry, catalog: CatalogEntry): PriceGroupEntry | undefined {
  const groups = store.livePriceGroups(catalog)
  const own = store.priceGroupsById.get(vendor.rec.price_group_id)
  return (
    groups.find((group) => group === own) ??
    groups.find((group) => group.rec.value === own?.rec.value) ??
    groups.find((group) => group.rec.is_main) ??
    groups[0]
  )
}

/** Drift: a new order for a random active customer, as if placed elsewhere meanwhile. */
export function insertRandomOrder(store: Store): OrderEntry | undefined {
  const vendors = store.vendors.filter((vendor) => vendor.rec.active && vendor.rec.deleted_at === null)
  if (vendors.length === 0) return undefined
  const vendor = store.rng.pick(vendors)
  const catalog =
    store.catalogsById.get(vendor.rec.lock_catalog_id) ??
    store.catalogs.find((candidate) => candidate.rec.deleted_at === null)
  if (!catalog) return undefined
  const group = customerGroupIn(store, vendor, catalog)
  if (!group) return undefined
  const pool = catalog.items.filter(
    (item) => item.rec.active && item.rec.deleted_at === null && typeof item.rec.pricing[group.rec.value] === 'number',
  )
  const lines: ResolvedLine[] = []
  for (let i = 0, n = store.rng.int(1, 3); i < n && pool.length > 0; i++)
    lines.push({ item: store.rng.pick(pool), qty: store.rng.int(1, 6), note: '' })
  return insertOrder(store, {
    vendor,
    catalog,
    group,
    user: store.sessionUser,
    lines,
    header: {},
    shipTo: undefined,
    sourceId: ORDER_SOURCES.WEB ?? 1,
    detail: null,
    client: undefined,
    refs: undefined,
  })
}

// ---- transitions ------------------------------------------------------------------------------

interface AutoFulfilledItem {
  orderItemId: number
  catalogItemName: string
  catalogItemSku: string
  qtyFulfilled: number
  qtyFromHeld: number
  qtyFromOnHand: number
}

interface Allocation {
  line: OrderItemRec
  item: ItemEntry
  need: number
  fromHeld: number
  fromOnHand: number
}

/**
 * Reserves inventory on leaving PRELIMINARY. allowPartialFulfillment: true → reserve what is
 * available and move the rest to a new backorder; false → if anything is short, reserve nothing
 * and backorder every line; omitted → reserve what is available, the rest stays pending.
 */
function reserve(store: Store, entry: OrderEntry, partial: boolean | undefined, user: UserRec): AutoFulfilledItem[] {
  const allocations: Allocation[] = []
  for (const line of entry.lines) {
    const item = store.itemsById.get(line.catalog_item_id)
    if (!item || !item.rec.has_inventory || line.is_credit) continue
    const need = Math.max(0, line.qty - line.qty_reserved - line.qty_shipped)
    if (need === 0) continue
    const fromHeld = entry.rec.parent_order_id !== null ? Math.min(need, item.rec.qty_held_for_backorders) : 0
    const available = Math.max(0, item.rec.qty_on_hand - item.rec.reserved_qty_on_hand)
    allocations.push({ line, item, need, fromHeld, fromOnHand: Math.min(need - fromHeld, available) })
  }
  const at = store.nowIso()
  const short = allocations.filter((allocation) => allocation.fromHeld + allocation.fromOnHand < allocation.need)
  if (partial === false && short.length > 0) {
    for (const { line, item, need } of allocations) {
      line.is_backordered = true
      line.qty_backordered = need
      line.updated_at = at
      item.rec.qty_backordered += need
      store.touchItem(item, at)
    }
    return []
  }
  const fulfilled: AutoFulfilledItem[] = []
  const rests: { line: OrderItemRec; rest: number }[] = []
  for (const { line, item, need, fromHeld, fromOnHand } of allocations) {
    const qty = fromHeld + fromOnHand
    item.rec.qty_held_for_backorders -= fromHeld
    item.rec.reserved_qty_on_hand += qty
    line.qty_reserved += qty
    line.updated_at = at
    const rest = need - qty
    if (rest > 0) {
      if (partial === true) {
        rests.push({ line, rest })
        line.qty = line.qty - rest
        line.qty_backordered = rest
        line.is_backordered = true
        item.rec.qty_backordered += rest
      } else {
        line.qty_pending = rest
      }
    }
    store.touchItem(item, at)
    if (qty > 0) {
      fulfilled.push({
        orderItemId: line.id,
        catalogItemName: item.rec.name,
        catalogItemSku: item.rec.sku,
        qtyFulfilled: qty,
        qtyFromHeld: fromHeld,
        qtyFromOnHand: fromOnHand,
      })
    }
  }
  if (rests.length > 0) createBackorder(store, entry, rests, user)
  return fulfilled
}

function createBackorder(
  store: Store,
  parent: OrderEntry,
  rests: { line: OrderItemRec; rest: number }[],
  user: UserRec,
): OrderEntry {
  const at = store.nowIso()
  const id = store.id('order')
  const siblings = store.orders.filter((order) => order.rec.parent_order_id === parent.rec.id).length
  const shipTo = {
    ...parent.shipTo,
    id: store.id('address'),
    guid: store.rng.uuid(),
    order_id: id,
    created_at: at,
    updated_at: at,
  }
  const entry: OrderEntry = {
    rec: {
      ...parent.rec,
      id,
      guid: store.rng.uuid(),
      name: `${parent.rec.name}-BO${siblings + 1}`,
      api_guid: null,
      parent_order_id: parent.rec.id,
      ship_to_id: shipTo.id,
      order_state_id: STATE.PRELIMINARY,
      is_shipped: false,
      partially_shipped: false,
      is_cancelled: false,
      created_at: at,
      updated_at: at,
      deleted_at: null,
    },
    lines: rests.map(({ line, rest }, index) => ({
      ...line,
      id: store.id('orderItem'),
      guid: store.rng.uuid(),
      order_id: id,
      parent_order_item_id: line.id,
      item_no: index + 1,
      qty: rest,
      qty_reserved: 0,
      qty_shipped: 0,
      qty_pending: 0,
      qty_backordered: 0,
      is_backordered: false,
      created_at: at,
      updated_at: at,
    })),
    shipTo,
    logs: [{ created_at: at, userId: user.id, stateId: STATE.PRELIMINARY }],
    assignedUserIds: [...parent.assignedUserIds],
    detail: parent.detail ? { ...parent.detail } : null,
    refs: undefined,
    reserved: false,
    updatedMs: Date.parse(at),
  }
  computeTotals(store, entry)
  return store.addOrder(entry)
}

function ship(store: Store, entry: OrderEntry): void {
  const at = store.nowIso()
  for (const line of entry.lines) {
    const item = store.itemsById.get(line.catalog_item_id)
    if (item && item.rec.has_inventory) {
      const qty = line.qty_reserved
      item.rec.qty_on_hand = Math.max(0, item.rec.qty_on_hand - qty)
      item.rec.reserved_qty_on_hand = Math.max(0, item.rec.reserved_qty_on_hand - qty)
      line.qty_shipped += qty
      line.qty_reserved = 0
      store.touchItem(item, at)
    } else {
      line.qty_shipped = line.qty
    }
    line.updated_at = at
  }
  entry.rec.is_shipped = true
  entry.rec.partially_shipped = entry.lines.some((line) => line.qty_shipped < line.qty)
  entry.rec.ship_date = at.slice(0, 10)
}

function release(store: Store, entry: OrderEntry): void {
  const at = store.nowIso()
  for (const line of entry.lines) {
    if (line.qty_reserved === 0) continue
    const item = store.itemsById.get(line.catalog_item_id)
    if (item) {
      item.rec.reserved_qty_on_hand = Math.max(0, item.rec.reserved_qty_on_hand - line.qty_reserved)
      store.touchItem(item, at)
    }
    line.qty_reserved = 0
    line.updated_at = at
  }
}

/**
 * Moves an order along the default workflow (PRELIMINARY → SUBMITTED → SHIPPED → COMPLETED, any
 * open state → CANCELLED). COMPLETED and CANCELLED are final; PRELIMINARY cannot be re-entered.
 */
function transition(
  store: Store,
  entry: OrderEntry,
  target: number,
  user: UserRec,
  partial: boolean | undefined,
): AutoFulfilledItem[] {
  const from = entry.rec.order_state_id
  if (!ORDER_STATES[target]) throw new HttpError(400, `Unknown order state ${target}`, 'UNKNOWN_ORDER_STATE')
  if (from === STATE.COMPLETED || from === STATE.CANCELLED) {
    throw new HttpError(
      400,
      `Order ${entry.rec.name} is ${stateObject(from).name} and cannot move`,
      'INVALID_TRANSITION',
    )
  }
  if (target === from || target === STATE.PRELIMINARY) {
    throw new HttpError(
      400,
      `Order ${entry.rec.name} cannot move from ${stateObject(from).name} to ${stateObject(target).name}`,
      'INVALID_TRANSITION',
    )
  }
  let fulfilled: AutoFulfilledItem[] = []
  if (target === STATE.CANCELLED) {
    if (!entry.rec.is_shipped) release(store, entry)
    entry.rec.is_cancelled = true
  } else {
    if (!entry.reserved) {
      fulfilled = reserve(store, entry, partial, user)
      entry.reserved = true
    }
    if ((target === STATE.SHIPPED || target === STATE.COMPLETED) && !entry.rec.is_shipped) ship(store, entry)
  }
  const at = store.nowIso()
  entry.rec.order_state_id = target
  entry.logs.push({ created_at: at, userId: user.id, stateId: target })
  computeTotals(store, entry)
  store.touchOrder(entry, at)
  return fulfilled
}

const submitSchema = z.looseObject({
  orderGuid: z.string(),
  allowPartialFulfillment: z.boolean().nullish(),
  order_state_id: z.number().int().nullish(),
})

/** POST /v1/order/submit */
export function submitOrder(
  store: Store,
  auth: AuthContext,
  body: unknown,
  visible: (entry: OrderEntry) => void,
): Record<string, unknown> {
  const input = parseBody(submitSchema, body)
  const entry = store.ordersByGuid.get(input.orderGuid)
  if (!entry || entry.rec.deleted_at !== null)
    throw new HttpError(404, `Order ${input.orderGuid} not found`, 'ORDER_NOT_FOUND')
  visible(entry)
  const target = input.order_state_id ?? NEXT_STATE[entry.rec.order_state_id]
  if (target === undefined) {
    throw new HttpError(
      400,
      `Order ${entry.rec.name} is ${stateObject(entry.rec.order_state_id).name}; there is no next step`,
      'INVALID_TRANSITION',
    )
  }
  const autoFulfilledItems = transition(
    store,
    entry,
    target,
    auth.actingUser,
    input.allowPartialFulfillment ?? undefined,
  )
  return { order: orderObject(store, entry), autoFulfilledItems }
}

// ---- update -----------------------------------------------------------------------------------

const nullableInt = z.number().int().nullish()
const updateSchema = z.looseObject({
  name: text,
  po_no: text,
  note: text,
  internal_note: text,
  invoice_no: text,
  vendor_id: nullableInt,
  catalog_id: nullableInt,
  project_id: nullableInt,
  client_id: nullableInt,
  discount_type_id: nullableInt,
  shipping_warehouse_id: nullableInt,
  price_group_id: nullableInt,
  workflow_id: nullableInt,
  is_sample: z.boolean().nullish(),
  is_on_hold: z.boolean().nullish(),
  is_cancelled: z.boolean().nullish(),
  is_local_delivery: z.boolean().nullish(),
  clear_manual_shipping_fee: z.boolean().nullish(),
  save_address_to_vendor: z.boolean().nullish(),
  allow_substitutions: z.boolean().nullish(),
  allow_backorders: z.boolean().nullish(),
  shipping: z.number().nullish(),
  labor: z.number().nullish(),
  price_adjustment: z.number().nullish(),
  discount: z.number().nullish(),
  tax_rate_override: z.number().nullish(),
  Ship_To: addressInput.nullish(),
  approve_decline: z.enum(['APPROVE', 'DECLINE']).nullish(),
  tags: z.array(z.number().int()).nullish(),
  do_not_ship_before_date: text,
  cancel_date: text,
  assignedUsers: z.array(z.looseObject({ id: z.number().int().nullish(), guid: z.string().nullish() })).nullish(),
  details: objectInput,
})

/** Read-only steps per user type: supplier users cannot edit shipped, completed or cancelled orders; customer users can edit only PRELIMINARY ones. */
function isReadOnlyFor(user: UserRec, stateId: number): boolean {
  if (user.type === 'customer') return stateId !== STATE.PRELIMINARY
  return stateId === STATE.SHIPPED || stateId === STATE.COMPLETED || stateId === STATE.CANCELLED
}

/** PUT /v1/orders/{orderGuid}: fields present in the body change, absent ones stay. */
export function updateOrder(
  store: Store,
  entry: OrderEntry,
  user: UserRec,
  body: unknown,
  asStaff = false,
): Record<string, unknown> {
  if (!asStaff && store.lockedOrders.has(entry.rec.guid)) {
    throw new HttpError(
      403,
      `Order ${entry.rec.name} is at a workflow step that is read-only for ${user.type} users`,
      'ORDER_READ_ONLY',
    )
  }
  if (isReadOnlyFor(user, entry.rec.order_state_id)) {
    throw new HttpError(
      403,
      `Order ${entry.rec.name} is ${stateObject(entry.rec.order_state_id).name}, a read-only step for ${user.type} users`,
      'ORDER_READ_ONLY',
    )
  }
  const input = parseBody(updateSchema, body)
  const has = (key: string): boolean => Object.prototype.hasOwnProperty.call(input, key)
  const rec = entry.rec
  const at = store.nowIso()

  if (typeof input.vendor_id === 'number') {
    const vendor = store.vendorsById.get(input.vendor_id)
    if (!vendor || vendor.rec.deleted_at !== null)
      throw new HttpError(400, `Unknown vendor_id ${input.vendor_id}`, 'VALIDATION_ERROR')
  }
  if (typeof input.catalog_id === 'number') {
    const catalog = store.catalogsById.get(input.catalog_id)
    if (!catalog || catalog.rec.deleted_at !== null)
      throw new HttpError(400, `Unknown catalog_id ${input.catalog_id}`, 'VALIDATION_ERROR')
  }
  const catalogId = typeof input.catalog_id === 'number' ? input.catalog_id : rec.catalog_id
  let newGroup: PriceGroupEntry | undefined
  if (typeof input.price_group_id === 'number') {
    newGroup = store.priceGroupsById.get(input.price_group_id)
    if (!newGroup || newGroup.rec.deleted_at !== null || newGroup.catalog.rec.id !== catalogId) {
      throw new HttpError(
        400,
        `Unknown price_group_id ${input.price_group_id} for this order's catalog`,
        'VALIDATION_ERROR',
      )
    }
  }
  const assigned: number[] = []
  for (const wanted of input.assignedUsers ?? []) {
    const user =
      typeof wanted.id === 'number'
        ? store.usersById.get(wanted.id)
        : wanted.guid
          ? store.usersByGuid.get(wanted.guid)
          : undefined
    if (!user || user.type !== 'supplier')
      throw new HttpError(400, `Unknown assigned user ${wanted.guid ?? wanted.id}`, 'VALIDATION_ERROR')
    assigned.push(user.id)
  }

  // The order number cannot be blanked; the other strings can be cleared with null.
  if (input.name) rec.name = input.name
  for (const key of ['po_no', 'note', 'internal_note', 'invoice_no', 'do_not_ship_before_date'] as const) {
    if (has(key)) rec[key] = input[key] ?? null
  }
  for (const key of ['vendor_id', 'catalog_id', 'project_id', 'client_id'] as const) {
    if (has(key)) rec[key] = input[key] ?? null
  }
  for (const key of [
    'discount_type_id',
    'shipping_warehouse_id',
    'workflow_id',
    'tax_rate_override',
    'approve_decline',
    'tags',
    'cancel_date',
    'allow_substitutions',
    'allow_backorders',
  ] as const) {
    if (has(key)) rec[key] = input[key] ?? null
  }
  for (const key of ['is_sample', 'is_on_hold', 'is_local_delivery'] as const) {
    const value = input[key]
    if (typeof value === 'boolean') rec[key] = value
  }
  if (typeof input.shipping === 'number') rec.shipping = input.shipping
  if (input.clear_manual_shipping_fee === true) rec.shipping = 0
  if (typeof input.labor === 'number') rec.labor = input.labor
  if (typeof input.price_adjustment === 'number') rec.other = input.price_adjustment
  if (typeof input.discount === 'number') rec.discount = input.discount
  if (has('price_group_id')) {
    rec.price_group_id = newGroup ? newGroup.rec.id : null
    if (newGroup) {
      for (const line of entry.lines) {
        const item = store.itemsById.get(line.catalog_item_id)
        if (!item || typeof item.rec.pricing[newGroup.rec.value] !== 'number') continue
        const repriced = pricedLine(store, item, newGroup.rec.value, line.qty, line.item_no, rec.id, at)
        Object.assign(line, {
          list_price_frozen: repriced.list_price_frozen,
          net_price: repriced.net_price,
          discount: repriced.discount,
          updated_at: at,
        })
      }
    }
  }
  if (input.Ship_To) {
    applyAddress(entry.shipTo, input.Ship_To)
    entry.shipTo.updated_at = at
    if (input.save_address_to_vendor === true && rec.vendor_id !== null) {
      const vendor = store.vendorsById.get(rec.vendor_id)
      if (vendor) {
        applyAddress(vendor.shipTo, input.Ship_To)
        vendor.shipTo.updated_at = at
        store.touchVendor(vendor, at)
      }
    }
  }
  if (input.assignedUsers) entry.assignedUserIds = assigned
  if (input.details) entry.detail = { ...(entry.detail ?? {}), ...input.details }
  computeTotals(store, entry)
  if (input.is_cancelled === true && rec.order_state_id !== STATE.CANCELLED) {
    transition(store, entry, STATE.CANCELLED, user, undefined)
  }
  store.touchOrder(entry, at)
  return orderObject(store, entry)
}

// ---- fulfilment (control only) ----------------------------------------------------------------

export function fulfilOrder(store: Store, entry: OrderEntry, step: FulfilmentStep): void {
  const user = store.sessionUser
  const at = store.nowIso()
  switch (step.kind) {
    case 'state':
      transition(store, entry, step.stateId, user, undefined)
      return
    case 'cancel':
      transition(store, entry, STATE.CANCELLED, user, undefined)
      return
    case 'hold':
      entry.rec.is_on_hold = step.onHold
      store.touchOrder(entry, at)
      return
    case 'ship': {
      const from = entry.rec.order_state_id
      if (from === STATE.COMPLETED || from === STATE.CANCELLED)
        throw new HttpError(400, `Order ${entry.rec.name} is ${stateObject(from).name}`, 'INVALID_TRANSITION')
      const rests: { line: OrderItemRec; rest: number }[] = []
      for (const line of entry.lines) {
        const wanted = step.lines.find((candidate) => candidate.itemNo === line.item_no)?.qty ?? 0
        const open = Math.max(0, line.qty - line.qty_shipped)
        const qty = Math.min(open, Math.max(0, wanted))
        const item = store.itemsById.get(line.catalog_item_id)
        if (item && item.rec.has_inventory && qty > 0) {
          item.rec.qty_on_hand = Math.max(0, item.rec.qty_on_hand - qty)
          item.rec.reserved_qty_on_hand = Math.max(0, item.rec.reserved_qty_on_hand - Math.min(qty, line.qty_reserved))
          store.touchItem(item, at)
        }
        line.qty_reserved = Math.max(0, line.qty_reserved - qty)
        line.qty_shipped += qty
        const rest = open - qty
        if (rest > 0 && step.backorderRest === true) {
          rests.push({ line, rest })
          line.qty_backordered = rest
          line.is_backordered = true
          line.qty_pending = 0
        } else {
          line.qty_pending = rest
        }
        line.updated_at = at
      }
      if (rests.length > 0) createBackorder(store, entry, rests, user)
      entry.reserved = true
      entry.rec.is_shipped = entry.lines.some((line) => line.qty_shipped > 0)
      entry.rec.partially_shipped = entry.lines.some((line) => line.qty_shipped < line.qty)
      entry.rec.ship_date = at.slice(0, 10)
      if (from !== STATE.SHIPPED) {
        entry.rec.order_state_id = STATE.SHIPPED
        entry.logs.push({ created_at: at, userId: user.id, stateId: STATE.SHIPPED })
      }
      computeTotals(store, entry)
      store.touchOrder(entry, at)
      return
    }
  }
}
