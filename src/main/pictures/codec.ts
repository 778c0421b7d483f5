/**
 * The codec port: a checked picture in, the two sizes the screens show out. The app, the CLI and
 * the tests run sharp under Node (sharp-codec.ts); a test may hand in a codec of its own.
 */
import type { ImageKind } from './safety'

/** A catalog row's or a grid cell's thumbnail fits in this square (CSS px, twice for a sharp screen). */
export const thumbnailBox = 96
/** The item panel's picture fits in this square. */
export const panelBox = 640

export interface Downscaled {
  thumb: Buffer
  panel: Buffer
  /** The encoded format of both, which the protocol names as the content type. */
  type: 'image/webp'
}

export interface ImageCodec {
  /** Decodes the picture once and encodes both sizes; rejects with ImageRefused when it cannot be read. */
  downscale(bytes: Buffer, kind: ImageKind): Promise<Downscaled>
}
