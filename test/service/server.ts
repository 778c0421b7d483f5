/**
 * The HTTP side of the double. Fastify because it is well kept, routes with find-my-way (fast
 * enough that the double is never the bottleneck) and lets a hook answer before the handler, which
 * is where injected faults live. Loopback only.
 */
import Fastify, { type FastifyReply, type FastifyRequest } from 'fastify'
import type { FaultRule, RequestLogEntry, RunningService, StartServiceOptions } from './types'
import { createControl, RequestLog, type Control } from './control'
import { echoedHeaders, FaultEngine } from './faults'
import { generate } from './generate'
import { generateHistory } from './history'
import { ImageHost } from './images'
import { compressBody, compressible, COMPRESS_THRESHOLD, inflatingBody, negotiateEncoding } from './compression'
import { authenticate, HttpError, PlainTextError, type Headers, type Query } from './http'
import { apiRoutes, JsonText, type RouteDef } from './routes'
import { ControlError, Store } from './store'
import { emptiedByWrites, ReplyCache, type CachedReply } from './reply-cache'
import {
  corruptPricing,
  falsifyTotal,
  DEFAULT_CLOCK_OFFSET_MS,
  DEFAULT_TRICKLE_INTERVAL_MS,
  FaultBody,
  padBody,
  replyFaultTypes,
  segmentsLength,
  shiftTimestamps,
  type ReplyFaults,
  type Segment,
} from './reply-faults'

interface RequestState {
  entry: RequestLogEntry
  /** The double's reset count when the request came in: one held across a reset is dropped, not answered. */
  generation: number
  drop: boolean
  /** Latency faults before the handler, on a request with a body: held once the body is read. */
  requestDelayMs: number
  /** Latency faults with phase 'reply': held after the handler ran, before the response goes out. */
  replyDelayMs: number
  /** Faults that rewrite, pad, pace or cut the reply. */
  reply: ReplyFaults
  /** A GET the reply cache did not hold: its key, and the cache's generation when it came in. */
  cacheAs?: { key: string; generation: number }
  /** The reply cache's answer to it, sent instead of the handler's. */
  cached?: CachedReply
}

const CONTROL_PREFIX = '/__control'
/** The image host's pictures: kept out of the request log and reply bytes, which are the API's. */
const IMAGES_PREFIX = '/images/'
/** Methods that write nothing: any other request to the API empties the reply cache. */
const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS'])

function flattenHeaders(headers: Headers): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : value
  }
  return out
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}

/** Midnight UTC of today: seeded timestamps sit before it, so they are always in the past. */
function defaultEpoch(): Date {
  const now = new Date()
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()))
}

export async function startService(options: StartServiceOptions = {}): Promise<RunningService> {
  const seed = options.seed ?? 1
  const size = options.size ?? 'demo'
  const history = options.history === true ? {} : options.history || null
  const seedData = (into: Store) => {
    generate(into, { seed, size })
    if (history) generateHistory(into, seed, history)
  }
  const store = new Store(seed, defaultEpoch())
  seedData(store)
  /** Counts resets: a request held by a latency fault across one must not write into the fresh data. */
  let generation = 0
  const logBodies = options.logBodies ?? true
  const compress = options.compress ?? true

  const faults = new FaultEngine()
  const log = new RequestLog()
  const images = new ImageHost(store)
  const cacheOption = options.cacheReplies
  const cache = cacheOption ? new ReplyCache(cacheOption === true ? undefined : cacheOption.limitBytes) : null
  const plainControl = createControl(
    store,
    faults,
    log,
    (updateItem) => images.control(updateItem),
    () => {
      // Generated again from the same seed and epoch (not today's: a run that crosses midnight must
      // get back the data it started with), so a client's copy synced before the reset still matches.
      const fresh = new Store(seed, store.epoch)
      seedData(fresh)
      store.replaceWith(fresh)
      faults.clear()
      log.clear()
      images.reset()
      generation += 1
      // What a client had open belongs to the test before: its held requests are cut, not answered.
      app.server.closeAllConnections()
    },
    () => cache?.stats() ?? null,
  )
  const control = cache ? emptiedByWrites(plainControl, cache) : plainControl
  const states = new WeakMap<object, RequestState>()

  const app = Fastify({ logger: false, forceCloseConnections: true, keepAliveTimeout: 30_000 })

  // An empty body on a JSON request is "no body", not a parse error.
  app.removeContentTypeParser('application/json')
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8')
    if (text.trim() === '') {
      done(null, undefined)
      return
    }
    try {
      done(null, JSON.parse(text))
    } catch (error) {
      done(new HttpError(400, 'Request body is not valid JSON', 'INVALID_JSON', (error as Error).message), undefined)
    }
  })

  app.addHook('onRequest', async (request, reply) => {
    if (request.url.startsWith(CONTROL_PREFIX) || request.url.startsWith(IMAGES_PREFIX)) return
    const pattern = request.routeOptions.url
    const route = pattern ? `${request.method} ${pattern}` : `${request.method} (unmatched)`
    const query = { ...(request.query as Query) }
    const entry: RequestLogEntry = {
      at: store.nowIso(),
      method: request.method,
      url: request.url,
      route,
      status: 0,
      headers: flattenHeaders(request.headers),
      query,
      startedMs: Date.now(),
    }
    log.push(entry)
    // The connection closing (reply sent, or the client gone) is one of the ends of its handling;
    // the handler and the reply, which may come after a client vanished, are the others.
    reply.raw.once('close', () => (entry.endedMs = Date.now()))
    const state: RequestState = { entry, generation, drop: false, requestDelayMs: 0, replyDelayMs: 0, reply: {} }
    states.set(request.raw, state)

    if (cache && !READ_METHODS.has(request.method)) cache.clear()
    const offset = Number(query.offset)
    const rules = faults.take(route, Number.isFinite(offset) && offset >= 1)
    // A faulty reply is neither kept nor answered from the cache: the fault is the reply. A latency
    // fault is the link's, not the reply's: a cache in front of a slow link answers after the wait.
    const cacheable = cache !== null && request.method === 'GET' && rules.every((rule) => rule.type === 'latency')
    if (rules.length === 0) return cacheable ? fromCache(request, reply, state) : undefined
    const delay = rules.reduce(
      (total, rule) => total + (rule.type === 'latency' && rule.phase !== 'reply' ? rule.ms : 0),
      0,
    )
    const terminal = rules.find(
      (rule) => rule.type === 'status' || rule.type === 'rateLimit' || rule.type === 'destroySocket',
    )
    // A service that has the whole request acts on it even if the client is gone by then: with a body
    // to read and nothing to refuse it with, the wait comes after the body is read (preHandler).
    if (delay > 0 && !terminal && request.method !== 'GET') state.requestDelayMs = delay
    else if (delay > 0) await sleep(delay)
    if (state.generation !== generation) {
      reply.hijack()
      request.raw.socket.destroy()
      return reply
    }
    state.replyDelayMs = rules.reduce(
      (total, rule) => total + (rule.type === 'latency' && rule.phase === 'reply' ? rule.ms : 0),
      0,
    )
    if (cacheable) return fromCache(request, reply, state)
    for (const rule of rules) {
      if (rule.type === 'drift') control.drift(route, request.params as Record<string, string>, query, rule)
      // The request log keeps the offset the client sent; the handler sees none, as behind such a proxy.
      if (rule.type === 'ignoreOffset') delete (request.query as Query).offset
      // A service that does not act in the customer's context: the handler sees no customer.
      if (rule.type === 'ignoreVendorGuid') {
        delete request.headers.vendorguid
        delete (request.query as Query).vendorGuid
      }
      // The log keeps the catalog the client asked for; the handler serves the other one's page.
      if (rule.type === 'otherCatalog') (request.params as Record<string, string>).catalogGuid = rule.catalogGuid
      if (rule.type === 'commitThenDrop') state.drop = true
      // One of each reply fault: the first rule added wins.
      if (replyFaultTypes.has(rule.type)) (state.reply as Record<string, FaultRule>)[rule.type] ??= rule
    }
    if (!terminal) return
    if (terminal.type === 'destroySocket') {
      reply.hijack()
      request.raw.socket.destroy()
      return reply
    }
    if (terminal.type === 'rateLimit') {
      return reply
        .code(429)
        .header('retry-after', String(terminal.retryAfterSeconds))
        .send({ message: 'Too many requests', code: 'RATE_LIMITED' })
    }
    if (terminal.type === 'status') {
      reply.code(terminal.status)
      for (const [name, value] of Object.entries(terminal.headers ?? {})) reply.header(name, value)
      const page =
        typeof terminal.body === 'string'
          ? terminal.body
          : `Injected fault: HTTP ${terminal.status} from a proxy in front of the service.`
      const body = terminal.echoHeaders
        ? echoedHeaders(page, request.raw.rawHeaders, terminal.echoHeaders)
        : (terminal.body ?? { message: `Injected fault: HTTP ${terminal.status}`, code: 'INJECTED_FAULT' })
      if (typeof body === 'string') return reply.type(terminal.contentType ?? 'text/plain; charset=utf-8').send(body)
      return reply.type(terminal.contentType ?? 'application/json; charset=utf-8').send(JSON.stringify(body))
    }
    return
  })

  app.addHook('preHandler', async (request, reply) => {
    const state = states.get(request.raw)
    if (!state || state.requestDelayMs === 0) return
    await sleep(state.requestDelayMs)
    if (state.generation !== generation) {
      reply.hijack()
      request.raw.socket.destroy()
      return reply
    }
  })

  app.addHook('onSend', async (request, reply, payload) => {
    const state = states.get(request.raw)
    if (!state) return payload
    // Again once the handler has written: a GET answered meanwhile may hold what it replaced.
    if (cache && !READ_METHODS.has(request.method)) cache.clear()
    if (state.cached) {
      if (state.replyDelayMs > 0) await sleep(state.replyDelayMs)
      state.entry.status = reply.statusCode
      state.entry.endedMs = Date.now()
      if (state.cached.encoding) state.entry.encoding = state.cached.encoding
      state.entry.sentBytes = state.cached.body.length
      state.entry.fromCache = true
      log.countReply(state.cached.writtenBytes, state.cached.body.length)
      return payload
    }
    if (state.replyDelayMs > 0) await sleep(state.replyDelayMs)
    state.entry.endedMs = Date.now()
    if (state.generation !== generation) {
      request.raw.socket.destroy()
      return payload
    }
    if (state.drop) {
      // Commit then drop: the handler ran (and wrote), the client never hears back.
      state.entry.status = 0
      request.raw.socket.destroy()
      return payload
    }
    state.entry.status = reply.statusCode
    const sent = await applyReplyFaults(request, reply, state, payload)
    const written = typeof payload === 'string' || Buffer.isBuffer(payload) ? Buffer.byteLength(payload) : 0
    // Kept unless a write came in while it was made: it may be the data from before the write.
    if (
      cache &&
      state.cacheAs &&
      reply.statusCode === 200 &&
      state.cacheAs.generation === cache.generation &&
      (typeof sent === 'string' || Buffer.isBuffer(sent))
    )
      cache.put(state.cacheAs.key, Buffer.from(sent), reply.getHeaders(), written, state.entry.encoding)
    log.countReply(
      written,
      state.entry.sentBytes ?? (typeof sent === 'string' || Buffer.isBuffer(sent) ? Buffer.byteLength(sent) : written),
    )
    return sent
  })

  /**
   * A GET the cache holds is answered with the bytes and headers that went out the first time, the
   * handler and the compressor left out; one it does not hold is noted, to be kept once answered.
   */
  function fromCache(request: FastifyRequest, reply: FastifyReply, state: RequestState): FastifyReply | undefined {
    if (!cache) return undefined
    const coding = compress ? negotiateEncoding(request.headers['accept-encoding']) : null
    const key = ReplyCache.key(request.url, coding, request.headers)
    const hit = cache.get(key)
    if (!hit) {
      state.cacheAs = { key, generation: cache.generation }
      return undefined
    }
    state.cached = hit
    return reply.code(200).headers(hit.headers).send(hit.body)
  }

  /**
   * Rewrites (pricing, clock), compresses (compression.ts) or sends what a broken compressor would,
   * then pads, paces or cuts the serialized reply. The faults that pad, pace or cut act on the bytes
   * as the handler wrote them, uncompressed: they are the wire's own faults.
   */
  async function applyReplyFaults(
    request: FastifyRequest,
    reply: FastifyReply,
    state: RequestState,
    payload: unknown,
  ): Promise<unknown> {
    const { badPricing, futureClock, falseTotal, oversized, trickle, truncate, badEncoding, inflates } = state.reply
    if (payload !== undefined && payload !== null && typeof payload !== 'string' && !Buffer.isBuffer(payload))
      return payload
    let body: string | Buffer = payload ?? ''
    if (badPricing || futureClock || falseTotal) {
      let text = body.toString()
      if (falseTotal) text = falsifyTotal(text, falseTotal)
      if (badPricing) text = corruptPricing(text, badPricing)
      if (futureClock) {
        const offsetMs = futureClock.offsetMs ?? DEFAULT_CLOCK_OFFSET_MS
        text = shiftTimestamps(text, offsetMs)
        reply.header('date', new Date(store.nowMs() + offsetMs).toUTCString())
      }
      body = text
    }
    if (badEncoding || inflates) {
      const encoding = (badEncoding ?? inflates)!.encoding ?? 'gzip'
      const sent = inflates ? await inflatingBody(Buffer.from(body), inflates.bytes, encoding) : Buffer.from(body)
      reply.header('content-encoding', encoding)
      state.entry.encoding = encoding
      state.entry.sentBytes = sent.length
      return sent
    }
    if (oversized || trickle || truncate) return shapedBody(request, reply, state.reply, body)
    const encoding = compress ? negotiateEncoding(request.headers['accept-encoding']) : null
    const length = Buffer.byteLength(body)
    if (!encoding || length < COMPRESS_THRESHOLD || !compressible(reply.getHeader('content-type'))) return body
    const compressed = compressBody(Buffer.isBuffer(body) ? body : Buffer.from(body), encoding)
    reply.header('content-encoding', encoding)
    reply.header('vary', 'accept-encoding')
    reply.removeHeader('content-length')
    state.entry.encoding = encoding
    state.entry.sentBytes = compressed.length
    return compressed
  }

  /** Pads, paces or cuts the reply (reply-faults.ts), streamed. */
  function shapedBody(
    request: FastifyRequest,
    reply: FastifyReply,
    faults: ReplyFaults,
    body: string | Buffer,
  ): unknown {
    const { oversized, trickle, truncate } = faults
    const buffer = Buffer.isBuffer(body) ? body : Buffer.from(body)
    const segments: Segment[] = oversized ? padBody(buffer, oversized) : [buffer]
    if (oversized?.contentLength === false) reply.removeHeader('content-length')
    else reply.header('content-length', String(segmentsLength(segments)))
    const raw = request.raw
    return new FaultBody(segments, {
      pace: trickle
        ? { bytesPerTick: trickle.bytesPerTick ?? 1, intervalMs: trickle.intervalMs ?? DEFAULT_TRICKLE_INTERVAL_MS }
        : undefined,
      cutAfter: truncate?.bytes,
      onCut: () => {
        // The status line and headers go out even when no body byte does, then the connection ends.
        if (!reply.raw.headersSent) reply.raw.flushHeaders()
        raw.socket.end()
      },
    })
  }

  app.setErrorHandler((error: unknown, _request, reply) => {
    if (error instanceof PlainTextError) return reply.code(400).type('text/plain; charset=utf-8').send(error.message)
    if (error instanceof HttpError) return reply.code(error.status).send(error.body())
    if (error instanceof ControlError) return reply.code(400).send({ message: error.message, code: 'CONTROL_ERROR' })
    const fastifyError = error as { statusCode?: number; message?: string; code?: string; name?: string }
    if (typeof fastifyError.statusCode === 'number' && fastifyError.statusCode < 500) {
      return reply
        .code(fastifyError.statusCode)
        .send({ message: fastifyError.message ?? 'Bad request', error: fastifyError.name, code: fastifyError.code })
    }
    return reply.code(500).send({ message: 'Internal server error', error: fastifyError.message ?? String(error) })
  })

  app.setNotFoundHandler((request, reply) => {
    reply.code(404).send({
      message: `Route ${request.method} ${request.url.split('?')[0] ?? ''} not found`,
      error: 'Not Found',
      code: 'NOT_FOUND',
    })
  })

  images.register(app)
  const routes = apiRoutes(store)
  for (const def of routes) registerRoute(def)
  faults.setKnownRoutes(routes.map((def) => `${def.method} ${def.url}`))
  for (const rule of options.faults ?? []) faults.add(rule)
  if (options.httpControl) registerControl(control)

  function registerRoute(def: RouteDef): void {
    app.route({
      method: def.method,
      url: def.url,
      handler: async (request: FastifyRequest, reply: FastifyReply) => {
        const state = states.get(request.raw)
        if (state && logBodies && request.body !== undefined) state.entry.body = request.body
        const auth = authenticate(store, request.headers, def.accepts, def.plainText)
        const result = def.handle({
          auth,
          params: request.params as Record<string, string>,
          query: request.query as Query,
          body: request.body,
          headers: request.headers,
        })
        if (state) state.entry.endedMs = Date.now()
        if (result instanceof JsonText) return reply.type('application/json; charset=utf-8').send(result.body)
        return reply.send(result)
      },
    })
  }

  function registerControl(target: Control): void {
    const methods = controlMethods(target)
    app.get(CONTROL_PREFIX, async () => ({
      methods: Object.fromEntries(
        Object.entries(methods).map(([name, spec]) => [name, { params: spec.params, get: spec.read }]),
      ),
    }))
    app.route({
      method: ['GET', 'POST'],
      url: `${CONTROL_PREFIX}/:method`,
      handler: async (request, reply) => {
        const name = (request.params as { method: string }).method
        const spec = methods[name]
        if (!spec) return reply.code(404).send({ message: `Unknown control method '${name}'`, code: 'NOT_FOUND' })
        if (request.method === 'GET' && !spec.read)
          return reply.code(405).send({ message: `${name} changes state; use POST`, code: 'METHOD_NOT_ALLOWED' })
        const source = (request.method === 'GET' ? request.query : (request.body ?? {})) as Record<string, unknown>
        const args = spec.params.map((param) =>
          request.method === 'GET' && param === 'ms' ? Number(source[param]) : source[param],
        )
        const result = spec.call(...args)
        return reply.send({ result: result === undefined ? null : result })
      },
    })
  }

  await app.listen({ host: '127.0.0.1', port: options.port ?? 0 })
  const address = app.server.address()
  if (!address || typeof address === 'string') throw new Error('the double did not bind a TCP port')
  const url = `http://127.0.0.1:${address.port}`

  return {
    url,
    credentials: {
      apiKey: store.apiKey,
      apiSecret: store.apiSecret,
      userGuid: store.sessionUser.guid,
      userToken: store.sessionUser.token,
      supplierGuid: store.supplier.guid,
      customerUser: {
        userGuid: store.customerUser.guid,
        userToken: store.customerUser.token,
        supplierGuid: store.supplier.guid,
        vendorGuid: store.vendorsById.get(store.customerUser.vendor_id)?.rec.guid ?? '',
      },
    },
    control: stripInternal(control),
    close: async () => {
      await app.close()
    },
  }
}

function stripInternal(control: Control): RunningService['control'] {
  const { drift: _drift, ...publicControl } = control
  return publicControl
}

interface ControlMethod {
  params: string[]
  read: boolean
  call: (...args: unknown[]) => unknown
}

/** The HTTP mirror of ServiceControl: POST /__control/<method> with named arguments as JSON (GET for readers). */
function controlMethods(control: Control): Record<string, ControlMethod> {
  const c = control as unknown as Record<string, (...args: unknown[]) => unknown>
  const def = (name: string, params: string[], read: boolean): [string, ControlMethod] => [
    name,
    { params, read, call: (...args) => (c[name] as (...a: unknown[]) => unknown)(...args) },
  ]
  return Object.fromEntries([
    def('now', [], true),
    def('shiftClock', ['ms'], false),
    def('catalogs', [], true),
    def('priceGroups', ['catalogGuid'], true),
    def('categories', ['catalogGuid'], true),
    def('catalogItems', ['catalogGuid'], true),
    def('customers', [], true),
    def('orders', [], true),
    def('update', ['kind', 'guid', 'patch'], false),
    def('setPrice', ['catalogItemGuid', 'priceGroupName', 'price'], false),
    def('softDelete', ['kind', 'guid'], false),
    def('deactivate', ['kind', 'guid'], false),
    def('insertCatalogItem', ['catalogGuid', 'fields'], false),
    def('insertCustomer', ['fields'], false),
    def('setSupplierSetting', ['name', 'value'], false),
    def('expireSession', [], false),
    def('lockOrderStep', ['orderGuid', 'locked'], false),
    def('grantApiKeyCustomers', ['granted'], false),
    def('editOrderHeader', ['orderGuid', 'fields'], false),
    def('fulfilOrder', ['orderGuid', 'step'], false),
    def('addFault', ['rule'], false),
    def('removeFault', ['id'], false),
    def('clearFaults', [], false),
    def('ordersByApiGuid', ['apiGuid'], true),
    def('requestLog', [], true),
    def('clearRequestLog', [], false),
    def('replyBytes', [], true),
    def('inFlightOverlaps', [], true),
    def('replyCache', [], true),
    def('changeImage', ['catalogItemGuid', 'newAddress'], false),
    def('imageFault', ['catalogItemGuid', 'fault'], false),
    def('slowImages', ['ms'], false),
    def('imageFigures', [], true),
    def('clearImageFigures', [], false),
    def('reset', [], false),
  ])
}
