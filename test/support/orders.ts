import type { CatalogItemFacts, CustomerFacts, OrderLookup, PriceGroupFacts } from '../../src/main/orders/lookup'
import type { OrderWithItemsResult } from '../../src/main/ordering-client/client'
import type { Draft } from '../../src/shared/orders'

export const catalogGuid = '11111111-1111-4111-8111-111111111111'
export const otherCatalogGuid = '22222222-2222-4222-8222-222222222222'
export const customerGuid = '33333333-3333-4333-8333-333333333333'
export const addressGuid = '44444444-4444-4444-8444-444444444444'
export const retailGroup: PriceGroupFacts = {
  guid: '55555555-5555-4555-8555-555555555555',
  id: 7,
  name: 'Retail',
  isMain: true,
}
export const dealerGroup: PriceGroupFacts = {
  guid: '66666666-6666-4666-8666-666666666666',
  id: 8,
  name: 'Dealer',
  isMain: false,
}

let itemCounter = 0
export function item(fields: Partial<CatalogItemFacts> = {}): CatalogItemFacts {
  itemCounter++
  const n = String(itemCounter).padStart(12, '0')
  return {
    guid: `77777777-7777-4777-8777-${n}`,
    sku: `SKU-${itemCounter}`,
    upc: null,
    name: `Item ${itemCounter}`,
    active: true,
    deleted: false,
    pricing: { Retail: 10, Dealer: 8 },
    minOrderQty: null,
    qtyBreak: null,
    qtyBreakPrice: null,
    hasInventory: false,
    allowBackorder: false,
    qtyAvailable: null,
    qtyIncoming: 0,
    isFamily: false,
    ...fields,
  }
}

/** Draft 1 of the customer in the catalog, with no lines, as the checks read it. */
export function draft(fields: Partial<Draft> = {}): Draft {
  return {
    id: 1,
    apiGuid: '9a1b2c3d-0000-4000-8000-000000000001',
    customerGuid,
    newCustomer: null,
    catalogGuid,
    priceGroupGuid: null,
    poNo: '',
    note: '',
    shippingInstructions: '',
    shipTo: null,
    remainInPreliminary: false,
    lines: [],
    createdAt: '2026-11-20T10:00:00.000Z',
    updatedAt: '2026-11-20T10:00:00.000Z',
    ...fields,
  }
}

export function customer(fields: Partial<CustomerFacts> = {}): CustomerFacts {
  return {
    guid: customerGuid,
    name: 'Harbor Hardware',
    active: true,
    requirePo: false,
    priceGroupId: dealerGroup.id,
    creditLimit: null,
    openBalance: null,
    standingPo: '',
    requirePayment: false,
    taxExempt: false,
    addresses: [
      {
        guid: addressGuid,
        address: { address_line_one: '1 Quay St', city: 'Portland', state: 'OR', postal_code: '97201' },
      },
    ],
    ...fields,
  }
}

/** An OrderLookup over plain objects, mutable by tests to play "the next sync changed this". */
export class MemoryLookup implements OrderLookup {
  customers = new Map<string, CustomerFacts>()
  items = new Map<string, CatalogItemFacts>()
  groups: PriceGroupFacts[] = [retailGroup, dealerGroup]
  allowedCatalogs: string[] | null = [catalogGuid]

  constructor(items: CatalogItemFacts[] = [], customers: CustomerFacts[] = [customer()]) {
    for (const i of items) this.items.set(i.guid, i)
    for (const c of customers) this.customers.set(c.guid, c)
  }

  customer(guid: string) {
    return this.customers.get(guid) ?? null
  }
  catalogsForCustomer() {
    return this.allowedCatalogs
  }
  /** Groups of other catalogs, by id, for customers assigned one of those. */
  otherGroups: { id: number; name: string }[] = []
  priceGroups(catalog: string) {
    return catalog === catalogGuid ? this.groups : []
  }
  priceGroupName(id: number) {
    return [...this.groups, ...this.otherGroups].find((g) => g.id === id)?.name ?? null
  }
  activeCatalogs() {
    return [catalogGuid, otherCatalogGuid]
  }
  /** Customer guid → the catalog of their newest synced order. */
  orderCatalogs = new Map<string, string>()
  lastOrderCatalog(customerGuid: string) {
    return this.orderCatalogs.get(customerGuid) ?? null
  }
  catalogItem(catalog: string, guid: string) {
    return catalog === catalogGuid ? (this.items.get(guid) ?? null) : null
  }
  catalogItemBySku(catalog: string, sku: string) {
    if (catalog !== catalogGuid) return null
    return [...this.items.values()].find((i) => i.sku.toLowerCase() === sku.trim().toLowerCase()) ?? null
  }
  catalogItemsByUpc(catalog: string, upc: string) {
    if (catalog !== catalogGuid) return []
    return [...this.items.values()]
      .filter((i) => !i.deleted && i.upc === upc.trim())
      .sort((a, b) => a.sku.localeCompare(b.sku))
  }
}

/**
 * The service's answer to POST /v1/orderWithItems for a request body: order number `number` (SO-1
 * unless told), under the body's api_guid, with no customer created.
 */
export function confirmation(body: Record<string, unknown>, number = 1): OrderWithItemsResult {
  return {
    order: {
      guid: `00000000-0000-4000-8000-${String(number).padStart(12, '0')}`,
      name: `SO-${number}`,
      api_guid: (body.order as { api_guid: string }).api_guid,
    },
    vendor: null,
    billTo: null,
    shipTo: null,
    contact: null,
    note: null,
    raw: {},
  } as unknown as OrderWithItemsResult
}
