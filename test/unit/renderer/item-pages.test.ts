import { createPinia, setActivePinia } from 'pinia'
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import { effectScope, reactive, ref, type EffectScope } from 'vue'

/**
 * The catalog list's paging, against a fake core behind window.satchel: which pages are asked and
 * when, which are kept, and which answers are dropped because the search has moved on. The virtual
 * list has no element to scroll here, so the tests ask for pages as scrolling would (fetchPage).
 */
type Search = {
  catalogGuid: string
  query: string
  offset: number
  limit: number
  withTotal: boolean
  categoryId?: number
}
type Reply = { search: Search; answer: () => void }

let matches = 100_000
let countAnswer = { total: 10_000, capped: true }
/** When set, searches wait in `held` until the test answers them. */
let hold = false
const held: Reply[] = []
const searches: Search[] = []
const counts: unknown[] = []

function pageOf(search: Search) {
  const items = Array.from({ length: Math.max(0, Math.min(search.limit, matches - search.offset)) }, (_, i) => ({
    guid: `${search.query ?? ''}#${search.offset + i}`,
  }))
  return { ok: true, value: { items, more: search.offset + search.limit < matches, priceGroupName: 'Retail' } }
}

const fake = {
  searchCatalogItems: (search: Search) => {
    searches.push(search)
    if (!hold) return Promise.resolve(pageOf(search))
    return new Promise((resolve) => held.push({ search, answer: () => resolve(pageOf(search)) }))
  },
  countCatalogItems: async (search: unknown) => (counts.push(search), { ok: true, value: countAnswer }),
  onEvent: () => () => undefined,
}

let pagesModule: typeof import('../../../src/renderer/src/composables/useItemPages')

beforeAll(async () => {
  vi.stubGlobal('window', { satchel: fake })
  pagesModule = await import('../../../src/renderer/src/composables/useItemPages')
})

let scope: EffectScope | undefined

beforeEach(() => {
  vi.useFakeTimers()
  matches = 100_000
  countAnswer = { total: 10_000, capped: true }
  hold = false
  held.length = 0
  searches.length = 0
  counts.length = 0
  setActivePinia(createPinia())
})
afterEach(() => {
  scope?.stop()
  vi.useRealTimers()
})

function mount(query = '') {
  const search = reactive({
    catalogGuid: 'catalog-1',
    query,
    categoryId: null as number | null,
    customerGuid: null as string | null,
  })
  const loaded: { query: string; empty: boolean }[] = []
  const counted: { total: number; capped: boolean }[] = []
  scope = effectScope()
  const pages = scope.run(() =>
    pagesModule.useItemPages({
      search,
      scroller: ref(null),
      rowHeight: ref(40),
      onLoaded: (info) => loaded.push({ query: info.query, empty: info.empty }),
      onCounted: (count) => counted.push(count),
    }),
  )!
  return { search, pages, loaded, counted }
}

async function settle(): Promise<void> {
  await vi.advanceTimersByTimeAsync(0)
}

describe('the catalog list’s pages', () => {
  it('asks the first page at once, then counts, and the list is as long as the count', async () => {
    const { pages, loaded, counted } = mount(' klm ')
    await settle()
    expect(searches).toEqual([{ catalogGuid: 'catalog-1', limit: 100, offset: 0, withTotal: false, query: 'klm' }])
    expect(loaded).toEqual([{ query: ' klm ', empty: false }])
    expect(counts).toEqual([{ catalogGuid: 'catalog-1', query: 'klm' }])
    expect(counted).toEqual([{ total: 10_000, capped: true }])
    expect(pages.total.value).toBe(10_000)
    expect(pages.capped.value).toBe(true)
    expect(pages.itemAt(99)?.guid).toBe('klm#99')
    expect(pages.itemAt(100)).toBeNull()
  })

  it('takes typing as one search once it rests, and any other change at once', async () => {
    const { search, pages } = mount()
    await settle()
    searches.length = 0
    search.query = 'k'
    search.query = 'kl'
    await vi.advanceTimersByTimeAsync(pagesModule.DEBOUNCE_MS - 1)
    expect(searches).toEqual([])
    await vi.advanceTimersByTimeAsync(1)
    expect(searches.map((s) => s.query)).toEqual(['kl'])
    expect(pages.shownQuery.value).toBe('kl')
    search.categoryId = 7
    await settle()
    expect(searches.map((s) => s.categoryId)).toEqual([undefined, 7])
  })

  it('keeps at most 40 pages, dropping the farthest, and asks a dropped page again', async () => {
    const { pages } = mount()
    await settle()
    for (let page = 1; page <= pagesModule.PAGES_KEPT; page++) await pages.fetchPage(page)
    expect(pages.itemAt(0)).toBeNull()
    expect(pages.itemAt(1 * 100)?.guid).toBe('#100')
    expect(pages.itemAt(pagesModule.PAGES_KEPT * 100)?.guid).toBe(`#${pagesModule.PAGES_KEPT * 100}`)
    searches.length = 0
    await pages.fetchPage(0)
    expect(searches.map((s) => s.offset)).toEqual([0])
    // Page 0 came back, and the farthest from it (the last) went.
    expect(pages.itemAt(0)?.guid).toBe('#0')
    expect(pages.itemAt(pagesModule.PAGES_KEPT * 100)).toBeNull()
  })

  it('asks a page once while it is on its way, and not again once it is in', async () => {
    const { pages } = mount()
    await settle()
    hold = true
    searches.length = 0
    const first = pages.fetchPage(3)
    const second = pages.fetchPage(3)
    for (const reply of held.splice(0)) reply.answer()
    await Promise.all([first, second])
    await pages.fetchPage(3)
    expect(searches.map((s) => s.offset)).toEqual([300])
    expect(pages.itemAt(300)?.guid).toBe('#300')
  })

  it('drops a page and a first page answered for a search that has since been replaced', async () => {
    const { search, pages, loaded } = mount('old')
    await settle()
    hold = true
    const late = pages.fetchPage(5)
    search.query = 'older'
    await vi.advanceTimersByTimeAsync(pagesModule.DEBOUNCE_MS)
    search.query = 'new'
    await vi.advanceTimersByTimeAsync(pagesModule.DEBOUNCE_MS)
    const [page5, older, fresh] = held.splice(0)
    expect([page5!.search.query, older!.search.query, fresh!.search.query]).toEqual(['old', 'older', 'new'])
    fresh!.answer()
    await settle()
    older!.answer()
    page5!.answer()
    await late
    await settle()
    expect(loaded.map((l) => l.query)).toEqual(['old', 'new'])
    expect(pages.shownQuery.value).toBe('new')
    expect(pages.itemAt(0)?.guid).toBe('new#0')
    expect(pages.itemAt(500)).toBeNull()
  })

  it('past a capped count, a page stretches the list, and the last page says where it ends', async () => {
    matches = 10_150
    const { pages } = mount()
    await settle()
    expect(pages.total.value).toBe(10_000)
    await pages.fetchPage(99)
    expect(pages.total.value).toBe(10_100)
    await pages.fetchPage(101)
    expect(pages.total.value).toBe(10_150)
  })

  it('with an exact count, pages no longer change the list’s length', async () => {
    matches = 250
    countAnswer = { total: 250, capped: false }
    const { pages, counted } = mount()
    await settle()
    expect(counted).toEqual([{ total: 250, capped: false }])
    await pages.fetchPage(1)
    expect(pages.total.value).toBe(250)
  })
})
