/**
 * Writes after Send: every kind of outbox entry beside an order (a submit, a change to a sent order,
 * a new customer, a customer change) and the port each kind's rule fills. The outbox keeps them as
 * it keeps orders (a frozen request, a lease, a retry schedule that survives a restart); what is
 * safe to send, and what an answer means, is the rule's, in the home of what it writes (tracking/
 * for orders after Send).
 */
import type { CustomerCandidate, OutboxEntry, OutboxKind } from '../../../shared/orders'
import type { CustomerRecord, OrderRecord } from '../../ordering-client/schemas'

export type WriteKind = Exclude<OutboxKind, 'order'>

type WriteConflict = NonNullable<OutboxEntry['conflict']>[number]

/** What an entry learnt on the way: never the request, which stays frozen. */
export interface WriteDetail {
  /** The write in the rep's words, set when it is queued ("Hold SO-1042"). */
  title?: string
  /** What it asks, each in the rep's words ("Hold requested", "PO change"), for the pages that show it waiting. */
  asks?: string[]
  /** The order it is for as known when queued (its guid may come later, from the order it waits for). */
  order?: { guid: string | null; name: string | null }
  /** The rep chose "apply mine" on a conflict: the change goes as it stands. */
  applyMine?: boolean
  /**
   * Fields of a change already with the supplier: sent while another field of it waited for the
   * rep's choice (a hold is not held back by a PO conflict). Never sent again.
   */
  applied?: string[]
  conflict?: WriteConflict[]
  /** A new customer's possible matches at the supplier, waiting for the rep to say which (if any) it is. */
  candidates?: CustomerCandidate[]
  /** What the rep entered, shown beside the candidates. */
  entered?: Omit<CustomerCandidate, 'guid' | 'createdAt'>
  /** The rep said this supplier customer is the one this entry made: it is adopted, never made again. */
  chosenCustomer?: string
  /** Supplier customers the rep said are not this one: never adopted, never asked about again. */
  notThisCustomer?: string[]
  /** In the rep's words, once done ("Filled 3 lines", "The supplier had already put it on hold"). */
  outcome?: string
  /** What the service answered, for whatever depends on this entry (the order's or customer's guid). */
  result?: Record<string, unknown>
  /**
   * When the request the service cannot deduplicate (a submit, a customer without an email) last
   * left this laptop: committed before it goes, so a process killed mid-request leaves it behind.
   */
  sentAt?: string
}

/**
 * How long after an unanswered write left the laptop the service may still be working on it: past
 * this, a write the service's own record does not show never took effect, and may be sent again.
 * Five minutes: longer than the gateways in front of web services keep a request (60 to 100 s for
 * the common ones), three times the 90 s Satchel itself waits for the slowest answer, and short
 * enough that a rep who sees "checking with the supplier" sees it settle within the visit.
 * docs/offline-and-outbox.md says more.
 */
export const writeInFlightMs = 5 * 60_000

/** How far the service's clock may be from the laptop's when its records are read against the laptop's times. */
export const serviceSkewMs = 10 * 60_000

/** A claimed write, ready for its rule. */
export interface WriteWork {
  id: number
  /** The entry's own key (the outbox's api_guid column): a write is known by it everywhere. */
  key: string
  kind: WriteKind
  attempts: number
  request: Record<string, unknown>
  detail: WriteDetail
  /** Set once an attempt ended without the service's answer: it may have been applied already. */
  deliveryUnknownSince: string | null
  /** The laptop's time (the outbox's clock) when it was claimed, for what a rule reads against `detail.sentAt`. */
  now: number
  /** The guids of the customers other new-customer entries made or adopted: never this entry's to adopt. */
  claimedCustomers: string[]
  /**
   * What the other new-customer entries not yet sent asked for (their frozen requests): a customer
   * that fits one of them and not this one is that entry's, not a candidate for this one.
   */
  otherNewCustomers: Record<string, unknown>[]
  /** The entry this one waited for, now sent: what the service confirmed for it. */
  dependency: { kind: OutboxKind; orderGuid: string | null; detail: WriteDetail } | null
  /**
   * Records, durably, that the request the service cannot deduplicate goes now (`detail.sentAt`).
   * A rule calls it just before such a request, never before a read.
   */
  sending(): void
}

/** How a write ended; a thrown failure goes the outbox's usual way (retry, pause, wait for the service). */
export type WriteOutcome =
  | {
      kind: 'done'
      outcome: string | null
      result?: Record<string, unknown>
      /** A new customer's record as the service made it: the local copy holds it from now on, before any sync. */
      made?: CustomerRecord
    }
  /** Some fields wait for the rep; `applied` (with the service's answer, `result`) went meanwhile. */
  | {
      kind: 'conflict'
      conflict: WriteConflict[]
      applied?: string[]
      /** In the rep's words, what went meanwhile ("Sent meanwhile: On hold."). */
      outcome?: string
      result?: Record<string, unknown>
    }
  | { kind: 'refused'; message: string }
  /** A new customer the supplier may already have in more than one way: the rep says which, or none. */
  | {
      kind: 'choose'
      candidates: CustomerCandidate[]
      entered: Omit<CustomerCandidate, 'guid' | 'createdAt'>
      message: string
    }
  /**
   * An earlier attempt's outcome is unknown and the service's record does not settle it yet: nothing
   * is sent, and the entry is looked at again at `checkAt` (or at the next flush).
   */
  | { kind: 'checking'; checkAt: number; message: string }

/** The calls the rules make; the service client implements them. */
export interface WriteSender {
  getOrder(
    orderGuid: string,
    options: { vendorGuid?: string; signal?: AbortSignal; once?: boolean },
  ): Promise<{ order: OrderRecord; relatedOrders: OrderRecord[] }>
  submitOrder(
    body: { orderGuid: string; allowPartialFulfillment?: boolean },
    options: { vendorGuid?: string; signal?: AbortSignal },
  ): Promise<{ order: OrderRecord; autoFulfilledItems: Record<string, unknown>[] }>
  updateOrder(
    orderGuid: string,
    body: Record<string, unknown>,
    options: { vendorGuid?: string; signal?: AbortSignal },
  ): Promise<OrderRecord>
  getCustomer(vendorGuid: string, options: { signal?: AbortSignal }): Promise<CustomerRecord>
  listCustomers(
    params: { limit: number; offset: number; name?: string },
    options: { signal?: AbortSignal },
  ): Promise<{ rows: { customer: CustomerRecord }[] }>
  createCustomer(body: Record<string, unknown>, options: { signal?: AbortSignal }): Promise<CustomerRecord>
  updateCustomer(
    vendorGuid: string,
    body: Record<string, unknown>,
    options: { signal?: AbortSignal },
  ): Promise<CustomerRecord>
}

export interface WriteRule {
  send(work: WriteWork, sender: Partial<WriteSender>, signal: AbortSignal): Promise<WriteOutcome>
}

export type WriteRules = Partial<Record<WriteKind, WriteRule>>

/** The call a rule needs, or a failure that says the connection cannot make it (a fake without it). */
export function needs<K extends keyof WriteSender>(sender: Partial<WriteSender>, name: K): WriteSender[K] {
  const call = sender[name] as ((...args: unknown[]) => unknown) | undefined
  if (!call) throw new Error(`the ordering client cannot ${name}`)
  return ((...args: unknown[]) => call.apply(sender, args)) as WriteSender[K]
}
