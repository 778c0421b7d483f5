/**
 * The order side of the core: drafts, the outbox, its flusher and the driver that decides when to
 * send. compose.ts wires it to tracking/ (what a send confirmed), to the service clients (fresh prices
 * before Send) and to the contract; it knows nothing of sync.
 */
import type { OutboxSummary } from '../../shared/orders'
import type { Database } from '../db/database'
import type { LocalData } from '../local/data'
import { Lease } from '../db/lease'
import type { CustomerRecord, OrderRecord } from '../ordering-client/schemas'
import type { OrderWithItemsResult } from '../ordering-client/client'
import type { Clock, Logger } from '../ports'
import { OrderDesk } from './desk'
import { coalesce, createOutboxDriver, type OutboxDriver } from './outbox/driver'
import { OutboxFlusher, type FlushProbePoint, type OrderSender } from './outbox/flusher'
import type { OutboxWork } from './outbox/outbox'
import { orderLookupOf, type LocalOrderLookup } from './local-lookup'
import { NewCustomerFormKeeper } from './new-customer-form'
import { freshItems } from './fresh-items'
import { codesFromService, type CodeSource, type CodesAsked } from './codes-from-service'
import { itemOfCode } from './item-of-code'
import type { WriteRules } from './outbox/write-kinds'
import { customerWriteRules } from './customer-writes'

/** Where what the service confirmed is recorded in the local copy (tracking/ in the app). */
interface SendConfirmations {
  /** A customer created with an order is needed at once: the rep's next draft may be for them. */
  recordCustomer(customer: CustomerRecord): void
  recordOrders(orders: OrderRecord[]): void
}

/** What the desktop shell needs to know about sending, to hold a quit or an update restart. */
export interface OutboxActivity {
  /** True while an order request is on the wire (POST /v1/orderWithItems sent, answer not yet in). */
  isSending(): boolean
  /** Orders in the outbox not yet accepted by the service. */
  unsentCount(): number
  /** Resolves true once nothing is being sent, or false when `timeoutMs` passes first. */
  waitUntilIdle(timeoutMs: number): Promise<boolean>
}

export interface OrdersOptions {
  /** For the orders' own tables (drafts, the outbox, its lease); the synced ones are read through `local`. */
  db: Database
  local: LocalData
  clock: Clock
  logger: Logger
  /** Who this process is, in words, for other processes' "waiting for …" messages ("the desktop app", "satchel flush"). */
  label?: string
  /** How long the outbox lease lasts unless renewed (src/main/db/lease.ts). */
  leaseTtlMs?: number
  sender: () => Promise<OrderSender | null>
  /** Which secret a saved connection lacks on this laptop, if any: the outbox pauses saying so. */
  missingCredential?: () => Promise<'apiKey' | 'session' | null>
  defaults: () => { remainInPreliminary: boolean }
  /** The rep's locale, for amounts in the checks' messages (default en-US, as the CLI keeps). */
  locale?: string
  confirmations?: SendConfirmations
  /** The outbox's summary after it changed, at most once per `changeDelayMs` (default 50 ms). */
  onOutboxChanged?: (summary: OutboxSummary) => void
  changeDelayMs?: number
  /** After each flush the driver started, with what is left. */
  afterFlush?: (summary: OutboxSummary) => void
  /** How much longer the service's last Retry-After runs: the driver sends nothing before (driver.ts). */
  quietForMs?: () => number
  /** Whether the app says Offline: the driver attempts nothing meanwhile (driver.ts). */
  offline?: () => boolean
  /** This install's place in [0, 1): after the service's own outage, its waiting orders go at that place in a window (driver.ts). */
  afterOutageShare?: number
  probe?: (point: FlushProbePoint, work: OutboxWork) => void
  random?: () => number
  /**
   * Reads a draft's items again before Send (fresh-items.ts), and the items of codes the local copy
   * lacks (codes-from-service.ts): a client making one quick attempt.
   */
  freshItemSource?: () => Promise<CodeSource | null>
  /** How each kind of write after Send is sent (tracking/order-writes.ts for orders after Send). */
  writeRules?: WriteRules
}

export interface Orders {
  desk: OrderDesk
  /** The order rules' view of the local copy, for the parts that look up as orders do (usual items, documents). */
  lookup: LocalOrderLookup
  /** The new-customer form being typed, before it becomes a draft. */
  newCustomerForm: NewCustomerFormKeeper
  flusher: OutboxFlusher
  driver: OutboxDriver
  activity: OutboxActivity
  /** Orders that go by themselves once the service answers (queued, sending, retrying): reason to keep watching it. */
  waitingCount(): number
  /** The outbox changed outside the flusher (queued, edited, discarded): tell the window. */
  changed(): void
  /**
   * Before sending, when online: the draft's items are read again from the service, so a price or
   * stock change since drafting is shown to the rep rather than found out by the supplier.
   */
  refreshBeforeSending(draftId: number): Promise<void>
  /**
   * Before lines are added by code, when online: the codes the local copy lacks are asked of the
   * service, and the items it has are written into the local copy, so they add like any other.
   */
  askServiceForCodes(draftId: number, lines: { sku?: string }[]): Promise<CodesAsked>
  /** When the draft's catalog last finished syncing (ISO), or null: what "as of the last sync" means. */
  catalogSyncedAt(catalogGuid: string): string | null
  /** Stops sending; an order in flight gets a bounded chance to finish, else it is resent with its api_guid next start. */
  close(): Promise<void>
}

/** Lines' embedded catalog items (most of a confirmation's size) are left out, as the order list's projection does. */
function withoutEmbeddedItems(order: OrderRecord): OrderRecord {
  const lines: unknown = (order as Record<string, unknown>).Order_Items
  if (!Array.isArray(lines)) return order
  const slim = lines.map((line: unknown) => {
    if (typeof line !== 'object' || line === null) return line
    const { Catalog_Item: _item, ...rest } = line as Record<string, unknown>
    return rest
  })
  return { ...order, Order_Items: slim }
}

/** Builds the order side of the core. It writes nothing: interrupted sends are recovered by whoever takes over the outbox lease. */
export function createOrders(options: OrdersOptions): Orders {
  const { logger, confirmations } = options
  const lookup = orderLookupOf(options.local)
  const desk = new OrderDesk(options.db, lookup, options.clock, options.defaults, options.locale)
  const lease = new Lease(options.db, 'outbox', {
    label: options.label ?? 'Satchel',
    clock: options.clock,
    ...(options.leaseTtlMs ? { ttlMs: options.leaseTtlMs } : {}),
  })

  let closed = false
  const onOutboxChanged = options.onOutboxChanged
  const changes = coalesce(() => onOutboxChanged?.(desk.outbox.summary()), options.changeDelayMs ?? 50)
  // Sent orders join the order history when the sending is done, in batches between which the
  // window gets the event loop back: writing each one while sending cost a third of a flush.
  const sentForHistory: OrderRecord[] = []
  const recordHistory = async (): Promise<void> => {
    while (confirmations && sentForHistory.length > 0 && !closed) {
      confirmations.recordOrders(sentForHistory.splice(0, 100))
      if (sentForHistory.length > 0) await new Promise((resolve) => setImmediate(resolve))
    }
  }

  const flusher = new OutboxFlusher({
    outbox: desk.outbox,
    sender: options.sender,
    ...(options.missingCredential ? { missingCredential: options.missingCredential } : {}),
    clock: options.clock,
    logger: logger.child({ component: 'outbox' }),
    lease,
    ...(options.random ? { random: options.random } : {}),
    ...(confirmations
      ? {
          onSent: (result: OrderWithItemsResult) => {
            if (result.vendor) confirmations.recordCustomer(result.vendor)
            sentForHistory.push(withoutEmbeddedItems(result.order))
          },
          onSettled: recordHistory,
        }
      : {}),
    ...(onOutboxChanged ? { onChange: changes.changed } : {}),
    // The customer the service made is on this laptop at once, and the drafts made for it are its.
    // A failure here costs only the wait for the next sync: the entry is sent and its orders go by it.
    onCustomerMade: (key, customer) => {
      try {
        confirmations?.recordCustomer(customer)
        if (lookup.customer(customer.guid)) desk.drafts.followCustomer(key, customer.guid)
      } catch (error) {
        logger.warn('could not record the customer the service made; the next sync brings it', {
          error: error instanceof Error ? error.message : String(error),
        })
      }
    },
    ...(options.probe ? { probe: options.probe } : {}),
    // Customers the rep makes or changes are the order side's; orders after Send are tracking's.
    writeRules: { ...customerWriteRules, ...options.writeRules },
  })
  const driver = createOutboxDriver({
    outbox: desk.outbox,
    flusher,
    clock: options.clock,
    logger,
    ...(options.afterFlush ? { afterFlush: options.afterFlush } : {}),
    ...(options.quietForMs ? { quietForMs: options.quietForMs } : {}),
    ...(options.offline ? { offline: options.offline } : {}),
    ...(options.afterOutageShare === undefined ? {} : { afterOutageShare: options.afterOutageShare }),
  })

  const refreshItems = options.freshItemSource
    ? freshItems(options.local, options.freshItemSource, options.clock)
    : null
  const refreshBeforeSending = async (draftId: number) => {
    const draft = desk.drafts.get(draftId)
    if (!refreshItems || !draft.catalogGuid || draft.lines.length === 0) return
    try {
      await refreshItems(
        draft.catalogGuid,
        [...new Set(draft.lines.map((line) => line.catalogItemGuid))],
        draft.customerGuid,
      )
    } catch (error) {
      // Offline or slow: the check runs on the local copy, as it does with no network at all.
      logger.info('could not refresh items before sending; using the local copy', {
        error: error instanceof Error ? error.message : String(error),
      })
    }
  }

  const askCodes = options.freshItemSource
    ? codesFromService(options.local, options.freshItemSource, options.offline ?? (() => false))
    : null
  const askServiceForCodes = async (draftId: number, lines: { sku?: string }[]): Promise<CodesAsked> => {
    const draft = desk.drafts.get(draftId)
    const catalogGuid = draft.catalogGuid
    if (!askCodes || !catalogGuid) return { fetched: [], asked: false }
    const missing = lines.flatMap((line) =>
      line.sku !== undefined && itemOfCode(lookup, catalogGuid, line.sku) === null ? [line.sku] : [],
    )
    if (missing.length === 0) return { fetched: [], asked: false }
    try {
      return await askCodes(catalogGuid, missing, draft.customerGuid)
    } catch (error) {
      // Offline, slow or refused: the codes are not on this laptop, as the local copy says.
      logger.info('could not ask the service for codes not in the local copy', {
        error: error instanceof Error ? error.message : String(error),
      })
      return { fetched: [], asked: false }
    }
  }

  const activity: OutboxActivity = {
    isSending: () => flusher.isSending(),
    unsentCount: () => {
      const { queued, sending, retrying, needsAttention } = desk.outbox.summary()
      return queued + sending + retrying + needsAttention
    },
    waitUntilIdle: (timeoutMs) => flusher.waitUntilIdle(timeoutMs),
  }

  return {
    desk,
    lookup,
    newCustomerForm: new NewCustomerFormKeeper(options.db),
    flusher,
    driver,
    activity,
    waitingCount: () => {
      const { queued, sending, retrying } = desk.outbox.summary()
      return queued + sending + retrying
    },
    changed: changes.changed,
    refreshBeforeSending,
    askServiceForCodes,
    catalogSyncedAt: (catalogGuid) => {
      const at = options.local.syncState.catalogItems(catalogGuid)?.lastSuccessAt ?? null
      return at === null ? null : new Date(at).toISOString()
    },
    async close() {
      if (closed) return
      closed = true
      driver.stop()
      changes.cancel()
      flusher.stop()
      if (!(await flusher.waitUntilIdle(10_000))) {
        flusher.cancel()
        await flusher.waitUntilIdle(2_000)
      }
    },
  }
}
