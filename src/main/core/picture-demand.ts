/**
 * Which items' pictures the rep needs, in the order they are needed, read from the parts that know:
 * open drafts, open quotes and orders waiting in the outbox; then the usual items of the day's
 * customers (those of those orders, and any the caller names); then the families on screen and what
 * the rep viewed, where the caller tells them (the window does not tell them yet).
 */
import type { PictureDemand, PictureTier } from '../pictures/item-pictures'
import type { LocalData } from '../local/data'
import { DraftRepository } from '../orders/drafts'
import { orderLookupOf } from '../orders/local-lookup'
import { OutboxReader } from '../orders/outbox/reader'
import type { Clock } from '../ports'
import { localDay } from '../quotes/desk'
import { QuoteRepository } from '../quotes/repository'
import { UsualItems } from '../usual-items/usual'

/** How many of a customer's usual items are fetched first: the rest come with the catalog. */
const usualPerCustomer = 200

interface DemandExtras {
  /** Customers the rep will see today beyond those of open orders. */
  customers?: () => string[]
  familiesOnScreen?: () => string[]
  viewed?: () => string[]
}

export function createPictureDemand(local: LocalData, clock: Clock, extras: DemandExtras = {}): PictureDemand {
  const { db } = local
  const drafts = new DraftRepository(db, clock)
  const quotes = new QuoteRepository(db)
  const outbox = new OutboxReader(db)
  const lookup = orderLookupOf(local)
  const usual = new UsualItems(local, lookup, clock, outbox)
  return {
    wanted() {
      const orderItems: string[] = []
      const customers = new Set<string>()
      for (const draft of drafts.list()) {
        if (draft.customerGuid) customers.add(draft.customerGuid)
        for (const line of draft.lines) orderItems.push(line.catalogItemGuid)
      }
      for (const summary of quotes.list({ today: localDay(clock.now()) })) {
        if (summary.convertedAt || summary.expired) continue
        customers.add(summary.customerGuid)
        for (const line of quotes.get(summary.id).lines) orderItems.push(line.catalogItemGuid)
      }
      for (const entry of outbox.unsentItems()) {
        if (entry.customerGuid) customers.add(entry.customerGuid)
        orderItems.push(...entry.itemGuids)
      }
      for (const customer of extras.customers?.() ?? []) customers.add(customer)
      const customerItems: string[] = []
      for (const customer of customers) {
        // A customer the local copy no longer has (removed by the supplier) has no usual items.
        if (!lookup.customer(customer)) continue
        for (const item of usual.list(customer, usualPerCustomer)) customerItems.push(item.guid)
      }
      const tiers: { tier: PictureTier; guids: string[] }[] = [
        { tier: 'orders', guids: orderItems },
        { tier: 'customers', guids: customerItems },
        { tier: 'families', guids: extras.familiesOnScreen?.() ?? [] },
        { tier: 'viewed', guids: extras.viewed?.() ?? [] },
      ]
      return tiers
    },
  }
}
