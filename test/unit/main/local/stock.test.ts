import { describe, expect, it } from 'vitest'
import { stockFieldsOfRecord, stockOf } from '../../../../src/main/local/stock'

describe('the one available figure', () => {
  it('is on hand less reserved, never below 0, with what is arriving', () => {
    expect(
      stockOf({ qtyOnHand: 40, reservedQtyOnHand: 13, qtyIncoming: 96, hasInventory: true, allowBackorder: false }),
    ).toEqual({ available: 27, incoming: 96, limitsQty: true })
    expect(
      stockOf({ qtyOnHand: 3, reservedQtyOnHand: 5, qtyIncoming: null, hasInventory: true, allowBackorder: false }),
    ).toEqual({ available: 0, incoming: 0, limitsQty: true })
  })

  it('does not limit a backorderable item, and has no figure where stock is not counted', () => {
    expect(
      stockOf({ qtyOnHand: 2, reservedQtyOnHand: 0, qtyIncoming: 0, hasInventory: true, allowBackorder: true }),
    ).toEqual({ available: 2, incoming: 0, limitsQty: false })
    expect(
      stockOf({ qtyOnHand: 50, reservedQtyOnHand: 0, qtyIncoming: 0, hasInventory: false, allowBackorder: false }),
    ).toEqual({ available: null, incoming: 0, limitsQty: false })
    expect(
      stockOf({
        qtyOnHand: null,
        reservedQtyOnHand: null,
        qtyIncoming: null,
        hasInventory: true,
        allowBackorder: false,
      }),
    ).toEqual({ available: null, incoming: 0, limitsQty: false })
  })

  it('reads a record as the service sent it, numbers given as text included', () => {
    expect(
      stockOf(
        stockFieldsOfRecord({ qty_on_hand: '12', reserved_qty_on_hand: 2, qty_incoming: 5, has_inventory: true }),
      ),
    ).toEqual({ available: 10, incoming: 5, limitsQty: true })
  })
})
