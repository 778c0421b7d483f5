import { defineStore } from 'pinia'
import { ref } from 'vue'
import type { OrderDetail, OrderSummary, SentOrderSummary } from '../../../shared/synced'
import type { MethodInput } from '../../../shared/contract'
import { api, unwrap } from '../api'
import { useNoticesStore } from './notices'

export type OrderFilters = Pick<NonNullable<MethodInput<'listOrders'>>, 'query' | 'stateId' | 'from' | 'to'>

/** Synced order history, per customer or across customers, and reorders. */
export const useOrdersStore = defineStore('orders', () => {
  const notices = useNoticesStore()
  const orders = ref<OrderSummary[]>([])
  const total = ref(0)
  /** Sent from this laptop, not yet in the synced history, under the same search and filters. */
  const sentNotSynced = ref<SentOrderSummary[]>([])
  const customerGuid = ref<string | null>(null)
  const states = ref<{ id: number | null; name: string; count: number }[]>([])
  let generation = 0

  /** The search and filters run in the core; only the answer to the latest request is kept. */
  async function list(forCustomer: string | null, limit = 200, filters: OrderFilters = {}): Promise<void> {
    const mine = ++generation
    customerGuid.value = forCustomer
    const result = await unwrap(
      api.listOrders({ ...filters, ...(forCustomer ? { customerGuid: forCustomer } : {}), limit }),
    )
    if (mine !== generation) return
    orders.value = result.orders
    total.value = result.total
    sentNotSynced.value = result.sentNotSynced
    states.value = result.states
  }

  /** A customer's recent orders without disturbing the Orders screen's list. */
  async function recent(forCustomer: string, limit = 10): Promise<{ orders: OrderSummary[]; total: number }> {
    return unwrap(api.listOrders({ customerGuid: forCustomer, limit }))
  }

  async function get(guid: string): Promise<OrderDetail> {
    return unwrap(api.getOrder({ guid }))
  }

  /** A new draft with the order's lines; answers the draft id and what could not be copied. */
  /**
   * A new draft with the order's lines; a notice (shown with the draft) says which lines were not
   * copied because the items are no longer offered. Answers the draft's id.
   */
  async function reorder(orderGuid: string, orderName: string | null): Promise<number> {
    const { check, notOffered } = await unwrap(api.reorder({ orderGuid }))
    const draftId = check.draft.id
    const label = orderName ? `order ${orderName}` : 'the order'
    const one = notOffered.length === 1
    notices.push(
      notOffered.length === 0
        ? {
            tone: 'info',
            title: `Every line of ${label} was copied into this draft.`,
            lines: [],
            path: `/drafts/${draftId}`,
          }
        : {
            tone: 'warning',
            title: `${notOffered.length} ${one ? 'item from' : 'items from'} ${label} ${one ? 'is' : 'are'} no longer offered and ${one ? 'was' : 'were'} not copied:`,
            lines: notOffered.map((item) => `${item.sku} — ${item.name}: ${item.reason}`),
            path: `/drafts/${draftId}`,
          },
    )
    return draftId
  }

  return { orders, total, sentNotSynced, customerGuid, states, list, recent, get, reorder }
})
