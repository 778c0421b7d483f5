import { defineStore } from 'pinia'
import { ref } from 'vue'
import type { CatalogUpdate } from '../../../shared/synced'
import { api, unwrap } from '../api'

/**
 * The catalog work an upgrade left (a large catalog's items copied into their new table, and the
 * like), from getCatalogUpdate and its event: the catalog screens say so while it runs; `finished`
 * counts its ends, for a screen to read its lists again.
 */
export const useCatalogUpdateStore = defineStore('catalogUpdate', () => {
  const update = ref<CatalogUpdate | null>(null)
  const finished = ref(0)

  async function load(): Promise<void> {
    update.value = await unwrap(api.getCatalogUpdate())
  }

  api.onEvent((event) => {
    if (event.name !== 'catalogUpdateChanged') return
    if (update.value?.updating && !event.payload.updating) finished.value++
    update.value = event.payload
  })

  return { update, finished, load }
})
