import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startService } from './index'
import type { RunningService } from './types'
import { get, ISO_TIMESTAMP, openCustomer, post, put, UUID, type Json } from './helpers'

let service: RunningService
beforeAll(async () => {
  service = await startService({ size: 'tiny', seed: 13 })
})
afterAll(async () => {
  await service.close()
})

const vendorStrings = [
  'customer_internal_id',
  'name',
  'email',
  'shipping_email',
  'phone',
  'cell',
  'fax',
  'address_line_one',
  'address_line_two',
  'city',
  'state',
  'postal_code',
  'country',
  'resale_tax_id',
  'standing_po',
  'notes',
  'timezone',
]
const vendorBooleans = [
  'active',
  'tax_exempt',
  'require_payment',
  'is_ecomm_user',
  'net_term_ecomm_user',
  'require_po',
  'hide_pricing',
]
const vendorInts = [
  'id',
  'supplier_id',
  'parent_vendor_id',
  'lock_catalog_id',
  'price_group_id',
  'payment_type_id',
  'payment_term_id',
  'currency_id',
  'default_order_category_id',
  'route_id',
  'bill_to_id',
  'ship_to_id',
]
const addressStrings = [
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
  'address_internal_id',
]

function expectVendor(vendor: Json): void {
  expect(vendor.guid).toMatch(UUID)
  for (const key of vendorStrings) expect(typeof vendor[key], key).toBe('string')
  for (const key of vendorBooleans) expect(typeof vendor[key], key).toBe('boolean')
  for (const key of vendorInts) expect(Number.isInteger(vendor[key]), key).toBe(true)
  expect(typeof vendor.credit_limit).toBe('number')
  expect(typeof vendor.open_balance).toBe('number')
  expect(vendor.created_at).toMatch(ISO_TIMESTAMP)
  expect(vendor.updated_at).toMatch(ISO_TIMESTAMP)
  for (const address of [vendor.Bill_To, vendor.Ship_To]) {
    for (const key of addressStrings) expect(typeof address[key], key).toBe('string')
    expect(address.vendor_id).toBe(vendor.id)
    expect(typeof address.lat).toBe('number')
    expect(typeof address.verified).toBe('boolean')
  }
  expect(vendor.Bill_To.id).toBe(vendor.bill_to_id)
  expect(vendor.Ship_To.id).toBe(vendor.ship_to_id)
}

describe('GET /vendors', () => {
  it('rows are supplier-to-customer connections with the customer under Vendor, a total and serverTimestamp', async () => {
    const reply = await get(service, '/vendors?limit=100')
    expect(reply.status).toBe(200)
    expect(reply.json.total).toBe(30)
    expect(reply.json.serverTimestamp).toMatch(ISO_TIMESTAMP)
    expect(reply.json.vendors).toHaveLength(30)
    for (const row of reply.json.vendors as Json[]) {
      expect(row.guid).toMatch(UUID)
      expect(row.vendor_id).toBe(row.Vendor.id)
      expectVendor(row.Vendor)
    }
  })

  it('the data has customers with price groups, require_po on some and a few inactive', async () => {
    const rows = (await get(service, '/vendors?limit=100')).json.vendors as Json[]
    const groupIds = new Set(
      service.control.catalogs().flatMap((catalog) => (catalog.Price_Groups as Json[]).map((group) => group.id)),
    )
    for (const row of rows) expect(groupIds.has(row.Vendor.price_group_id)).toBe(true)
    expect(rows.some((row) => row.Vendor.require_po)).toBe(true)
    expect(rows.some((row) => !row.Vendor.active)).toBe(true)
    expect(rows.filter((row) => !row.Vendor.active).length).toBeLessThan(rows.length / 4)
    expect(new Set(rows.map((row) => row.Vendor.email)).size).toBe(rows.length)
  })

  it('filters by name, category and state_license, and filter_inactive (alias filterInactive) drops inactive customers', async () => {
    const rows = (await get(service, '/vendors?limit=100')).json.vendors as Json[]
    const sample = rows[4]
    const fragment = (sample.Vendor.name as string).split(' ')[0]?.toUpperCase() ?? ''
    const byName = (await get(service, `/vendors?limit=100&name=${encodeURIComponent(fragment)}`)).json
      .vendors as Json[]
    expect(byName.length).toBeGreaterThan(0)
    for (const row of byName) expect((row.Vendor.name as string).toUpperCase()).toContain(fragment)
    const byCategory = (await get(service, `/vendors?limit=100&category=${encodeURIComponent(sample.category)}`)).json
      .vendors as Json[]
    expect(byCategory.map((row) => row.guid)).toContain(sample.guid)
    for (const row of byCategory) expect(row.category).toBe(sample.category)
    const licensed = rows.find((row) => row.state_license !== '')
    if (licensed) {
      const byLicense = (await get(service, `/vendors?state_license=${encodeURIComponent(licensed.state_license)}`))
        .json.vendors as Json[]
      expect(byLicense.map((row) => row.guid)).toEqual([licensed.guid])
    }
    const inactive = rows.filter((row) => !row.Vendor.active).length
    for (const name of ['filter_inactive', 'filterInactive']) {
      const active = await get(service, `/vendors?limit=100&${name}=true`)
      expect(active.json.total).toBe(rows.length - inactive)
      for (const row of active.json.vendors as Json[]) expect(row.Vendor.active).toBe(true)
    }
  })

  it('orders rows by order_by and order_dir', async () => {
    const names = ((await get(service, '/vendors?limit=100&order_by=name&order_dir=desc')).json.vendors as Json[]).map(
      (row) => row.Vendor.name as string,
    )
    expect(names).toEqual([...names].sort((a, b) => b.localeCompare(a, 'en', { sensitivity: 'base' })))
    expect((await get(service, '/vendors?order_by=password')).status).toBe(400)
    expect((await get(service, '/vendors?order_dir=sideways')).status).toBe(400)
  })

  it('nameGuidOnly=true reduces each customer to id, guid and name', async () => {
    const rows = (await get(service, '/vendors?nameGuidOnly=true')).json.vendors as Json[]
    for (const row of rows) expect(Object.keys(row.Vendor).sort()).toEqual(['guid', 'id', 'name'])
  })
})

describe('GET /v1/vendors/{vendorGuid}', () => {
  it('returns the Vendor with Bill_To and Ship_To, unwrapped', async () => {
    const customer = openCustomer(service)
    const reply = await get(service, `/v1/vendors/${customer.guid}`, { as: 'session' })
    expect(reply.status).toBe(200)
    expectVendor(reply.json)
    expect(reply.json.guid).toBe(customer.guid)
  })

  it('gives 404 for an unknown customer and 400 for a malformed GUID', async () => {
    const unknown = await get(service, '/v1/vendors/00000000-0000-4000-8000-000000000000')
    expect(unknown.status).toBe(404)
    expect(unknown.json.code).toBe('VENDOR_NOT_FOUND')
    expect((await get(service, '/v1/vendors/not-a-guid')).status).toBe(400)
  })
})

describe('POST /vendors', () => {
  const input = {
    newVendor: {
      name: 'Fernwood Provisions',
      email: 'Orders@FernwoodProvisions.example',
      phone: '(503) 555-0199',
      customer_internal_id: 'FW-1',
    },
    newVendorBillTo: {
      name: 'Accounts Payable',
      address_line_one: 'PO Box 42',
      city: 'Portland',
      state: 'OR',
      postal_code: '97201',
      country: 'US',
    },
    newVendorShipTo: {
      name: 'Kitchen',
      company_name: 'Fernwood Provisions',
      address_line_one: '12 Alder St',
      city: 'Portland',
      state: 'OR',
      postal_code: '97204',
      country: 'US',
    },
    newVendorContact: { name: 'Ines Alvarez', email: 'ines@fernwoodprovisions.example' },
    newVendorNote: 'Met at the spring food show.',
  }

  it('creates a customer and returns vendor, billTo, shipTo, contact and note', async () => {
    const reply = await post(service, '/vendors', input, { as: 'session' })
    expect(reply.status).toBe(200)
    expectVendor(reply.json.vendor)
    expect(reply.json.vendor.name).toBe('Fernwood Provisions')
    expect(reply.json.vendor.customer_internal_id).toBe('FW-1')
    expect(reply.json.vendor.Ship_To.address_line_one).toBe('12 Alder St')
    expect(reply.json.vendor.Bill_To.address_line_one).toBe('PO Box 42')
    for (const key of ['billTo', 'shipTo', 'contact', 'note']) {
      expect(Object.keys(reply.json[key]).sort(), key).toEqual(['guid', 'id'])
      expect(reply.json[key].guid).toMatch(UUID)
    }
    expect(reply.json.billTo.id).toBe(reply.json.vendor.bill_to_id)
    expect(reply.json.shipTo.id).toBe(reply.json.vendor.ship_to_id)
    expect((await get(service, `/v1/vendors/${reply.json.vendor.guid}`)).status).toBe(200)
  })

  it('is idempotent on supplier + newVendor.email', async () => {
    const again = {
      ...input,
      newVendor: { ...input.newVendor, name: 'Fernwood Provisions (dup)', email: 'orders@fernwoodprovisions.example' },
    }
    const first = await post(service, '/vendors', again, { as: 'session' })
    const second = await post(service, '/vendors', again, { as: 'session' })
    expect(second.json).toEqual(first.json)
    expect(first.json.vendor.name).toBe('Fernwood Provisions')
    const matching = (service.control.customers() as Json[]).filter(
      (customer) => (customer.email as string).toLowerCase() === 'orders@fernwoodprovisions.example',
    )
    expect(matching).toHaveLength(1)
  })

  it('puts a new customer on the main price group of the first orderable catalog by id (choice 33)', async () => {
    const catalogs = (service.control.catalogs() as Json[])
      .filter((catalog) => catalog.deleted_at === null && catalog.active === true)
      .sort((a, b) => (a.id as number) - (b.id as number))
    const mainOf = (catalog: Json) =>
      (service.control.priceGroups(catalog.guid as string) as Json[]).find((group) => group.is_main)!.id
    const made = await post(service, '/vendors', { newVendor: { name: 'First Catalog Deli' } }, { as: 'session' })
    expect(made.json.vendor.price_group_id).toBe(mainOf(catalogs[0]!))
    // An inactive catalog takes no orders: the next one by id is where a new customer goes.
    service.control.update('catalog', catalogs[0]!.guid as string, { active: false })
    try {
      const next = await post(service, '/vendors', { newVendor: { name: 'Second Catalog Deli' } }, { as: 'session' })
      expect(next.json.vendor.price_group_id).toBe(mainOf(catalogs[1]!))
    } finally {
      service.control.update('catalog', catalogs[0]!.guid as string, { active: true })
    }
  })

  it('without newVendor or newVendor.name gives 400 with a ReconcileErrors body', async () => {
    for (const body of [{}, { newVendor: { email: 'x@y.example' } }, { newVendor: { name: '  ' } }]) {
      const reply = await post(service, '/vendors', body, { as: 'session' })
      expect(reply.status).toBe(400)
      expect(reply.json.code).toBe('RECONCILE_ERRORS')
      expect(reply.json.errors[0]).toMatchObject({
        type: 'INVALID_REQUEST',
        field: expect.stringMatching(/^newVendor/),
      })
    }
  })
})

describe('PUT /v1/vendors/{vendorGuid}', () => {
  it('updates name, email, addresses and options and answers vendorModel with resource vendor', async () => {
    const customer = openCustomer(service, 3)
    const groups = service.control.catalogs()[0]?.Price_Groups as Json[]
    const otherGroup = groups.find((group) => group.id !== customer.price_group_id && group.deleted_at === null)
    const reply = await put(
      service,
      `/v1/vendors/${customer.guid}`,
      {
        name: 'Harbor Lights Cafe',
        email: 'hello@harborlights.example',
        shipTo: { address_line_one: '77 Front St', city: 'Tacoma' },
        options: { price_group_id: otherGroup.id, require_po: true },
        shippingDetails: [{ carrier: 'UPS', service: 'Ground' }],
      },
      { as: 'session' },
    )
    expect(reply.status).toBe(200)
    expect(reply.json.resource).toBe('vendor')
    const vendor = reply.json.vendorModel
    expect(vendor.name).toBe('Harbor Lights Cafe')
    expect(vendor.email).toBe('hello@harborlights.example')
    expect(vendor.Ship_To.address_line_one).toBe('77 Front St')
    expect(vendor.Ship_To.postal_code).toBe(customer.Ship_To.postal_code)
    expect(vendor.Bill_To).toEqual(customer.Bill_To)
    expect(vendor.price_group_id).toBe(otherGroup.id)
    expect(vendor.require_po).toBe(true)
    expect(Date.parse(vendor.updated_at)).toBeGreaterThan(Date.parse(customer.updated_at))
  })

  it('requires name and email (400)', async () => {
    const customer = openCustomer(service, 4)
    const reply = await put(service, `/v1/vendors/${customer.guid}`, { name: 'Only A Name' }, { as: 'session' })
    expect(reply.status).toBe(400)
    expect(reply.json.code).toBe('VALIDATION_ERROR')
  })
})
