import { defineStore } from 'pinia'
import { ref } from 'vue'
import type { UsualItem } from '../../../shared/quotes'
import { api, unwrap } from '../api'

/** What each customer usually orders, kept per customer so the customer page and order entry share one read. */
export const useUsualStore = defineStore('usual', () => {
  const byCustomer = ref<Record<string, UsualItem[]>>({})

  async function load(customerGuid: string, limit = 20): Promise<UsualItem[]> {
    const { items } = await unwrap(api.getUsualItems({ customerGuid, limit }))
    byCustomer.value = { ...byCustomer.value, [customerGuid]: items }
    return items
  }

  return { byCustomer, load }
})
