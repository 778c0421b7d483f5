import type { OrderRecord } from '../../src/main/ordering-client/schemas'
import type { TestCore } from './core'

const DAY = 86_400_000
const start = new Date(2026, 0, 1, 9, 30).getTime()
const states = [
  { id: 2, name: 'SUBMITTED' },
  { id: 8, name: 'SHIPPED' },
  { id: 23, name: 'CANCELLED' },
]

/** Order `index` of the history below. */
export function historyOrder(index: number): OrderRecord {
  const customer = index % 40
  const state = states[index % states.length]!
  return {
    id: 1000 + index,
    guid: `00000000-0000-4000-8000-${String(index).padStart(12, '0')}`,
    name: `SO-${10000 + index}`,
    po_no: index % 5 === 0 ? `PO-${70000 + index}` : null,
    order_state_id: state.id,
    Order_State: { id: state.id, guid: '', name: state.name },
    Vendor: {
      id: 500 + customer,
      guid: `10000000-0000-4000-8000-${String(customer).padStart(12, '0')}`,
      name: customer === 7 ? 'Harbor 100% Café_Supply' : `Customer ${customer}`,
    },
    sub_total: 100,
    tax: 8.25,
    shipping: 15,
    labor: 0,
    other: 0,
    discount: 0,
    discount_total: 3.25,
    grand_total: 120,
    created_at: new Date(start + index * (DAY / 4)).toISOString(),
    updated_at: new Date(start + index * (DAY / 4)).toISOString(),
    Order_Items: [
      {
        id: 1,
        item_no: 1,
        sku: 'DPR-10001',
        name: 'Dark roast 12 x 1 kg',
        qty: 3,
        net_price: 31.56,
        total: 94.68,
        catalog_item_id: 9,
      },
      { id: 2, item_no: 2, sku: 'NAP-2', name: 'Napkins', qty: 1, catalog_item_id: 10 },
    ],
  } as unknown as OrderRecord
}

/**
 * A synced order history for the orders list: 40 customers (customer 7 named with the characters a
 * search must take literally) and `count` orders, 6 h apart from 1 January 2026, states in turn,
 * every fifth with a PO, each with two lines and the service's money.
 */
export function seedOrderHistory(core: TestCore, count: number): void {
  const customers = Array.from({ length: 40 }, (_, customer) => ({
    customer: {
      id: 500 + customer,
      guid: `10000000-0000-4000-8000-${String(customer).padStart(12, '0')}`,
      name: customer === 7 ? 'Harbor 100% Café_Supply' : `Customer ${customer}`,
      active: true,
    },
    connection: {},
    connectionDeletedAt: null,
  }))
  core.sync.copy.applyCustomers(customers as never, { listingId: null, serverTime: null })
  core.sync.copy.applyOrders(
    Array.from({ length: count }, (_, index) => historyOrder(index)),
    { listingId: null, serverTime: null },
  )
}
