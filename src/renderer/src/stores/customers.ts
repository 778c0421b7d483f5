import { defineStore } from 'pinia'
import { ref, shallowRef } from 'vue'
import type { CustomerDetail, CustomerSummary, CustomersLoading } from '../../../shared/synced'
import { api, unwrap } from '../api'
import { onProfileReset } from './profile-reset'
import { useNoticesStore } from './notices'

const pageSize = 200

/**
 * Customer search for the virtualized list: the first page on each keystroke, later pages as the
 * list scrolls near the end. An answer to an older query never overwrites a newer one.
 */
export const useCustomersStore = defineStore('customers', () => {
  const notices = useNoticesStore()
  const query = ref('')
  const includeInactive = ref(false)
  const results = shallowRef<CustomerSummary[]>([])
  const total = ref(0)
  const searching = ref(false)
  const searchedOnce = ref(false)
  /** The customers still in their first sync (the list is partial), as the last answer said. */
  const loading = ref<CustomersLoading | null>(null)
  let generation = 0
  let loadingMore = false

  async function search(text: string = query.value): Promise<void> {
    query.value = text
    const mine = ++generation
    searching.value = true
    try {
      const result = await unwrap(
        api.searchCustomers({
          query: text.trim(),
          includeInactive: includeInactive.value,
          // The list shows the customers made on this laptop too, first, until the supplier has them.
          withMadeHere: true,
          limit: pageSize,
          offset: 0,
        }),
      )
      if (mine !== generation) return
      results.value = result.customers
      total.value = result.total
      loading.value = result.loading
      searchedOnce.value = true
    } finally {
      if (mine === generation) searching.value = false
    }
  }

  async function loadMore(): Promise<void> {
    if (loadingMore || results.value.length >= total.value) return
    loadingMore = true
    const mine = generation
    try {
      const result = await unwrap(
        api.searchCustomers({
          query: query.value.trim(),
          includeInactive: includeInactive.value,
          withMadeHere: true,
          limit: pageSize,
          offset: results.value.length,
        }),
      )
      if (mine !== generation) return
      results.value = [...results.value, ...result.customers]
      total.value = result.total
    } finally {
      loadingMore = false
    }
  }

  /** A few active customers matching the text, for a picker: the list above keeps its own search. */
  async function find(text: string, limit: number): Promise<CustomerSummary[]> {
    return (await unwrap(api.searchCustomers({ query: text, includeInactive: false, limit }))).customers
  }

  const details = new Map<string, CustomerDetail>()
  async function get(guid: string): Promise<CustomerDetail> {
    const detail = await unwrap(api.getCustomer({ guid }))
    details.set(guid, detail)
    return detail
  }
  function cached(guid: string): CustomerDetail | null {
    return details.get(guid) ?? null
  }
  onProfileReset(() => details.clear())

  /**
   * The customer the rep is working for: set by their page, their draft or the catalog's picker, and
   * kept across screens (and a reload of the window) until another is chosen, so the catalog shows
   * their prices wherever the rep opens it from.
   */
  const currentKey = 'satchel.currentCustomer'
  const currentGuid = ref<string | null>(readCurrent())
  function readCurrent(): string | null {
    try {
      return sessionStorage.getItem(currentKey)
    } catch {
      return null
    }
  }
  function setCurrent(guid: string | null): void {
    currentGuid.value = guid
    try {
      if (guid) sessionStorage.setItem(currentKey, guid)
      else sessionStorage.removeItem(currentKey)
    } catch {
      // Storage unavailable: the choice still holds for this session.
    }
  }

  // While the first sync brings customers in, the list on screen is read again as they land, every
  // 2 s at most, so a customer the rep looks for shows up without retyping.
  let landedReadAt = -Infinity
  api.onEvent((event) => {
    // New or changed customers arrive with a sync: refresh what is on screen.
    if (event.name === 'syncFinished' && searchedOnce.value)
      void search().catch(notices.failed('Could not refresh the customer list'))
    else if (
      event.name === 'syncProgress' &&
      event.payload.scope === 'customers' &&
      loading.value &&
      !searching.value &&
      performance.now() - landedReadAt > 2_000
    ) {
      landedReadAt = performance.now()
      void search().catch(notices.failed('Could not refresh the customer list'))
    }
  })

  return {
    query,
    includeInactive,
    results,
    total,
    searching,
    loading,
    search,
    loadMore,
    find,
    get,
    cached,
    currentGuid,
    setCurrent,
  }
})
