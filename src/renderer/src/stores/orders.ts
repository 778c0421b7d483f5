import { defineStore } from 'pinia'
import { ref } from 'vue'
import type { OrderDetail, OrderSummary } from '../../../shared/synced'
import { api, unwrap } from '../api'

/** Synced order history, per customer or across customers, and reorders. */
export const useOrdersStore = defineStore('orders', () => {
  const orders = ref<OrderSummary[]>([])
  const total = ref(0)
  const customerGuid = ref<string | null>(null)
  let generation = 0

  async function list(forCustomer: string | null, limit = 200): Promise<void> {
    const mine = ++generation
    customerGuid.value = forCustomer
    const result = await unwrap(api.listOrders(forCustomer ? { customerGuid: forCustomer, limit } : { limit }))
    if (mine !== generation) return
    orders.value = result.orders
    total.value = result.total
  }

  /** A customer's recent orders without disturbing the Orders screen's list. */
  async function recent(forCustomer: string, limit = 10): Promise<{ orders: OrderSummary[]; total: number }> {
    return unwrap(api.listOrders({ customerGuid: forCustomer, limit }))
  }

  async function get(guid: string): Promise<OrderDetail> {
    return unwrap(api.getOrder({ guid }))
  }

  /** A new draft with the order's lines; answers the draft id and what could not be copied. */
  async function reorder(orderGuid: string): Promise<{ draftId: number; notOffered: { sku: string; name: string; reason: string }[] }> {
    const result = await unwrap(api.reorder({ orderGuid }))
    return { draftId: result.check.draft.id, notOffered: result.notOffered }
  }

  return { orders, total, customerGuid, list, recent, get, reorder }
})
