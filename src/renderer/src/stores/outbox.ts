import { defineStore } from 'pinia'
import { computed, ref } from 'vue'
import type { OutboxEntry, OutboxSummary } from '../../../shared/orders'
import { api, unwrap } from '../api'
import { onProfileReset } from './profile-reset'
import { useNoticesStore } from './notices'

/**
 * The outbox as the core keeps it: the summary for the status bar, the entries for the Outbox screen
 * and for whatever else shows an entry (the drafts store's orders sent from this window read them
 * here). This store is the only one that lists the outbox, so an outboxChanged costs one listing
 * however many parts of the window show it.
 */
export const useOutboxStore = defineStore('outbox', () => {
  const notices = useNoticesStore()
  const summary = ref<OutboxSummary | null>(null)
  const entries = ref<OutboxEntry[]>([])
  /** Entries are listed only once a screen asked for them; after that every outboxChanged refreshes them. */
  const entriesWanted = ref(false)
  const entriesLoaded = ref(false)
  /** Entries shown outside the Outbox screen (an order sent from this window): they keep the listing going too. */
  const followed = new Set<string>()
  onProfileReset(() => followed.clear())
  let listing: Promise<void> | null = null
  let listAgain = false

  async function loadSummary(): Promise<void> {
    summary.value = await unwrap(api.getOutboxSummary())
  }

  function loadEntries(): Promise<void> {
    entriesWanted.value = true
    return list()
  }

  /** Lists the outbox now if anything shows its entries; one listing at a time, the last call answered by a fresh one. */
  function refresh(): Promise<void> {
    return entriesWanted.value || followed.size > 0 ? list() : Promise.resolve()
  }

  function follow(apiGuid: string): void {
    followed.add(apiGuid)
  }

  function unfollow(apiGuid: string): void {
    followed.delete(apiGuid)
  }

  function list(): Promise<void> {
    if (listing) {
      listAgain = true
      return listing
    }
    listing = (async () => {
      do {
        listAgain = false
        entries.value = await unwrap(api.listOutbox())
        entriesLoaded.value = true
      } while (listAgain)
    })().finally(() => {
      listing = null
    })
    return listing
  }

  async function retry(apiGuid?: string): Promise<void> {
    summary.value = await unwrap(api.retryOutbox(apiGuid ? { apiGuid } : {}))
    await loadEntries()
  }

  async function discard(apiGuid: string): Promise<void> {
    summary.value = await unwrap(api.discardOutboxEntry({ apiGuid }))
    await loadEntries()
  }

  /** A change the supplier changed too: the rep's goes over theirs ('apply'), or theirs stands ('drop'). */
  async function choose(apiGuid: string, choice: 'apply' | 'drop'): Promise<void> {
    summary.value = await unwrap(choice === 'apply' ? api.applyMyChange({ apiGuid }) : api.dropMyChange({ apiGuid }))
    await loadEntries()
  }

  /** A new customer's candidates: the supplier customer that is this one, or null for none of them. */
  async function chooseCustomer(apiGuid: string, customerGuid: string | null): Promise<void> {
    summary.value = await unwrap(api.chooseCustomerMatch({ apiGuid, customerGuid }))
    await loadEntries()
  }

  api.onEvent((event) => {
    if (event.name !== 'outboxChanged') return
    summary.value = event.payload
    // Only the Outbox screen's failure is worth a notice; a sent panel keeps its last known state.
    const failed = entriesWanted.value ? notices.failed('Could not refresh the outbox') : () => undefined
    void refresh().catch(failed)
  })

  /** Orders not yet confirmed by the service: queued, being sent or waiting to retry. */
  const waiting = computed(() =>
    summary.value ? summary.value.queued + summary.value.sending + summary.value.retrying : 0,
  )
  // Conflicts and refusals of writes after Send need the rep as a rejected order does: counted by the
  // core's one rule (orders/outbox/attention.ts), the number `satchel status` prints too.
  const needsAttention = computed(() => summary.value?.attention ?? 0)
  return {
    summary,
    entries,
    entriesLoaded,
    waiting,
    needsAttention,
    loadSummary,
    loadEntries,
    refresh,
    follow,
    unfollow,
    retry,
    discard,
    choose,
    chooseCustomer,
  }
})
