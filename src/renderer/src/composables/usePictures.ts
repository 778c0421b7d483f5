/**
 * Item pictures as the screens show them: from the cache only, through the shell's satchel-picture://
 * protocol (or the test bridge's route), never from an image host. A picture the cache does not hold
 * answers empty (204); it is remembered as missing so a scrolled list does not ask again for each row, until
 * new pictures came into the cache (picturesFetched) or the next sync finished.
 */
import { reactive } from 'vue'
import { pictureUrl, type PictureSize } from '../../../shared/pictures'
import { api } from '../api'

const missing = reactive(new Set<string>())
/**
 * Pictures once missing, asked again after new ones came: their address carries the round, so the
 * empty answer the page was given before is not reused.
 */
const retried = reactive(new Map<string, number>())
let round = 0
let listening = false

function askAgain(): void {
  round++
  for (const key of missing) retried.set(key, round)
  missing.clear()
}

export function usePictures() {
  if (!listening) {
    listening = true
    api.onEvent((event) => {
      if (event.name === 'syncFinished' || event.name === 'picturesFetched') askAgain()
    })
  }
  const base = api.pictureBase ?? null
  const key = (size: PictureSize, itemGuid: string) => `${size}/${itemGuid}`
  return {
    /** The picture's address, or null where none can be shown (no protocol, or known to be missing). */
    src(size: PictureSize, itemGuid: string): string | null {
      if (base === null || missing.has(key(size, itemGuid))) return null
      const again = retried.get(key(size, itemGuid))
      return pictureUrl(base, size, itemGuid) + (again === undefined ? '' : `?round=${again}`)
    },
    missed(size: PictureSize, itemGuid: string): void {
      missing.add(key(size, itemGuid))
    },
    /**
     * A picture the core says the cache holds (the panel's gallery asked): its address, made new by
     * `stamp` so an answer that was empty before is not reused.
     */
    held(size: PictureSize, itemGuid: string, position: number, stamp: number): string | null {
      if (base === null) return null
      return `${pictureUrl(base, size, itemGuid, position)}?at=${stamp}`
    },
  }
}
