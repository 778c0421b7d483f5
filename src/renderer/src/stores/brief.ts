import { defineStore } from 'pinia'
import { ref } from 'vue'
import type { CustomerBrief } from '../../../shared/brief'
import { api, unwrap } from '../api'
import { toAppError } from '../errors'
import { useConnectivityStore } from './connectivity'
import { useNoticesStore } from './notices'

/** A history read longer ago than this is read again when the rep opens the customer online. */
const STALE_AFTER_MS = 24 * 60 * 60 * 1000

/**
 * A customer's brief, kept per customer so the customer page and its printable document share one
 * read. The local brief answers at once (offline too); the history is read from the service once per
 * visit when it is missing or a day old, and the brief answered after it replaces the local one.
 */
export const useBriefStore = defineStore('brief', () => {
  const connectivity = useConnectivityStore()
  const notices = useNoticesStore()
  const byCustomer = ref<Record<string, CustomerBrief>>({})
  /** Customers whose history is being read from the service now. */
  const refreshing = ref<Record<string, boolean>>({})

  function keep(brief: CustomerBrief): CustomerBrief {
    byCustomer.value = { ...byCustomer.value, [brief.customer.guid]: brief }
    return brief
  }

  const load = async (customerGuid: string): Promise<CustomerBrief> =>
    keep(await unwrap(api.getCustomerBrief({ customerGuid })))

  /** Missing, cut short or a day old: as the core judges a history it reads in the background. */
  function stale(brief: CustomerBrief, now = Date.now()): boolean {
    const fetched = brief.history.fetchedAt ? Date.parse(brief.history.fetchedAt) : NaN
    return !brief.history.complete || Number.isNaN(fetched) || now - fetched > STALE_AFTER_MS
  }

  /**
   * Reads the history from the service, then keeps the brief answered after it. The service going
   * away meanwhile is no failure: the local brief stays, and its note says what is missing; any other
   * refusal is told in the notices, since the page goes on showing the local brief.
   */
  async function refresh(customerGuid: string): Promise<void> {
    if (refreshing.value[customerGuid]) return
    refreshing.value = { ...refreshing.value, [customerGuid]: true }
    try {
      keep(await unwrap(api.refreshCustomerHistory({ customerGuid })))
    } catch (error) {
      if (toAppError(error).code !== 'UNAVAILABLE' && !connectivity.offline)
        notices.failed('Could not read the customer’s history from the service')(error)
    } finally {
      const { [customerGuid]: _done, ...rest } = refreshing.value
      refreshing.value = rest
    }
  }

  /** Customers whose history this visit of their page has asked for: once per visit, not once per reconnect. */
  const askedThisVisit = new Set<string>()

  /** Each customer's latest visit: the page starts it, the brief's panel joins it. */
  const visits = new Map<string, Promise<void>>()
  /**
   * A visit of the customer's page: the local brief at once, then, online with the history missing
   * or a day old, the brief read after it. Offline, the local brief is the answer and nothing is said.
   */
  function open(customerGuid: string): Promise<void> {
    const visit = (async () => {
      askedThisVisit.delete(customerGuid)
      await load(customerGuid)
      // Not waited for: the page shows the local brief meanwhile, and `refreshing` says what is going on.
      void refreshIfDue(customerGuid)
    })()
    visits.set(customerGuid, visit)
    return visit
  }
  /** The visit the customer's page started as it began loading them, or a new one. */
  const visit = (customerGuid: string): Promise<void> => visits.get(customerGuid) ?? open(customerGuid)

  /** Also when the service answers again during a visit opened offline. */
  async function refreshIfDue(customerGuid: string): Promise<void> {
    const brief = byCustomer.value[customerGuid]
    if (!brief || askedThisVisit.has(customerGuid) || !connectivity.online || !stale(brief)) return
    askedThisVisit.add(customerGuid)
    await refresh(customerGuid)
  }

  // The core read a customer's history (after a sync, or in the background of a page's first read):
  // a brief on screen is read again, so the page never shows the shorter one beside a longer one held.
  api.onEvent((event) => {
    if (event.name !== 'customerHistoryChanged') return
    const { customerGuid } = event.payload
    if (byCustomer.value[customerGuid]) void load(customerGuid).catch(notices.failed('Could not read the brief again'))
  })

  return { byCustomer, refreshing, load, open, visit, refreshIfDue }
})
