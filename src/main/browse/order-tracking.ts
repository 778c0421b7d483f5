/**
 * The order-tracking methods: the full order as sync last fetched it, the "changed since I last
 * looked" marks and a customer's open orders, all read offline from local/order-details.ts.
 */
import type { Implementations } from '../../shared/contract'
import type { Database } from '../db/database'
import type { SentLine } from '../local/order-as-sent'
import { OrderDetails } from '../local/order-details'
import type { Clock } from '../ports'

type OrderTrackingMethods = Pick<
  Implementations,
  'getOrderTracking' | 'markOrderOpened' | 'listChangedOrders' | 'listOpenOrders'
>

/** `sentLinesOf`: the lines this laptop sent under an api_guid (the outbox's, which browse may not read itself). */
export function orderTrackingMethods(
  db: Database,
  clock: Clock,
  sentLinesOf?: (apiGuid: string) => readonly SentLine[] | null,
): OrderTrackingMethods {
  const details = new OrderDetails(db)
  return {
    getOrderTracking: (input) => details.tracking(input.guid, sentLinesOf),
    markOrderOpened: (input) => ({ changedCount: details.opened(input.guid, new Date(clock.now()).toISOString()) }),
    listChangedOrders: (input) => details.changed(input?.customerGuid ?? null),
    listOpenOrders: (input) => details.openOrders(input.customerGuid),
  }
}
