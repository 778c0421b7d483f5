/**
 * Life after Send, in one home: what the service confirmed for a send joins the local history at once,
 * each run of sync then fetches the full orders (those of the window and every one sent from this
 * laptop), and their status and "changed since I looked" are worked out here for the order screen,
 * the customer page and `satchel orders`.
 *
 * One object, built once by the composer (and the CLI), serves both parts that meet an order after
 * Send: orders/ records what a send confirmed through it (orders' SendConfirmations port) and sync/ fetches
 * the full orders through it (sync's OrderDetailStep port). Neither calls the other.
 */
import type { Database } from '../db/database'
import type { LocalData } from '../local/data'
import type { CustomerRecord, OrderRecord } from '../ordering-client/schemas'
import { OutboxReader } from '../orders/outbox/reader'
import type { Clock, Logger } from '../ports'
import type { OrderDetailReport, OrderDetailSource } from '../sync/run'
import { fetchOrderDetails } from './fetch-details'
import { orderTrackingMethods, type OrderTrackingMethods } from './methods'
import { TrackedOrders } from './tracked-orders'

export interface Tracking {
  /** A customer created with an order is needed at once: the rep's next draft may be for them. */
  recordCustomer(customer: CustomerRecord): void
  /** Orders the service accepted join the history before the next sync lists them. */
  recordOrders(orders: OrderRecord[]): void
  /** After a sync's listings: the full orders whose copy is missing or older, at most the rep's setting. */
  fetchDetails(source: OrderDetailSource, signal: AbortSignal): Promise<OrderDetailReport>
  orders: TrackedOrders
  methods: OrderTrackingMethods
}

export interface TrackingOptions {
  /** For the outbox's sent orders; the synced orders and their full copies are read through `local`. */
  db: Database
  local: LocalData
  clock: Clock
  logger: Logger
  /** Full orders fetched per sync at most (the rep's setting). */
  detailsPerSync: () => number
  /** Orders placed this many days back are followed (default 90). */
  windowDays?: number
  /** The api_guids of orders sent from this laptop, fetched whatever their age (default: the outbox's). */
  sentApiGuids?: () => readonly string[]
}

export function createTracking(options: TrackingOptions): Tracking {
  const { db, local, clock, logger } = options
  const orders = new TrackedOrders(local)
  const outbox = new OutboxReader(db)
  // Outside any listing: nothing is removed for not being listed.
  const unlisted = { listingId: null, serverTime: null }
  const localHistory = () => local.copy
  return {
    recordCustomer: (customer) =>
      localHistory().applyCustomers([{ customer, connection: {}, connectionDeletedAt: null }], unlisted),
    recordOrders: (sent) => localHistory().applyOrders(sent, unlisted),
    fetchDetails: (source, signal) =>
      fetchOrderDetails({
        details: orders,
        source,
        policy: {
          limit: options.detailsPerSync,
          sentApiGuids: options.sentApiGuids ?? (() => outbox.sentOrders().map((sent) => sent.apiGuid)),
          ...(options.windowDays !== undefined ? { windowDays: options.windowDays } : {}),
        },
        clock,
        logger,
        signal,
      }),
    orders,
    methods: orderTrackingMethods(orders, clock, (apiGuid) => outbox.printable(apiGuid)?.draft.lines ?? null),
  }
}
