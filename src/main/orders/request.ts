import type { AddressInput, Draft, DraftCheck } from '../../shared/orders'
import { CoreError } from '../errors'
import type { OrderLookup } from './lookup'
import { resolvePriceGroup } from './price-group'
import { quantityProblem } from './validation'

/** The frozen request of an outbox entry: what goes to POST /v1/orderWithItems, byte for byte, on every attempt. */
export interface OrderRequest {
  /** Header `vendorGuid`; absent for a customer created with the order. */
  vendorGuid: string | null
  body: Record<string, unknown>
}

/** The order creates its customer (newVendor): the service names the new customer in what it returns. */
export function createsCustomer(request: OrderRequest): boolean {
  return 'newVendor' in request.body
}

/**
 * The frozen body of an order for a customer made offline, once that customer exists on the service:
 * sent for it (the vendorGuid header) rather than creating it again with the order. The same body on
 * every attempt, so the api_guid still answers a resend with the order it already holds.
 */
export function forCustomer(body: Record<string, unknown>, customerGuid: string | null): Record<string, unknown> {
  if (!customerGuid) return body
  const {
    newVendor: _v,
    newVendorBillTo: _b,
    newVendorShipTo: _s,
    newVendorContact: _c,
    newVendorNote: _n,
    ...rest
  } = body
  return rest
}

/** What the rep saw when sending, to compare with the service's totals. */
export interface RepTotals {
  subTotal: number
  lineCount: number
}

function compact<T extends Record<string, unknown>>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined && v !== '')) as Partial<T>
}

/**
 * Turns a checked draft into the service's request, with the spec's names at the wire. Refuses a
 * draft whose check has errors: an order the rules already reject must not reach the outbox.
 */
export function buildOrderRequest(
  check: DraftCheck,
  lookup: OrderLookup,
): { request: OrderRequest; totals: RepTotals } {
  if (!check.sendable) throw new CoreError('CONFLICT', 'This order has problems to fix before it can be sent.')
  const draft: Draft = check.draft
  // The check refuses these already; a frozen request is never built from a quantity or total that is not one.
  const badLine = draft.lines.findIndex((line) => quantityProblem(line.qty) !== null)
  if (badLine >= 0 || !Number.isFinite(check.subTotal)) {
    throw new CoreError(
      'CONFLICT',
      badLine >= 0
        ? `Line ${badLine + 1} has a quantity that cannot be sent.`
        : 'This order’s total is not a number that can be sent.',
    )
  }
  const customer = draft.customerGuid ? lookup.customer(draft.customerGuid) : null
  const group = resolvePriceGroup(lookup, draft.catalogGuid!, draft.priceGroupGuid, customer)
  if (!group) throw new CoreError('CONFLICT', 'No price group applies to this order.')

  let shipTo: AddressInput | undefined
  if (draft.shipTo?.kind === 'new') shipTo = draft.shipTo.address
  else if (draft.shipTo?.kind === 'customerAddress') {
    const guid = draft.shipTo.addressGuid
    shipTo = customer?.addresses.find((a) => a.guid === guid)?.address
  }

  const body: Record<string, unknown> = {
    catalogGuid: draft.catalogGuid,
    priceGroupGuid: group.guid,
    order: compact({
      po_no: draft.poNo.trim(),
      note: draft.note,
      shipping_instructions: draft.shippingInstructions,
      api_guid: draft.apiGuid,
    }),
    orderItems: draft.lines.map((line) =>
      compact({ catalog_item_guid: line.catalogItemGuid, qty: line.qty, note: line.note }),
    ),
    source: 'APP',
    remainInPreliminary: draft.remainInPreliminary,
  }
  if (shipTo) body.shipTo = shipTo
  const newCustomer = draft.newCustomer
  if (!draft.customerGuid && newCustomer) {
    body.newVendor = compact({
      name: newCustomer.name,
      email: newCustomer.email,
      phone: newCustomer.phone,
      customer_internal_id: newCustomer.customer_internal_id,
    })
    if (newCustomer.billTo) body.newVendorBillTo = newCustomer.billTo
    if (newCustomer.shipTo) body.newVendorShipTo = newCustomer.shipTo
    if (newCustomer.contact) body.newVendorContact = newCustomer.contact
    if (newCustomer.note) body.newVendorNote = newCustomer.note
  }
  return {
    request: { vendorGuid: draft.customerGuid, body },
    totals: { subTotal: check.subTotal, lineCount: draft.lines.length },
  }
}
