import { defineStore } from 'pinia'
import type { MethodOutput } from '../../../shared/contract'
import { api, unwrap } from '../api'

type ItemPictures = NonNullable<MethodOutput<'getItemPictures'>>

/**
 * What the screens tell the core of the pictures the rep is looking at, so it fetches them first and
 * keeps them: the item opened in the panel (its gallery), the families whose grids are on screen.
 */
export const usePicturesStore = defineStore('pictures', () => {
  /** The item's gallery as the cache holds it; with `fetch`, after its pictures were fetched where they could be. */
  async function itemPictures(itemGuid: string, fetch: boolean): Promise<ItemPictures> {
    return (await unwrap(api.getItemPictures({ itemGuid, fetch }))) ?? { count: 0, fetched: [] }
  }

  /** Families on screen: each grid adds its items while shown, and takes them back when it goes. */
  const shown = new Map<symbol, string[]>()
  function onScreen(key: symbol, itemGuids: string[] | null): void {
    if (itemGuids === null) shown.delete(key)
    else shown.set(key, itemGuids)
    // A hint to the background fetch: if the core cannot take it, nothing on screen changes.
    void api.setPicturesOnScreen({ itemGuids: [...shown.values()].flat() }).catch(() => undefined)
  }

  return { itemPictures, onScreen }
})
