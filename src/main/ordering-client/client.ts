/**
 * The ordering service's client: undici over a keep-alive pool per base URL, both header sets,
 * timeouts and an overall deadline per request, a ceiling on the bytes read per reply, cancellation,
 * retries of transient failures, and runtime checks of every response.
 * Electron-free, so the app, the CLI and the benchmark use the same code.
 */
import { Pool, type Dispatcher } from 'undici'
import type { z } from 'zod'
import type { ServiceConnection } from './connection'
import { markingConnector } from './connect-failures'
import { authHeaders, credentialProblem, errorRedactor, type ErrorRedactor } from './credentials'
import { silentLogger, systemClock, type Clock, type Logger } from '../ports'
import { Turns } from '../turns'
import { clampDelay } from '../timers'
import { ServiceError } from './errors'
import { errorFromResponse, findRecordArray, findString, findTotal, hasMoreOf } from './responses'
import { cancelledError, defaultRetryPolicy, realSleep, withRetry, type RetryPolicy, type Sleep } from './retry'
import {
  catalogItemBatchSchema,
  catalogItemPageSchema,
  catalogItemResponseSchema,
  catalogListSchema,
  customerConnectionSchema,
  customerSchema,
  orderResponseSchema,
  orderSchema,
  orderWithItemsResponseSchema,
  priceGroupListSchema,
  catalogItemsIssues,
  type CatalogItemRecord,
  type CatalogRecord,
  type CustomerRecord,
  type OrderRecord,
  type PriceGroupRecord,
  type ReplyIssue,
} from './schemas'

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
const defaultTimeouts: ServiceTimeouts = { connectMs: 10_000, headersMs: 30_000, bodyMs: 30_000, totalMs: 60_000, orderTotalMs: 90_000, callMs: 60_000 }

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

/** Stops a body mid-stream: the connection closes, and the abort error it raises has a listener. */
function discard(body: Dispatcher.ResponseData['body']): void {
  body.on('error', () => {})
  body.destroy()
}

function megabytes(bytes: number): string {
  const value = bytes / MB
  return `${value >= 10 || Number.isInteger(value) ? Math.round(value) : value.toFixed(1)} MB`
}

function seconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(1))} s`
}

/** One page of a paged listing; `rows` are checked records with every field the service sent. */
export interface Page<T> {
  rows: T[]
  /** The service's clock when it answered; the next delta's lastUpdatedAt. */
  serverTimestamp: string | null
  total: number | null
  hasMore: boolean | null
}

/** A row of the customer list: the customer, and the connection row around it (fields not shown in the spec). */
export interface CustomerConnection {
  customer: CustomerRecord
  connection: Record<string, unknown>
  /** The connection itself carried deleted_at: the customer left this supplier's list. */
  connectionDeletedAt: string | null
}

export interface ListParams {
  limit: number
  /** Page number: the service skips offset × limit rows. */
  offset: number
  lastUpdatedAt?: string | null
}

export interface CallOptions {
  signal?: AbortSignal
  /** Act in this customer's context (header `vendorGuid`). */
  vendorGuid?: string
  /**
   * Called once a successful reply's bytes are all in, before they are decoded: a caller that limits
   * its requests on the wire (sync's paging) may send its next one meanwhile. Nothing is sent again
   * after it: what can still fail (JSON, the schema) is not retried.
   */
  onReceived?: () => void
}

export interface OrderWithItemsResult {
  order: OrderRecord
  vendor: CustomerRecord | null
  billTo: { id?: number | null; guid?: string | null } | null
  shipTo: { id?: number | null; guid?: string | null } | null
  contact: { id?: number | null; guid?: string | null } | null
  note: { id?: number | null; guid?: string | null } | null
  raw: Record<string, unknown>
}

/** Keep-alive pools, one per origin, shared by every client built for that base URL. */
export class ServicePools {
  private readonly pools = new Map<string, Pool>()

  constructor(
    private readonly options: { connections?: number; timeouts?: ServiceTimeouts } = {},
  ) {}

  get(origin: string): Pool {
    let pool = this.pools.get(origin)
    if (!pool || pool.closed || pool.destroyed) {
      const timeouts = this.options.timeouts ?? defaultTimeouts
      pool = new Pool(origin, {
        connections: this.options.connections ?? 8,
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

/** A reply its checks refused: the first three issues, each at its path, and the body for the log. */
function unreadable(what: string, issues: readonly ReplyIssue[], body: unknown): ServiceError {
  const described = issues
    .slice(0, 3)
    .map((issue) => `${issue.path.map(String).filter(Boolean).join('.')}: ${issue.message}`)
    .join('; ')
  return new ServiceError('invalidResponse', `The ordering service sent ${what} that Satchel cannot read: ${described}`, { body })
}

export class ServiceClient {
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
  private readonly redactor: ErrorRedactor
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
    this.headers = { accept: 'application/json', ...authHeaders(options.connection.auth) }
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
    let text: string
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
      text = await this.readBody(response, maxBytes, state, spec)
    } catch (error) {
      throw this.redactor.error(this.networkError(error, spec, state))
    } finally {
      clearTimeout(deadline)
      spec.signal?.removeEventListener('abort', onCancel)
    }
    const { statusCode } = response
    if (statusCode < 200 || statusCode >= 300) {
      throw this.redactor.error(errorFromResponse(statusCode, response.headers, this.redactor.text(text), this.clock.now()))
    }
    if (text.trim() === '') return null
    try {
      return JSON.parse(text)
    } catch {
      throw new ServiceError('invalidResponse', `${spec.method} ${spec.path} answered ${statusCode} with a body that is not JSON`, {
        status: statusCode,
        body: this.redactor.text(text).slice(0, 500),
      })
    }
  }

  /**
   * The body as text, read chunk by chunk up to `maxBytes`. Past it (or when content-length already
   * says so) the body is destroyed, which closes the connection, so the rest is never received.
   * A 2xx past the ceiling is tooLarge; an error body is cut there and its status still decides.
   */
  private async readBody(response: Dispatcher.ResponseData, maxBytes: number, state: AttemptState, spec: RequestSpec): Promise<string> {
    const ok = response.statusCode >= 200 && response.statusCode < 300
    const declared = Number(response.headers['content-length'])
    if (ok && Number.isFinite(declared) && declared > maxBytes) {
      discard(response.body)
      throw this.tooLarge(spec, maxBytes, declared)
    }
    const chunks: Buffer[] = []
    for await (const chunk of response.body as AsyncIterable<Buffer>) {
      state.received += chunk.length
      if (state.received > maxBytes) {
        discard(response.body)
        if (ok) throw this.tooLarge(spec, maxBytes)
        chunks.push(chunk.subarray(0, chunk.length - (state.received - maxBytes)))
        break
      }
      chunks.push(chunk)
    }
    if (ok) spec.onReceived?.()
    // The caller parses and checks the text in the same turn, as this promise's continuation.
    await this.decoding.next()
    return Buffer.concat(chunks).toString('utf8')
  }

  private tooLarge(spec: RequestSpec, maxBytes: number, declared?: number): ServiceError {
    const size = declared === undefined ? '' : ` (it announced ${megabytes(declared)})`
    return new ServiceError(
      'tooLarge',
      `The ordering service sent more than ${megabytes(maxBytes)} in answer to ${spec.method} ${spec.path}${size}, more than Satchel accepts for that request; the reply was dropped.`,
    )
  }

  /** Names a failure for a person; the library's own error stays in `cause` for the logs. */
  private networkError(error: unknown, spec: RequestSpec, state: AttemptState): ServiceError {
    if (error instanceof ServiceError) return error
    if (spec.signal?.aborted) return cancelledError(spec.signal)
    const what = `${spec.method} ${spec.path}`
    const code = (error as { code?: unknown })?.code
    const detail = error instanceof Error ? error.message : String(error)
    if (state.deadlinePassed && state.endOfCall) {
      return new ServiceError('timeout', `The ordering service did not finish answering ${what} within ${seconds(this.timeouts.callMs)}, the deadline for the whole call, retries included.`, {
        cause: error,
      })
    }
    if (state.deadlinePassed) {
      return new ServiceError('timeout', `The ordering service did not finish answering ${what} within ${seconds(state.deadlineMs)}.`, { cause: error })
    }
    switch (code) {
      case 'UND_ERR_CONNECT_TIMEOUT':
        return new ServiceError('timeout', `The ordering service at ${this.baseUrl} did not accept a connection within ${seconds(this.timeouts.connectMs)}.`, { cause: error })
      case 'UND_ERR_HEADERS_TIMEOUT': {
        const waited = spec.order ? this.timeouts.orderTotalMs : this.timeouts.headersMs
        return new ServiceError('timeout', `The ordering service did not start answering ${what} within ${seconds(waited)}.`, { cause: error })
      }
      case 'UND_ERR_BODY_TIMEOUT':
        return new ServiceError('timeout', `The ordering service went silent for ${seconds(this.timeouts.bodyMs)} partway through its answer to ${what}.`, { cause: error })
      case 'ETIMEDOUT':
        return new ServiceError('timeout', `The connection to the ordering service timed out (${what}).`, { cause: error })
    }
    if (state.headersReceived) {
      // The status line came, the body did not finish: the socket closed, or the body ended short
      // of its content-length. Whatever undici called it, the reply is incomplete.
      const got = state.received >= 1024 ? ` after ${Math.round(state.received / 1024)} KB` : ''
      return new ServiceError('truncated', `The ordering service stopped sending partway through its reply to ${what}${got}.`, { cause: error })
    }
    return new ServiceError('unreachable', `The ordering service cannot be reached at ${this.baseUrl}: ${detail}`, { cause: error })
  }

  /**
   * A call: attempts and the backoff between them, all within callMs. A call that failed after
   * retrying says how many attempts it made and the deadline they shared.
   */
  private async request(spec: RequestSpec): Promise<unknown> {
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
            this.logger.warn('service call failed, retrying', { method: spec.method, path: spec.path, attempt, delayMs, kind: error.kind, status: error.status }),
        },
      )
    } catch (error) {
      if (!(error instanceof ServiceError) || !error.transient || attempts < 2) throw error
      const { kind, status, code, body, retryAfterMs } = error
      const message = `${error.message.replace(/\.?$/, '.')} ${attempts} attempts; a call gets ${seconds(this.timeouts.callMs)} in all, retries included.`
      throw new ServiceError(kind, message, { status, code, body, retryAfterMs, cause: error })
    }
  }

  private check<S extends z.ZodType>(schema: S, body: unknown, what: string): z.output<S> {
    const parsed = schema.safeParse(body)
    if (!parsed.success) throw this.redactor.error(unreadable(what, parsed.error.issues, body))
    // The schemas check and never transform, so the body as parsed from JSON is the checked value;
    // returning it rather than zod's copy halves what a 100-item page allocates.
    return body as z.output<S>
  }

  /**
   * A reply that carries `catalog_items` (a page, a batch): the items by catalogItemsIssues, the rest
   * by `schema`, which never sees the items (schemas.ts says why). Its issues come first, as the
   * items' key does in the reply.
   */
  private checkItems<S extends z.ZodType>(schema: S, body: unknown, what: string): z.output<S> & { catalog_items: CatalogItemRecord[] } {
    const isRecord = typeof body === 'object' && body !== null && !Array.isArray(body)
    const items = isRecord ? (body as { catalog_items?: unknown }).catalog_items : undefined
    const parsed = schema.safeParse(isRecord ? { ...body, catalog_items: undefined } : body)
    const issues = [
      ...(isRecord ? catalogItemsIssues(items).map((issue) => ({ ...issue, path: ['catalog_items', ...issue.path] })) : []),
      ...(parsed.success ? [] : parsed.error.issues),
    ]
    if (issues.length > 0) throw this.redactor.error(unreadable(what, issues, body))
    return body as z.output<S> & { catalog_items: CatalogItemRecord[] }
  }

  /** GET /vendors: the customer list, rows found by their `Vendor` shape rather than by one envelope key. */
  async listCustomers(params: ListParams & { nameGuidOnly?: boolean }, options: CallOptions = {}): Promise<Page<CustomerConnection>> {
    const body = await this.request({
      method: 'GET',
      path: '/vendors',
      reply: 'page',
      query: {
        limit: params.limit,
        offset: params.offset,
        lastUpdatedAt: params.lastUpdatedAt,
        nameGuidOnly: params.nameGuidOnly ? 'true' : undefined,
      },
      ...options,
    })
    const isConnection = (row: Record<string, unknown>) => typeof row.Vendor === 'object' && row.Vendor !== null
    // With nameGuidOnly the rows may be bare customers (id, guid, name); accept that shape too.
    const isBareCustomer = (row: Record<string, unknown>) => typeof row.guid === 'string' && !('Vendor' in row)
    let rows = findRecordArray(body, isConnection, ['rows', 'vendors', 'data', 'items', 'results'])
    let bare = false
    if (rows === null || (rows.length === 0 && params.nameGuidOnly)) {
      const bareRows = findRecordArray(body, isBareCustomer, ['rows', 'vendors', 'data', 'items', 'results'])
      if (bareRows !== null && (rows === null || bareRows.length > 0)) {
        rows = bareRows
        bare = true
      }
    }
    if (rows === null) {
      throw this.redactor.error(new ServiceError('invalidResponse', 'The customer list has no array of customer connections (rows carrying `Vendor`).', { body }))
    }
    const connections = rows.map((row, index): CustomerConnection => {
      if (bare) {
        return { customer: this.check(customerSchema, row, `customer ${index}`), connection: {}, connectionDeletedAt: null }
      }
      const checked = this.check(customerConnectionSchema, row, `customer connection ${index}`)
      const { Vendor, ...connection } = checked
      return { customer: Vendor, connection, connectionDeletedAt: checked.deleted_at ?? null }
    })
    return {
      rows: connections,
      serverTimestamp: findString(body, 'serverTimestamp'),
      total: findTotal(body, ['total', 'totalCount', 'count', 'totalVendors', 'totalRows']),
      hasMore: hasMoreOf(body),
    }
  }

  /** GET /v1/vendors/{vendorGuid}. */
  async getCustomer(vendorGuid: string, options: CallOptions = {}): Promise<CustomerRecord> {
    const body = await this.request({ method: 'GET', path: `/v1/vendors/${encodeURIComponent(vendorGuid)}`, reply: 'record', ...options })
    // The spec shows the Vendor itself; tolerate it wrapped under a key as other endpoints do.
    const record = body && typeof body === 'object' && !('guid' in body) ? (Object.values(body).find((v) => v && typeof v === 'object' && 'guid' in v) ?? body) : body
    return this.check(customerSchema, record, 'a customer')
  }

  /** GET /v1/catalogs, with each catalog's price groups (soft-deleted ones too, so they can be removed locally). */
  async listCatalogs(options: CallOptions & { includeDeletedPriceGroups?: boolean } = {}): Promise<CatalogRecord[]> {
    const body = await this.request({
      method: 'GET',
      path: '/v1/catalogs',
      reply: 'catalogs',
      query: { includeDeletedPriceGroups: options.includeDeletedPriceGroups === false ? undefined : 'true' },
      signal: options.signal,
      vendorGuid: options.vendorGuid,
    })
    return this.check(catalogListSchema, body, 'a catalog list').catalogs
  }

  /** GET /v1/catalog/{catalogGuid}/price_groups. */
  async listPriceGroups(catalogGuid: string, options: CallOptions = {}): Promise<PriceGroupRecord[]> {
    const body = await this.request({ method: 'GET', path: `/v1/catalog/${encodeURIComponent(catalogGuid)}/price_groups`, reply: 'record', ...options })
    return this.check(priceGroupListSchema, body, 'a price group list').priceGroups
  }

  /** GET /v1/catalog/{catalogGuid}/catalog_items: one page of a catalog's items. */
  async listCatalogItems(
    catalogGuid: string,
    params: ListParams & { skipTotalCount?: boolean; skipCategoryRetrieval?: boolean },
    options: CallOptions = {},
  ): Promise<Page<CatalogItemRecord>> {
    const body = await this.request({
      method: 'GET',
      path: `/v1/catalog/${encodeURIComponent(catalogGuid)}/catalog_items`,
      reply: 'page',
      query: {
        limit: params.limit,
        offset: params.offset,
        lastUpdatedAt: params.lastUpdatedAt,
        skipTotalCount: params.skipTotalCount ? 'true' : undefined,
        skipCategoryRetrieval: params.skipCategoryRetrieval ? 'true' : undefined,
      },
      ...options,
    })
    const page = this.checkItems(catalogItemPageSchema, body, 'a catalog item page')
    return {
      rows: page.catalog_items,
      serverTimestamp: page.serverTimestamp ?? null,
      total: params.skipTotalCount ? null : (page.totalCatalogItems ?? null),
      hasMore: page.hasMoreItems ?? null,
    }
  }

  /** GET /v1/catalog/{catalogGuid}/catalog_items/{catalogItemGuid}: one item, with its attachments and options. */
  async getCatalogItem(catalogGuid: string, catalogItemGuid: string, options: CallOptions = {}): Promise<CatalogItemRecord> {
    const body = await this.request({
      method: 'GET',
      path: `/v1/catalog/${encodeURIComponent(catalogGuid)}/catalog_items/${encodeURIComponent(catalogItemGuid)}`,
      reply: 'record',
      ...options,
    })
    return this.check(catalogItemResponseSchema, body, 'a catalog item').catalog_item
  }

  /** POST /v1/catalog/{catalogGuid}/catalog_items/batch: unknown guids are skipped by the service. */
  async getCatalogItemsByGuid(catalogGuid: string, guids: readonly string[], options: CallOptions = {}): Promise<CatalogItemRecord[]> {
    if (guids.length === 0) return []
    const body = await this.request({
      method: 'POST',
      path: `/v1/catalog/${encodeURIComponent(catalogGuid)}/catalog_items/batch`,
      body: { type: 'guid', values: guids },
      reply: 'page',
      // A batch read writes nothing, so retrying it is safe.
      retry: true,
      ...options,
    })
    return this.checkItems(catalogItemBatchSchema, body, 'a catalog item batch').catalog_items
  }

  /**
   * GET /v1/orders: the reduced order projection, newest first. Its parameters and envelope are not in
   * the spec: rows are found by shape, and limit/offset/lastUpdatedAt are sent as on the other lists.
   */
  async listOrders(params: ListParams, options: CallOptions = {}): Promise<Page<OrderRecord>> {
    const body = await this.request({
      method: 'GET',
      path: '/v1/orders',
      reply: 'page',
      query: { limit: params.limit, offset: params.offset, lastUpdatedAt: params.lastUpdatedAt },
      ...options,
    })
    const isOrder = (row: Record<string, unknown>) =>
      typeof row.guid === 'string' && ('order_state_id' in row || 'Order_Items' in row || 'Order_State' in row || 'api_guid' in row)
    const rows = findRecordArray(body, isOrder, ['orders', 'rows', 'data', 'items', 'results'])
    if (rows === null) throw this.redactor.error(new ServiceError('invalidResponse', 'The order list has no array of orders.', { body }))
    return {
      rows: rows.map((row, index) => this.check(orderSchema, row, `order ${index}`)),
      serverTimestamp: findString(body, 'serverTimestamp'),
      total: findTotal(body, ['total', 'totalCount', 'count', 'totalOrders', 'totalRows']),
      hasMore: hasMoreOf(body),
    }
  }

  /**
   * GET /v1/orders/{orderGuid}: the full order and its related orders. `once`: a single attempt, for
   * callers that try again on their own schedule (sync fetches a failed order at its next run).
   */
  async getOrder(orderGuid: string, options: CallOptions & { once?: boolean } = {}): Promise<{ order: OrderRecord; relatedOrders: OrderRecord[] }> {
    const { once, ...call } = options
    const body = await this.request({ method: 'GET', path: `/v1/orders/${encodeURIComponent(orderGuid)}`, reply: 'order', ...(once ? { retry: false } : {}), ...call })
    const checked = this.check(orderResponseSchema, body, 'an order')
    return { order: checked.order, relatedOrders: checked.relatedOrders ?? [] }
  }

  /**
   * POST /v1/orderWithItems. Tried once: the caller owns retries, since only it knows the api_guid
   * that makes a retry safe and the schedule that must survive a restart. Every failure after the
   * request left (timeout, truncated, tooLarge, unreachable, server) may follow a commit; the outbox
   * resends those with the same api_guid, so none turns a committed order into a lost one.
   */
  async createOrderWithItems(body: Record<string, unknown>, options: CallOptions = {}): Promise<OrderWithItemsResult> {
    const response = await this.request({ method: 'POST', path: '/v1/orderWithItems', body, retry: false, reply: 'order', order: true, ...options })
    const checked = this.check(orderWithItemsResponseSchema, response, 'an order confirmation')
    return {
      order: checked.order,
      vendor: checked.vendor ?? null,
      billTo: checked.billTo ?? null,
      shipTo: checked.shipTo ?? null,
      contact: checked.contact ?? null,
      note: checked.note ?? null,
      raw: checked,
    }
  }

  /** A light authenticated call that tells the failure classes apart, for "Test connection". */
  async ping(options: CallOptions = {}): Promise<{ catalogs: number }> {
    const catalogs = await this.listCatalogs({ ...options, includeDeletedPriceGroups: false })
    return { catalogs: catalogs.length }
  }
}
