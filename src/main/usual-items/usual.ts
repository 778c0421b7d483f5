import type { UsualItem } from '../../shared/quotes'
import type { CatalogItems } from '../local/catalog-items/reads'
import type { Customers } from '../local/customers'
import type { LocalData } from '../local/data'
import type { OrderHistory } from '../local/order-history'
import { CoreError } from '../errors'
import type { Clock } from '../ports'
import { unitPriceAt } from '../pricing'
import type { OrderLookup } from '../orders/lookup'
import { OutboxReader } from '../orders/outbox/reader'
import { resolvePriceGroup } from '../orders/price-group'

type Json = Record<string, unknown>

const yearMs = 365 * 86_400_000

interface HistoryLine {
  guid: string | null
  id: number | null
  sku: string | null
  qty: number
}

interface PastOrder {
  apiGuid: string | null
  catalogGuid: string | null
  orderedAt: string
  lines: HistoryLine[]
}

interface Tally {
  guid: string
  catalogGuid: string
  orders: number
  lastQty: number
  lastOrderedAt: string
}

const text = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null)
const number = (value: unknown): number | null => (typeof value === 'number' && Number.isFinite(value) ? value : null)

/**
 * What a customer usually orders: every item on their orders of the last 12 months, from the synced
 * history and the orders sent from this laptop, ranked by how many orders had it, then by how
 * recently. Items the supplier removed are left out (they cannot be ordered or even looked up);
 * items no longer offered to the customer, or out of stock, are listed and marked, so the rep can
 * say so rather than wonder where they went.
 */
export class UsualItems {
  private readonly items: CatalogItems
  private readonly customers: Customers
  private readonly orders: OrderHistory
  private readonly dateFormat: Intl.DateTimeFormat

  constructor(
    local: LocalData,
    private readonly lookup: OrderLookup,
    private readonly clock: Clock,
    /** Orders sent from this laptop, counted before the next sync brings them back. */
    private readonly sent: Pick<OutboxReader, 'sentFor'> = new OutboxReader(local.db),
    /** The rep's locale: a date in a note is written as every screen writes one. */
    locale = 'en-US',
  ) {
    this.dateFormat = new Intl.DateTimeFormat(locale, { dateStyle: 'medium' })
    this.items = local.catalogItems
    this.customers = local.customers
    this.orders = local.orderHistory
  }

  list(customerGuid: string, limit = 20): UsualItem[] {
    const customer = this.lookup.customer(customerGuid)
    if (!customer) throw new CoreError('NOT_FOUND', 'That customer is not on this laptop.')
    const since = this.clock.now() - yearMs
    const tallies = new Map<string, Tally>()
    // A customer's year is thousands of lines of a few hundred items: each item is looked up once
    // (at bench size, 2,500 lines cost 50-100 ms of the core's time when each was its own look-up).
    const places = new Map<string, ReturnType<UsualItems['resolve']>>()
    const place = (line: HistoryLine, catalogGuid: string | null) => {
      const key = `${line.guid ?? ''}\u0000${line.id ?? ''}\u0000${line.sku ?? ''}\u0000${catalogGuid ?? ''}`
      let found = places.get(key)
      if (found === undefined) places.set(key, (found = this.resolve(line, catalogGuid)))
      return found
    }
    for (const order of this.pastOrders(customerGuid, since)) {
      const inThisOrder = new Map<string, { catalogGuid: string; qty: number }>()
      for (const line of order.lines) {
        const item = place(line, order.catalogGuid)
        if (!item) continue
        const seen = inThisOrder.get(item.guid)
        inThisOrder.set(item.guid, { catalogGuid: item.catalog_guid, qty: (seen?.qty ?? 0) + line.qty })
      }
      for (const [guid, { catalogGuid, qty }] of inThisOrder) {
        const tally = tallies.get(guid)
        if (!tally) tallies.set(guid, { guid, catalogGuid, orders: 1, lastQty: qty, lastOrderedAt: order.orderedAt })
        else {
          tally.orders += 1
          if (order.orderedAt > tally.lastOrderedAt)
            Object.assign(tally, { lastQty: qty, lastOrderedAt: order.orderedAt })
        }
      }
    }

    const allowed = this.lookup.catalogsForCustomer(customerGuid)
    const items: UsualItem[] = []
    // The price group depends on the catalog and the customer only: resolved once per catalog.
    const groups = new Map<string, ReturnType<typeof resolvePriceGroup>>()
    for (const tally of tallies.values()) {
      const item = this.lookup.catalogItem(tally.catalogGuid, tally.guid)
      if (!item || item.deleted) continue
      if (!groups.has(tally.catalogGuid))
        groups.set(tally.catalogGuid, resolvePriceGroup(this.lookup, tally.catalogGuid, null, customer))
      const group = groups.get(tally.catalogGuid)
      const price = group ? unitPriceAt(item, group.name, tally.lastQty) : { offered: false as const, unitPrice: null }
      const offered = item.active && price.offered && (allowed === null || allowed.includes(tally.catalogGuid))
      const outOfStock =
        item.hasInventory && !item.allowBackorder && item.qtyAvailable !== null && item.qtyAvailable <= 0
      const syncedAt = this.items.placeByGuid(tally.guid)?.synced_at ?? null
      items.push({
        guid: item.guid,
        sku: item.sku,
        name: item.name,
        catalogGuid: tally.catalogGuid,
        orders: tally.orders,
        lastQty: tally.lastQty,
        lastOrderedAt: tally.lastOrderedAt,
        price: offered ? price.unitPrice : null,
        offered,
        available: offered && !outOfStock,
        note: !offered
          ? 'not offered any more'
          : outOfStock
            ? `out of stock as of ${syncedAt ? this.dateFormat.format(new Date(syncedAt)) : 'the last sync'}`
            : null,
        upc: item.upc,
        qtyAvailable: item.qtyAvailable,
        incoming: item.qtyIncoming,
        stockAsOf: syncedAt,
      })
    }
    items.sort(
      (a, b) => b.orders - a.orders || b.lastOrderedAt.localeCompare(a.lastOrderedAt) || a.sku.localeCompare(b.sku),
    )
    return items.slice(0, limit)
  }

  private pastOrders(customerGuid: string, since: number): PastOrder[] {
    const orders: PastOrder[] = []
    const known = new Set<string>()
    const id = this.customers.idOf(customerGuid)
    for (const row of this.orders.customerSince({ guid: customerGuid, id }, since)) {
      if (row.api_guid) known.add(row.api_guid.toLowerCase())
      const record = JSON.parse(row.json) as Json
      const lines = Array.isArray(record.Order_Items) ? (record.Order_Items as unknown[]) : []
      orders.push({
        apiGuid: row.api_guid,
        catalogGuid: row.catalog_guid,
        orderedAt: row.created_at ?? '',
        lines: lines.filter((line): line is Json => Boolean(line) && typeof line === 'object').map(historyLine),
      })
    }
    // Sent from this laptop but not yet in the synced history (it is recorded in batches, and a sync
    // may not have run since).
    for (const sent of this.sent.sentFor(customerGuid, new Date(since).toISOString())) {
      if (known.has(sent.apiGuid.toLowerCase())) continue
      orders.push({
        apiGuid: sent.apiGuid,
        catalogGuid: sent.catalogGuid,
        orderedAt: sent.at,
        lines: sent.lines.map((line) => ({ guid: line.catalogItemGuid, id: null, sku: line.sku, qty: line.qty })),
      })
    }
    return orders
  }

  /** A history line names its item by guid, by id (the list projection) or at least by SKU. */
  private resolve(line: HistoryLine, catalogGuid: string | null) {
    if (line.guid) {
      const byGuid = this.items.placeByGuid(line.guid)
      if (byGuid) return byGuid
    }
    if (line.id !== null) {
      const byId = this.items.placeById(line.id)
      if (byId) return byId
    }
    if (line.sku && catalogGuid) return this.items.placeBySku(catalogGuid, line.sku) ?? null
    return null
  }
}

function historyLine(line: Json): HistoryLine {
  const item = (line.Catalog_Item && typeof line.Catalog_Item === 'object' ? line.Catalog_Item : {}) as Json
  return {
    guid: text(line.catalog_item_guid) ?? text(item.guid),
    id: number(line.catalog_item_id) ?? number(item.id),
    sku: text(line.sku) ?? text(item.sku),
    qty: number(line.qty) ?? 0,
  }
}
