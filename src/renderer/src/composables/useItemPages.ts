import { useVirtualizer } from '@tanstack/vue-virtual'
import { computed, onScopeDispose, ref, shallowRef, watch, type Ref } from 'vue'
import type { CatalogItemSummary, CatalogLoading } from '../../../shared/synced'
import { toAppError } from '../errors'
import { useCatalogStore } from '../stores/catalog'
import { OVERSCAN, overscanUnlessJumping, pagesAsTheViewRests } from './rowRange'

/** What the list shows: a catalog's items for a search text, a category and a customer's prices. */
interface ItemSearch {
  catalogGuid: string
  query: string
  categoryId: number | null
  customerGuid: string | null
  /** Only items created after this moment (a customer's new items, from their brief); null for all. */
  createdAfter?: string | null
  /** Changed by the screen to list the same search again (a catalog's first sync has finished). */
  refresh?: number
}

/** A search's first page is in; `query` is the search text it answers. */
export interface ItemsLoaded {
  empty: boolean
  priceGroupName: string | null
  priceGroupNote: string | null
  catalogLoading: CatalogLoading | null
  query: string
}

/** Its matches are counted: `capped` means at least `total`. */
export interface ItemsCounted {
  total: number
  capped: boolean
}

interface ItemPagesOptions {
  /** Reactive (the component's props): a new query restarts after DEBOUNCE_MS, anything else at once. */
  search: Readonly<ItemSearch>
  /** The element the virtual list scrolls. */
  scroller: Ref<HTMLElement | null>
  /** Every row's height in px (fixed, so 100,000 rows need no measuring). */
  rowHeight: Ref<number>
  onLoaded: (info: ItemsLoaded) => void
  onCounted: (count: ItemsCounted) => void
}

export const PAGE_SIZE = 100
/** Pages kept while scrolling the whole catalog; past it, the pages farthest from the one just in go. */
export const PAGES_KEPT = 40
/** Light debounce: a scanner or a fast typist still gets one query, a rep sees results at once. */
export const DEBOUNCE_MS = 20
/**
 * The catalog list's rows: a search's pages fetched as their rows come into view (the first one on
 * each new search, the old rows staying until it lands), at most PAGES_KEPT of them in memory, the
 * match count asked once the first page is painted, and the virtual list's windowing over them.
 * An answer for a search that has since been replaced is dropped.
 */
export function useItemPages(options: ItemPagesOptions) {
  const catalogStore = useCatalogStore()
  const pages = shallowRef(new Map<number, CatalogItemSummary[]>())
  /** Rows the list has room for: the count once it is in, until then the rows known (and a page more while there are more). */
  const total = ref(0)
  /** The count stopped at its cap: rows past it come in as the rep scrolls to them. */
  const capped = ref(false)
  /** The search's count is in and exact: pages no longer stretch the list. */
  let exact = false
  /** The search the rows on screen belong to (a test hook, and what screen readers are told). */
  const shownQuery = ref<string | null>(null)
  const loading = ref(false)
  const error = ref<string | null>(null)

  let generation = 0
  /** Bumped when a search's first page lands, so pages already in view are fetched for it. */
  const epoch = ref(0)
  const inFlight = new Set<number>()
  let debounce: ReturnType<typeof setTimeout> | undefined

  const rangeExtractor = overscanUnlessJumping()
  const virtualizer = useVirtualizer(
    computed(() => ({
      count: total.value,
      getScrollElement: () => options.scroller.value,
      estimateSize: () => options.rowHeight.value,
      overscan: OVERSCAN,
      rangeExtractor,
    })),
  )

  /** The item at a row, null while its page is not in. */
  function itemAt(index: number): CatalogItemSummary | null {
    return pages.value.get(Math.floor(index / PAGE_SIZE))?.[index % PAGE_SIZE] ?? null
  }

  const rows = computed(() =>
    virtualizer.value
      .getVirtualItems()
      .map((row) => ({ key: row.key, index: row.index, start: row.start, item: itemAt(row.index) })),
  )

  function searchArgument(page: number) {
    const search = options.search
    return {
      catalogGuid: search.catalogGuid,
      limit: PAGE_SIZE,
      offset: page * PAGE_SIZE,
      withTotal: false,
      ...(search.query.trim() ? { query: search.query.trim() } : {}),
      ...(search.categoryId !== null ? { categoryId: search.categoryId } : {}),
      ...(search.customerGuid ? { customerGuid: search.customerGuid } : {}),
      ...(search.createdAfter ? { createdAfter: search.createdAfter } : {}),
    }
  }

  /** A new search: the old rows stay until the first page of the new one arrives, then swap at once. */
  async function restart(): Promise<void> {
    const mine = ++generation
    inFlight.clear()
    loading.value = true
    const query = options.search.query
    try {
      const result = await catalogStore.searchItems(searchArgument(0))
      if (mine !== generation) return
      pages.value = new Map([[0, result.items]])
      total.value = rowsKnown(0, result)
      capped.value = false
      exact = !result.more
      error.value = null
      shownQuery.value = query
      epoch.value++
      options.onLoaded({
        empty: result.items.length === 0,
        priceGroupName: result.priceGroupName,
        priceGroupNote: result.priceGroupNote ?? null,
        catalogLoading: result.loading ?? null,
        query,
      })
      if (options.scroller.value) options.scroller.value.scrollTop = 0
      // The rows are painted before anything is counted: a count over a large catalog is the slow part.
      if (result.more) void countMatches(mine)
      else options.onCounted({ total: total.value, capped: false })
    } catch (caught) {
      if (mine === generation) error.value = toAppError(caught).message
    } finally {
      if (mine === generation) loading.value = false
    }
  }

  async function countMatches(mine: number): Promise<void> {
    const { limit: _limit, offset: _offset, withTotal: _withTotal, ...search } = searchArgument(0)
    try {
      const count = await catalogStore.countItems(search)
      if (mine !== generation) return
      // An exact count is the list's length; a capped one only says it is at least that long.
      total.value = count.capped ? Math.max(total.value, count.total) : count.total
      capped.value = count.capped
      exact = !count.capped
      options.onCounted(count)
    } catch (caught) {
      if (mine === generation) error.value = toAppError(caught).message
    }
  }

  /** The rows a page shows the list holds at least: those before it and its own, and a page more when the search has more. */
  function rowsKnown(page: number, result: { items: CatalogItemSummary[]; more: boolean }): number {
    return page * PAGE_SIZE + result.items.length + (result.more ? PAGE_SIZE : 0)
  }

  /** Fetches a page of the current search unless it is in or on its way. */
  async function fetchPage(page: number): Promise<void> {
    if (pages.value.has(page) || inFlight.has(page)) return
    const mine = generation
    inFlight.add(page)
    try {
      const result = await catalogStore.searchItems(searchArgument(page))
      if (mine !== generation) return
      const next = new Map(pages.value)
      next.set(page, result.items)
      // Keep memory bounded while scrolling the whole catalog: drop pages far from the view.
      if (next.size > PAGES_KEPT) {
        const here = page
        for (const key of [...next.keys()]
          .sort((a, b) => Math.abs(b - here) - Math.abs(a - here))
          .slice(0, next.size - PAGES_KEPT))
          next.delete(key)
      }
      pages.value = next
      // Past a capped count, the list grows a page at a time as the rep scrolls on; the last page says where it ends.
      const known = rowsKnown(page, result)
      if (!exact && (!result.more || known > total.value)) total.value = known
    } catch (caught) {
      if (mine === generation) error.value = toAppError(caught).message
    } finally {
      if (mine === generation) inFlight.delete(page)
    }
    // The next page the view wants (a page that failed is not asked again until the rep moves).
    if (mine === generation && pages.value.has(page)) pagesShown.again()
  }

  // Pages come in as their rows come into view, and rows passed at speed ask for none.
  // Pages ahead stop at the rows the list has room for: one past them would say the list ends there.
  // One page on its way at a time, the next asked when it lands: two pages landing under the rows
  // drawn in one frame draw them all again in that frame, whatever the rep's scroll is doing.
  const pagesShown = pagesAsTheViewRests(PAGE_SIZE, (page) => {
    if (page * PAGE_SIZE >= total.value || inFlight.size > 0) return
    void fetchPage(page)
  })
  let shownEpoch = -1
  watch(
    () => {
      const items = virtualizer.value.getVirtualItems()
      if (items.length === 0) return ''
      return `${epoch.value}:${items[0]!.index}:${items[items.length - 1]!.index}`
    },
    (range) => {
      if (!range) return
      const [at, first, last] = range.split(':').map(Number) as [number, number, number]
      pagesShown.show(first, last, at !== shownEpoch)
      shownEpoch = at
    },
  )

  watch(
    () => options.search.query,
    () => {
      clearTimeout(debounce)
      debounce = setTimeout(() => void restart(), DEBOUNCE_MS)
    },
  )
  watch(
    () => [
      options.search.catalogGuid,
      options.search.categoryId,
      options.search.customerGuid,
      options.search.createdAfter,
      options.search.refresh,
    ],
    () => {
      clearTimeout(debounce)
      void restart()
    },
    { immediate: true },
  )
  onScopeDispose(() => {
    clearTimeout(debounce)
    pagesShown.dispose()
    generation++
  })

  return { virtualizer, rows, itemAt, fetchPage, total, capped, shownQuery, loading, error }
}
