/**
 * An opt-in reply cache in front of the double (`startService({ cacheReplies: true })`,
 * `--cache-replies`), as a CDN or caching proxy sits in front of a real service: a 200 GET's reply
 * is kept as the bytes that went out (compressed, in the coding negotiated) with its headers, and an
 * identical GET later gets those bytes without the handler serializing the page or the compressor
 * running again. It is the benches': a real service serializes and compresses on its own machines or
 * serves from such a cache, and on the benches' two cores that work was charged to Satchel.
 *
 * Any write empties it (server.ts): a listing page's `serverTimestamp` is the moment its data was
 * current, and while nothing has changed since, a cursor taken from it asks for exactly what one
 * taken now would.
 */
import type { Headers } from './http'

/** At a million items the compressed pages are about 200 MB; past this the cache keeps no more. */
const DEFAULT_CACHE_LIMIT_BYTES = 2 ** 30

/**
 * The request headers that pick who is asking and in whose context: a reply to other credentials,
 * another customer (vendorGuid) or another session is another reply. (The URL carries the query,
 * vendorGuid there included.)
 */
const keyHeaders = ['x-apikey', 'x-apisecret', 'userguid', 'usertoken', 'supplierguid', 'vendorguid'] as const

/** Headers that belong to one response on one connection, not to the reply: Node sets them each time. */
const perResponseHeaders = new Set(['content-length', 'date', 'connection', 'keep-alive', 'transfer-encoding'])

export interface CachedReply {
  /** The body as it went out. */
  body: Buffer
  headers: Record<string, string | string[]>
  /** The body's bytes as the handler wrote them (the request log's JSON bytes). */
  writtenBytes: number
  encoding?: string
}

export interface ReplyCacheFigures {
  entries: number
  bytes: number
  /** GETs answered from the cache, and GETs it could have answered but did not hold, since the start. */
  hits: number
  misses: number
  /** Times a write emptied it. */
  clears: number
  /** Replies not kept because the cache was full. */
  refused: number
}

function text(value: string | string[] | undefined): string {
  return Array.isArray(value) ? value.join(', ') : (value ?? '')
}

export class ReplyCache {
  private readonly replies = new Map<string, CachedReply>()
  private bytes = 0
  private figures = { hits: 0, misses: 0, clears: 0, refused: 0 }
  /** Bumped by every clear: a reply computed before a write must not be kept after it. */
  generation = 0
  private full = false

  constructor(
    readonly limitBytes = DEFAULT_CACHE_LIMIT_BYTES,
    private readonly say: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
  ) {}

  /** The key of a GET: its URL with the query, the coding it will get, and who asks in whose context. */
  static key(url: string, coding: string | null, headers: Headers): string {
    return JSON.stringify([url, coding ?? 'identity', ...keyHeaders.map((name) => text(headers[name]))])
  }

  get(key: string): CachedReply | undefined {
    const reply = this.replies.get(key)
    if (reply) this.figures.hits += 1
    else this.figures.misses += 1
    return reply
  }

  put(key: string, body: Buffer, headers: Record<string, unknown>, writtenBytes: number, encoding?: string): void {
    if (this.replies.has(key)) return
    const kept: Record<string, string | string[]> = {}
    for (const [name, value] of Object.entries(headers)) {
      if (value === undefined || perResponseHeaders.has(name.toLowerCase())) continue
      kept[name] = Array.isArray(value) ? value.map(String) : String(value)
    }
    const size = body.length + key.length + JSON.stringify(kept).length
    if (this.bytes + size > this.limitBytes) {
      this.figures.refused += 1
      if (!this.full)
        this.say(
          `reply cache: full at ${(this.bytes / 2 ** 20).toFixed(0)} MB (limit ${(this.limitBytes / 2 ** 20).toFixed(0)} MB); further replies are not kept until a write empties it`,
        )
      this.full = true
      return
    }
    // A copy: the payload's buffer may be pooled or reused once written.
    this.replies.set(key, { body: Buffer.from(body), headers: kept, writtenBytes, encoding })
    this.bytes += size
  }

  clear(): void {
    this.generation += 1
    if (this.replies.size === 0) return
    this.replies.clear()
    this.bytes = 0
    this.full = false
    this.figures.clears += 1
  }

  stats(): ReplyCacheFigures {
    return { entries: this.replies.size, bytes: this.bytes, ...this.figures }
  }
}

/**
 * Control calls after which every cached reply is still true: readers, and what touches only the
 * faults, the request log or the pictures' figures (pictures are never cached). Any other call,
 * one added later included, may change data and empties the cache.
 */
const keepsReplies = new Set([
  'now',
  'catalogs',
  'priceGroups',
  'categories',
  'catalogItems',
  'customers',
  'orders',
  'ordersByApiGuid',
  'requestLog',
  'clearRequestLog',
  'replyBytes',
  'replyCache',
  'inFlightOverlaps',
  'imageFigures',
  'clearImageFigures',
  'addFault',
  'removeFault',
  'clearFaults',
  'imageFault',
  'slowImages',
])

/**
 * The control surface with every call that may change data (an update, the clock, a session, a
 * drift fault's writes, reset) emptying the cache once it has run, over HTTP and in-process alike.
 */
export function emptiedByWrites<T extends object>(control: T, cache: ReplyCache): T {
  const wrapped: Record<string, unknown> = {}
  for (const [name, value] of Object.entries(control)) {
    if (typeof value !== 'function' || keepsReplies.has(name)) {
      wrapped[name] = value
      continue
    }
    const call = value as (...args: unknown[]) => unknown
    wrapped[name] = (...args: unknown[]) => {
      try {
        return call(...args)
      } finally {
        cache.clear()
      }
    }
  }
  return wrapped as T
}
