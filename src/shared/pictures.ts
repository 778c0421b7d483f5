/**
 * How the renderer names an item's picture: `satchel-image://thumb/<itemGuid>` in the app (a
 * privileged protocol the shell serves from the cache only), `/satchel-image/thumb/<itemGuid>` on
 * the test bridge's own origin. The transport says which base (window.satchel.pictureBase); the
 * rest is the same everywhere, and never the network.
 */

export const pictureScheme = 'satchel-image'

export type PictureSize = 'thumb' | 'panel'

const sizes: readonly PictureSize[] = ['thumb', 'panel']

export function pictureUrl(base: string, size: PictureSize, itemGuid: string): string {
  return `${base}${size}/${encodeURIComponent(itemGuid)}`
}

/** The size and item of a picture path (what follows the base), or null for anything else. */
export function parsePicturePath(path: string): { size: PictureSize; itemGuid: string } | null {
  const match = /^\/*(thumb|panel)\/([^/?#]{1,200})$/.exec(path)
  if (!match) return null
  const size = match[1] as PictureSize
  let itemGuid: string
  try {
    itemGuid = decodeURIComponent(match[2]!)
  } catch {
    return null
  }
  return sizes.includes(size) && itemGuid.trim() !== '' ? { size, itemGuid } : null
}
