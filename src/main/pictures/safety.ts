/**
 * What makes a download a picture Satchel keeps: an address it may fetch, an answer that says it is
 * an image and whose first bytes agree, and a size it can afford. Each refusal says why, so the
 * status and the logs name the host that answered a captive portal's page rather than a picture.
 */

/** The four formats the codec decodes and the renderer has always shown; SVG is left out (it is a document, with scripts). */
export type ImageKind = 'jpeg' | 'png' | 'webp' | 'gif'

/** The most an image may weigh before it is downscaled: enforced while it streams in, not after. */
export const maxImageBytes = 10 * 1024 * 1024

type RefusalReason = 'address' | 'html' | 'not-an-image' | 'too-large' | 'unreadable'

/** A download that is not a picture Satchel keeps: never cached, tried again after a back-off. */
export class ImageRefused extends Error {
  constructor(
    readonly reason: RefusalReason,
    message: string,
  ) {
    super(message)
    this.name = 'ImageRefused'
  }
}

const loopbackNames = new Set(['localhost', '127.0.0.1', '[::1]', '::1'])

function isLoopback(hostname: string): boolean {
  return loopbackNames.has(hostname.toLowerCase()) || /^127\.\d+\.\d+\.\d+$/.test(hostname)
}

/**
 * The address of a picture: relative ones against the service's origin (the interface does not say
 * they are absolute), https only, plain http on this computer alone (the test double, a lab).
 */
export function pictureAddress(raw: string, serviceOrigin: string): URL {
  let url: URL
  try {
    url = new URL(raw.trim(), serviceOrigin)
  } catch {
    throw new ImageRefused('address', `'${raw}' is not an address`)
  }
  if (url.protocol === 'https:') return url
  if (url.protocol === 'http:' && isLoopback(url.hostname)) return url
  throw new ImageRefused('address', `${url.protocol}//${url.host} is not https: pictures are fetched over https only`)
}

/**
 * Where a picture's redirect may lead: its own origin, or https anywhere. Plain http is allowed on
 * this computer for the picture itself, but a redirect from it to another port there could reach
 * another local service (the test double's control surface, a developer's database admin page).
 */
export function redirectAddress(location: string, from: URL): URL {
  const url = pictureAddress(location, from.href)
  if (url.protocol === 'https:' || url.origin === from.origin) return url
  throw new ImageRefused(
    'address',
    `${from.host} redirected to ${url.protocol}//${url.host}: a picture's redirect is followed only on its own host or to https`,
  )
}

/** The format the first bytes show, or null: the answer's content type alone is not believed. */
export function kindOf(head: Uint8Array): ImageKind | null {
  const at = (offset: number, bytes: number[]) => bytes.every((byte, index) => head[offset + index] === byte)
  if (at(0, [0xff, 0xd8, 0xff])) return 'jpeg'
  if (at(0, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'png'
  if (at(0, [0x47, 0x49, 0x46, 0x38]) && (head[4] === 0x37 || head[4] === 0x39) && head[5] === 0x61) return 'gif'
  if (at(0, [0x52, 0x49, 0x46, 0x46]) && at(8, [0x57, 0x45, 0x42, 0x50])) return 'webp'
  return null
}

const imageTypes = new Set(['image/jpeg', 'image/jpg', 'image/pjpeg', 'image/png', 'image/webp', 'image/gif'])

/**
 * Whether an answer's content type may carry a picture. A missing one, or octet-stream (which some
 * storage buckets send), is let through to the magic bytes; HTML (a captive portal's sign-in page, an
 * error page) and SVG are refused before the body is read.
 */
export function checkContentType(contentType: string | undefined): void {
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase()
  if (type === '' || type === 'application/octet-stream' || type === 'binary/octet-stream') return
  if (type === 'text/html' || type === 'application/xhtml+xml')
    throw new ImageRefused('html', 'the image host answered a web page (a captive portal?), not a picture')
  if (!imageTypes.has(type)) throw new ImageRefused('not-an-image', `the image host answered ${type}, not a picture`)
}

/** Refuses a body the host says is over the ceiling before a byte of it is read. */
export function checkDeclaredLength(contentLength: string | undefined, limit = maxImageBytes): void {
  const length = Number(contentLength)
  if (contentLength !== undefined && Number.isFinite(length) && length > limit)
    throw new ImageRefused('too-large', `the picture is ${length} bytes, over the ${limit}-byte ceiling`)
}

/**
 * The body, read until it ends or passes `limit` (then refused and the stream dropped: a host that
 * sends 50 MB costs at most the ceiling and a chunk), with its first bytes checked for a format.
 */
export async function readPicture(
  body: AsyncIterable<Uint8Array>,
  limit = maxImageBytes,
): Promise<{ bytes: Buffer; kind: ImageKind }> {
  const chunks: Buffer[] = []
  let length = 0
  for await (const chunk of body) {
    length += chunk.byteLength
    if (length > limit) throw new ImageRefused('too-large', `the picture passed the ${limit}-byte ceiling`)
    chunks.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength))
  }
  const bytes = Buffer.concat(chunks, length)
  const kind = kindOf(bytes.subarray(0, 16))
  if (kind === null) {
    const text = bytes.subarray(0, 512).toString('latin1').toLowerCase()
    if (text.includes('<html') || text.includes('<!doctype html'))
      throw new ImageRefused('html', 'the image host answered a web page (a captive portal?), not a picture')
    throw new ImageRefused('not-an-image', 'the answer is not a JPEG, PNG, WebP or GIF picture')
  }
  return { bytes, kind }
}
