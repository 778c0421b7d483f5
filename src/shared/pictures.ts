/**
 * How the renderer names an item's picture: `satchel-picture://thumb/<itemGuid>` in the app (a
 * privileged protocol the shell serves from the cache only), `/satchel-picture/thumb/<itemGuid>` on
 * the test bridge's own origin. The transport says which base (window.satchel.pictureBase); the
 * rest is the same everywhere, and never the network.
 */

export const pictureScheme = 'satchel-picture'

export type PictureSize = 'thumb' | 'panel'

const sizes: readonly PictureSize[] = ['thumb', 'panel']

/** An item's pictures at most: the primary and eleven more (the panel's gallery). */
export const maxItemPictures = 12

/** Position 1 (the primary, what rows and grids show) has the short address; 2 to 12 add theirs. */
export function pictureUrl(base: string, size: PictureSize, itemGuid: string, position = 1): string {
  return `${base}${size}/${encodeURIComponent(itemGuid)}${position > 1 ? `/${position}` : ''}`
}

/** The size, item and position of a picture path (what follows the base), or null for anything else. */
export function parsePicturePath(path: string): { size: PictureSize; itemGuid: string; position: number } | null {
  const match = /^\/*(thumb|panel)\/([^/?#]{1,200}?)(?:\/([2-9]|1[0-2]))?$/.exec(path)
  if (!match) return null
  const size = match[1] as PictureSize
  const position = match[3] === undefined ? 1 : Number(match[3])
  let itemGuid: string
  try {
    itemGuid = decodeURIComponent(match[2]!)
  } catch {
    return null
  }
  return sizes.includes(size) && itemGuid.trim() !== '' ? { size, itemGuid, position } : null
}
