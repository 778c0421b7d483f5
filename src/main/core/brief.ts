/**
 * The brief part as the app composes it: its client, its offline check, its write gate, the event that
 * tells the window a customer's history changed, and which customers the rep worked with (their drafts,
 * quotes and orders sent live in orders/ and quotes/, which brief/ does not know).
 */
import { createBrief, type Brief } from '../brief'
import { looksOffline, type ConnectivityMonitor } from '../connectivity'
import type { EventHub } from '../events'
import type { LocalData } from '../local/data'
import type { ServiceClients } from '../ordering-client/clients'
import type { Orders } from '../orders'
import { orderLookupOf } from '../orders/local-lookup'
import type { Clock, Logger } from '../ports'
import type { QuoteDesk } from '../quotes/desk'
import type { LongWrites } from '../sync/long-writes'

export interface CoreBriefParts {
  local: LocalData
  clock: Clock
  logger: Logger
  clients: ServiceClients
  connectivity: ConnectivityMonitor
  longWrites: LongWrites
  events: EventHub
  /** Built after the brief (the sync they share is built between): asked only once the core runs. */
  orders: () => Orders
  quotes: () => QuoteDesk
}

export function createCoreBrief(parts: CoreBriefParts): Brief {
  const brief = createBrief({
    local: parts.local,
    lookup: orderLookupOf(parts.local),
    clock: parts.clock,
    logger: parts.logger.child({ area: 'brief' }),
    client: () => parts.clients.forSaved(),
    offline: () => looksOffline(parts.connectivity),
    quietForMs: () => parts.connectivity.quietForMs(),
    beforeWrite: () => parts.longWrites.settled(),
    workedWith: (sinceIso) => workedWith(parts.orders(), parts.quotes(), sinceIso),
    onHistoryChanged: (customerGuid) => parts.events.emit('customerHistoryChanged', { customerGuid }),
  })
  // A sync may bring new items: "new since their last order" counts them again at the next brief.
  const unsubscribe = parts.events.subscribe((event) => {
    if (event.name === 'syncFinished') brief.itemsChanged()
  })
  return {
    ...brief,
    async close() {
      unsubscribe()
      await brief.close()
    },
  }
}

/** Customers of the rep's drafts and quotes changed, and orders sent, from `sinceIso` on. */
function workedWith(orders: Orders, quotes: QuoteDesk, sinceIso: string): Set<string> {
  const customers = new Set<string>()
  for (const draft of orders.desk.drafts.list())
    if (draft.customerGuid && draft.updatedAt >= sinceIso) customers.add(draft.customerGuid)
  for (const quote of quotes.quotes.list({ today: sinceIso.slice(0, 10) }))
    if (quote.updatedAt >= sinceIso) customers.add(quote.customerGuid)
  for (const sent of orders.desk.outbox.read.sentOrders())
    if (sent.customerGuid && sent.sentAt >= sinceIso) customers.add(sent.customerGuid)
  return customers
}
