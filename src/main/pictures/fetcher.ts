/**
 * Fetching one picture from its host, politely: a few requests at a time per host, the validators
 * of the copy kept (If-None-Match, If-Modified-Since) so an unchanged picture costs a 304 and no
 * bytes, a host's Retry-After held to, and each answer checked before it is believed (safety.ts).
 */
import { Agent, request, type Dispatcher } from 'undici'
import {
  checkContentType,
  checkDeclaredLength,
  ImageRefused,
  maxImageBytes,
  redirectAddress,
  readPicture,
  type ImageKind,
} from './safety'

type FetchOutcome =
  | { kind: 'fresh'; bytes: Buffer; imageKind: ImageKind; etag: string | null; lastModified: string | null }
  | { kind: 'not-modified' }

/** A host that could not answer now (a status, a timeout, no network): try again after the back-off. */
export class FetchFailed extends Error {
  constructor(
    message: string,
    /** The host's Retry-After, in ms from now, where it sent one. */
    readonly retryAfterMs: number | null = null,
    /** 404 and 410: the picture is gone, not late. */
    readonly gone = false,
  ) {
    super(message)
    this.name = 'FetchFailed'
  }
}

interface FetchFigures {
  requests: number
  /** Body bytes received from image hosts (a refused body counts what was read of it). */
  bytes: number
  notModified: number
}

export interface FetcherOptions {
  /** Requests in flight to one host at most. */
  perHost?: number
  timeoutMs?: number
  /**
   * The most one picture may take, redirects and body included: the timeouts above are idle ones, and
   * a host that sends a byte a second never trips them, while it holds one of the host's slots.
   */
  deadlineMs?: number
  maxBytes?: number
  now?: () => number
  dispatcher?: Dispatcher
}

const maxRedirects = 3

/** Retry-After as ms from now: seconds, or an HTTP date. */
export function retryAfterMs(value: string | string[] | undefined, now: number): number | null {
  const raw = Array.isArray(value) ? value[0] : value
  if (raw === undefined || raw.trim() === '') return null
  if (/^\d+$/.test(raw.trim())) return Number(raw.trim()) * 1000
  const at = Date.parse(raw)
  return Number.isNaN(at) ? null : Math.max(0, at - now)
}

const header = (value: string | string[] | undefined): string | undefined => (Array.isArray(value) ? value[0] : value)

export class PictureFetcher {
  readonly figures: FetchFigures = { requests: 0, bytes: 0, notModified: 0 }
  private readonly perHost: number
  private readonly timeoutMs: number
  private readonly deadlineMs: number
  private readonly maxBytes: number
  private readonly now: () => number
  private readonly dispatcher: Dispatcher
  private readonly inFlight = new Map<string, number>()
  private readonly waiting = new Map<string, (() => void)[]>()
  /** Hosts that asked to be left alone (Retry-After), until when. */
  private readonly heldUntil = new Map<string, number>()

  constructor(options: FetcherOptions = {}) {
    this.perHost = options.perHost ?? 2
    this.timeoutMs = options.timeoutMs ?? 30_000
    // Two minutes: a picture at the 10 MB ceiling arrives within it even at 1 Mbit/s (80 s).
    this.deadlineMs = options.deadlineMs ?? 120_000
    this.maxBytes = options.maxBytes ?? maxImageBytes
    this.now = options.now ?? Date.now
    this.dispatcher = options.dispatcher ?? new Agent({ connections: this.perHost, keepAliveTimeout: 10_000 })
  }

  /** Until when the host of `url` asked not to be asked (0 when it did not). */
  hostHeldUntil(url: URL): number {
    return this.heldUntil.get(url.host) ?? 0
  }

  async fetch(url: URL, validators: { etag: string | null; lastModified: string | null }): Promise<FetchOutcome> {
    const held = this.hostHeldUntil(url) - this.now()
    if (held > 0) throw new FetchFailed(`${url.host} asked to wait`, held)
    await this.slot(url.host)
    const deadline = AbortSignal.timeout(this.deadlineMs)
    try {
      return await this.follow(url, validators, 0, deadline)
    } catch (error) {
      if (deadline.aborted && !(error instanceof ImageRefused))
        throw new FetchFailed(`${url.host} took longer than ${this.deadlineMs / 1000} s for one picture`)
      throw error
    } finally {
      this.release(url.host)
    }
  }

  async close(): Promise<void> {
    await this.dispatcher.close()
  }

  private async follow(
    url: URL,
    validators: { etag: string | null; lastModified: string | null },
    redirects: number,
    deadline: AbortSignal,
  ): Promise<FetchOutcome> {
    const headers: Record<string, string> = { accept: 'image/webp,image/png,image/jpeg,image/gif;q=0.9' }
    if (validators.etag) headers['if-none-match'] = validators.etag
    if (validators.lastModified) headers['if-modified-since'] = validators.lastModified
    this.figures.requests++
    let answer: Dispatcher.ResponseData
    try {
      answer = await request(url, {
        method: 'GET',
        headers,
        dispatcher: this.dispatcher,
        headersTimeout: this.timeoutMs,
        bodyTimeout: this.timeoutMs,
        signal: deadline,
      })
    } catch (error) {
      throw new FetchFailed(`${url.host} did not answer: ${(error as Error).message}`)
    }
    const { statusCode, headers: got, body } = answer
    // A body dropped part-way (over the ceiling, not a picture) is destroyed on purpose: the abort it
    // reports is expected, and must not surface as an uncaught error.
    body.on('error', () => undefined)
    const drop = () => body.dump({ limit: 64 * 1024 }).catch(() => undefined)
    if (statusCode === 304) {
      await drop()
      this.figures.notModified++
      return { kind: 'not-modified' }
    }
    if (statusCode >= 300 && statusCode < 400 && header(got.location)) {
      await drop()
      if (redirects >= maxRedirects) throw new FetchFailed(`${url.host} redirected more than ${maxRedirects} times`)
      // The next address meets the same rules, and one more: off its own origin, https only.
      return this.follow(redirectAddress(header(got.location)!, url), validators, redirects + 1, deadline)
    }
    if (statusCode !== 200) {
      await drop()
      const wait = statusCode === 429 || statusCode === 503 ? retryAfterMs(got['retry-after'], this.now()) : null
      if (wait !== null) this.heldUntil.set(url.host, this.now() + wait)
      throw new FetchFailed(`${url.host} answered ${statusCode}`, wait, statusCode === 404 || statusCode === 410)
    }
    try {
      checkContentType(header(got['content-type']))
      checkDeclaredLength(header(got['content-length']), this.maxBytes)
      const counted = this.counting(body)
      const picture = await readPicture(counted, this.maxBytes)
      return {
        kind: 'fresh',
        bytes: picture.bytes,
        imageKind: picture.kind,
        etag: header(got.etag) ?? null,
        lastModified: header(got['last-modified']) ?? null,
      }
    } catch (error) {
      body.destroy()
      if (error instanceof ImageRefused) throw error
      throw new FetchFailed(`${url.host} broke off: ${(error as Error).message}`)
    }
  }

  private async *counting(body: AsyncIterable<Uint8Array>): AsyncIterable<Uint8Array> {
    for await (const chunk of body) {
      this.figures.bytes += chunk.byteLength
      yield chunk
    }
  }

  private async slot(host: string): Promise<void> {
    const busy = this.inFlight.get(host) ?? 0
    if (busy < this.perHost) {
      this.inFlight.set(host, busy + 1)
      return
    }
    await new Promise<void>((resolve) => {
      const queue = this.waiting.get(host) ?? []
      queue.push(resolve)
      this.waiting.set(host, queue)
    })
  }

  private release(host: string): void {
    const next = this.waiting.get(host)?.shift()
    // The slot passes to the next in line without ever being free, so no newcomer jumps the queue.
    if (next) next()
    else this.inFlight.set(host, (this.inFlight.get(host) ?? 1) - 1)
  }
}
