/**
 * The double compresses its replies as a service behind a web server does (nginx's gzip, Fastify's
 * @fastify/compress): a reply of 1 KB or more, JSON or text, goes out in the coding the request
 * prefers of br, gzip and deflate, at those servers' usual settings (br at quality 4, gzip at
 * level 6), each in one call (compressors, below). `compress: false`
 * (`npm run service -- --no-compress`) turns it off. Two reply faults make what a broken one sends:
 * a body labelled with a coding it is not in, and a small body that inflates to gigabytes.
 */
import {
  brotliCompressSync,
  constants,
  createBrotliCompress,
  createDeflate,
  createGzip,
  deflateSync,
  gzipSync,
} from 'node:zlib'
import type { Transform } from 'node:stream'
import type { ReplyEncoding } from './types'

/** Below this a reply goes as it is: compressing would save little (@fastify/compress's threshold). */
export const COMPRESS_THRESHOLD = 1024

const brotliOptions = { params: { [constants.BROTLI_PARAM_QUALITY]: 4 } }
/**
 * In one call on the double's own thread, not zlib's async form on libuv's pool: on the benches'
 * two cores, which the double shares with the sync it serves, the async form's hops between threads
 * cost 2.5 times the compression itself (a 200 KB page at br quality 4: 3.9 ms of CPU against 1.5,
 * six at a time), all of it charged to Satchel's loopback figures though a real link leaves it on
 * the supplier's machine. A page blocks the double's loop for about 1.5 ms, which nothing notices.
 */
const compressors: Record<ReplyEncoding, (body: Buffer) => Buffer> = {
  br: (body) =>
    brotliCompressSync(body, {
      ...brotliOptions,
      params: { ...brotliOptions.params, [constants.BROTLI_PARAM_SIZE_HINT]: body.length },
    }),
  gzip: (body) => gzipSync(body),
  deflate: (body) => deflateSync(body),
}

/** The server's order of preference among what both sides know. */
const preference: readonly ReplyEncoding[] = ['br', 'gzip', 'deflate']

/**
 * The coding to answer in, from an `accept-encoding` header: the first of br, gzip, deflate the
 * request accepts (a q of 0 refuses one; `*` accepts any); null for none.
 */
export function negotiateEncoding(header: string | string[] | undefined): ReplyEncoding | null {
  const text = Array.isArray(header) ? header.join(',') : (header ?? '')
  const accepted = new Map<string, number>()
  for (const part of text.split(',')) {
    const [name = '', ...params] = part.trim().toLowerCase().split(';')
    if (!name) continue
    const q = params.map((param) => /^\s*q=([\d.]+)\s*$/.exec(param)?.[1]).find((value) => value !== undefined)
    accepted.set(name.trim(), q === undefined ? 1 : Number(q))
  }
  for (const coding of preference) {
    const q = accepted.get(coding) ?? accepted.get('*')
    if (q !== undefined && q > 0) return coding
  }
  return null
}

/** Whether a reply of this content type is worth compressing (JSON and text, as web servers' defaults). */
export function compressible(contentType: unknown): boolean {
  return typeof contentType === 'string' && /json|^text\//i.test(contentType)
}

export function compressBody(body: Buffer, encoding: ReplyEncoding): Buffer {
  return compressors[encoding](body)
}

function compressStream(encoding: ReplyEncoding): Transform {
  if (encoding === 'br')
    return createBrotliCompress({
      params: { [constants.BROTLI_PARAM_QUALITY]: 5, [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT },
    })
  return encoding === 'gzip' ? createGzip({ level: 9 }) : createDeflate({ level: 9 })
}

/**
 * A compression bomb: the first 64 bytes of `start` (the reply's own, so it begins as JSON) then spaces, to
 * `bytes` inflated bytes, compressed at the highest ratio. Spaces a megabyte at a time, so building
 * one of gigabytes costs the double a megabyte of memory and its CPU for a while.
 */
export async function inflatingBody(start: Buffer, bytes: number, encoding: ReplyEncoding): Promise<Buffer> {
  const stream = compressStream(encoding)
  const out: Buffer[] = []
  stream.on('data', (chunk: Buffer) => out.push(chunk))
  const done = new Promise<void>((resolve, reject) => {
    stream.once('end', resolve)
    stream.once('error', reject)
  })
  const head = start.subarray(0, Math.min(start.length, bytes, 64))
  stream.write(head)
  const spaces = Buffer.alloc(1024 * 1024, 0x20)
  for (let left = bytes - head.length; left > 0; left -= spaces.length) {
    const chunk = left >= spaces.length ? spaces : spaces.subarray(0, left)
    if (!stream.write(chunk)) await new Promise((resolve) => stream.once('drain', resolve))
  }
  stream.end()
  await done
  return Buffer.concat(out)
}
