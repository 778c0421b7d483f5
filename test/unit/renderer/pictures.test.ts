import { createPinia, setActivePinia } from 'pinia'
import { beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import type { SatchelEvent } from '../../../src/shared/contract'

/**
 * What the screens tell the core of the pictures on screen: every family grid shown adds its items,
 * one that goes takes its own back and leaves the others'; and a placeholder once answered empty asks
 * again, at a new address, when the core says new pictures came in; an item's gallery is what the
 * cache holds, then what was fetched, and a failure other than offline is said. Against a fake core behind
 * window.satchel, which is what api.ts reads.
 */
const told: string[][] = []
let listeners: ((event: SatchelEvent) => void)[] = []
/** What the fake core answers getItemPictures with, by `fetch`. */
let galleryAnswers: Record<'read' | 'fetch', unknown> = { read: null, fetch: null }

const fake = {
  pictureBase: '/satchel-picture/',
  getItemPictures: async ({ fetch }: { itemGuid: string; fetch: boolean }) => galleryAnswers[fetch ? 'fetch' : 'read'],
  setPicturesOnScreen: async ({ itemGuids }: { itemGuids: string[] }) => (
    told.push(itemGuids),
    { ok: true, value: {} }
  ),
  onEvent(listener: (event: SatchelEvent) => void) {
    listeners.push(listener)
    return () => (listeners = listeners.filter((other) => other !== listener))
  },
}

let usePicturesStore: typeof import('../../../src/renderer/src/stores/pictures').usePicturesStore
let usePictures: typeof import('../../../src/renderer/src/composables/usePictures').usePictures
let useNoticesStore: typeof import('../../../src/renderer/src/stores/notices').useNoticesStore

beforeAll(async () => {
  vi.stubGlobal('window', { satchel: fake })
  ;({ usePicturesStore } = await import('../../../src/renderer/src/stores/pictures'))
  ;({ usePictures } = await import('../../../src/renderer/src/composables/usePictures'))
  ;({ useNoticesStore } = await import('../../../src/renderer/src/stores/notices'))
})

beforeEach(() => {
  setActivePinia(createPinia())
  told.length = 0
})

describe('pictures on screen', () => {
  it('are the items of every grid shown, and a grid that goes takes back only its own', () => {
    const store = usePicturesStore()
    const first = Symbol('first grid')
    const second = Symbol('second grid')
    store.onScreen(first, ['family-a', 'a-1', 'a-2'])
    store.onScreen(second, ['family-b', 'b-1'])
    store.onScreen(first, null)
    expect(told).toEqual([
      ['family-a', 'a-1', 'a-2'],
      ['family-a', 'a-1', 'a-2', 'family-b', 'b-1'],
      ['family-b', 'b-1'],
    ])
  })

  it('a picture answered empty is not asked again until new pictures came in, then at a new address', () => {
    const pictures = usePictures()
    expect(pictures.src('thumb', 'item-1')).toBe('/satchel-picture/thumb/item-1')
    pictures.missed('thumb', 'item-1')
    expect(pictures.src('thumb', 'item-1')).toBeNull()
    for (const listener of listeners) listener({ name: 'picturesFetched', payload: { fetched: 3 } })
    expect(pictures.src('thumb', 'item-1')).toBe('/satchel-picture/thumb/item-1?round=1')
    // Never missed: its address stays as it was, so the page's copy of it is used.
    expect(pictures.src('thumb', 'item-2')).toBe('/satchel-picture/thumb/item-2')
  })
})

describe('an item’s gallery', () => {
  const failure = (code: string) => ({ ok: false, error: { code, message: `${code} answer` } })

  it('is what the cache holds, then what the core fetched', async () => {
    const store = usePicturesStore()
    galleryAnswers = {
      read: { ok: true, value: { count: 2, fetched: [true, false] } },
      fetch: { ok: true, value: { count: 2, fetched: [true, true] } },
    }
    await store.openGallery('item-1')
    expect(store.galleries.get('item-1')).toMatchObject({ count: 2, fetched: [true, true] })
    expect(useNoticesStore().notices).toEqual([])
  })

  it('offline keeps the placeholder quietly; any other failure is said, once', async () => {
    const store = usePicturesStore()
    galleryAnswers = { read: { ok: true, value: { count: 1, fetched: [false] } }, fetch: failure('UNAVAILABLE') }
    await store.openGallery('item-2')
    expect(store.galleries.get('item-2')).toMatchObject({ count: 1, fetched: [false] })
    expect(useNoticesStore().notices).toEqual([])

    galleryAnswers = { read: failure('INTERNAL'), fetch: failure('INTERNAL') }
    await store.openGallery('item-3')
    expect(store.galleries.get('item-3')).toBeUndefined()
    expect(useNoticesStore().notices.map((notice) => notice.title)).toEqual([
      'Could not show the item’s pictures: INTERNAL answer',
    ])
  })
})
