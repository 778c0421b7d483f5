import { formatMoney } from '../../../../src/shared/money'
import { describe, expect, it } from 'vitest'
import { unitPriceAt } from '../../../../src/main/pricing'
import { buildOrderRequest } from '../../../../src/main/orders/request'
import { checkDraft } from '../../../../src/main/orders/validation'
import {
  addressGuid,
  catalogGuid,
  customer,
  customerGuid,
  dealerGroup,
  draft,
  item,
  MemoryLookup,
  retailGroup,
} from '../../../support/orders'

function line(
  itemGuid: string,
  qty: number,
  unitPriceSeen: number | null = null,
  lineId = `line-${itemGuid.slice(-4)}`,
) {
  return {
    lineId,
    catalogItemGuid: itemGuid,
    sku: 'x',
    name: 'x',
    qty,
    note: '',
    unitPriceSeen,
    qtyAvailableSeen: null,
  }
}

describe('pricing', () => {
  it('prices by the price group’s name and treats "N/A" as not offered', () => {
    const offered = item({ pricing: { Retail: 12.5, Dealer: 'N/A' } })
    expect(unitPriceAt(offered, 'Retail', 1)).toEqual({ offered: true, unitPrice: 12.5 })
    expect(unitPriceAt(offered, 'Dealer', 1)).toEqual({ offered: false, unitPrice: null })
    expect(unitPriceAt(offered, 'Unknown group', 1)).toEqual({ offered: false, unitPrice: null })
  })

  it('applies the qty-break price at and above the break, and never raises a price', () => {
    const broken = item({ pricing: { Dealer: 8 }, qtyBreak: 10, qtyBreakPrice: 7 })
    expect(unitPriceAt(broken, 'Dealer', 9).unitPrice).toBe(8)
    expect(unitPriceAt(broken, 'Dealer', 10).unitPrice).toBe(7)
    expect(unitPriceAt(item({ pricing: { Dealer: 5 }, qtyBreak: 10, qtyBreakPrice: 7 }), 'Dealer', 20).unitPrice).toBe(
      5,
    )
  })
})

describe('offline draft checks', () => {
  it('uses the customer’s price group by default and totals from those prices', () => {
    const a = item({ pricing: { Retail: 10, Dealer: 8 } })
    const b = item({ pricing: { Retail: 3.335, Dealer: 2.5 }, qtyBreak: 12, qtyBreakPrice: 2 })
    const result = checkDraft(draft({ lines: [line(a.guid, 3), line(b.guid, 12)] }), new MemoryLookup([a, b]))
    expect(result.issues).toEqual([])
    expect(result.lines.map((l) => l.unitPrice)).toEqual([8, 2])
    expect(result.subTotal).toBe(48)
    expect(result.sendable).toBe(true)
  })

  it('in another catalog, a customer’s price group is the one of the same name there', () => {
    const a = item({ pricing: { Retail: 10, Dealer: 8 } })
    const lookup = new MemoryLookup([a], [customer({ priceGroupId: 901 })])
    lookup.otherGroups = [{ id: 901, name: 'Dealer' }]
    const result = checkDraft(draft({ lines: [line(a.guid, 1)] }), lookup)
    expect(result.lines[0]!.unitPrice).toBe(8)
    lookup.otherGroups = [{ id: 901, name: 'Distributor' }]
    expect(checkDraft(draft({ lines: [line(a.guid, 1)] }), lookup).lines[0]!.unitPrice).toBe(10)
  })

  it('flags an inactive customer and a missing PO where required; an empty order is unsendable, not a problem', () => {
    const lookup = new MemoryLookup([], [customer({ active: false, requirePo: true })])
    const result = checkDraft(draft(), lookup)
    expect(result.issues.map((i) => [i.field, i.severity])).toEqual([
      ['customer', 'error'],
      ['poNo', 'error'],
    ])
    expect(result.issues[1]!.message).toContain('requires a PO number')
    expect(result.sendable).toBe(false)
  })

  it('gives one message per line: not offered, inactive, below minimum, zero quantity, gone from the catalog', () => {
    const notOffered = item({ pricing: { Retail: 4, Dealer: 'N/A' } })
    const inactive = item({ active: false })
    const minimum = item({ minOrderQty: 6 })
    const fine = item()
    const lookup = new MemoryLookup([notOffered, inactive, minimum, fine])
    const result = checkDraft(
      draft({
        lines: [
          line(notOffered.guid, 1, null, 'a'),
          line(inactive.guid, 1, null, 'b'),
          line(minimum.guid, 5, null, 'c'),
          line(fine.guid, 0, null, 'd'),
          line('77777777-7777-4777-8777-999999999999', 1, null, 'e'),
        ],
      }),
      lookup,
    )
    const byLine = Object.fromEntries(result.issues.map((i) => [i.lineId, i.message]))
    expect(byLine.a).toContain('not offered to price group Dealer')
    expect(byLine.b).toContain('inactive')
    expect(byLine.c).toContain('minimum order quantity')
    expect(byLine.c).toContain('6')
    expect(byLine.d).toContain('above zero')
    expect(byLine.e).toContain('no longer in this catalog')
    expect(result.sendable).toBe(false)
  })

  it('warns, without blocking, when stock is short and backorders are not allowed', () => {
    const short = item({ hasInventory: true, allowBackorder: false, qtyAvailable: 3 })
    const backorderable = item({ hasInventory: true, allowBackorder: true, qtyAvailable: 0 })
    const result = checkDraft(
      draft({ lines: [line(short.guid, 5, null, 's'), line(backorderable.guid, 5, null, 'b')] }),
      new MemoryLookup([short, backorderable]),
    )
    expect(result.issues).toEqual([
      { field: null, lineId: 's', severity: 'warning', message: expect.stringContaining('Only 3') },
    ])
    expect(result.sendable).toBe(true)
  })

  it('marks a line whose price changed since the rep saw it', () => {
    const changed = item({ pricing: { Dealer: 9 } })
    const result = checkDraft(draft({ lines: [line(changed.guid, 1, 8)] }), new MemoryLookup([changed]))
    expect(result.lines[0]!.priceChanged).toBe(true)
    expect(result.issues[0]!.message).toContain('changed from $8.00 to $9.00')
    const dear = item({ pricing: { Dealer: 1300 } })
    expect(
      checkDraft(draft({ lines: [line(dear.guid, 1, 1234.5)] }), new MemoryLookup([dear])).issues[0]!.message,
    ).toContain('changed from $1,234.50 to $1,300.00')
  })

  it('writes the amounts of its messages in the rep’s locale, as the screens beside them do', () => {
    const dear = item({ pricing: { Dealer: 1300 } })
    const message = checkDraft(draft({ lines: [line(dear.guid, 1, 1234.5)] }), new MemoryLookup([dear]), 'de-DE')
      .issues[0]!.message
    expect(message).toContain(`changed from ${formatMoney(1234.5, 'de-DE')} to ${formatMoney(1300, 'de-DE')}`)
    expect(message).toMatch(/1\.234,50\s\$/)
  })

  it('says which price group it priced with: the draft’s, else the customer’s, else the catalog’s main one', () => {
    const a = item({ pricing: { Retail: 10, Dealer: 8 } })
    const lookup = new MemoryLookup([a])
    const byCustomer = checkDraft(draft({ lines: [line(a.guid, 1)] }), lookup)
    expect(byCustomer.priceGroup).toEqual({ guid: dealerGroup.guid, name: 'Dealer' })
    expect(byCustomer.lines[0]!.unitPrice).toBe(8)
    const chosen = checkDraft(draft({ priceGroupGuid: retailGroup.guid, lines: [line(a.guid, 1)] }), lookup)
    expect(chosen.priceGroup).toEqual({ guid: retailGroup.guid, name: 'Retail' })
    expect(chosen.lines[0]!.unitPrice).toBe(10)
    const newCustomer = checkDraft(
      draft({ customerGuid: null, newCustomer: { name: 'Field Co' } }),
      new MemoryLookup([a], []),
    )
    expect(newCustomer.priceGroup).toEqual({ guid: retailGroup.guid, name: 'Retail' })
  })

  it('has no price group without a catalog, or when none applies', () => {
    const lookup = new MemoryLookup([item()])
    expect(checkDraft(draft({ catalogGuid: null }), lookup).priceGroup).toBeNull()
    lookup.groups = [retailGroup, { ...dealerGroup, guid: '66666666-6666-4666-8666-000000000000' }]
    const gone = checkDraft(draft({ priceGroupGuid: dealerGroup.guid }), lookup)
    expect(gone.priceGroup).toBeNull()
    expect(gone.issues.map((i) => i.field)).toContain('priceGroup')
  })

  it('refuses a catalog the customer may not order from', () => {
    const lookup = new MemoryLookup([item()])
    lookup.allowedCatalogs = ['22222222-2222-4222-8222-222222222222']
    expect(checkDraft(draft(), lookup).issues.map((i) => i.field)).toContain('catalog')
  })
})

describe('the orderWithItems request', () => {
  it('uses the spec’s names, the customer as vendorGuid, the saved ship-to address, and the draft’s api_guid', () => {
    const a = item()
    const lookup = new MemoryLookup([a])
    const check = checkDraft(
      draft({
        lines: [{ ...line(a.guid, 2), note: 'blue ones' }],
        poNo: ' PO-7 ',
        shipTo: { kind: 'customerAddress', addressGuid },
      }),
      lookup,
    )
    const { request, totals } = buildOrderRequest(check, lookup)
    expect(request.vendorGuid).toBe(customerGuid)
    expect(request.body).toEqual({
      catalogGuid,
      priceGroupGuid: dealerGroup.guid,
      order: { po_no: 'PO-7', api_guid: '9a1b2c3d-0000-4000-8000-000000000001' },
      orderItems: [{ catalog_item_guid: a.guid, qty: 2, note: 'blue ones' }],
      shipTo: { address_line_one: '1 Quay St', city: 'Portland', state: 'OR', postal_code: '97201' },
      source: 'APP',
      remainInPreliminary: false,
    })
    expect(totals).toEqual({ subTotal: 16, lineCount: 1 })
  })

  it('carries a new customer as newVendor* with no vendorGuid and the catalog’s main price group', () => {
    const a = item()
    const lookup = new MemoryLookup([a], [])
    const check = checkDraft(
      draft({
        customerGuid: null,
        newCustomer: {
          name: 'Field Co',
          email: 'buyer@field.example',
          billTo: { address_line_one: '2 Main', city: 'Bend' },
          note: 'met at the fair',
        },
        lines: [line(a.guid, 1)],
      }),
      lookup,
    )
    const { request } = buildOrderRequest(check, lookup)
    expect(request.vendorGuid).toBeNull()
    expect(request.body).toMatchObject({
      priceGroupGuid: '55555555-5555-4555-8555-555555555555',
      newVendor: { name: 'Field Co', email: 'buyer@field.example' },
      newVendorBillTo: { address_line_one: '2 Main', city: 'Bend' },
      newVendorNote: 'met at the fair',
    })
  })

  it('refuses to build a request from a draft with errors', () => {
    const lookup = new MemoryLookup([])
    expect(() => buildOrderRequest(checkDraft(draft(), lookup), lookup)).toThrow(/problems to fix/)
  })
})
