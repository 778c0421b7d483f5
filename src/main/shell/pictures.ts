/**
 * The satchel-picture:// protocol: the renderer's one way to show an item picture. Registered
 * privileged (a standard, secure scheme the CSP can name) before the app is ready, and answered from
 * the on-screen profile's cache only: a picture not fetched yet is an empty answer (204), and the
 * renderer shows its placeholder. Nothing here reaches the network, so no page can make Satchel fetch an address.
 */
import type { Protocol } from 'electron'
import { parsePicturePath, pictureScheme, type PictureSize } from '../../shared/pictures'

/** Before app.whenReady(): Chromium fixes the schemes' privileges at start-up. */
export function registerPictureScheme(protocol: Pick<Protocol, 'registerSchemesAsPrivileged'>): void {
  protocol.registerSchemesAsPrivileged([
    { scheme: pictureScheme, privileges: { standard: true, secure: true, supportFetchAPI: false, corsEnabled: false } },
  ])
}

/** The answer to one picture request; `read` gives the cache's bytes or null. */
type ReadPicture = (itemGuid: string, size: PictureSize, position: number) => Buffer | null

export function answerPicture(url: string, read: ReadPicture): Response {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return new Response(null, { status: 400 })
  }
  // satchel-picture://thumb/<guid>: a standard scheme puts the size where a host would be.
  const picture = parsed.protocol === `${pictureScheme}:` ? parsePicturePath(`${parsed.host}${parsed.pathname}`) : null
  if (!picture) return new Response(null, { status: 400 })
  const bytes = read(picture.itemGuid, picture.size, picture.position)
  // Not fetched yet is no error: 204 makes the <img> fail quietly to its placeholder, where a 404
  // would be logged as a failed resource on every row of a list scrolled before the pictures came.
  if (!bytes) return new Response(null, { status: 204 })
  return new Response(new Uint8Array(bytes), {
    status: 200,
    headers: { 'content-type': 'image/webp', 'cache-control': 'no-cache', 'x-content-type-options': 'nosniff' },
  })
}

export function servePictures(protocol: Pick<Protocol, 'handle'>, read: ReadPicture): void {
  protocol.handle(pictureScheme, (request) => answerPicture(request.url, read))
}
