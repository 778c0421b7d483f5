import { computed, onBeforeUnmount, ref, watch, type Ref } from 'vue'
import type { CatalogLoading } from '../../../shared/synced'
import { useCatalogStore } from '../stores/catalog'
import { useCatalogUpdateStore } from '../stores/catalog-update'
import { useSyncStore } from '../stores/sync'

/**
 * When the catalog screen reads its list and categories again: as a first sync or a catalog update
 * brings items in, and after a sync. `listRefresh` is the list's cue; `stillLoading` what the screen
 * says of a catalog in its first sync; `copying` whether an update is still copying the items.
 */
export function useCatalogRefresh(options: {
  catalogGuid: Ref<string | null>
  /** The first sync's state of the catalog, as the list's last page said. */
  catalogLoading: Ref<CatalogLoading | null>
  total: Ref<number | null>
  selectedGuid: Ref<string | null>
  loadCategories: (guid: string | null) => Promise<void>
  loadCustomerAndCatalogs: () => Promise<void>
}) {
  const { catalogGuid, catalogLoading, total, selectedGuid, loadCategories } = options
  const catalogStore = useCatalogStore()

  // A catalog in its first sync is searchable as its items arrive: the rep is told the list is partial,
  // with the count moving as the sync's progress events come in.
  const sync = useSyncStore()
  const stillLoading = computed<CatalogLoading | null>(() => {
    const progress = sync.progress
    if (
      catalogLoading.value &&
      progress &&
      progress.scope === `catalogItems:${catalogGuid.value}` &&
      progress.phase === 'listing'
    ) {
      return { itemsDone: progress.rowsDone, itemsTotal: progress.rowsTotal ?? catalogLoading.value.itemsTotal }
    }
    return catalogLoading.value
  })

  // A sync finished: the catalog's sync time and category counts are read again. A list shown while
  // the catalog was still in its first sync is listed again too (every item now, by name, without the
  // notice); any other list keeps its rows and scroll position, as the rep left them.
  const listRefresh = ref(0)
  // The catalog update an upgrade left is done: every item is there now, and counted.
  const catalogUpdate = useCatalogUpdateStore()
  watch(
    () => catalogUpdate.finished,
    async () => {
      listRefresh.value++
      await loadCategories(catalogGuid.value)
    },
  )
  // While the update copies the items, those not copied yet are not listed. A list too short to scroll
  // (empty, at first) is read again as the copy moves, every few seconds at most, so the items come in
  // as the notice says; a longer one keeps its rows and scroll position until the update ends.
  const copying = computed(() => catalogUpdate.update?.updating === true && !catalogUpdate.update.itemsBrowsable)
  const shortList = 50
  let copyReadAt = -Infinity
  let copyReadTimer: ReturnType<typeof setTimeout> | undefined
  function readCopied(): void {
    copyReadTimer = undefined
    if (!copying.value || total.value === null || total.value >= shortList || selectedGuid.value) return
    copyReadAt = performance.now()
    listRefresh.value++
    if (catalogGuid.value) catalogStore.forgetCategories(catalogGuid.value)
    void loadCategories(catalogGuid.value)
  }
  watch(
    () => (copying.value ? catalogUpdate.update?.percent : null),
    (percent) => {
      // At most one read per 2 s, the last move always read (the copy may pause after it).
      if (!percent || copyReadTimer) return
      copyReadTimer = setTimeout(readCopied, Math.max(0, copyReadAt + 2_000 - performance.now()))
    },
  )
  onBeforeUnmount(() => clearTimeout(copyReadTimer))
  watch(
    () => catalogStore.version,
    async () => {
      if (catalogLoading.value) listRefresh.value++
      await Promise.all([options.loadCustomerAndCatalogs(), loadCategories(catalogGuid.value)])
    },
  )

  return { stillLoading, listRefresh, copying }
}
