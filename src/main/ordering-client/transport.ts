/**
 * How the client talks to the service, whatever the endpoint: undici over a keep-alive pool per
 * base URL, both header sets, the timeouts and an overall deadline per request, a ceiling on the
 * bytes read per reply, cancellation, retries of transient failures, and the checks a reply passes
 * before anyone reads it. client.ts says what each endpoint sends and reads back.
 */
import { buildConnector, Pool, type Dispatcher } from 'undici'
import type { z } from 'zod'
import type { ServiceConnection } from './connection'
import { markConnectFailure } from './connect-failures'
import { authHeaders, credentialProblem, errorRedactor, type ErrorRedactor } from './credentials'
import { silentLogger, systemClock, type Clock, type Logger } from '../ports'
import { Turns } from '../turns'
import { clampDelay } from '../timers'
import { ServiceError } from './errors'
import { errorFromResponse } from './responses'
import { cancelledError, defaultRetryPolicy, realSleep, withRetry, type RetryPolicy, type Sleep } from './retry'
import type { CatalogItemRecord } from './schemas'
import { acceptEncoding, contentCodings, readInflated } from './encoding'
import { checked, checkedItems, cutBody, inflateErrors, replyValue, tooLargeError, type WireReply } from './reply-value'

export interface ServiceTimeouts {
  /** Establishing the TCP/TLS connection. */
  connectMs: number
  /** From sending the request to the last response header (reads; order creation waits orderTotalMs). */
  headersMs: number
  /** Longest silence while the body streams in. */
  bodyMs: number
  /**
   * The whole of one read attempt, headers and body: the bound the per-phase timeouts cannot give,
   * since a reply trickling a byte every few seconds never stays silent for bodyMs.
   */
  totalMs: number
  /** The whole of one order creation attempt; it also bounds the wait for the answer's headers. */
  orderTotalMs: number
  /**
   * The whole of one call, every attempt and the waits between them: the deadline the rep is told. An
   * attempt gets totalMs or what is left of this, whichever is less, and no retry starts that could
   * not begin before it ends. Order creation, never retried within a call, has orderTotalMs.
   */
  callMs: number
}

/**
 * Reads get 60 s in all, retries included: a 100-item page with categories is ~200 KiB, under 30 s even at 64 kbit/s,
 * and a stuck sync shows within a minute rather than never. Order creation gets 90 s, and may spend
 * all of it waiting for the service to answer, not just headersMs: a timed-out order is resent with
 * the same api_guid, but a resend that arrives while the service is still committing the first is
 * the one moment that key may not yet protect, so Satchel waits longer for the answer that settles
 * the order than for a page it can fetch again. Nobody waits on it: the outbox sends in the background.
 */
const defaultTimeouts: ServiceTimeouts = {
  connectMs: 10_000,
  headersMs: 30_000,
  bodyMs: 30_000,
  totalMs: 60_000,
  orderTotalMs: 90_000,
  callMs: 60_000,
}

/** What a reply is, for the ceiling on the bytes Satchel reads of it. */
export type ReplyKind = 'page' | 'record' | 'catalogs' | 'order'

const MB = 1024 * 1024

/**
 * The most Satchel reads of one reply, by kind. A reply past its ceiling is dropped as it streams
 * (the connection is closed, nothing past the ceiling is buffered) and reported as tooLarge, so a
 * runaway reply costs bounded memory and bandwidth instead of filling the laptop's memory first.
 * Each ceiling is far above what the contract produces, so none is ever hit by a working service:
 * - page: listing pages (items, customers, orders) and the by-guid item batch. A 100-item page
 *   with categories is ~200 KiB and a 500-guid batch ~1 MiB; 32 MB is 30x the largest of them.
 * - record: one customer, one catalog item with its attachments and options, a price-group list:
 *   a few KiB each (a product group's options grow with its children).
 * - catalogs: the catalog list with every catalog's price groups, ~1.5 KiB per catalog.
 * - order: an order confirmation or a full order. Lines are ~2–7 KiB in full and the service puts no
 *   limit on their number, so this is ~2,000 full lines; refusing a confirmation leaves a committed
 *   order waiting in the outbox, so it is generous.
 */
const defaultMaxReplyBytes: Readonly<Record<ReplyKind, number>> = {
  page: 32 * MB,
  record: 4 * MB,
  catalogs: 4 * MB,
  order: 16 * MB,
}

/** undici's own connector, its failures marked as having happened before any request was written (connect-failures.ts). */
function markingConnector(timeoutMs: number): buildConnector.connector {
  const connect = buildConnector({ timeout: timeoutMs })
  return (options, callback) =>
    connect(options, (...args) => {
      if (args[0]) markConnectFailure(args[0])
      callback(...args)
    })
}

/** Stops a body mid-stream: the connection closes, and the abort error it raises has a listener. */
function discard(body: Dispatcher.ResponseData['body']): void {
  body.on('error', () => {})
  body.destroy()
}

function seconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(1))} s`
}

/** Keep-alive pools, one per origin, shared by every client built for that base URL. */
export class ServicePools {
  private readonly pools = new Map<string, Pool>()

  constructor(private readonly options: { connections?: number; timeouts?: ServiceTimeouts } = {}) {}

  get(origin: string): Pool {
    let pool = this.pools.get(origin)
    if (!pool || pool.closed || pool.destroyed) {
      const timeouts = this.options.timeouts ?? defaultTimeouts
      pool = new Pool(origin, {
        // A first sync's eight listing requests (sync/engine.ts) and two more, so an order sent
        // meanwhile never waits behind them for a connection.
        connections: this.options.connections ?? 10,
        pipelining: 1,
        keepAliveTimeout: 30_000,
        connect: markingConnector(timeouts.connectMs),
        headersTimeout: timeouts.headersMs,
        bodyTimeout: timeouts.bodyMs,
      })
      this.pools.set(origin, pool)
    }
    return pool
  }

  async closeAll(): Promise<void> {
    const pools = [...this.pools.values()]
    this.pools.clear()
    await Promise.all(pools.map((pool) => pool.close().catch(() => pool.destroy())))
  }
}

export interface ServiceClientOptions {
  connection: ServiceConnection
  pools?: ServicePools
  timeouts?: Partial<ServiceTimeouts>
  /** Ceilings per kind of reply, over defaultMaxReplyBytes (tests set small ones). */
  maxReplyBytes?: Partial<Record<ReplyKind, number>>
  retry?: Partial<RetryPolicy>
  sleep?: Sleep
  random?: () => number
  clock?: Clock
  logger?: Logger
}

interface RequestSpec {
  method: 'GET' | 'POST' | 'PUT'
  path: string
  query?: Record<string, string | number | boolean | null | undefined>
  body?: unknown
  vendorGuid?: string
  signal?: AbortSignal
  /** POSTs are not retried here: order creation has its own schedule in the outbox. */
  retry?: boolean
  /** Which ceiling the reply is read under. */
  reply: ReplyKind
  /** Order creation: its own deadline, which also bounds the wait for headers. */
  order?: boolean
  onReceived?: () => void
  /** See CallOptions.beforeDecode: awaited outside the attempt's deadline, before the decoding turn. */
  beforeDecode?: () => Promise<void>
  /**
   * Decodes a 2xx reply instead of this thread: sync's page reader, which inflates, parses and checks
   * a listing page on a thread of its own (sync/page-reader.ts). Its failures count as the attempt's.
   */
  decode?: (wire: WireReply) => Promise<unknown>
}

/** What one attempt got to before it failed, to name the failure. */
interface AttemptState {
  deadlineMs: number
  /** The attempt's deadline is the end of the whole call (what was left of callMs), not its own. */
  endOfCall: boolean
  deadlinePassed: boolean
  /** The status line and headers arrived; a failure after this cut the reply mid-body. */
  headersReceived: boolean
  received: number
}

/** One service's connection, for the endpoints of client.ts. */
export class ServiceTransport {
  readonly baseUrl: string
  private readonly origin: string
  private readonly basePath: string
  private readonly pool: Dispatcher
  private readonly ownsPools: ServicePools | null
  private readonly timeouts: ServiceTimeouts
  private readonly maxReplyBytes: Readonly<Record<ReplyKind, number>>
  private readonly retryPolicy: RetryPolicy
  private readonly sleep: Sleep
  private readonly random: () => number
  private readonly clock: Clock
  private readonly logger: Logger
  private readonly headers: Record<string, string>
  private readonly credentialProblem: string | null
  /** Every error leaves through it: a reply may quote the credentials back (credentials.ts). */
  readonly redactor: ErrorRedactor
  /**
   * Replies are decoded (text, JSON, schema check) one per turn of the event loop: a sync's pages
   * that arrive together, 300 KB of customers each, were otherwise decoded back to back in one
   * turn, 30 ms and more with the window waiting.
   */
  private readonly decoding = new Turns()

  constructor(options: ServiceClientOptions) {
    const url = new URL(options.connection.baseUrl)
    this.baseUrl = options.connection.baseUrl.replace(/\/+$/, '')
    this.origin = url.origin
    this.basePath = url.pathname.replace(/\/+$/, '')
    this.timeouts = { ...defaultTimeouts, ...options.timeouts }
    this.maxReplyBytes = { ...defaultMaxReplyBytes, ...options.maxReplyBytes }
    this.ownsPools = options.pools ? null : new ServicePools({ timeouts: this.timeouts })
    this.pool = (options.pools ?? this.ownsPools!).get(this.origin)
    this.retryPolicy = { ...defaultRetryPolicy, ...options.retry }
    this.sleep = options.sleep ?? realSleep
    this.random = options.random ?? Math.random
    this.clock = options.clock ?? systemClock
    this.logger = options.logger ?? silentLogger
    this.headers = {
      accept: 'application/json',
      'accept-encoding': acceptEncoding,
      ...authHeaders(options.connection.auth),
    }
    this.credentialProblem = credentialProblem(options.connection.auth)
    this.redactor = errorRedactor(options.connection.auth)
  }

  /** Closes the pool only when this client made its own; shared pools belong to their owner. */
  async close(): Promise<void> {
    await this.ownsPools?.closeAll()
  }

  /**
   * One attempt. It is bounded three ways: the per-phase timeouts of the pool (connect, headers,
   * silence mid-body), an overall deadline that aborts the request, and a ceiling on the bytes read,
   * counted as the body streams in. The caller's signal aborts it too, and reads as `cancelled`.
   */
  private async once(spec: RequestSpec, callLeftMs: number | null = null): Promise<unknown> {
    if (spec.signal?.aborted) throw cancelledError(spec.signal)
    if (this.credentialProblem) throw new ServiceError('credentials', this.credentialProblem)
    const search = new URLSearchParams()
    for (const [key, value] of Object.entries(spec.query ?? {})) {
      if (value !== undefined && value !== null) search.set(key, String(value))
    }
    const qs = search.toString()
    const headers: Record<string, string> = { ...this.headers }
    if (spec.vendorGuid) headers.vendorGuid = spec.vendorGuid
    let body: string | undefined
    if (spec.body !== undefined) {
      body = JSON.stringify(spec.body)
      headers['content-type'] = 'application/json'
    }
    const maxBytes = this.maxReplyBytes[spec.reply]
    const ownMs = spec.order ? this.timeouts.orderTotalMs : this.timeouts.totalMs
    const endOfCall = callLeftMs !== null && callLeftMs < ownMs
    const state: AttemptState = {
      deadlineMs: endOfCall ? Math.max(0, callLeftMs) : ownMs,
      endOfCall,
      deadlinePassed: false,
      headersReceived: false,
      received: 0,
    }
    // One signal for undici: the caller's cancel or the deadline, whichever comes first.
    const abort = new AbortController()
    const onCancel = () => abort.abort(spec.signal?.reason)
    spec.signal?.addEventListener('abort', onCancel, { once: true })
    const deadline = setTimeout(() => {
      state.deadlinePassed = true
      abort.abort(new Error(`No complete answer within ${state.deadlineMs} ms`))
    }, clampDelay(state.deadlineMs))
    let response: Dispatcher.ResponseData
    let chunks: Buffer[]
    try {
      response = await this.pool.request({
        method: spec.method,
        path: this.basePath + spec.path + (qs ? `?${qs}` : ''),
        headers,
        body,
        signal: abort.signal,
        headersTimeout: spec.order ? this.timeouts.orderTotalMs : this.timeouts.headersMs,
        bodyTimeout: this.timeouts.bodyMs,
      })
      state.headersReceived = true
      chunks = await this.readBody(response, maxBytes, state, spec)
    } catch (error) {
      throw this.redactor.error(this.networkError(error, spec, state))
    } finally {
      clearTimeout(deadline)
      spec.signal?.removeEventListener('abort', onCancel)
    }
    const { statusCode } = response
    const ok = statusCode >= 200 && statusCode < 300
    // The bytes are in and the connection is free: a wait here is the caller's room for the decoded
    // reply, not the service's answer, so it is past the attempt's deadline.
    if (ok) await spec.beforeDecode?.()
    const joined = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)
    const codings = contentCodings(response.headers['content-encoding'])
    if (!ok) {
      // An error's body was inflated as it streamed (readBody), and is cut at the ceiling.
      throw this.redactor.error(
        errorFromResponse(statusCode, response.headers, this.redactor.text(joined.toString('utf8')), this.clock.now()),
      )
    }
    const wire: WireReply = {
      bytes: joined,
      codings,
      maxBytes,
      method: spec.method,
      path: spec.path,
      status: statusCode,
    }
    if (spec.decode) {
      try {
        return await spec.decode(wire)
      } catch (error) {
        throw this.redactor.error(cutNotJson(error, this.redactor.text))
      }
    }
    // The caller parses and checks the reply in the same turn, as this promise's continuation.
    await this.decoding.next()
    try {
      return replyValue(wire, this.redactor.text)
    } catch (error) {
      throw this.redactor.error(error)
    }
  }

  /**
   * The body's bytes, read chunk by chunk up to `maxBytes`. Past it (or when content-length already
   * says so) the body is destroyed, which closes the connection, so the rest is never received.
   * A 2xx past the ceiling is tooLarge; an error body is cut there and its status still decides.
   * A 2xx in a content coding is returned as it came, to be inflated in one call in its decoding
   * turn, up to the ceiling (encoding.ts); an error body in one is inflated as it streams, cut there.
   */
  private async readBody(
    response: Dispatcher.ResponseData,
    maxBytes: number,
    state: AttemptState,
    spec: RequestSpec,
  ): Promise<Buffer[]> {
    const ok = response.statusCode >= 200 && response.statusCode < 300
    const declared = Number(response.headers['content-length'])
    if (ok && Number.isFinite(declared) && declared > maxBytes) {
      discard(response.body)
      throw tooLargeError(spec, maxBytes, declared)
    }
    const codings = contentCodings(response.headers['content-encoding'])
    const chunks =
      codings.length > 0 && !ok
        ? await readInflated(response.body, codings, {
            maxBytes,
            ok,
            counted: state,
            ...inflateErrors(spec, maxBytes),
          })
        : await this.readPlain(response, maxBytes, state, spec, ok)
    if (ok) spec.onReceived?.()
    return chunks
  }

  private async readPlain(
    response: Dispatcher.ResponseData,
    maxBytes: number,
    state: AttemptState,
    spec: RequestSpec,
    ok: boolean,
  ): Promise<Buffer[]> {
    const chunks: Buffer[] = []
    for await (const chunk of response.body as AsyncIterable<Buffer>) {
      state.received += chunk.length
      if (state.received > maxBytes) {
        discard(response.body)
        if (ok) throw tooLargeError(spec, maxBytes)
        chunks.push(chunk.subarray(0, chunk.length - (state.received - maxBytes)))
        break
      }
      chunks.push(chunk)
    }
    return chunks
  }

  /** Names a failure for a person; the library's own error stays in `cause` for the logs. */
  private networkError(error: unknown, spec: RequestSpec, state: AttemptState): ServiceError {
    if (error instanceof ServiceError) return error
    if (spec.signal?.aborted) return cancelledError(spec.signal)
    const what = `${spec.method} ${spec.path}`
    const code = (error as { code?: unknown })?.code
    const detail = error instanceof Error ? error.message : String(error)
    if (state.deadlinePassed && state.endOfCall) {
      return new ServiceError(
        'timeout',
        `The ordering service did not finish answering ${what} within ${seconds(this.timeouts.callMs)}, the deadline for the whole call, retries included.`,
        {
          cause: error,
        },
      )
    }
    if (state.deadlinePassed) {
      return new ServiceError(
        'timeout',
        `The ordering service did not finish answering ${what} within ${seconds(state.deadlineMs)}.`,
        { cause: error },
      )
    }
    switch (code) {
      case 'UND_ERR_CONNECT_TIMEOUT':
        return new ServiceError(
          'timeout',
          `The ordering service at ${this.baseUrl} did not accept a connection within ${seconds(this.timeouts.connectMs)}.`,
          { cause: error },
        )
      case 'UND_ERR_HEADERS_TIMEOUT': {
        const waited = spec.order ? this.timeouts.orderTotalMs : this.timeouts.headersMs
        return new ServiceError(
          'timeout',
          `The ordering service did not start answering ${what} within ${seconds(waited)}.`,
          { cause: error },
        )
      }
      case 'UND_ERR_BODY_TIMEOUT':
        return new ServiceError(
          'timeout',
          `The ordering service went silent for ${seconds(this.timeouts.bodyMs)} partway through its answer to ${what}.`,
          { cause: error },
        )
      case 'ETIMEDOUT':
        return new ServiceError('timeout', `The connection to the ordering service timed out (${what}).`, {
          cause: error,
        })
    }
    if (state.headersReceived) {
      // The status line came, the body did not finish: the socket closed, or the body ended short
      // of its content-length. Whatever undici called it, the reply is incomplete.
      const got = state.received >= 1024 ? ` after ${Math.round(state.received / 1024)} KB` : ''
      return new ServiceError(
        'truncated',
        `The ordering service stopped sending partway through its reply to ${what}${got}.`,
        { cause: error },
      )
    }
    return new ServiceError('unreachable', `The ordering service cannot be reached at ${this.baseUrl}: ${detail}`, {
      cause: error,
    })
  }

  /**
   * A call: attempts and the backoff between them, all within callMs. A call that failed after
   * retrying says how many attempts it made and the deadline they shared.
   */
  async request(spec: RequestSpec): Promise<unknown> {
    if (spec.retry === false) return this.once(spec)
    const endsAt = this.clock.now() + this.timeouts.callMs
    let attempts = 0
    try {
      return await withRetry(
        (attempt) => {
          attempts = attempt
          return this.once(spec, endsAt - this.clock.now())
        },
        {
          policy: this.retryPolicy,
          sleep: this.sleep,
          random: this.random,
          signal: spec.signal,
          deadline: { at: endsAt, now: () => this.clock.now() },
          onRetry: ({ attempt, delayMs, error }) =>
            this.logger.warn('service call failed, retrying', {
              method: spec.method,
              path: spec.path,
              attempt,
              delayMs,
              kind: error.kind,
              status: error.status,
            }),
        },
      )
    } catch (error) {
      if (!(error instanceof ServiceError) || !error.transient || attempts < 2) throw error
      const { kind, status, code, body, retryAfterMs } = error
      const message = `${error.message.replace(/\.?$/, '.')} ${attempts} attempts; a call gets ${seconds(this.timeouts.callMs)} in all, retries included.`
      throw new ServiceError(kind, message, { status, code, body, retryAfterMs, cause: error })
    }
  }

  check<S extends z.ZodType>(schema: S, body: unknown, what: string): z.output<S> {
    try {
      return checked(schema, body, what)
    } catch (error) {
      throw this.redactor.error(error)
    }
  }

  /** A reply that carries `catalog_items` (a page, a batch): reply-value.ts's checkedItems, redacted. */
  checkItems<S extends z.ZodType>(
    schema: S,
    body: unknown,
    what: string,
  ): z.output<S> & { catalog_items: CatalogItemRecord[] } {
    try {
      return checkedItems(schema, body, what)
    } catch (error) {
      throw this.redactor.error(error)
    }
  }
}

/**
 * A decoder's "not JSON" failure from a thread without the credentials holds the whole body: cut
 * here, once redacted, as this thread's own decoding cuts it (reply-value.ts).
 */
function cutNotJson(error: unknown, redact: (text: string) => string): unknown {
  if (!(error instanceof ServiceError) || error.kind !== 'invalidResponse' || typeof error.body !== 'string')
    return error
  const { status, code, retryAfterMs, cause } = error
  return new ServiceError(error.kind, error.message, {
    status,
    code,
    retryAfterMs,
    cause,
    body: cutBody(redact(error.body)),
  })
}
