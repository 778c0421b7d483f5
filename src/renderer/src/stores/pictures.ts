import { defineStore } from 'pinia'
import { shallowReactive } from 'vue'
import type { MethodOutput } from '../../../shared/contract'
import { api, unwrap } from '../api'
import { toAppError } from '../errors'
import { useNoticesStore } from './notices'

type ItemPictures = NonNullable<MethodOutput<'getItemPictures'>>

/** An item's gallery as the panel shows it: how many pictures, which are on the laptop, when the core said so. */
export interface Gallery extends ItemPictures {
  /** The pictures' addresses change with it, so an earlier empty answer is not reused. */
  answeredAt: number
}

/** Galleries kept for the items opened last: going back to one shows it at once. */
const galleriesKept = 20

/**
 * What the screens tell the core of the pictures the rep is looking at, so it fetches them first and
 * keeps them: the item opened in the panel (its gallery), the families whose grids are on screen.
 */
export const usePicturesStore = defineStore('pictures', () => {
  const notices = useNoticesStore()
  const galleries = shallowReactive(new Map<string, Gallery>())

  /**
   * Asks for the item's gallery: first what the cache holds, then again once the core fetched the
   * rest where it could. Offline the placeholder stays, which is what the rep would see anyway; any
   * other failure is said, not left as a quietly empty gallery.
   */
  async function openGallery(itemGuid: string): Promise<void> {
    for (const fetch of [false, true]) {
      try {
        const state = (await unwrap(api.getItemPictures({ itemGuid, fetch }))) ?? { count: 0, fetched: [] }
        galleries.delete(itemGuid)
        galleries.set(itemGuid, { ...state, answeredAt: Date.now() })
        for (const oldest of [...galleries.keys()].slice(0, -galleriesKept)) galleries.delete(oldest)
      } catch (error) {
        if (toAppError(error).code !== 'UNAVAILABLE') notices.failed('Could not show the item’s pictures')(error)
      }
    }
  }

  /** Families on screen: each grid adds its items while shown, and takes them back when it goes. */
  const shown = new Map<symbol, string[]>()
  function onScreen(key: symbol, itemGuids: string[] | null): void {
    if (itemGuids === null) shown.delete(key)
    else shown.set(key, itemGuids)
    // A hint to the background fetch: if the core cannot take it, nothing on screen changes.
    void api.setPicturesOnScreen({ itemGuids: [...shown.values()].flat() }).catch(() => undefined)
  }

  return { galleries, openGallery, onScreen }
})
