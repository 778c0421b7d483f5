/**
 * A customer's brief, built from the local copy only: their order history over 24 months (as far
 * back as it is held, and said so when that is not all of it), their catalog on this laptop, the
 * orders' full copies and the customer record. Nothing here reaches the service.
 */
import type { BriefLapsedItem, BriefTopItem, CustomerBrief } from '../../shared/brief'
import { CoreError } from '../errors'
import type { LocalData } from '../local/data'
import type { CatalogItemFacts, CustomerFacts, OrderLookup } from '../orders/lookup'
import { resolvePriceGroup } from '../orders/price-group'
import { unitPriceAt } from '../pricing'
import { objectOf, type Json } from '../tracking/status'
import { dayText, historyStart, shortHistoryNote } from './calendar'
import {
  kindOf,
  lapsedItems,
  rawLines,
  salesByMonth,
  stillOwed,
  topItems,
  valueOrder,
  type HistoryOrder,
  type ItemTally,
} from './figures'

/** Top and lapsed items listed at most: what a rep reads before a visit. */
const itemsListed = 20

/** An item of the history as the customer's catalog on this laptop has it today. */
interface ItemToday {
  priceToday: number | null
  itemGuid: string | null
  note: string | null
}

interface ValuedOrders {
  version: string
  orders: HistoryOrder[]
  lastOrder: { at: string; catalogGuid: string | null } | null
  oldestMs: number | null
}

/** Customers whose valued orders are kept between calls. */
const customersKept = 8

export class CustomerBriefs {
  private readonly kept = new Map<string, ValuedOrders>()

  constructor(
    private readonly local: LocalData,
    private readonly lookup: OrderLookup,
  ) {}

  /** `countNew`: the catalog's items created after a moment (new-items.ts's, where held; else a read of them). */
  build(
    customerGuid: string,
    now: number,
    countNew: (catalogGuid: string, sinceIso: string) => number = (catalogGuid, sinceIso) =>
      this.local.catalogItems.countCreatedSince(catalogGuid, sinceIso),
  ): CustomerBrief {
    const row = this.local.customers.byGuid(customerGuid)
    const facts = this.lookup.customer(customerGuid)
    if (!row || !facts) throw new CoreError('NOT_FOUND', 'That customer is not on this laptop.')
    const start = historyStart(now)
    const items = this.itemsToday(customerGuid, facts)
    const { orders, lastOrder, oldestMs } = this.valuedOrders({ guid: customerGuid, id: row.id }, start, items)
    const today = (tally: ItemTally) => items(tally.catalogGuid, tally)
    const topItemsOf = topItems(orders, now, itemsListed).map((tally): BriefTopItem => ({
      sku: tally.sku,
      name: tally.name,
      qty: tally.qty,
      value: tally.value,
      lastOrdered: dayText(tally.lastOrderedMs),
      itemGuid: today(tally).itemGuid,
      note: today(tally).note,
    }))
    const lapsed = lapsedItems(orders, now, itemsListed).map((tally): BriefLapsedItem => ({
      sku: tally.sku,
      name: tally.name,
      monthsOrdered: tally.months.size,
      lastOrdered: dayText(tally.lastOrderedMs),
      itemGuid: today(tally).itemGuid,
      note: today(tally).note,
    }))

    const newest = lastOrder
    const newItemsCatalogGuid = this.catalogOf(customerGuid, newest?.catalogGuid ?? null)
    return {
      customer: { guid: customerGuid, name: row.name },
      history: this.historyOf(customerGuid, oldestMs, now),
      months: salesByMonth(orders, now),
      topItems: topItemsOf,
      lapsed,
      backordered: this.owed(customerGuid),
      newItems: newest && newItemsCatalogGuid ? countNew(newItemsCatalogGuid, newest.at) : 0,
      newItemsCatalogGuid,
      lastOrderedAt: newest?.at ?? null,
      credit:
        facts.creditLimit === null && facts.openBalance === null
          ? null
          : { balance: facts.openBalance, limit: facts.creditLimit },
      currency: null,
    }
  }

  /** The catalog items changed (a sync): the prices today that share out sub-totals may have too. */
  itemsChanged(): void {
    this.kept.clear()
  }

  /**
   * The customer's orders read and valued, oldest first, with their last order (not a quote) and the
   * oldest one's time. Kept for the last few customers while their orders and the items stand as
   * they were: parsing 500 orders' records (2 MB) is most of a brief's time, and a rep goes back and
   * forth between a customer's brief and their orders.
   */
  private valuedOrders(
    customer: { guid: string; id: number | null },
    start: number,
    items: (catalogGuid: string | null, line: { id: number | null; sku: string }) => ItemToday,
  ): ValuedOrders {
    const version = this.local.orderHistory.briefVersion(customer, start)
    const kept = this.kept.get(customer.guid)
    if (kept?.version === version) return kept
    const rows = this.local.orderHistory.forBrief(customer, start)
    let lastOrder: ValuedOrders['lastOrder'] = null
    const orders: HistoryOrder[] = rows.map((order) => {
      const record = JSON.parse(order.json) as Json
      const kind = kindOf(record)
      if (kind !== 'quote' && typeof record.created_at === 'string')
        lastOrder = { at: record.created_at, catalogGuid: order.catalog_guid }
      const lines = rawLines(record, order.catalog_guid).map((line) => ({
        ...line,
        priceToday: items(order.catalog_guid, line).priceToday,
      }))
      const valued = valueOrder(order.sub_total, lines)
      return { createdMs: order.created_ms, kind, value: valued.value, lines: valued.lines }
    })
    const valued = { version, orders, lastOrder, oldestMs: rows[0]?.created_ms ?? null }
    this.kept.delete(customer.guid)
    this.kept.set(customer.guid, valued)
    // The oldest kept goes first: a Map iterates in insertion order.
    for (const guid of this.kept.keys()) if (this.kept.size > customersKept) this.kept.delete(guid)
    return valued
  }

  /** How far back the history is held: whole only when a read got to 24 months (or the list's end). */
  private historyOf(customerGuid: string, oldestHeldMs: number | null, now: number): CustomerBrief['history'] {
    const held = this.local.customerHistories.get(customerGuid)
    const start = historyStart(now)
    const complete = held?.complete === 1
    // Never read: the sync's recent orders are all there is, back to the oldest of theirs held.
    const fromMs = held?.covered_from_ms ?? oldestHeldMs
    const shownFrom = fromMs === null ? null : Math.max(fromMs, start)
    return {
      from: shownFrom === null ? null : dayText(shownFrom),
      complete,
      fetchedAt: held?.fetched_at ?? null,
      note: complete ? null : shortHistoryNote(shownFrom, now),
    }
  }

  /** The catalog their new items are counted in: the only one they may order from, else their last order's. */
  private catalogOf(customerGuid: string, lastOrderCatalog: string | null): string | null {
    const allowed = this.lookup.catalogsForCustomer(customerGuid)
    if (allowed?.length === 1) return allowed[0]!
    return lastOrderCatalog ?? this.lookup.lastOrderCatalog(customerGuid) ?? allowed?.[0] ?? null
  }

  private owed(customerGuid: string): CustomerBrief['backordered'] {
    const full = this.local.orderDetails.customerRows(customerGuid).flatMap((row) => {
      const order = JSON.parse(row.json) as Json
      if (!JSON.stringify(order.Order_Items ?? []).includes('qty_backordered')) return []
      const related = JSON.parse(this.local.orderDetails.detail(row.guid)?.related_json ?? '[]') as unknown
      return [{ order, related: Array.isArray(related) ? related.map(objectOf) : [] }]
    })
    return stillOwed(full)
  }

  /**
   * Looks up each item of the history once in the customer's catalog on this laptop: its price for
   * them today (to share an order's sub-total among its lines) and whether Add to order can offer it.
   */
  private itemsToday(customerGuid: string, customer: CustomerFacts) {
    const allowed = this.lookup.catalogsForCustomer(customerGuid)
    const groups = new Map<string, ReturnType<typeof resolvePriceGroup>>()
    const seen = new Map<string, ItemToday>()
    return (catalogGuid: string | null, line: { id: number | null; sku: string }): ItemToday => {
      const key = `${catalogGuid ?? ''}|${line.id ?? ''}|${line.sku.toLowerCase()}`
      const known = seen.get(key)
      if (known) return known
      let found: ItemToday = { priceToday: null, itemGuid: null, note: 'not in their catalog on this laptop' }
      const item = catalogGuid ? this.find(catalogGuid, line) : null
      if (catalogGuid && item) {
        if (!groups.has(catalogGuid))
          groups.set(catalogGuid, resolvePriceGroup(this.lookup, catalogGuid, null, customer))
        const group = groups.get(catalogGuid)
        const price = group ? unitPriceAt(item, group.name, 1) : { offered: false, unitPrice: null }
        const orderable =
          item.active && !item.deleted && price.offered && (allowed === null || allowed.includes(catalogGuid))
        found = {
          priceToday: price.unitPrice,
          itemGuid: orderable ? item.guid : null,
          note: orderable ? null : 'not offered any more',
        }
      }
      seen.set(key, found)
      return found
    }
  }

  private find(catalogGuid: string, line: { id: number | null; sku: string }): CatalogItemFacts | null {
    const byId = line.id !== null ? this.local.catalogItems.byIdIn(catalogGuid, line.id) : undefined
    const item = byId ? this.lookup.catalogItem(catalogGuid, byId.guid) : null
    if (item) return item
    if (line.sku === '') return null
    const bySku = this.lookup.catalogItemBySku(catalogGuid, line.sku)
    return bySku && !('ambiguous' in bySku) ? bySku : null
  }
}
