import { defineStore } from 'pinia'
import { computed, ref } from 'vue'
import type { OutboxEntry, OutboxSummary } from '../../../shared/orders'
import { api, unwrap } from '../api'
import { useDraftsStore } from './drafts'
import { useNoticesStore } from './notices'

/** The outbox as the core keeps it: the summary for the status bar, the entries for the Outbox screen. */
export const useOutboxStore = defineStore('outbox', () => {
  const notices = useNoticesStore()
  const summary = ref<OutboxSummary | null>(null)
  const entries = ref<OutboxEntry[]>([])
  /** Entries are listed only once a screen asked for them; after that every outboxChanged refreshes them. */
  const entriesWanted = ref(false)
  const entriesLoaded = ref(false)
  let listing: Promise<void> | null = null
  let listAgain = false

  async function loadSummary(): Promise<void> {
    summary.value = await unwrap(api.getOutboxSummary())
  }

  function loadEntries(): Promise<void> {
    entriesWanted.value = true
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

  /**
   * Takes the entry back into a draft; answers the draft's id. Through the drafts store, because the
   * draft comes back under the number this window may have shown as sent.
   */
  async function edit(apiGuid: string): Promise<number> {
    const check = await useDraftsStore().reopen(apiGuid)
    void loadEntries()
    return check.draft.id
  }

  async function discard(apiGuid: string): Promise<void> {
    summary.value = await unwrap(api.discardOutboxEntry({ apiGuid }))
    await loadEntries()
  }

  api.onEvent((event) => {
    if (event.name !== 'outboxChanged') return
    summary.value = event.payload
    if (entriesWanted.value) void loadEntries().catch(notices.failed('Could not refresh the outbox'))
  })

  /** Orders not yet confirmed by the service: queued, being sent or waiting to retry. */
  const waiting = computed(() => (summary.value ? summary.value.queued + summary.value.sending + summary.value.retrying : 0))
  const needsAttention = computed(() => summary.value?.needsAttention ?? 0)
  return { summary, entries, entriesLoaded, waiting, needsAttention, loadSummary, loadEntries, retry, edit, discard }
})
