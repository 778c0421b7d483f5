import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startService } from './index'
import type { RunningService } from './types'
import {
  apiGuid,
  catalogs,
  get,
  openCustomer,
  orderableItems,
  orderBody,
  post,
  priceGroup,
  UUID,
  type Json,
} from './helpers'

let service: RunningService
let first: Json
let second: Json

beforeAll(async () => {
  service = await startService({ size: 'tiny', seed: 17 })
  ;({ first, second } = catalogs(service))
})
afterAll(async () => {
  await service.close()
})

function item(guid: string): Json {
  return service.control.catalogItems(first.guid).find((row) => row.guid === guid)
}

function orderCount(): number {
  return service.control.orders().length
}

async function expectReconcileError(body: Json, headers: Record<string, string>, type: string): Promise<Json> {
  const before = orderCount()
  const inventory = service.control.catalogItems(first.guid).map((row) => row.reserved_qty_on_hand)
  const customers = service.control.customers().length
  const reply = await post(service, '/v1/orderWithItems', body, { headers })
  expect(reply.status).toBe(400)
  expect(reply.json.message).toBe('Order could not be reconciled')
  expect(reply.json.code).toBe('RECONCILE_ERRORS')
  expect((reply.json.errors as Json[]).map((error) => error.type)).toContain(type)
  // Validation happens before anything is written.
  expect(orderCount()).toBe(before)
  expect(service.control.catalogItems(first.guid).map((row) => row.reserved_qty_on_hand)).toEqual(inventory)
  expect(service.control.customers().length).toBe(customers)
  return reply.json
}

describe('POST /v1/orderWithItems', () => {
  it('creates the order in PRELIMINARY and submits it automatically (1 → 2), reserving inventory', async () => {
    const customer = openCustomer(service)
    const [a, b] = orderableItems(service, first.guid)
    const body = orderBody(first, [
      { item: a, qty: 2 },
      { item: b, qty: 3 },
    ])
    const reply = await post(service, '/v1/orderWithItems', body, { headers: { vendorGuid: customer.guid } })
    expect(reply.status).toBe(200)
    const order = reply.json.order
    expect(order.order_state_id).toBe(2)
    expect(order.Order_State).toEqual({ id: 2, guid: expect.stringMatching(UUID), name: 'SUBMITTED' })
    expect((order.Order_State_Logs as Json[]).map((log) => log.Order_State.id)).toEqual([1, 2])
    expect(order.api_guid).toBe(body.order.api_guid)
    expect(order.vendor_id).toBe(customer.id)
    expect(order.po_no).toBe('PO-TEST')
    expect(order.Order_Items).toHaveLength(2)
    expect(order.Order_Items[0]).toMatchObject({
      catalog_item_guid: a.guid,
      qty: 2,
      qty_reserved: a.has_inventory ? 2 : 0,
      item_no: 1,
    })
    expect(order.Order_Items[0].Catalog_Item.guid).toBe(a.guid)
    if (a.has_inventory) expect(item(a.guid).reserved_qty_on_hand).toBe(a.reserved_qty_on_hand + 2)
    expect(reply.json.vendor.guid).toBe(customer.guid)
    expect(reply.json.billTo).toEqual({ id: customer.Bill_To.id, guid: customer.Bill_To.guid })
    expect(reply.json.shipTo).toEqual({ id: customer.Ship_To.id, guid: customer.Ship_To.guid })
    expect(reply.json).toHaveProperty('contact')
    expect(reply.json).toHaveProperty('note')
    for (const relation of ['Vendor', 'Catalog', 'Price_Group', 'Ship_To', 'User', 'Supplier'])
      expect(order[relation], relation).toBeTruthy()
  })

  it('totals come from the price group pricing of the order', async () => {
    const customer = openCustomer(service, 1, (candidate) => !candidate.tax_exempt)
    const lines = orderableItems(service, first.guid, 'Wholesale')
      .filter((row) => row.qty_break === 0)
      .slice(0, 3)
    const reply = await post(
      service,
      '/v1/orderWithItems',
      orderBody(
        first,
        lines.map((row) => ({ item: row, qty: 2 })),
        {},
        'Wholesale',
      ),
      { headers: { vendorGuid: customer.guid } },
    )
    const order = reply.json.order
    expect(order.Price_Group.value).toBe('Wholesale')
    const expected = lines.reduce((sum, row) => sum + Math.round(row.pricing.Wholesale * 2 * 100) / 100, 0)
    expect(order.sub_total).toBeCloseTo(expected, 2)
    for (const [index, line] of (order.Order_Items as Json[]).entries()) {
      expect(line.list_price_frozen).toBe(lines[index]?.pricing.Wholesale)
      expect(line.total).toBeCloseTo(line.net_price * line.qty, 2)
    }
    const taxable = (order.Order_Items as Json[])
      .filter((line) => line.Catalog_Item.is_taxable)
      .reduce((sum, line) => sum + line.total, 0)
    expect(order.tax).toBeCloseTo(taxable * 0.0825, 1)
    expect(order.grand_total).toBeCloseTo(
      order.sub_total + order.tax + order.shipping + order.labor + order.other - order.discount_total,
      2,
    )
  })

  it('a quantity at or above qty_break is priced at qty_break_price', async () => {
    const customer = openCustomer(service)
    const row = orderableItems(service, first.guid, 'Retail', 60).find(
      (candidate) => candidate.qty_break > 0 && candidate.qty_break_price < candidate.pricing.Retail,
    )
    expect(row).toBeDefined()
    const reply = await post(service, '/v1/orderWithItems', orderBody(first, [{ item: row, qty: row.qty_break }]), {
      headers: { vendorGuid: customer.guid },
    })
    expect(reply.json.order.Order_Items[0].net_price).toBe(row.qty_break_price)
  })

  it('orderWithItems is idempotent on order.api_guid', async () => {
    const customer = openCustomer(service)
    const [a] = orderableItems(service, first.guid)
    const body = orderBody(first, [{ item: a, qty: 1 }])
    const firstReply = await post(service, '/v1/orderWithItems', body, { headers: { vendorGuid: customer.guid } })
    const reserved = item(a.guid).reserved_qty_on_hand
    const retry = await post(service, '/v1/orderWithItems', body, { headers: { vendorGuid: customer.guid } })
    expect(retry.status).toBe(200)
    expect(retry.json.order.guid).toBe(firstReply.json.order.guid)
    for (const key of ['vendor', 'billTo', 'shipTo', 'contact', 'note'])
      expect(retry.json[key], key).toEqual(firstReply.json[key])
    expect(service.control.ordersByApiGuid(body.order.api_guid)).toHaveLength(1)
    expect(item(a.guid).reserved_qty_on_hand).toBe(reserved)
  })

  it('a retry answers with the existing order even when validation would now fail', async () => {
    const customer = openCustomer(service)
    const [a] = orderableItems(service, first.guid).slice(5)
    const body = orderBody(first, [{ item: a, qty: 1 }])
    const created = await post(service, '/v1/orderWithItems', body, { headers: { vendorGuid: customer.guid } })
    service.control.deactivate('catalogItem', a.guid)
    const retry = await post(service, '/v1/orderWithItems', body, { headers: { vendorGuid: customer.guid } })
    expect(retry.status).toBe(200)
    expect(retry.json.order.guid).toBe(created.json.order.guid)
  })

  it('newVendor creates the customer with the order, with billTo, shipTo, contact and note references', async () => {
    const [a] = orderableItems(service, first.guid)
    const body = orderBody(first, [{ item: a, qty: 1 }], {
      newVendor: { name: 'Sprout & Stone Bakery', email: 'orders@sproutandstone.example', phone: '(541) 555-0142' },
      newVendorShipTo: {
        name: 'Back door',
        address_line_one: '9 Mill Rd',
        city: 'Bend',
        state: 'OR',
        postal_code: '97701',
        country: 'US',
      },
      newVendorContact: { name: 'Rosa Brennan', email: 'rosa@sproutandstone.example' },
      newVendorNote: 'Opens at 5am.',
    })
    const reply = await post(service, '/v1/orderWithItems', body)
    expect(reply.status).toBe(200)
    const vendor = reply.json.vendor
    expect(vendor.name).toBe('Sprout & Stone Bakery')
    expect(reply.json.order.vendor_id).toBe(vendor.id)
    expect(reply.json.shipTo).toEqual({ id: vendor.Ship_To.id, guid: vendor.Ship_To.guid })
    expect(reply.json.billTo).toEqual({ id: vendor.Bill_To.id, guid: vendor.Bill_To.guid })
    expect(reply.json.contact.guid).toMatch(UUID)
    expect(reply.json.note.guid).toMatch(UUID)
    expect(vendor.Ship_To.address_line_one).toBe('9 Mill Rd')
    expect(reply.json.order.Ship_To.address_line_one).toBe('9 Mill Rd')
  })

  it('a customer created in the field with the order exists once even when retried', async () => {
    const [a] = orderableItems(service, first.guid)
    const newVendor = { name: 'Quarry Lane Deli', email: 'buyer@quarrylane.example' }
    const body = orderBody(first, [{ item: a, qty: 1 }], {
      newVendor,
      newVendorContact: { name: 'Sam Costa' },
      newVendorNote: 'Cash on delivery',
    })
    const created = await post(service, '/v1/orderWithItems', body)
    const retry = await post(service, '/v1/orderWithItems', body)
    expect(retry.json.vendor.guid).toBe(created.json.vendor.guid)
    for (const key of ['billTo', 'shipTo', 'contact', 'note']) expect(retry.json[key], key).toEqual(created.json[key])
    // A second order (new api_guid) for the same email reuses the customer too.
    const another = await post(service, '/v1/orderWithItems', {
      ...body,
      order: { ...body.order, api_guid: apiGuid() },
    })
    expect(another.json.vendor.guid).toBe(created.json.vendor.guid)
    expect(another.json.order.guid).not.toBe(created.json.order.guid)
    expect(another.json.contact).toEqual(created.json.contact)
    expect(
      (service.control.customers() as Json[]).filter((customer) => customer.email === newVendor.email),
    ).toHaveLength(1)
  })

  it('without a customer context or newVendor, or with newVendor lacking a name, it gives ReconcileErrors', async () => {
    const [a] = orderableItems(service, first.guid)
    const missing = await expectReconcileError(orderBody(first, [{ item: a, qty: 1 }]), {}, 'INVALID_REQUEST')
    expect(missing.errors[0].field).toBe('vendorGuid')
    const unnamed = await expectReconcileError(
      orderBody(first, [{ item: a, qty: 1 }], { newVendor: { email: 'x@nameless.example' } }),
      {},
      'INVALID_REQUEST',
    )
    expect(unnamed.errors[0].field).toBe('newVendor.name')
  })

  it('an inactive customer gives VENDOR_INACTIVE before any write', async () => {
    const inactive = (service.control.customers() as Json[]).find(
      (customer) => !customer.active && customer.lock_catalog_id === 0,
    )
    const [a] = orderableItems(service, first.guid)
    await expectReconcileError(
      orderBody(first, [{ item: a, qty: 1 }]),
      { vendorGuid: inactive.guid },
      'VENDOR_INACTIVE',
    )
  })

  it('an inaccessible customer gives VENDOR_NOT_ACCESSIBLE before any write', async () => {
    const [a] = orderableItems(service, first.guid)
    await expectReconcileError(
      orderBody(first, [{ item: a, qty: 1 }]),
      { vendorGuid: '00000000-0000-4000-8000-000000000000' },
      'VENDOR_NOT_ACCESSIBLE',
    )
    const locked = (service.control.customers() as Json[]).find(
      (customer) => customer.lock_catalog_id === second.id && customer.active,
    )
    await expectReconcileError(
      orderBody(first, [{ item: a, qty: 1 }]),
      { vendorGuid: locked.guid },
      'VENDOR_NOT_ACCESSIBLE',
    )
  })

  it('an inactive item gives ITEM_INACTIVE; an unknown or deleted one ITEM_NOT_FOUND', async () => {
    const customer = openCustomer(service)
    const inactive = (service.control.catalogItems(first.guid) as Json[]).find(
      (row) => !row.active && row.deleted_at === null,
    )
    const result = await expectReconcileError(
      orderBody(first, [{ item: inactive, qty: 1 }]),
      { vendorGuid: customer.guid },
      'ITEM_INACTIVE',
    )
    expect(result.errors[0]).toMatchObject({
      line: 0,
      catalog_item_guid: inactive.guid,
      catalog_item_id: inactive.id,
      sku: inactive.sku,
    })
    const deleted = orderableItems(service, first.guid)[9]
    service.control.softDelete('catalogItem', deleted.guid)
    await expectReconcileError(
      orderBody(first, [{ item: deleted, qty: 1 }]),
      { vendorGuid: customer.guid },
      'ITEM_NOT_FOUND',
    )
    await expectReconcileError(
      orderBody(first, [{ item: { guid: '00000000-0000-4000-8000-000000000000' }, qty: 1 }]),
      { vendorGuid: customer.guid },
      'ITEM_NOT_FOUND',
    )
  })

  it('short inventory gives INSUFFICIENT_INVENTORY with qty_requested and qty_available', async () => {
    const customer = openCustomer(service)
    const short = (service.control.catalogItems(first.guid) as Json[]).find(
      (row) =>
        row.active &&
        row.deleted_at === null &&
        row.has_inventory &&
        !row.allow_backorder &&
        typeof row.pricing.Retail === 'number' &&
        row.qty_on_hand - row.reserved_qty_on_hand < 5,
    )
    const available = short.qty_on_hand - short.reserved_qty_on_hand
    const result = await expectReconcileError(
      orderBody(first, [{ item: short, qty: available + 1 }]),
      { vendorGuid: customer.guid },
      'INSUFFICIENT_INVENTORY',
    )
    expect(result.errors[0]).toMatchObject({
      line: 0,
      qty_requested: available + 1,
      qty_available: available,
      sku: short.sku,
    })
  })

  it('allow_backorder items may be ordered beyond what is on hand', async () => {
    const customer = openCustomer(service)
    const backorderable = (service.control.catalogItems(first.guid) as Json[]).find(
      (row) =>
        row.active &&
        row.deleted_at === null &&
        row.has_inventory &&
        row.allow_backorder &&
        typeof row.pricing.Retail === 'number',
    )
    const reply = await post(
      service,
      '/v1/orderWithItems',
      orderBody(first, [{ item: backorderable, qty: backorderable.qty_on_hand + 10 }]),
      { headers: { vendorGuid: customer.guid } },
    )
    expect(reply.status).toBe(200)
  })

  it("an item priced 'N/A' for the order's price group gives ITEM_NOT_OFFERED", async () => {
    const customer = openCustomer(service)
    const notOffered = (service.control.catalogItems(first.guid) as Json[]).find(
      (row) => row.active && row.deleted_at === null && row.pricing.Distributor === 'N/A',
    )
    await expectReconcileError(
      orderBody(first, [{ item: notOffered, qty: 1 }], {}, 'Distributor'),
      { vendorGuid: customer.guid },
      'ITEM_NOT_OFFERED',
    )
  })

  it('every failing line is reported with its index', async () => {
    const customer = openCustomer(service)
    const [good] = orderableItems(service, first.guid)
    const inactive = (service.control.catalogItems(first.guid) as Json[]).find(
      (row) => !row.active && row.deleted_at === null,
    )
    const result = await expectReconcileError(
      orderBody(first, [
        { item: good, qty: 1 },
        { item: inactive, qty: 1 },
        { item: { guid: '00000000-0000-4000-8000-000000000001' }, qty: 1 },
      ]),
      { vendorGuid: customer.guid },
      'ITEM_INACTIVE',
    )
    expect((result.errors as Json[]).map((error) => [error.line, error.type])).toEqual([
      [1, 'ITEM_INACTIVE'],
      [2, 'ITEM_NOT_FOUND'],
    ])
  })

  it('remainInPreliminary=true keeps the order in PRELIMINARY without reserving', async () => {
    const customer = openCustomer(service)
    const [a] = orderableItems(service, first.guid).filter((row) => row.has_inventory)
    const before = item(a.guid).reserved_qty_on_hand
    const reply = await post(
      service,
      '/v1/orderWithItems',
      orderBody(first, [{ item: a, qty: 2 }], { remainInPreliminary: true }),
      { headers: { vendorGuid: customer.guid } },
    )
    expect(reply.json.order.order_state_id).toBe(1)
    expect(reply.json.order.Order_State.name).toBe('PRELIMINARY')
    expect(item(a.guid).reserved_qty_on_hand).toBe(before)
  })

  it('remainInPreliminary omitted follows the supplier setting; false overrides it', async () => {
    const customer = openCustomer(service)
    const [a] = orderableItems(service, first.guid)
    service.control.setSupplierSetting('remainInPreliminary', true)
    try {
      const omitted = await post(service, '/v1/orderWithItems', orderBody(first, [{ item: a, qty: 1 }]), {
        headers: { vendorGuid: customer.guid },
      })
      expect(omitted.json.order.order_state_id).toBe(1)
      const explicit = await post(
        service,
        '/v1/orderWithItems',
        orderBody(first, [{ item: a, qty: 1 }], { remainInPreliminary: false }),
        { headers: { vendorGuid: customer.guid } },
      )
      expect(explicit.json.order.order_state_id).toBe(2)
    } finally {
      service.control.setSupplierSetting('remainInPreliminary', false)
    }
  })

  it('source accepts a name or an id (OTHER = 20, APP = 21)', async () => {
    const customer = openCustomer(service)
    const [a] = orderableItems(service, first.guid)
    const cases: [unknown, number][] = [
      ['APP', 21],
      ['other', 20],
      [21, 21],
      ['20', 20],
      [undefined, 20],
    ]
    for (const [source, id] of cases) {
      const reply = await post(
        service,
        '/v1/orderWithItems',
        orderBody(first, [{ item: a, qty: 1 }], source === undefined ? {} : { source }),
        { headers: { vendorGuid: customer.guid } },
      )
      expect(reply.json.order.order_source_id, String(source)).toBe(id)
    }
    const unknown = await post(
      service,
      '/v1/orderWithItems',
      orderBody(first, [{ item: a, qty: 1 }], { source: 'CARRIER_PIGEON' }),
      { headers: { vendorGuid: customer.guid } },
    )
    expect(unknown.status).toBe(400)
    expect(unknown.json.errors[0].field).toBe('source')
  })

  it('orderDetails, shipTo and utm are stored on the order', async () => {
    const customer = openCustomer(service)
    const [a] = orderableItems(service, first.guid)
    const reply = await post(
      service,
      '/v1/orderWithItems',
      orderBody(first, [{ item: a, qty: 1 }], {
        orderDetails: { dock: 'B' },
        shipTo: { address_line_one: '1 Event Hall Way' },
        utm: { utm_source: 'tradeshow' },
      }),
      { headers: { vendorGuid: customer.guid } },
    )
    expect(reply.json.order.Order_Detail).toEqual({ dock: 'B' })
    expect(reply.json.order.Ship_To.address_line_one).toBe('1 Event Hall Way')
    expect(reply.json.order.Ship_To.city).toBe(customer.Ship_To.city)
    expect(reply.json.order.utm).toEqual({ utm_source: 'tradeshow' })
  })

  it('a customer user orders for its own customer', async () => {
    const [a] = orderableItems(service, first.guid)
    const reply = await post(service, '/v1/orderWithItems', orderBody(first, [{ item: a, qty: 1 }]), { as: 'customer' })
    expect(reply.status).toBe(200)
    expect(reply.json.vendor.guid).toBe(service.credentials.customerUser?.vendorGuid)
  })
})

describe('POST /v2/order', () => {
  it('creates and submits an order for the body vendorGuid, answering { order }', async () => {
    const customer = openCustomer(service)
    const [a] = orderableItems(service, first.guid)
    const body = {
      ...orderBody(first, [{ item: a, qty: 1 }]),
      vendorGuid: customer.guid,
      client: { name: 'Riverside Events LLC' },
    }
    const reply = await post(service, '/v2/order', body)
    expect(reply.status).toBe(200)
    expect(Object.keys(reply.json)).toEqual(['order'])
    expect(reply.json.order.order_state_id).toBe(2)
    expect(reply.json.order.vendor_id).toBe(customer.id)
    expect(reply.json.order.Client.name).toBe('Riverside Events LLC')
    expect(reply.json.order.User.guid).not.toBe(service.credentials.userGuid)
  })

  it('remainInPreliminary=true keeps a /v2/order order in PRELIMINARY; the supplier setting does not apply', async () => {
    const customer = openCustomer(service)
    const [a] = orderableItems(service, first.guid)
    const stays = await post(service, '/v2/order', {
      ...orderBody(first, [{ item: a, qty: 1 }], { remainInPreliminary: true }),
      vendorGuid: customer.guid,
    })
    expect(stays.json.order.order_state_id).toBe(1)
    service.control.setSupplierSetting('remainInPreliminary', true)
    try {
      const submitted = await post(service, '/v2/order', {
        ...orderBody(first, [{ item: a, qty: 1 }]),
        vendorGuid: customer.guid,
      })
      expect(submitted.json.order.order_state_id).toBe(2)
    } finally {
      service.control.setSupplierSetting('remainInPreliminary', false)
    }
  })

  it('POST /v2/order is idempotent on order.api_guid', async () => {
    const customer = openCustomer(service)
    const [a] = orderableItems(service, first.guid)
    const body = { ...orderBody(first, [{ item: a, qty: 1 }]), vendorGuid: customer.guid }
    const created = await post(service, '/v2/order', body)
    const retry = await post(service, '/v2/order', body)
    expect(retry.json.order.guid).toBe(created.json.order.guid)
    expect(service.control.ordersByApiGuid(body.order.api_guid)).toHaveLength(1)
  })

  it('POST /v2/order validates required fields and references (400)', async () => {
    const customer = openCustomer(service)
    const [a] = orderableItems(service, first.guid)
    const noItems = await post(service, '/v2/order', { ...orderBody(first, []), vendorGuid: customer.guid })
    expect(noItems.status).toBe(400)
    const wrongGroup = await post(service, '/v2/order', {
      ...orderBody(first, [{ item: a, qty: 1 }]),
      priceGroupGuid: priceGroup(second).guid,
      vendorGuid: customer.guid,
    })
    expect(wrongGroup.status).toBe(400)
    expect(wrongGroup.json.errors[0].field).toBe('priceGroupGuid')
  })
})

describe('POST /v1/order', () => {
  it('creates an empty PRELIMINARY header for the vendorGuid customer', async () => {
    const customer = openCustomer(service)
    const key = apiGuid()
    const reply = await post(
      service,
      '/v1/order',
      { api_guid: key, po_no: 'PO-HEADER', is_quote: true, shipping: 12.5, tags: [3] },
      { as: 'session', headers: { vendorGuid: customer.guid } },
    )
    expect(reply.status).toBe(200)
    const order = reply.json.order
    expect(order.order_state_id).toBe(1)
    expect(order.Order_Items).toEqual([])
    expect(order.vendor_id).toBe(customer.id)
    expect(order.po_no).toBe('PO-HEADER')
    expect(order.is_quote).toBe(true)
    expect(order.shipping).toBe(12.5)
    expect(order.grand_total).toBe(12.5)
    const retry = await post(
      service,
      '/v1/order',
      { api_guid: key },
      { as: 'session', headers: { vendorGuid: customer.guid } },
    )
    expect(retry.json.order.guid).toBe(order.guid)
    expect((await get(service, `/v1/orders/${order.guid}`)).json.order.order_state_id).toBe(1)
  })

  it('without the vendorGuid header it gives a plain-text 400', async () => {
    const reply = await post(service, '/v1/order', {}, { as: 'session' })
    expect(reply.status).toBe(400)
    expect(reply.headers.get('content-type')).toMatch(/^text\/plain/)
  })
})
