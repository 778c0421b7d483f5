/** A synced order as the orders list and the order screen read it: its summary, lines, totals and addresses. */
import { orderStateName } from '../../shared/order-states'
import type { Address, OrderLine, OrderSummary, OrderTotals, SentOrderSummary } from '../../shared/synced'
import { localMidnight, type OrderListOptions, type OrderRow } from '../local/order-history'
import { numberOrNull, text } from './values'

/** The list's search and filters, applied to an order sent from this laptop as to a synced one. */
export function sentMatches(entry: SentOrderSummary, options: OrderListOptions): boolean {
  if (options.customerGuid && entry.customerGuid !== options.customerGuid) return false
  const query = options.query?.trim().toLowerCase()
  if (query && ![entry.orderName, entry.poNo, entry.customerName].some((field) => field?.toLowerCase().includes(query)))
    return false
  if (options.stateId !== undefined && entry.orderStateId !== options.stateId) return false
  const at = Date.parse(entry.sentAt)
  if (options.from && !(at >= localMidnight(options.from))) return false
  if (options.to && !(at < localMidnight(options.to, 1))) return false
  return true
}

export function orderTotals(record: Record<string, unknown>): OrderTotals {
  return {
    subTotal: numberOrNull(record.sub_total),
    tax: numberOrNull(record.tax),
    shipping: numberOrNull(record.shipping),
    labor: numberOrNull(record.labor),
    other: numberOrNull(record.other),
    discount: numberOrNull(record.discount_total) ?? numberOrNull(record.discount),
    grandTotal: numberOrNull(record.grand_total),
  }
}

export function addressesOf(record: Record<string, unknown>): Address[] {
  const addresses: Address[] = []
  const seen = new Set<string>()
  for (const [key, kind] of [
    ['Bill_To', 'billTo'],
    ['Ship_To', 'shipTo'],
  ] as const) {
    const value = record[key]
    if (!value || typeof value !== 'object' || Array.isArray(value)) continue
    const address = value as Record<string, unknown>
    const guid = text(address.guid)
    const identity = guid ?? `${kind}:${JSON.stringify(address)}`
    if (seen.has(identity)) continue
    seen.add(identity)
    addresses.push({
      guid,
      kind,
      name: text(address.name),
      companyName: text(address.company_name),
      addressLineOne: text(address.address_line_one),
      addressLineTwo: text(address.address_line_two),
      city: text(address.city),
      state: text(address.state),
      postalCode: text(address.postal_code),
      country: text(address.country),
      isMainShipTo: address.is_vendor_main_ship_to === true,
      record: address,
    })
  }
  return addresses
}

export function orderSummary(row: OrderRow, record: Record<string, unknown>): OrderSummary {
  const items = Array.isArray(record.Order_Items) ? record.Order_Items : []
  return {
    guid: row.guid,
    id: row.id,
    name: row.name,
    apiGuid: row.api_guid,
    customerGuid: row.customer_guid,
    customerName: row.customer_name ?? text((record.Vendor as Record<string, unknown> | undefined)?.name),
    catalogGuid: row.catalog_guid,
    state: {
      id: row.order_state_id,
      name: row.order_state_name ?? orderStateName(row.order_state_id),
    },
    poNo: row.po_no,
    subTotal: row.sub_total,
    grandTotal: row.grand_total,
    createdAt: row.created_at,
    lineCount: items.length,
  }
}

export function orderLines(record: Record<string, unknown>): OrderLine[] {
  const items = Array.isArray(record.Order_Items) ? record.Order_Items : []
  return items
    .filter((item): item is Record<string, unknown> => Boolean(item) && typeof item === 'object')
    .map((item) => {
      const catalogItem = (
        item.Catalog_Item && typeof item.Catalog_Item === 'object' ? item.Catalog_Item : {}
      ) as Record<string, unknown>
      return {
        itemNo: numberOrNull(item.item_no),
        catalogItemGuid: text(item.catalog_item_guid) ?? text(catalogItem.guid),
        catalogItemId: numberOrNull(item.catalog_item_id) ?? numberOrNull(catalogItem.id),
        sku: text(item.sku) ?? text(catalogItem.sku),
        name: text(item.name) ?? text(catalogItem.name),
        qty: numberOrNull(item.qty),
        note: text(item.note),
        unitPrice: numberOrNull(item.net_price),
        lineTotal: numberOrNull(item.total),
      }
    })
}
