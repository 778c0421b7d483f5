/**
 * A customer's brief as the core offers it: built from the local copy (briefs.ts), the history behind
 * it read from the service when the rep opens the customer online and it is missing or more than a
 * day old, when they ask (`refreshCustomerHistory`, `satchel customers brief --refresh`), and after
 * each sync for the customers the rep worked with in the last 30 days (a draft, a quote, an order sent,
 * a visit to the page). Nothing is sent while the rep is offline.
 */
import type { CustomerBrief } from '../../shared/brief'
import type { Implementations } from '../../shared/contract'
import { CoreError } from '../errors'
import type { LocalData } from '../local/data'
import type { CustomerHistoryRow } from '../local/customer-histories'
import { errorCodeOf, isServiceError } from '../ordering-client/errors'
import type { OrderLookup } from '../orders/lookup'
import type { Clock, Logger } from '../ports'
import type { CustomerHistorySource, CustomerHistoryStep } from '../sync/run'
import { CustomerBriefs } from './briefs'
import { NewItemCounts } from './new-items'
import { parseServerTime } from '../local/time'
import { readCustomerHistory, type HistoryCustomer, type HistoryWriter } from './history-read'

const DAY_MS = 86_400_000
/** "Worked with in the last 30 days." */
const workedWithinMs = 30 * DAY_MS
/** Histories read after one run at most: the rest wait for the next runs. */
const readsPerRun = 5
/** How long a history whose background read failed waits before the next runs try it again. */
const retryFailedAfterMs = 6 * 3_600_000

export interface BriefParts {
  local: LocalData
  lookup: OrderLookup
  clock: Clock
  logger: Logger
  /** The service client for the reads the rep's page asks for; null when no connection is saved. */
  client: () => Promise<CustomerHistorySource | null>
  /** The rep is offline: nothing is sent. */
  offline: () => boolean
  /** How much longer the service's last Retry-After runs: a read the rep did not ask for waits it out. */
  quietForMs?: () => number
  /** Awaited before each write on the window's connection (the sync writer's long requests). */
  beforeWrite: () => Promise<void>
  /** Customers the rep worked with from `sinceIso` on: drafts, quotes, orders sent from this laptop. */
  workedWith: (sinceIso: string) => Iterable<string>
  /** A customer's history changed: the page on screen reads their brief again. */
  onHistoryChanged?: (customerGuid: string) => void
}

export interface Brief {
  methods: Pick<Implementations, 'getCustomerBrief' | 'refreshCustomerHistory'>
  /** The brief from the local copy alone: no visit noted, nothing read (the CLI's). */
  read(customerGuid: string): CustomerBrief
  /** The catalog items changed (a sync finished): "new since" is counted from them again. */
  itemsChanged(): void
  /**
   * Where briefs are in use on this laptop, reads the catalogs' creation times a while after start,
   * so the first brief does not wait for them (a read of every item: 0.5-0.8 s at 100,000).
   */
  warmSoon(afterMs?: number): void
  /** Joins each sync run (sync/run.ts). */
  step: CustomerHistoryStep
  close(): Promise<void>
}

type ReadOutcome = { changed: boolean; error: unknown }

export function createBrief(parts: BriefParts): Brief {
  const { local, clock, logger } = parts
  const briefs = new CustomerBriefs(local, parts.lookup)
  const newItems = new NewItemCounts(local.catalogItems)
  const counted = (catalogGuid: string, sinceIso: string) => newItems.countSince(catalogGuid, sinceIso)
  const histories = local.customerHistories
  const closing = new AbortController()
  let warming: ReturnType<typeof setTimeout> | undefined
  const reading = new Map<string, Promise<ReadOutcome>>()
  // A background read that failed waits a while: every sync asking again would be the fleet's cost.
  const failedAt = new Map<string, number>()
  // Outside a run, pages go where the window's writes go: after the writer's long requests.
  const windowWriter: HistoryWriter = {
    applyOrders: async (rows, context) => {
      await parts.beforeWrite()
      return local.copy.applyOrders(rows, context)
    },
  }
  const customerOf = (guid: string): HistoryCustomer => ({ guid, id: local.customers.idOf(guid) })
  const stale = (held: CustomerHistoryRow | undefined, now: number) =>
    !held || held.complete !== 1 || !held.fetched_at || now - Date.parse(held.fetched_at) > DAY_MS

  /** One customer's read at a time: a second ask while one runs waits for it. */
  const readOne = (guid: string, source: CustomerHistorySource, writer: HistoryWriter, signal: AbortSignal) => {
    const running = reading.get(guid)
    if (running) return running
    const read = (async (): Promise<ReadOutcome> => {
      const outcome = await readCustomerHistory(
        { source, writer, now: clock.now(), signal },
        customerOf(guid),
        histories.get(guid),
      )
      if (outcome.error)
        logger.warn('a customer’s order history was not read whole', { customer: guid, error: describe(outcome.error) })
      if (!outcome.read) return { changed: false, error: outcome.error }
      await parts.beforeWrite()
      histories.recordRead(guid, outcome.read)
      parts.onHistoryChanged?.(guid)
      return { changed: true, error: outcome.error }
    })().finally(() => reading.delete(guid))
    reading.set(guid, read)
    return read
  }

  const noteVisit = (guid: string) =>
    void parts
      .beforeWrite()
      .then(() => histories.recordVisit(guid, new Date(clock.now()).toISOString()))
      .catch((error: unknown) => logger.warn('a visit to a customer’s page was not noted', { error: describe(error) }))

  const readForPage = async (guid: string) => {
    if (parts.offline() || (parts.quietForMs?.() ?? 0) > 0 || closing.signal.aborted) return
    const source = await parts.client()
    if (source) await readOne(guid, source, windowWriter, closing.signal)
  }

  const methods: Brief['methods'] = {
    getCustomerBrief: async ({ customerGuid }) => {
      await newItems.ready()
      const brief = briefs.build(customerGuid, clock.now(), counted)
      noteVisit(customerGuid)
      // Read in the background; the page hears customerHistoryChanged and asks again.
      if (stale(histories.get(customerGuid), clock.now()))
        void readForPage(customerGuid).catch((error: unknown) =>
          logger.warn('reading a customer’s order history failed', { error: describe(error) }),
        )
      return brief
    },
    refreshCustomerHistory: async ({ customerGuid }) => {
      if (!local.customers.byGuid(customerGuid))
        throw new CoreError('NOT_FOUND', 'That customer is not on this laptop.')
      if (parts.offline())
        throw new CoreError(
          'UNAVAILABLE',
          'Offline: the brief shows the order history on this laptop; connect to read the rest.',
        )
      const source = await parts.client()
      if (!source) throw new CoreError('NOT_CONFIGURED', 'Set up the connection to the ordering service first.')
      noteVisit(customerGuid)
      const outcome = await readOne(customerGuid, source, windowWriter, closing.signal)
      // Cut short after some pages, the brief says how far it got; nothing read at all is a failure.
      if (!outcome.changed && outcome.error) throw asCoreError(outcome.error)
      await newItems.ready()
      return briefs.build(customerGuid, clock.now(), counted)
    },
  }

  const step: CustomerHistoryStep = {
    async refreshHistories(source, writer, signal, ordersListed) {
      const now = clock.now()
      try {
        // The run's own delta listed every order changed since it began: a whole history read at that
        // cursor or later is up to date with no request of its own (a day's refresh of 20 customers
        // costs nothing), and its cursor moves on with the run's, so the chain holds from run to run.
        if (ordersListed) await followRun(ordersListed, now)
        const since = new Date(now - workedWithinMs).toISOString()
        const due: string[] = []
        for (const guid of new Set([...parts.workedWith(since), ...histories.visitedSince(since)])) {
          // A customer the supplier dropped (kept here for a draft) has no history to read.
          const customer = local.customers.byGuid(guid)
          if (!customer || customer.deleted_at !== null || customer.unlisted_at !== null) continue
          if (now - (failedAt.get(guid) ?? -Infinity) < retryFailedAfterMs) continue
          if (stale(histories.get(guid), now)) due.push(guid)
        }
        // Not read yet (or cut short), or left behind by a run that was no delta: one customer at a time.
        for (const guid of due.slice(0, readsPerRun)) {
          if (signal.aborted) break
          const outcome = await readOne(guid, source, writer, signal)
          if (outcome.error) failedAt.set(guid, now)
          else failedAt.delete(guid)
        }
      } catch (error) {
        // Never the run's failure: the histories wait for the next run.
        logger.warn('keeping customers’ order histories fresh failed', { error: describe(error) })
      }
    },
  }

  async function followRun(ordersListed: { from: string; to: string }, now: number): Promise<void> {
    const from = parseServerTime(ordersListed.from)
    if (from === null) return
    await parts.beforeWrite()
    const fetchedAt = new Date(now).toISOString()
    for (const row of histories.whole()) {
      const cursor = parseServerTime(row.cursor)
      if (cursor === null || cursor < from) continue
      histories.recordRead(row.customer_guid, {
        fetchedAt,
        coveredFromMs: row.covered_from_ms,
        complete: true,
        cursor: ordersListed.to,
      })
    }
  }

  return {
    methods,
    read: (customerGuid) => briefs.build(customerGuid, clock.now()),
    warmSoon: (afterMs = 20_000) => {
      if (!histories.any()) return
      warming = setTimeout(() => {
        // A failed warm-up costs nothing but time: the next brief reads them again, and says why if it fails.
        if (!closing.signal.aborted)
          newItems
            .ready()
            .catch((error: unknown) => logger.warn('new items not read ahead', { error: describe(error) }))
      }, afterMs)
      warming.unref?.()
    },
    itemsChanged: () => {
      newItems.itemsChanged()
      briefs.itemsChanged()
    },
    step,
    async close() {
      if (warming) clearTimeout(warming)
      closing.abort()
      await Promise.allSettled([...reading.values()])
    },
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}

function asCoreError(error: unknown): CoreError {
  if (error instanceof CoreError) return error
  if (isServiceError(error))
    return new CoreError(errorCodeOf(error.kind), `The order history could not be read: ${error.message}`)
  return new CoreError('UNAVAILABLE', `The order history could not be read: ${describe(error)}`)
}
