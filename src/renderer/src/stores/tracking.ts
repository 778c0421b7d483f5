import { defineStore } from 'pinia'
import { computed, ref } from 'vue'
import type { OrderChange, OrderTracking } from '../../../shared/order-tracking'
import { api, unwrap } from '../api'
import { useNoticesStore } from './notices'

/**
 * Where orders are after Send, as sync last fetched them: the orders whose status changed since the
 * rep last opened them (the Orders list's marks and the navigation's count), one order's full copy,
 * and a customer's open orders.
 */
export const useTrackingStore = defineStore('tracking', () => {
  const notices = useNoticesStore()
  const changes = ref<OrderChange[]>([])
  const loaded = ref(false)
  let generation = 0

  async function loadChanges(): Promise<void> {
    const mine = ++generation
    const result = await unwrap(api.listChangedOrders())
    if (mine !== generation) return
    changes.value = result
    loaded.value = true
  }

  const changedCount = computed(() => changes.value.length)
  const changeOf = computed(() => new Map(changes.value.map((change) => [change.guid, change])))

  async function get(guid: string): Promise<OrderTracking | null> {
    return unwrap(api.getOrderTracking({ guid }))
  }

  /** The rep opened the order: its mark clears here and in the navigation's count. */
  async function opened(guid: string): Promise<void> {
    await unwrap(api.markOrderOpened({ guid }))
    changes.value = changes.value.filter((change) => change.guid !== guid)
    await loadChanges()
  }

  async function openOrders(customerGuid: string): Promise<OrderChange[]> {
    return unwrap(api.listOpenOrders({ customerGuid }))
  }

  api.onEvent((event) => {
    if (event.name === 'syncFinished' && loaded.value)
      void loadChanges().catch(notices.failed('Could not tell which orders changed'))
  })

  return { changes, changedCount, changeOf, loadChanges, get, opened, openOrders }
})
