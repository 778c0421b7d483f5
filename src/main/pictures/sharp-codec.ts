/**
 * The codec on sharp (libvips). Chosen over Electron's nativeImage because it runs the same under
 * Node, so the CLI's `pictures fetch`, the tests and the bench use the code the app ships; it decodes
 * JPEG, PNG, WebP and GIF and encodes WebP from prebuilt binaries in the registry (no build step),
 * and it works off the main thread. sharp is loaded at the first picture decoded, so a profile, a
 * window or a CLI command that makes none never pays for the native library.
 */
type Sharp = (typeof import('sharp'))['default']

let loaded: Promise<Sharp> | undefined

function loadSharp(): Promise<Sharp> {
  loaded ??= import('sharp').then(({ default: sharp }) => {
    // One libvips thread, no operation cache: pictures are background work on a laptop whose rep is
    // using it, and the cache would keep decoded pictures in memory nobody asks for again.
    sharp.concurrency(1)
    sharp.cache(false)
    return sharp
  })
  return loaded
}
import { panelBox, thumbnailBox, type Downscaled, type ImageCodec } from './codec'
import { ImageRefused, type ImageKind } from './safety'

/** A decompression bomb (a small file that decodes to gigapixels) is refused before it is decoded. */
const maxInputPixels = 50_000_000

const decodable = new Set(['jpeg', 'png', 'webp', 'gif'])

export function createSharpCodec(): ImageCodec {
  return {
    async downscale(bytes: Buffer, kind: ImageKind): Promise<Downscaled> {
      const sharp = await loadSharp()
      try {
        const source = sharp(bytes, { limitInputPixels: maxInputPixels, animated: false, failOn: 'error' })
        const { format } = await source.metadata()
        // The magic bytes said `kind`; libvips must agree, or the file is something dressed as one.
        if (!format || !decodable.has(format) || format !== kind)
          throw new ImageRefused('not-an-image', `the picture decodes as ${format ?? 'nothing'}, not ${kind}`)
        // Decoded once: both sizes are made from the one rotated, flattened image in memory.
        const decoded = await source
          .rotate()
          .flatten({ background: '#ffffff' })
          .raw()
          .toBuffer({ resolveWithObject: true })
        const raw = { raw: { width: decoded.info.width, height: decoded.info.height, channels: decoded.info.channels } }
        const size = (box: number) =>
          sharp(decoded.data, raw)
            .resize({ width: box, height: box, fit: 'inside', withoutEnlargement: true })
            .webp({ quality: box === thumbnailBox ? 70 : 80, effort: 2 })
            .toBuffer()
        const [thumb, panel] = await Promise.all([size(thumbnailBox), size(panelBox)])
        return { thumb, panel, type: 'image/webp' }
      } catch (error) {
        if (error instanceof ImageRefused) throw error
        throw new ImageRefused('unreadable', `the picture could not be decoded: ${(error as Error).message}`)
      }
    },
  }
}
