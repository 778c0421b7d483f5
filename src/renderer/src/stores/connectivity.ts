import { defineStore } from 'pinia'
import { computed, ref } from 'vue'
import type { Connectivity } from '../../../shared/desktop'
import { api, unwrap } from '../api'

/** Whether the ordering service answers, as the core's monitor says (never guessed from navigator.onLine). */
export const useConnectivityStore = defineStore('connectivity', () => {
  const connectivity = ref<Connectivity | null>(null)
  const checking = ref(false)

  async function load(): Promise<void> {
    connectivity.value = await unwrap(api.getConnectivity())
  }

  async function check(): Promise<void> {
    checking.value = true
    try {
      connectivity.value = await unwrap(api.checkConnectivity())
    } finally {
      checking.value = false
    }
  }

  api.onEvent((event) => {
    if (event.name === 'connectivityChanged') connectivity.value = event.payload
  })

  // The core watches the service closely for a while after the rep looks (the window loads, is shown
  // or focused) and rarely otherwise, so it has to be told; a window left open costs the service little.
  function reportVisibility(): void {
    void api.setWindowVisible({ visible: document.visibilityState === 'visible' }).catch(() => undefined)
  }
  document.addEventListener('visibilitychange', reportVisibility)
  window.addEventListener('focus', reportVisibility)
  // The operating system's word that the network changed: the core looks at once, not at its next check.
  const networkChanged = () => void api.checkConnectivity().catch(() => undefined)
  window.addEventListener('online', networkChanged)
  window.addEventListener('offline', networkChanged)
  reportVisibility()

  const online = computed(() => connectivity.value?.online ?? false)
  /** Offline in the sense the rep cares about: a service is configured and it does not answer. */
  const offline = computed(() => {
    const status = connectivity.value?.status
    return status === 'offline' || status === 'unreachable' || status === 'captive-portal'
  })
  return { connectivity, online, offline, checking, load, check }
})
