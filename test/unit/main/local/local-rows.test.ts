import { describe, expect, it, vi } from 'vitest'
import type { CustomerConnection } from '../../../../src/main/ordering-client/client'
import type {
  CatalogItemRecord,
  CatalogRecord,
  CategoryRecord,
  OrderRecord,
} from '../../../../src/main/ordering-client/schemas'
import {
  catalogItemRow,
  catalogRow,
  categoriesOf,
  categoryRow,
  customerRow,
  orderRow,
  priceGroupRow,
  type GuidLookup,
} from '../../../../src/main/local/rows'

/** Milliseconds since the epoch, UTC: the versions the mappers compute, written out independently. */
const utc = (day: number, hour = 0, minute = 0, second = 0) => Date.UTC(2025, 0, day, hour, minute, second)

const noLookup: GuidLookup = {
  customer: () => {
    throw new Error('customer lookup not expected')
  },
  catalog: () => {
    throw new Error('catalog lookup not expected')
  },
}

describe('catalogRow', () => {
  it('maps a catalog and keeps its whole record, unknown fields and nested groups included, as JSON', () => {
    const catalog: CatalogRecord = {
      id: 7,
      guid: 'cat-7',
      name: 'Spring 2025',
      active: false,
      updated_at: '2025-01-03T10:00:00.000Z',
      deleted_at: null,
      season_code: 'SP25',
      Price_Groups: [{ id: 1, guid: 'pg-1', value: 'Retail', is_main: true }],
    }
    const row = catalogRow(catalog, 42)
    expect(row).toStrictEqual({
      guid: 'cat-7',
      id: 7,
      name: 'Spring 2025',
      active: 0,
      version: utc(3, 10),
      updated_at: '2025-01-03T10:00:00.000Z',
      deleted_at: null,
      listed_run: 42,
      json: JSON.stringify(catalog),
    })
    expect(JSON.parse(row.json)).toMatchObject({
      season_code: 'SP25',
      Price_Groups: [{ guid: 'pg-1', value: 'Retail' }],
    })
  })

  it('fills what the service left out: no name, active by default, null ids and times; a tombstone takes its deletion as version', () => {
    expect(catalogRow({ guid: 'cat-8', deleted_at: '2025-01-05 08:00:00' }, null)).toStrictEqual({
      guid: 'cat-8',
      id: null,
      name: '',
      active: 1,
      version: utc(5, 8),
      updated_at: null,
      deleted_at: '2025-01-05 08:00:00',
      listed_run: null,
      json: '{"guid":"cat-8","deleted_at":"2025-01-05 08:00:00"}',
    })
  })
})

describe('priceGroupRow', () => {
  it('names a nested group by value, else by name, else empty; is_main defaults to 0', () => {
    const nested = {
      id: 11,
      guid: 'pg-retail',
      catalog_id: 7,
      value: 'Retail',
      name: 'ignored',
      is_main: true,
      updated_at: '2025-01-02T00:00:00Z',
    }
    expect(priceGroupRow('cat-7', nested, 3)).toStrictEqual({
      guid: 'pg-retail',
      id: 11,
      catalog_guid: 'cat-7',
      name: 'Retail',
      is_main: 1,
      version: utc(2),
      updated_at: '2025-01-02T00:00:00Z',
      deleted_at: null,
      listed_run: 3,
      json: JSON.stringify(nested),
    })
    expect(priceGroupRow('cat-7', { guid: 'pg-gold', name: 'Gold' }, null)).toMatchObject({
      name: 'Gold',
      is_main: 0,
      id: null,
      version: 0,
      updated_at: null,
    })
    expect(priceGroupRow('cat-7', { guid: 'pg-none', value: null, name: null, is_main: false }, null)).toMatchObject({
      name: '',
      is_main: 0,
    })
  })

  it('soft-deleted: deleted_at kept, version the later of update and deletion', () => {
    const row = priceGroupRow(
      'cat-7',
      { guid: 'pg-old', value: 'Old', updated_at: '2025-01-02T00:00:00Z', deleted_at: '2025-01-04T12:00:00Z' },
      null,
    )
    expect(row).toMatchObject({ deleted_at: '2025-01-04T12:00:00Z', version: utc(4, 12) })
  })
})

describe('catalogItemRow', () => {
  const item: CatalogItemRecord = {
    id: 501,
    guid: 'item-501',
    catalog_id: 7,
    category_id: 100,
    sku: 'W-501',
    upc: '0123456789012',
    name: 'Widget, large',
    description: 'A sturdy widget',
    manufacturer: 'Acme',
    active: true,
    msrp: 19.5,
    qty_on_hand: 12,
    min_order_qty: 2,
    has_inventory: true,
    allow_backorder: false,
    pricing: { Retail: 10, Gold: 8.25, Wholesale: 'N/A' },
    Category: { id: 100, guid: 'c-100', catalog_id: 7, parent_category_id: 90, name: 'Tools' },
    updated_at: '2025-01-06T09:30:00.000Z',
    deleted_at: null,
    color_options: ['red', 'blue'],
  }

  it('maps every column, keeps N/A prices as sent and the whole record (unknown fields too) as JSON', () => {
    const row = catalogItemRow('cat-7', item, 9, '2025-01-07T00:00:00Z')
    expect(row).toStrictEqual({
      guid: 'item-501',
      id: 501,
      catalog_guid: 'cat-7',
      category_id: 100,
      sku: 'W-501',
      upc: '0123456789012',
      name: 'Widget, large',
      description: 'A sturdy widget',
      manufacturer: 'Acme',
      active: 1,
      msrp: 19.5,
      qty_on_hand: 12,
      min_order_qty: 2,
      has_inventory: 1,
      allow_backorder: 0,
      pricing: '{"Retail":10,"Gold":8.25,"Wholesale":"N/A"}',
      version: utc(6, 9, 30),
      updated_at: '2025-01-06T09:30:00.000Z',
      deleted_at: null,
      listed_run: 9,
      synced_at: '2025-01-07T00:00:00Z',
      json: JSON.stringify(item),
    })
    expect(JSON.parse(row.json)).toMatchObject({ color_options: ['red', 'blue'], Category: { name: 'Tools' } })
  })

  it('leaves unknown stock flags and figures null, active 1, text empty, pricing null when absent', () => {
    expect(catalogItemRow('cat-7', { guid: 'item-bare' }, null, null)).toStrictEqual({
      guid: 'item-bare',
      id: null,
      catalog_guid: 'cat-7',
      category_id: null,
      sku: '',
      upc: null,
      name: '',
      description: null,
      manufacturer: null,
      active: 1,
      msrp: null,
      qty_on_hand: null,
      min_order_qty: null,
      has_inventory: null,
      allow_backorder: null,
      pricing: null,
      version: 0,
      updated_at: null,
      deleted_at: null,
      listed_run: null,
      synced_at: null,
      json: '{"guid":"item-bare"}',
    })
  })

  it('a soft-deleted item keeps its deletion, dated by the later of update and deletion', () => {
    const row = catalogItemRow(
      'cat-7',
      { ...item, active: false, deleted_at: '2025-01-08 17:45:10' },
      null,
      '2025-01-08T18:00:00Z',
    )
    expect(row).toMatchObject({
      active: 0,
      deleted_at: '2025-01-08 17:45:10',
      version: utc(8, 17, 45, 10),
      listed_run: null,
    })
  })
})

describe('categoriesOf and categoryRow', () => {
  const tools = (updatedAt: string, name: string): CategoryRecord => ({
    id: 100,
    guid: 'c-100',
    catalog_id: 7,
    parent_category_id: 90,
    name,
    updated_at: updatedAt,
  })
  const root: CategoryRecord = {
    id: 90,
    guid: 'c-90',
    catalog_id: 7,
    parent_category_id: 0,
    name: 'Hardware',
    updated_at: '2025-01-01T00:00:00Z',
  }

  it('takes each category a page carries once, in its newest version, in the order first met', () => {
    const items: CatalogItemRecord[] = [
      { guid: 'a', CategoryHierarchy: [root], Category: tools('2025-01-02T00:00:00Z', 'Tools') },
      { guid: 'b', Category: tools('2025-01-03T00:00:00Z', 'Tools & Parts') },
      { guid: 'c', CategoryHierarchy: [root], Category: tools('2025-01-01T00:00:00Z', 'Tools (old)') },
      { guid: 'd', Category: null, CategoryHierarchy: null },
    ]
    expect(categoriesOf(items)).toStrictEqual([root, tools('2025-01-03T00:00:00Z', 'Tools & Parts')])
    expect(categoriesOf([])).toStrictEqual([])
  })

  it('maps a category: parent 0 means none, hidden defaults to 0, a string deleted_at is a tombstone', () => {
    expect(categoryRow('cat-7', root, 4)).toStrictEqual({
      catalog_guid: 'cat-7',
      id: 90,
      guid: 'c-90',
      parent_id: null,
      name: 'Hardware',
      sequence: null,
      hidden: 0,
      version: utc(1),
      deleted_at: null,
      listed_run: 4,
      json: JSON.stringify(root),
    })
    const hidden = {
      id: 100,
      parent_category_id: 90,
      sequence: 2.5,
      hide_category: true,
      updated_at: '2025-01-02T00:00:00Z',
      deleted_at: '2025-01-09T00:00:00Z',
    }
    expect(categoryRow('cat-7', hidden, null)).toMatchObject({
      guid: null,
      parent_id: 90,
      name: '',
      sequence: 2.5,
      hidden: 1,
      deleted_at: '2025-01-09T00:00:00Z',
      version: utc(9),
    })
    expect(categoryRow('cat-7', { id: 5, deleted_at: 12345 }, null)).toMatchObject({ deleted_at: null, version: 0 })
  })
})

describe('customerRow', () => {
  const customer = {
    id: 31,
    guid: 'cust-31',
    name: 'Corner Hardware',
    customer_internal_id: 'CH-031',
    email: 'buyer@corner.example',
    phone: '555-0100',
    city: 'Springfield',
    state: 'IL',
    active: true,
    require_po: true,
    hide_pricing: false,
    price_group_id: 11,
    lock_catalog_id: 0,
    updated_at: '2025-01-02T00:00:00Z',
    deleted_at: null,
    loyalty_tier: 'gold',
  }

  it("maps a customer; the connection's own price group wins, 0 means none, and the connection is kept beside the record", () => {
    const connection: CustomerConnection = {
      customer,
      connection: { price_group_id: 12, lock_catalog_id: 7, updated_at: '2025-01-05T00:00:00Z', sales_rep: 'Dana' },
      connectionDeletedAt: null,
    }
    const row = customerRow(connection, 6)
    expect(row).toStrictEqual({
      guid: 'cust-31',
      id: 31,
      name: 'Corner Hardware',
      customer_internal_id: 'CH-031',
      email: 'buyer@corner.example',
      phone: '555-0100',
      city: 'Springfield',
      state: 'IL',
      active: 1,
      price_group_id: 12,
      lock_catalog_id: 7,
      require_po: 1,
      hide_pricing: 0,
      // The connection changed after the customer: its change is the row's version.
      version: utc(5),
      updated_at: '2025-01-02T00:00:00Z',
      deleted_at: null,
      listed_run: 6,
      json: JSON.stringify(customer),
      connection_json:
        '{"price_group_id":12,"lock_catalog_id":7,"updated_at":"2025-01-05T00:00:00Z","sales_rep":"Dana"}',
    })
    expect(JSON.parse(row.json)).toMatchObject({ loyalty_tier: 'gold' })
  })

  it("falls back to the customer's own assignment; no connection fields means no connection JSON", () => {
    const row = customerRow({ customer, connection: {}, connectionDeletedAt: null }, null)
    expect(row).toMatchObject({
      price_group_id: 11,
      lock_catalog_id: null,
      version: utc(2),
      connection_json: null,
      listed_run: null,
    })
    const zeros = customerRow(
      { customer: { ...customer, price_group_id: 0 }, connection: { price_group_id: 0 }, connectionDeletedAt: null },
      null,
    )
    expect(zeros).toMatchObject({ price_group_id: null, connection_json: '{"price_group_id":0}' })
  })

  it('a customer that left the supplier (connection deleted) is a tombstone dated by that deletion', () => {
    const row = customerRow(
      { customer, connection: { deleted_at: '2025-01-10T00:00:00Z' }, connectionDeletedAt: '2025-01-10T00:00:00Z' },
      null,
    )
    expect(row).toMatchObject({ deleted_at: '2025-01-10T00:00:00Z', version: utc(10) })
    const own = customerRow(
      {
        customer: { ...customer, deleted_at: '2025-01-11T00:00:00Z' },
        connection: {},
        connectionDeletedAt: '2025-01-10T00:00:00Z',
      },
      null,
    )
    expect(own).toMatchObject({ deleted_at: '2025-01-11T00:00:00Z', version: utc(11) })
  })

  it('fills defaults for a bare customer', () => {
    expect(
      customerRow({ customer: { guid: 'cust-bare' }, connection: {}, connectionDeletedAt: null }, null),
    ).toStrictEqual({
      guid: 'cust-bare',
      id: null,
      name: '',
      customer_internal_id: null,
      email: null,
      phone: null,
      city: null,
      state: null,
      active: 1,
      price_group_id: null,
      lock_catalog_id: null,
      require_po: 0,
      hide_pricing: 0,
      version: 0,
      updated_at: null,
      deleted_at: null,
      listed_run: null,
      json: '{"guid":"cust-bare"}',
      connection_json: null,
    })
  })
})

describe('orderRow', () => {
  it('maps a full order by the guids and state it carries, without looking anything up', () => {
    const order: OrderRecord = {
      id: 9001,
      guid: 'ord-9001',
      name: 'SO-9001',
      api_guid: 'api-1',
      po_no: 'PO-77',
      sub_total: 120.5,
      grand_total: 130.25,
      Vendor: { id: 31, guid: 'cust-31', name: 'Corner Hardware' },
      Catalog: { id: 7, guid: 'cat-7', name: 'Spring' },
      Order_State: { id: 3, name: 'Submitted' },
      created_at: '2025-01-04 15:00:00',
      updated_at: '2025-01-04T15:30:00Z',
      deleted_at: null,
      Items: [{ sku: 'W-501', qty: 2 }],
    }
    const row = orderRow(order, 2, noLookup)
    expect(row).toStrictEqual({
      guid: 'ord-9001',
      id: 9001,
      name: 'SO-9001',
      api_guid: 'api-1',
      customer_guid: 'cust-31',
      customer_id: 31,
      catalog_guid: 'cat-7',
      catalog_id: 7,
      order_state_id: 3,
      order_state_name: 'Submitted',
      po_no: 'PO-77',
      sub_total: 120.5,
      grand_total: 130.25,
      created_at: '2025-01-04 15:00:00',
      created_ms: utc(4, 15),
      version: utc(4, 15, 30),
      updated_at: '2025-01-04T15:30:00Z',
      deleted_at: null,
      listed_run: 2,
      json: JSON.stringify(order),
    })
    expect(JSON.parse(row.json)).toMatchObject({ Items: [{ sku: 'W-501', qty: 2 }] })
  })

  it("resolves the list's bare ids to local guids, and leaves them null when nothing local has that id", () => {
    const guids = { customer: vi.fn((id: number) => (id === 31 ? 'cust-31' : null)), catalog: vi.fn(() => null) }
    const row = orderRow(
      { guid: 'ord-1', vendor_id: 31, catalog_id: 8, order_state_id: 1, updated_at: '2025-01-03T00:00:00Z' },
      null,
      guids,
    )
    expect(row).toMatchObject({
      customer_guid: 'cust-31',
      customer_id: 31,
      catalog_guid: null,
      catalog_id: 8,
      order_state_id: 1,
      order_state_name: null,
    })
    expect(guids.customer).toHaveBeenCalledWith(31)
    expect(guids.catalog).toHaveBeenCalledWith(8)
  })

  it('a bare order: no ids, no lookups, created_ms null; a soft-deleted one is dated by its deletion', () => {
    expect(orderRow({ guid: 'ord-bare' }, null, noLookup)).toStrictEqual({
      guid: 'ord-bare',
      id: null,
      name: null,
      api_guid: null,
      customer_guid: null,
      customer_id: null,
      catalog_guid: null,
      catalog_id: null,
      order_state_id: null,
      order_state_name: null,
      po_no: null,
      sub_total: null,
      grand_total: null,
      created_at: null,
      created_ms: null,
      version: 0,
      updated_at: null,
      deleted_at: null,
      listed_run: null,
      json: '{"guid":"ord-bare"}',
    })
    const deleted = orderRow(
      { guid: 'ord-2', updated_at: '2025-01-03T00:00:00Z', deleted_at: '2025-01-12T06:00:00Z' },
      null,
      noLookup,
    )
    expect(deleted).toMatchObject({ deleted_at: '2025-01-12T06:00:00Z', version: utc(12, 6) })
  })
})
