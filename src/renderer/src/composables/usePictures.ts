/**
 * Item pictures as the screens show them: from the cache only, through the shell's satchel-image://
 * protocol (or the test bridge's route), never from an image host. A picture the cache does not hold
 * answers empty (204); it is remembered as missing so a scrolled list does not ask again for each row, until
 * the next sync finished (the background pass that fetches pictures follows it).
 */
import { reactive } from 'vue'
import { pictureUrl, type PictureSize } from '../../../shared/pictures'
import { api } from '../api'

const missing = reactive(new Set<string>())
let listening = false

export function usePictures() {
  if (!listening) {
    listening = true
    api.onEvent((event) => {
      if (event.name === 'syncFinished') missing.clear()
    })
  }
  const base = api.pictureBase ?? null
  const key = (size: PictureSize, itemGuid: string) => `${size}/${itemGuid}`
  return {
    /** The picture's address, or null where none can be shown (no protocol, or known to be missing). */
    src(size: PictureSize, itemGuid: string): string | null {
      if (base === null || missing.has(key(size, itemGuid))) return null
      return pictureUrl(base, size, itemGuid)
    },
    missed(size: PictureSize, itemGuid: string): void {
      missing.add(key(size, itemGuid))
    },
  }
}
