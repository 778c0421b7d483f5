import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startService } from './index'
import type { RunningService } from './types'
import {
  catalogs,
  get,
  ISO_TIMESTAMP,
  openCustomer,
  orderableItems,
  orderBody,
  post,
  put,
  UUID,
  type Json,
} from './helpers'

let service: RunningService
let first: Json

beforeAll(async () => {
  service = await startService({ size: 'tiny', seed: 19 })
  ;({ first } = catalogs(service))
})
afterAll(async () => {
  await service.close()
})

function orders(): Json[] {
  return service.control.orders() as Json[]
}

function item(guid: string): Json {
  return service.control.catalogItems(first.guid).find((row) => row.guid === guid)
}

/** A PRELIMINARY order for one item, left waiting for submit. */
async function preliminary(row: Json, qty: number, customer = openCustomer(service)): Promise<Json> {
  const reply = await post(
    service,
    '/v1/orderWithItems',
    orderBody(first, [{ item: row, qty }], { remainInPreliminary: true }),
    { headers: { vendorGuid: customer.guid } },
  )
  expect(reply.status).toBe(200)
  return reply.json.order
}

/** An inventory-tracked item with `available` units left to reserve. */
function stockedItem(index: number, available: number): Json {
  const row = orderableItems(service, first.guid, 'Retail', 30).filter(
    (candidate) => candidate.has_inventory && candidate.qty_held_for_backorders === 0,
  )[index]
  service.control.update('catalogItem', row.guid, { qty_on_hand: row.reserved_qty_on_hand + available })
  return item(row.guid)
}

describe('order history', () => {
  it('the history has orders in states 1, 2, 8, 9 and 23 with Order_State { id, guid, name }', async () => {
    const reply = await get(service, '/v1/orders?limit=100')
    const states = new Map<number, Json>()
    for (const order of reply.json.orders as Json[]) states.set(order.order_state_id, order.Order_State)
    expect([...states.keys()].sort((a, b) => a - b)).toEqual([1, 2, 8, 9, 23])
    expect(states.get(8)).toEqual({ id: 8, guid: expect.stringMatching(UUID), name: 'SHIPPED' })
    expect(states.get(9)?.name).toBe('COMPLETED')
    expect(states.get(23)?.name).toBe('CANCELLED')
  })
})

describe('GET /v1/orders', () => {
  it('lists the reduced projection, newest first, with { orders, total, hasMoreItems, serverTimestamp }', async () => {
    const reply = await get(service, '/v1/orders?limit=100')
    expect(reply.status).toBe(200)
    expect(Object.keys(reply.json).sort()).toEqual(['hasMoreItems', 'orders', 'serverTimestamp', 'total'])
    const rows = reply.json.orders as Json[]
    expect(reply.json.total).toBe(rows.length)
    const created = rows.map((row) => row.created_at as string)
    expect(created).toEqual([...created].sort().reverse())
    const [row] = rows
    for (const key of [
      'id',
      'guid',
      'name',
      'api_guid',
      'order_state_id',
      'vendor_id',
      'sub_total',
      'grand_total',
      'created_at',
      'updated_at',
    ])
      expect(row).toHaveProperty(key)
    for (const relation of ['Vendor', 'Catalog', 'User', 'Supplier'])
      expect(Object.keys(row[relation]).sort(), relation).toEqual(['guid', 'id', 'name'])
    for (const line of row.Order_Items as Json[]) {
      expect(line).toMatchObject({
        id: expect.any(Number),
        item_no: expect.any(Number),
        qty: expect.any(Number),
        note: expect.any(String),
      })
      expect(Object.keys(line.Catalog_Item).sort()).toEqual(['id', 'name', 'sku'])
    }
  })

  it('pages with limit and offset and narrows to a customer with vendorGuid', async () => {
    const all = (await get(service, '/v1/orders?limit=100')).json.orders as Json[]
    const second = (await get(service, '/v1/orders?limit=5&offset=1')).json.orders as Json[]
    expect(second.map((row) => row.guid)).toEqual(all.slice(5, 10).map((row) => row.guid))
    const vendorId = all[0].vendor_id
    const customer = service.control.customers().find((row) => row.id === vendorId) as Json
    const mine = (await get(service, `/v1/orders?limit=100&vendorGuid=${customer.guid}`)).json.orders as Json[]
    expect(mine.length).toBeGreaterThan(0)
    for (const row of mine) expect(row.vendor_id).toBe(vendorId)
  })

  it('lastUpdatedAt returns orders changed since the cursor', async () => {
    const cursor = (await get(service, '/v1/orders?limit=1')).json.serverTimestamp as string
    const changed = orders().find((order) => order.order_state_id === 2)
    await put(service, `/v1/orders/${changed.guid}`, { note: 'call first' }, { as: 'session' })
    const delta = await get(service, `/v1/orders?lastUpdatedAt=${encodeURIComponent(cursor)}`)
    expect((delta.json.orders as Json[]).map((row) => row.guid)).toEqual([changed.guid])
  })

  it('customer users see only their own orders', async () => {
    const vendorGuid = service.credentials.customerUser?.vendorGuid
    const own = service.control.customers().find((row) => row.guid === vendorGuid) as Json
    const listed = (await get(service, '/v1/orders?limit=100', { as: 'customer' })).json.orders as Json[]
    expect(listed.length).toBeGreaterThan(0)
    for (const row of listed) expect(row.vendor_id).toBe(own.id)
    const filtered = (await get(service, '/v1/orders/list?limit=100', { as: 'customer' })).json.orders as Json[]
    for (const row of filtered) expect(row.vendor_id).toBe(own.id)
    const foreign = orders().find((order) => order.vendor_id !== own.id)
    expect((await get(service, `/v1/orders/${foreign.guid}`, { as: 'customer' })).status).toBe(403)
  })
})

describe('GET /v1/orders/list', () => {
  it('filters by order_state_id, search, vendorGuid and dates, and sorts', async () => {
    const shipped = (await get(service, '/v1/orders/list?order_state_id=8,9&limit=100')).json
    expect(shipped.resource).toBe('orders')
    expect(shipped.serverTimestamp).toMatch(ISO_TIMESTAMP)
    expect(shipped.orders.length).toBeGreaterThan(0)
    for (const row of shipped.orders as Json[]) expect([8, 9]).toContain(row.order_state_id)
    const target = orders()[3]
    const bySearch = (await get(service, `/v1/orders/list?search=${encodeURIComponent(target.name)}`)).json
      .orders as Json[]
    expect(bySearch.map((row) => row.guid)).toContain(target.guid)
    const day = (target.created_at as string).slice(0, 10)
    const byDate = (await get(service, `/v1/orders/list?dateFrom=${day}&dateTo=${day}&limit=100`)).json.orders as Json[]
    expect(byDate.map((row) => row.guid)).toContain(target.guid)
    for (const row of byDate) expect((row.created_at as string).slice(0, 10)).toBe(day)
    const byTotal = (
      (await get(service, '/v1/orders/list?sortBy=grand_total&sortDir=asc&limit=100')).json.orders as Json[]
    ).map((row) => row.grand_total as number)
    expect(byTotal).toEqual([...byTotal].sort((a, b) => a - b))
    expect((await get(service, '/v1/orders/list?sortBy=secret')).status).toBe(400)
    expect((await get(service, '/v1/orders/list?dateFrom=yesterday')).status).toBe(400)
  })
})

describe('GET /v1/orders/{orderGuid}', () => {
  it('returns the full order and relatedOrders (parent and backorders)', async () => {
    const child = orders().find((order) => order.parent_order_id !== null)
    expect(child).toBeDefined()
    const parent = orders().find((order) => order.id === child.parent_order_id)
    const ofParent = await get(service, `/v1/orders/${parent.guid}`)
    expect(ofParent.status).toBe(200)
    expect((ofParent.json.relatedOrders as Json[]).map((order) => order.guid)).toContain(child.guid)
    const ofChild = await get(service, `/v1/orders/${child.guid}`, { as: 'session' })
    expect(ofChild.json.order.Parent_Order).toEqual({ id: parent.id, guid: parent.guid, name: parent.name })
    expect((ofChild.json.relatedOrders as Json[]).map((order) => order.guid)).toContain(parent.guid)
    const order = ofParent.json.order
    for (const relation of [
      'Order_Items',
      'Ship_To',
      'Vendor',
      'Catalog',
      'Price_Group',
      'Order_State',
      'User',
      'Supplier',
      'Order_State_Logs',
      'Assigned_Users',
    ])
      expect(order, relation).toHaveProperty(relation)
    expect(order.Order_Items[0].Catalog_Item.sku).toBe(order.Order_Items[0].sku)
    expect(order.Order_State_Logs[0]).toMatchObject({
      created_at: expect.stringMatching(ISO_TIMESTAMP),
      Order_State: { id: 1 },
    })
  })

  it('gives 404 for an unknown order and 400 for a malformed GUID', async () => {
    expect((await get(service, '/v1/orders/00000000-0000-4000-8000-000000000000')).status).toBe(404)
    expect((await get(service, '/v1/orders/nope')).status).toBe(400)
  })
})

describe('PUT /v1/orders/{orderGuid}', () => {
  it('updates only the fields sent and answers the full order, unwrapped', async () => {
    const order = orders().find((candidate) => candidate.order_state_id === 2)
    const reply = await put(
      service,
      `/v1/orders/${order.guid}`,
      {
        po_no: 'PO-CHANGED',
        shipping: 30,
        is_on_hold: true,
        Ship_To: { address_line_two: 'Dock 4' },
        details: { gate: 'north' },
      },
      { as: 'session' },
    )
    expect(reply.status).toBe(200)
    expect(reply.json.guid).toBe(order.guid)
    expect(reply.json.po_no).toBe('PO-CHANGED')
    expect(reply.json.note).toBe(order.note)
    expect(reply.json.is_on_hold).toBe(true)
    expect(reply.json.Ship_To.address_line_two).toBe('Dock 4')
    expect(reply.json.Ship_To.address_line_one).toBe(order.Ship_To.address_line_one)
    expect(reply.json.Order_Detail).toMatchObject({ gate: 'north' })
    expect(reply.json.grand_total).toBeCloseTo(
      reply.json.sub_total + reply.json.tax + 30 + reply.json.labor + reply.json.other - reply.json.discount_total,
      2,
    )
    expect(Date.parse(reply.json.updated_at)).toBeGreaterThan(Date.parse(order.updated_at))
  })

  it('is rejected with 403 when the workflow step is read-only for the user type (SHIPPED, COMPLETED, CANCELLED)', async () => {
    for (const state of [8, 9, 23]) {
      const order = orders().find((candidate) => candidate.order_state_id === state)
      const reply = await put(service, `/v1/orders/${order.guid}`, { note: 'too late' }, { as: 'session' })
      expect(reply.status, String(state)).toBe(403)
      expect(reply.json.code).toBe('ORDER_READ_ONLY')
    }
  })

  it('customer users may edit only PRELIMINARY orders of their own', async () => {
    const [row] = orderableItems(service, first.guid)
    const vendorGuid = service.credentials.customerUser?.vendorGuid
    const own = service.control.customers().find((candidate) => candidate.guid === vendorGuid) as Json
    const draft = await preliminary(row, 1, own)
    expect((await put(service, `/v1/orders/${draft.guid}`, { note: 'mine' }, { as: 'customer' })).status).toBe(200)
    const submitted = await post(service, '/v1/orderWithItems', orderBody(first, [{ item: row, qty: 1 }]), {
      as: 'customer',
    })
    const reply = await put(service, `/v1/orders/${submitted.json.order.guid}`, { note: 'mine' }, { as: 'customer' })
    expect(reply.status).toBe(403)
    expect(reply.json.code).toBe('ORDER_READ_ONLY')
  })

  it('is_cancelled=true cancels the order and releases its reservation', async () => {
    const row = stockedItem(0, 10)
    const draft = await preliminary(row, 4)
    await post(service, '/v1/order/submit', { orderGuid: draft.guid }, { as: 'session' })
    expect(item(row.guid).reserved_qty_on_hand).toBe(row.reserved_qty_on_hand + 4)
    const reply = await put(service, `/v1/orders/${draft.guid}`, { is_cancelled: true }, { as: 'session' })
    expect(reply.json.order_state_id).toBe(23)
    expect(reply.json.is_cancelled).toBe(true)
    expect(item(row.guid).reserved_qty_on_hand).toBe(row.reserved_qty_on_hand)
  })

  it('rejects wrongly typed fields with 400', async () => {
    const order = orders().find((candidate) => candidate.order_state_id === 1)
    expect((await put(service, `/v1/orders/${order.guid}`, { shipping: 'lots' }, { as: 'session' })).status).toBe(400)
    expect(
      (await put(service, `/v1/orders/${order.guid}`, { approve_decline: 'MAYBE' }, { as: 'session' })).status,
    ).toBe(400)
  })
})

describe('POST /v1/order/submit', () => {
  it('moves PRELIMINARY → SUBMITTED, reserves inventory and reports autoFulfilledItems', async () => {
    const row = stockedItem(1, 10)
    const draft = await preliminary(row, 3)
    expect(item(row.guid).reserved_qty_on_hand).toBe(row.reserved_qty_on_hand)
    const reply = await post(service, '/v1/order/submit', { orderGuid: draft.guid }, { as: 'session' })
    expect(reply.status).toBe(200)
    expect(reply.json.order.order_state_id).toBe(2)
    expect(reply.json.autoFulfilledItems).toEqual([
      {
        orderItemId: draft.Order_Items[0].id,
        catalogItemName: row.name,
        catalogItemSku: row.sku,
        qtyFulfilled: 3,
        qtyFromHeld: 0,
        qtyFromOnHand: 3,
      },
    ])
    expect(item(row.guid).reserved_qty_on_hand).toBe(row.reserved_qty_on_hand + 3)
    expect(Date.parse(item(row.guid).updated_at)).toBeGreaterThan(Date.parse(row.updated_at))
  })

  it('allowPartialFulfillment=true reserves what is available and creates a backorder for the rest', async () => {
    const row = stockedItem(2, 30)
    const draft = await preliminary(row, 5)
    service.control.update('catalogItem', row.guid, { qty_on_hand: row.reserved_qty_on_hand + 2 })
    const reply = await post(
      service,
      '/v1/order/submit',
      { orderGuid: draft.guid, allowPartialFulfillment: true },
      { as: 'session' },
    )
    expect(reply.json.autoFulfilledItems[0]).toMatchObject({ qtyFulfilled: 2, qtyFromOnHand: 2 })
    expect(reply.json.order.Order_Items[0]).toMatchObject({
      qty: 2,
      qty_reserved: 2,
      qty_backordered: 3,
      is_backordered: true,
    })
    const related = (await get(service, `/v1/orders/${draft.guid}`)).json.relatedOrders as Json[]
    expect(related).toHaveLength(1)
    expect(related[0].parent_order_id).toBe(draft.id)
    expect(related[0].Order_Items[0]).toMatchObject({ catalog_item_guid: row.guid, qty: 3 })
    expect(item(row.guid).qty_backordered).toBe(row.qty_backordered + 3)
  })

  it('allowPartialFulfillment=false backorders the whole order when anything is short', async () => {
    const plenty = stockedItem(3, 30)
    const scarce = stockedItem(4, 30)
    const reply0 = await post(
      service,
      '/v1/orderWithItems',
      orderBody(
        first,
        [
          { item: plenty, qty: 2 },
          { item: scarce, qty: 5 },
        ],
        { remainInPreliminary: true },
      ),
      { headers: { vendorGuid: openCustomer(service).guid } },
    )
    service.control.update('catalogItem', scarce.guid, { qty_on_hand: scarce.reserved_qty_on_hand + 1 })
    const reply = await post(
      service,
      '/v1/order/submit',
      { orderGuid: reply0.json.order.guid, allowPartialFulfillment: false },
      { as: 'session' },
    )
    expect(reply.json.autoFulfilledItems).toEqual([])
    for (const line of reply.json.order.Order_Items as Json[])
      expect(line).toMatchObject({ is_backordered: true, qty_reserved: 0, qty_backordered: line.qty })
    expect(item(plenty.guid).reserved_qty_on_hand).toBe(plenty.reserved_qty_on_hand)
  })

  it('allowPartialFulfillment omitted allocates what is available without creating a backorder', async () => {
    const row = stockedItem(5, 30)
    const draft = await preliminary(row, 6)
    service.control.update('catalogItem', row.guid, { qty_on_hand: row.reserved_qty_on_hand + 4 })
    const reply = await post(service, '/v1/order/submit', { orderGuid: draft.guid }, { as: 'session' })
    expect(reply.json.order.Order_Items[0]).toMatchObject({
      qty: 6,
      qty_reserved: 4,
      qty_pending: 2,
      is_backordered: false,
    })
    expect((await get(service, `/v1/orders/${draft.guid}`)).json.relatedOrders).toEqual([])
  })

  it('order_state_id moves the order to that state; the next step follows the workflow', async () => {
    const row = stockedItem(6, 30)
    const draft = await preliminary(row, 1)
    const shipped = await post(
      service,
      '/v1/order/submit',
      { orderGuid: draft.guid, order_state_id: 8 },
      { as: 'session' },
    )
    expect(shipped.json.order.order_state_id).toBe(8)
    expect(shipped.json.order.is_shipped).toBe(true)
    expect(shipped.json.order.Order_Items[0].qty_shipped).toBe(1)
    expect(item(row.guid).qty_on_hand).toBe(row.qty_on_hand - 1)
    const completed = await post(service, '/v1/order/submit', { orderGuid: draft.guid }, { as: 'session' })
    expect(completed.json.order.order_state_id).toBe(9)
    expect((completed.json.order.Order_State_Logs as Json[]).map((log) => log.Order_State.id)).toEqual([1, 8, 9])
  })

  it('COMPLETED and CANCELLED orders cannot move (400); unknown orders give 404', async () => {
    for (const state of [9, 23]) {
      const order = orders().find((candidate) => candidate.order_state_id === state)
      const reply = await post(service, '/v1/order/submit', { orderGuid: order.guid }, { as: 'session' })
      expect(reply.status).toBe(400)
      expect(reply.json.code).toBe('INVALID_TRANSITION')
    }
    expect(
      (
        await post(
          service,
          '/v1/order/submit',
          { orderGuid: '00000000-0000-4000-8000-000000000000' },
          { as: 'session' },
        )
      ).status,
    ).toBe(404)
    const draft = orders().find((candidate) => candidate.order_state_id === 1)
    expect(
      (await post(service, '/v1/order/submit', { orderGuid: draft.guid, order_state_id: 77 }, { as: 'session' })).json
        .code,
    ).toBe('UNKNOWN_ORDER_STATE')
  })

  it('a backorder takes stock held for backorders first (qtyFromHeld)', async () => {
    const row = stockedItem(7, 30)
    const draft = await preliminary(row, 5)
    service.control.update('catalogItem', row.guid, { qty_on_hand: row.reserved_qty_on_hand + 2 })
    await post(service, '/v1/order/submit', { orderGuid: draft.guid, allowPartialFulfillment: true }, { as: 'session' })
    const [backorder] = (await get(service, `/v1/orders/${draft.guid}`)).json.relatedOrders as Json[]
    service.control.update('catalogItem', row.guid, {
      qty_held_for_backorders: 2,
      qty_on_hand: item(row.guid).reserved_qty_on_hand + 5,
    })
    const reply = await post(service, '/v1/order/submit', { orderGuid: backorder.guid }, { as: 'session' })
    expect(reply.json.autoFulfilledItems[0]).toMatchObject({ qtyFulfilled: 3, qtyFromHeld: 2, qtyFromOnHand: 1 })
    expect(item(row.guid).qty_held_for_backorders).toBe(0)
  })
})

describe('fulfilment after Send (control.fulfilOrder)', () => {
  it('the seeded history has an order on hold and a partially shipped one', () => {
    const all = orders()
    expect(all.some((order) => order.is_on_hold === true && order.order_state_id === 2)).toBe(true)
    const partial = all.find((order) => order.partially_shipped === true && order.order_state_id === 8)
    expect(partial?.Order_Items.at(-1)).toMatchObject({ qty_shipped: 0, qty_pending: partial?.Order_Items.at(-1).qty })
  })

  it('ships two of three lines and backorders the third into a related order GET /v1/orders/{guid} returns', async () => {
    const rows = orderableItems(service, first.guid, 'Retail', 30).slice(0, 3)
    const reply = await post(
      service,
      '/v1/orderWithItems',
      orderBody(
        first,
        rows.map((row) => ({ item: row, qty: 4 })),
      ),
      { headers: { vendorGuid: openCustomer(service).guid } },
    )
    expect(reply.status).toBe(200)
    const placed = reply.json.order
    service.control.fulfilOrder(placed.guid, {
      kind: 'ship',
      lines: [
        { itemNo: 1, qty: 4 },
        { itemNo: 2, qty: 4 },
      ],
      backorderRest: true,
    })
    const read = await get(service, `/v1/orders/${placed.guid}`)
    expect(read.status).toBe(200)
    const order = read.json.order
    expect(order).toMatchObject({
      order_state_id: 8,
      is_shipped: true,
      partially_shipped: true,
      ship_date: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
    })
    expect(order.Order_Items.map((line: Json) => [line.qty_shipped, line.qty_backordered, line.qty_pending])).toEqual([
      [4, 0, 0],
      [4, 0, 0],
      [0, 4, 0],
    ])
    expect(order.Order_State_Logs.map((log: Json) => log.Order_State.name)).toEqual([
      'PRELIMINARY',
      'SUBMITTED',
      'SHIPPED',
    ])
    expect(read.json.relatedOrders).toHaveLength(1)
    expect(read.json.relatedOrders[0]).toMatchObject({ name: `${placed.name}-BO1`, parent_order_id: placed.id })
    expect(read.json.relatedOrders[0].Order_Items).toHaveLength(1)
    const child = await get(service, `/v1/orders/${read.json.relatedOrders[0].guid}`)
    expect(child.json.relatedOrders.map((related: Json) => related.guid)).toEqual([placed.guid])
  })

  it('holds, releases and cancels, each stamping updated_at', async () => {
    const [row] = orderableItems(service, first.guid, 'Retail', 30)
    const reply = await post(service, '/v1/orderWithItems', orderBody(first, [{ item: row, qty: 1 }]), {
      headers: { vendorGuid: openCustomer(service).guid },
    })
    const guid = reply.json.order.guid as string
    service.control.shiftClock(1000)
    const held = service.control.fulfilOrder(guid, { kind: 'hold', onHold: true })
    expect(held.is_on_hold).toBe(true)
    expect(String(held.updated_at) > reply.json.order.updated_at).toBe(true)
    expect(service.control.fulfilOrder(guid, { kind: 'hold', onHold: false }).is_on_hold).toBe(false)
    const cancelled = service.control.fulfilOrder(guid, { kind: 'cancel' })
    expect(cancelled).toMatchObject({ order_state_id: 23, is_cancelled: true })
    expect(() => service.control.fulfilOrder(guid, { kind: 'state', stateId: 8 })).toThrow(/CANCELLED/)
  })
})
