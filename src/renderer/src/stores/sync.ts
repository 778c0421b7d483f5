import { defineStore } from 'pinia'
import { computed, ref } from 'vue'
import type { SyncProgress, SyncReport, SyncStatus } from '../../../shared/synced'
import { api, unwrap } from '../api'
import { useNoticesStore } from './notices'

/** The sync's status, its live progress and the last report, from getSyncStatus and the sync events. */
export const useSyncStore = defineStore('sync', () => {
  const notices = useNoticesStore()
  const status = ref<SyncStatus | null>(null)
  const progress = ref<SyncProgress | null>(null)
  const lastReport = ref<SyncReport | null>(null)
  /** True from syncNow's call until its answer, so the bar shows before the first progress event. */
  const requested = ref(false)

  async function load(): Promise<void> {
    const value = await unwrap(api.getSyncStatus())
    status.value = value
    progress.value = value.running ? value.progress : null
    lastReport.value = value.lastReport
  }

  /** Runs a sync (or joins the running one); resolves with the core's report. */
  async function syncNow(full = false): Promise<SyncReport> {
    requested.value = true
    try {
      const report = await unwrap(api.syncNow(full ? { full: true } : undefined))
      lastReport.value = report
      return report
    } finally {
      requested.value = false
      void load().catch(notices.failed('Could not read the sync status'))
    }
  }

  async function cancel(): Promise<void> {
    await unwrap(api.cancelSync())
  }

  api.onEvent((event) => {
    if (event.name === 'syncStatusChanged') {
      status.value = event.payload
      progress.value = event.payload.running ? (event.payload.progress ?? progress.value) : null
      if (event.payload.lastReport) lastReport.value = event.payload.lastReport
    } else if (event.name === 'syncProgress') {
      progress.value = event.payload
    } else if (event.name === 'syncFinished') {
      lastReport.value = event.payload
      progress.value = null
    }
  })

  const running = computed(() => requested.value || (status.value?.running ?? false))
  /** 0–100 when the service has said how much there is, else null (indeterminate). */
  const percent = computed(() => {
    const p = progress.value
    if (!p) return null
    if (p.rowsTotal) return Math.min(100, Math.round((p.rowsDone / p.rowsTotal) * 100))
    if (p.pagesTotal) return Math.min(100, Math.round((p.pagesDone / p.pagesTotal) * 100))
    return null
  })
  return { status, progress, lastReport, running, percent, load, syncNow, cancel }
})
