/**
 * The order-tracking methods: the full order as sync last fetched it, the "changed since I last
 * looked" marks and a customer's open orders, all read offline.
 */
import type { Implementations } from '../../shared/contract'
import type { Clock } from '../ports'
import type { SentLine } from './as-sent'
import type { TrackedOrders } from './tracked-orders'

export type OrderTrackingMethods = Pick<
  Implementations,
  'getOrderTracking' | 'markOrderOpened' | 'listChangedOrders' | 'listOpenOrders'
>

/** `sentLinesOf`: the lines this laptop sent under an api_guid (the outbox's). */
export function orderTrackingMethods(
  orders: TrackedOrders,
  clock: Clock,
  sentLinesOf: (apiGuid: string) => readonly SentLine[] | null,
): OrderTrackingMethods {
  return {
    getOrderTracking: (input) => orders.tracking(input.guid, sentLinesOf),
    markOrderOpened: (input) => ({ changedCount: orders.opened(input.guid, new Date(clock.now()).toISOString()) }),
    listChangedOrders: (input) => orders.changed(input?.customerGuid ?? null),
    listOpenOrders: (input) => orders.openOrders(input.customerGuid),
  }
}
