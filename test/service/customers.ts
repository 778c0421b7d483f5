/**
 * Customer creation and update, shared by POST /vendors, POST /v1/orderWithItems (newVendor*) and
 * PUT /v1/vendors/{vendorGuid}. Creation is idempotent on supplier + email, so a rep's retried or
 * duplicated "new customer" never yields two accounts.
 */
import { z } from 'zod'
import { HttpError, parseBody, reconcileErrors, zodIssues } from './http'
import type { AddressRec, VendorRec } from './model'
import { makeAddress, type EntityRef, type OrderRefs, type Store, type VendorEntry } from './store'

const text = z.string().nullish()

export const addressInput = z.looseObject({
  name: text,
  company_name: text,
  address_line_one: text,
  address_line_two: text,
  address_line_three: text,
  city: text,
  state: text,
  postal_code: text,
  country: text,
  phone: text,
  fax: text,
  email: text,
  note: text,
})
export type AddressInput = z.infer<typeof addressInput>

export const vendorInput = z.looseObject({
  name: z.string().trim().min(1, 'name is required'),
  email: text,
  phone: text,
  customer_internal_id: text,
})

export const contactInput = z.looseObject({ name: text, email: text })

const newVendorParts = {
  newVendor: vendorInput,
  newVendorBillTo: addressInput.nullish(),
  newVendorShipTo: addressInput.nullish(),
  newVendorContact: contactInput.nullish(),
  newVendorNote: z.string().nullish(),
}
const newVendorSchema = z.looseObject(newVendorParts)
export type NewVendorInput = z.infer<typeof newVendorSchema>

const addressKeys = [
  'name',
  'company_name',
  'address_line_one',
  'address_line_two',
  'address_line_three',
  'city',
  'state',
  'postal_code',
  'country',
  'phone',
  'fax',
  'email',
  'note',
] as const

function ref(record: { id: number; guid: string } | undefined | null): EntityRef | null {
  return record ? { id: record.id, guid: record.guid } : null
}

/** Copies the known string fields of an AddressInput onto an address (unknown fields are ignored). */
export function applyAddress(target: AddressRec, input: AddressInput | null | undefined): void {
  if (!input) return
  for (const key of addressKeys) {
    const value = input[key]
    if (typeof value === 'string') target[key] = value
    else if (value === null) target[key] = ''
  }
}

export function vendorRefs(vendor: VendorEntry): OrderRefs {
  return {
    vendor: vendor.rec.id,
    billTo: ref(vendor.billTo),
    shipTo: ref(vendor.shipTo),
    contact: ref(vendor.contacts[0]),
    note: ref(vendor.notes[0]),
  }
}

/** Vendor fields a VendorInput may also carry ("further fields not shown"): same name, same primitive type. */
const settableVendorFields = new Set<string>([
  'shipping_email',
  'cell',
  'fax',
  'address_line_one',
  'address_line_two',
  'city',
  'state',
  'postal_code',
  'country',
  'tax_exempt',
  'require_payment',
  'require_po',
  'hide_pricing',
  'resale_tax_id',
  'standing_po',
  'notes',
  'timezone',
])

export function parseNewVendor(body: unknown): NewVendorInput {
  const result = newVendorSchema.safeParse(body ?? {})
  if (!result.success) throw reconcileErrors(zodIssues(result.error), 'Customer')
  return result.data
}

/**
 * Creates the customer, or returns the live customer with the same email (case-insensitive) and
 * its existing references. Must run without awaiting, so concurrent retries cannot both create.
 */
export function createVendor(
  store: Store,
  input: NewVendorInput,
): { vendor: VendorEntry; refs: OrderRefs; created: boolean } {
  const email = input.newVendor.email?.trim() ?? ''
  const existing = email ? store.vendorByEmail(email) : undefined
  if (existing) return { vendor: existing, refs: vendorRefs(existing), created: false }

  const at = store.nowIso()
  const rng = store.rng
  const id = store.id('vendor')
  // The catalog the supplier made first among those orders may use (README choice 33).
  const firstCatalog = store.catalogs
    .filter((catalog) => catalog.rec.deleted_at === null && catalog.rec.active)
    .sort((a, b) => a.rec.id - b.rec.id)[0]
  const mainGroup = firstCatalog ? store.livePriceGroups(firstCatalog).find((group) => group.rec.is_main) : undefined
  const shipInput = input.newVendorShipTo ?? input.newVendorBillTo
  const billInput = input.newVendorBillTo ?? input.newVendorShipTo
  const shipTo = makeAddress(
    store,
    rng,
    { vendor_id: id, name: input.newVendor.name, company_name: input.newVendor.name, is_vendor_main_ship_to: true },
    at,
  )
  applyAddress(shipTo, shipInput)
  const billTo = makeAddress(
    store,
    rng,
    { vendor_id: id, name: input.newVendor.name, company_name: input.newVendor.name },
    at,
  )
  applyAddress(billTo, billInput)
  const rec: VendorRec = {
    id,
    guid: rng.uuid(),
    supplier_id: store.supplier.id,
    parent_vendor_id: 0,
    customer_internal_id: input.newVendor.customer_internal_id ?? `C${id}`,
    name: input.newVendor.name,
    email,
    shipping_email: '',
    phone: input.newVendor.phone ?? shipTo.phone,
    cell: '',
    fax: '',
    address_line_one: shipTo.address_line_one,
    address_line_two: shipTo.address_line_two,
    city: shipTo.city,
    state: shipTo.state,
    postal_code: shipTo.postal_code,
    country: shipTo.country || 'US',
    active: true,
    tax_exempt: false,
    require_payment: false,
    is_ecomm_user: false,
    net_term_ecomm_user: false,
    require_po: false,
    hide_pricing: false,
    resale_tax_id: '',
    standing_po: '',
    notes: '',
    timezone: 'America/Los_Angeles',
    lock_catalog_id: 0,
    price_group_id: mainGroup?.rec.id ?? 0,
    payment_type_id: 1,
    payment_term_id: 1,
    currency_id: 1,
    default_order_category_id: 0,
    route_id: 0,
    bill_to_id: billTo.id,
    ship_to_id: shipTo.id,
    credit_limit: 0,
    open_balance: 0,
    created_at: at,
    updated_at: at,
    deleted_at: null,
  }
  const record = rec as Record<string, unknown>
  for (const [key, value] of Object.entries(input.newVendor)) {
    if (settableVendorFields.has(key) && typeof value === typeof record[key]) record[key] = value
  }
  const contacts = []
  const contactName = input.newVendorContact?.name ?? ''
  const contactEmail = input.newVendorContact?.email ?? ''
  if (contactName || contactEmail) {
    contacts.push({
      id: store.id('contact'),
      guid: rng.uuid(),
      vendor_id: id,
      name: contactName,
      email: contactEmail,
      created_at: at,
    })
  }
  const notes = []
  if (input.newVendorNote)
    notes.push({ id: store.id('note'), guid: rng.uuid(), vendor_id: id, note: input.newVendorNote, created_at: at })
  const connection = {
    id: store.id('connection'),
    guid: rng.uuid(),
    supplier_id: store.supplier.id,
    vendor_id: id,
    category: '',
    state_license: '',
    token_options: {},
    created_at: at,
  }
  const vendor = store.addVendor({
    rec,
    billTo,
    shipTo,
    connection,
    contacts,
    notes,
    shippingDetails: [],
    shippingAccounts: [],
  })
  return { vendor, refs: vendorRefs(vendor), created: true }
}

const updateSchema = z.looseObject({
  name: z.string().trim().min(1, 'name is required'),
  email: z.string().trim().min(1, 'email is required'),
  billTo: addressInput.nullish(),
  shipTo: addressInput.nullish(),
  options: z.looseObject({ price_group_id: z.number().int().nullish(), require_po: z.boolean().nullish() }).nullish(),
  tokenOptions: z.record(z.string(), z.unknown()).nullish(),
  shippingDetails: z.array(z.unknown()).nullish(),
  shippingAccounts: z.array(z.unknown()).nullish(),
})

export function updateVendor(store: Store, vendor: VendorEntry, body: unknown): void {
  const input = parseBody(updateSchema, body)
  const clash = store.vendorByEmail(input.email)
  if (clash && clash !== vendor)
    throw new HttpError(400, `Another customer already uses ${input.email}`, 'EMAIL_IN_USE')
  const groupId = input.options?.price_group_id
  if (typeof groupId === 'number') {
    const group = store.priceGroupsById.get(groupId)
    if (!group || group.rec.deleted_at !== null)
      throw new HttpError(400, `Unknown price group ${groupId}`, 'VALIDATION_ERROR')
  }
  const at = store.nowIso()
  vendor.rec.name = input.name
  vendor.rec.email = input.email
  if (input.billTo) {
    applyAddress(vendor.billTo, input.billTo)
    vendor.billTo.updated_at = at
  }
  if (input.shipTo) {
    applyAddress(vendor.shipTo, input.shipTo)
    vendor.shipTo.updated_at = at
  }
  if (typeof groupId === 'number') vendor.rec.price_group_id = groupId
  if (typeof input.options?.require_po === 'boolean') vendor.rec.require_po = input.options.require_po
  if (input.tokenOptions)
    vendor.connection.token_options = { ...vendor.connection.token_options, ...input.tokenOptions }
  if (input.shippingDetails) vendor.shippingDetails = input.shippingDetails
  if (input.shippingAccounts) vendor.shippingAccounts = input.shippingAccounts
  store.touchVendor(vendor, at)
}
