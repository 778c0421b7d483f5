/**
 * Compressed replies: what Satchel asks for (`accept-encoding`) and how a reply in a content coding
 * is inflated. Listings are JSON, which compresses well, and over a rep's link a first sync is mostly
 * moving bytes (docs/perf/2026-11-28-wire.md).
 *
 * A 2xx reply is read whole as it came (its wire bytes held to the ceiling as they arrive), then
 * inflated in one call on the thread that reads it (inflateWhole), with the ceiling as the most it may
 * inflate to: a page is about 20 KB on the wire and 200 KB inflated, about 0.5 ms of CPU in one call,
 * where Node's zlib streams, which hop to libuv's pool and back for every 16 KB they put out, took
 * 3.5 ms of the same two cores (docs/perf/2026-11-29-wire.md). An error reply, whose body is cut at
 * the ceiling rather than refused, is still inflated as it streams (readInflated). Either way a small
 * reply that would inflate to gigabytes stops at the ceiling, and a reply that names a coding and
 * does not inflate in it is a fault of that one reply (a proxy that mangled it, a server that labels
 * what it did not compress): `truncated`, retried like a reply cut short.
 */
import {
  brotliDecompressSync,
  createBrotliDecompress,
  createGunzip,
  createInflate,
  gunzipSync,
  inflateSync,
} from 'node:zlib'
import { pipeline, type Readable, type Transform } from 'node:stream'

/**
 * Sent on every request. br first (the smallest for JSON at a web server's usual settings, and the
 * cheapest to inflate), then gzip, which every web server can send, and deflate. identity is always
 * acceptable too (RFC 9110), and a reply in none of them is read as it is.
 */
export const acceptEncoding = 'br, gzip, deflate'

/** The decoders of the codings Satchel asks for, by name (x-gzip is gzip's old name). */
const decoders: Readonly<Record<string, () => Transform>> = {
  br: () => createBrotliDecompress(),
  gzip: () => createGunzip(),
  'x-gzip': () => createGunzip(),
  // RFC 9110's deflate is zlib-wrapped; some servers send it raw, which createInflate refuses: a fault, retried.
  deflate: () => createInflate(),
}

/** The same, each in one call, up to `maxOutputLength` inflated bytes (past it they throw ERR_BUFFER_TOO_LARGE). */
const inflaters: Readonly<Record<string, (bytes: Buffer, options: { maxOutputLength: number }) => Buffer>> = {
  br: brotliDecompressSync,
  gzip: gunzipSync,
  'x-gzip': gunzipSync,
  deflate: inflateSync,
}

/**
 * The codings a `content-encoding` header names, in the order they were applied (`identity` and
 * empty names dropped), lower-cased.
 */
export function contentCodings(header: string | string[] | undefined): string[] {
  const text = Array.isArray(header) ? header.join(',') : (header ?? '')
  return text
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter((name) => name !== '' && name !== 'identity')
}

/** A coding Satchel cannot inflate (it did not ask for it): the reply cannot be read. */
class UnknownCodingError extends Error {
  constructor(readonly coding: string) {
    super(`the reply is in a content coding Satchel did not ask for (${coding})`)
  }
}

/**
 * One decoder per coding, the last applied first: the chain that turns the wire's bytes back into
 * the reply's. Throws UnknownCodingError for a coding Satchel does not know.
 */
function decoderChain(codings: readonly string[]): Transform[] {
  return [...codings].reverse().map((coding) => {
    const make = decoders[coding]
    if (!make) throw new UnknownCodingError(coding)
    return make()
  })
}

/** zlib's and brotli's own errors (Z_DATA_ERROR, ERR__ERROR_FORMAT_PADDING_2, …): the bytes are not in the coding named. */
function isInflateError(error: unknown): boolean {
  const code = (error as { code?: unknown })?.code
  return (
    typeof code === 'string' &&
    (code.startsWith('Z_') || code.startsWith('ERR__ERROR') || code.startsWith('ERR_BROTLI'))
  )
}

/** What an inflation that fails throws: the reply's own errors (transport.ts names them). */
export interface InflateErrors {
  /** The error for a reply past the ceiling, on the wire or once inflated. */
  tooLarge: (inflated: boolean) => Error
  /** The error for a reply that does not inflate in the coding it named. */
  undecodable: (codings: readonly string[], detail: string) => Error
}

/**
 * A whole reply's wire bytes inflated, each coding in one call, the last applied first. No coding
 * may inflate past `maxBytes` (tooLarge); a coding Satchel did not ask for, or bytes that are not in
 * the coding named, throw `undecodable`.
 */
export function inflateWhole(
  wire: Buffer,
  codings: readonly string[],
  maxBytes: number,
  errors: InflateErrors,
): Buffer {
  let bytes = wire
  for (const coding of [...codings].reverse()) {
    const inflate = inflaters[coding]
    if (!inflate) throw errors.undecodable(codings, new UnknownCodingError(coding).message)
    try {
      bytes = inflate(bytes, { maxOutputLength: maxBytes })
    } catch (error) {
      if ((error as { code?: unknown })?.code === 'ERR_BUFFER_TOO_LARGE') throw errors.tooLarge(true)
      if (isInflateError(error)) throw errors.undecodable(codings, (error as Error).message)
      throw error
    }
  }
  return bytes
}

export interface InflateBounds extends InflateErrors {
  /** The reply's ceiling, for the wire's bytes and the inflated bytes alike. */
  maxBytes: number
  /** A 2xx: past the ceiling, or not inflating, it is refused; an error reply is cut there and its status decides. */
  ok: boolean
  /** Where the wire's bytes are counted (the attempt's `received`, which names a reply cut short). */
  counted: { received: number }
}

/**
 * A reply in a content coding, inflated as it streams, as the inflated chunks. The wire's bytes and
 * the inflated bytes are each held to the ceiling as they pass; past it, or on bytes that do not
 * inflate, the body is destroyed (the connection closes, nothing more is received). A failure of the
 * wire itself (cut, timed out, aborted) comes back as undici raised it, for the caller to name.
 */
export async function readInflated(
  body: Readable,
  codings: readonly string[],
  bounds: InflateBounds,
): Promise<Buffer[]> {
  let chain: Transform[]
  try {
    chain = decoderChain(codings)
  } catch (error) {
    body.on('error', () => {})
    body.destroy()
    if (!bounds.ok) return []
    throw bounds.undecodable(codings, (error as Error).message)
  }
  const chunks: Buffer[] = []
  let inflated = 0
  let failure: unknown = null
  let overWire = false
  body.on('data', (chunk: Buffer) => {
    bounds.counted.received += chunk.length
    if (bounds.counted.received > bounds.maxBytes && !overWire) {
      overWire = true
      body.destroy()
    }
  })
  const last = pipeline([body, ...chain], (error) => {
    if (error && !overWire) failure ??= error
  }) as Transform
  let overInflated = false
  try {
    for await (const chunk of last as AsyncIterable<Buffer>) {
      inflated += chunk.length
      if (inflated > bounds.maxBytes) {
        overInflated = true
        chunks.push(chunk.subarray(0, chunk.length - (inflated - bounds.maxBytes)))
        body.destroy()
        break
      }
      chunks.push(chunk)
    }
  } catch (error) {
    failure ??= error
  }
  if (overInflated) {
    if (bounds.ok) throw bounds.tooLarge(true)
    return chunks
  }
  if (overWire) {
    if (bounds.ok) throw bounds.tooLarge(false)
    return chunks
  }
  if (failure !== null) {
    if (!isInflateError(failure)) throw failure
    if (!bounds.ok) return chunks
    throw bounds.undecodable(codings, (failure as Error).message)
  }
  return chunks
}
