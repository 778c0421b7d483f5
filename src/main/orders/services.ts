import type { Database } from '../db/database'
import type { Clock, Logger } from '../ports'
import type { OrderWithItemsResult } from '../service/client'
import { OrderDesk } from './desk'
import { OutboxFlusher, type FlushProbePoint, type OrderSender } from './flusher'
import type { OutboxWork } from './outbox'
import { StoreOrderLookup } from './store-lookup'

export interface OrderServicesOptions {
  db: Database
  clock: Clock
  logger: Logger
  sender: () => Promise<OrderSender | null>
  defaults: () => { remainInPreliminary: boolean }
  /** Records what the service confirmed (the order, a customer created with it) in the local copy. */
  onSent?: (work: OutboxWork, result: OrderWithItemsResult) => void
  onSettled?: () => Promise<void> | void
  onChange?: () => void
  probe?: (point: FlushProbePoint, work: OutboxWork) => void
  random?: () => number
  /** Brings the named items of a catalog up to date from the service, when it can be reached. */
  refreshItems?: (catalogGuid: string, itemGuids: string[], customerGuid: string | null) => Promise<void>
}

export interface OrderServices {
  desk: OrderDesk
  flusher: OutboxFlusher
  /**
   * Before sending, when online: the draft's items are read again from the service, so a price or
   * stock change since drafting is shown to the rep rather than found out by the supplier.
   */
  refreshBeforeSending(draftId: number): Promise<void>
}

/** Builds the order side of the core. Composition happens at start-up, so interrupted sends are recovered here. */
export function createOrderServices(options: OrderServicesOptions): OrderServices {
  const lookup = new StoreOrderLookup(options.db)
  const desk = new OrderDesk(options.db, lookup, options.clock, options.defaults)
  const recovered = desk.outbox.recoverInterrupted()
  if (recovered > 0) options.logger.warn('orders interrupted while sending will be sent again with their api_guid', { count: recovered })
  const flusher = new OutboxFlusher({
    outbox: desk.outbox,
    sender: options.sender,
    clock: options.clock,
    logger: options.logger.child({ component: 'outbox' }),
    ...(options.random ? { random: options.random } : {}),
    ...(options.onSent ? { onSent: options.onSent } : {}),
    ...(options.onSettled ? { onSettled: options.onSettled } : {}),
    ...(options.onChange ? { onChange: options.onChange } : {}),
    ...(options.probe ? { probe: options.probe } : {}),
  })
  const refreshBeforeSending = async (draftId: number) => {
    const draft = desk.drafts.get(draftId)
    if (!options.refreshItems || !draft.catalogGuid || draft.lines.length === 0) return
    try {
      await options.refreshItems(draft.catalogGuid, [...new Set(draft.lines.map((line) => line.catalogItemGuid))], draft.customerGuid)
    } catch (error) {
      // Offline or slow: the check runs on the local copy, as it does with no network at all.
      options.logger.info('could not refresh items before sending; using the local copy', { error: error instanceof Error ? error.message : String(error) })
    }
  }
  return { desk, flusher, refreshBeforeSending }
}
