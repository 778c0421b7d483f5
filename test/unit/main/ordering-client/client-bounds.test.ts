/**
 * Replies are bounded: an overall deadline per request (headers and the whole body), a ceiling on
 * the bytes read per reply, and a reply cut mid-body named for what it is. Against a raw node:http
 * server on 127.0.0.1, so the server can misbehave below what any framework would allow.
 */
import { type ServerResponse } from 'node:http'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { ServiceClient } from '../../../../src/main/ordering-client/client'
import type { ServiceClientOptions } from '../../../../src/main/ordering-client/transport'
import { errorCodeOf, ServiceError, type ServiceFailureKind } from '../../../../src/main/ordering-client/errors'
import type { LogFields, Logger } from '../../../../src/main/ports'
import { until } from '../../../support/until'
import { failure, loopbackServer } from '../../../support/loopback-http'

const server = loopbackServer()
const timers = new Set<NodeJS.Timeout>()

afterEach(async () => {
  vi.useRealTimers()
  for (const timer of timers) clearInterval(timer)
  timers.clear()
  await server.close()
})

const { serve } = server

const apiKey = { kind: 'apiKey', apiKey: 'key-1', apiSecret: 'secret-1' } as const

function client(baseUrl: string, extra: Partial<ServiceClientOptions> = {}): ServiceClient {
  const made = new ServiceClient({
    connection: { baseUrl, auth: apiKey },
    sleep: async () => {},
    random: () => 0,
    ...extra,
  })
  server.keep(made)
  return made
}

/** A logger that keeps what withRetry reported, to see which kind of failure was retried. */
function retryLog(): { logger: Logger; kinds: unknown[] } {
  const kinds: unknown[] = []
  const logger: Logger = {
    debug() {},
    info() {},
    warn(_message: string, fields?: LogFields) {
      kinds.push(fields?.kind)
    },
    error() {},
    child() {
      return logger
    },
  }
  return { logger, kinds }
}

const catalogsBody = JSON.stringify({ catalogs: [{ guid: 'k', name: 'Main' }], resource: 'Catalog' })

/** Sends the headers at once, then a byte every `intervalMs` until the client hangs up; `sent` counts the bytes after the first. */
function trickle(response: ServerResponse, intervalMs: number, sent = { bytes: 0 }): void {
  response.writeHead(200, { 'content-type': 'application/json' })
  response.write('{')
  const timer = setInterval(() => {
    if (response.destroyed) return clearInterval(timer)
    response.write(' ')
    sent.bytes++
  }, intervalMs)
  timers.add(timer)
  response.on('close', () => clearInterval(timer))
}

/** Streams `total` bytes of filler in 64 KiB writes, respecting backpressure; `written` counts what left the handler. */
function flood(response: ServerResponse, total: number, counter: { written: number; closed: boolean }): void {
  const chunk = Buffer.alloc(64 * 1024, 0x20)
  response.on('close', () => {
    counter.closed = true
  })
  const pump = (): void => {
    while (counter.written < total && !response.destroyed) {
      const ok = response.write(chunk)
      counter.written += chunk.length
      if (!ok) {
        response.once('drain', pump)
        return
      }
    }
    if (!response.destroyed) response.end()
  }
  pump()
}

const MiB = 1024 * 1024

/**
 * The deadline tests run the timers (the client's deadline, undici's own, the server's trickle) on
 * vitest's fake clock, so "not before the deadline, and at it" is a matter of order, however loaded
 * the machine; the sockets stay real, and so does Date, which only the hang guard reads.
 */
function fakeTimers(): void {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'] })
}

/** Real turns of the event loop until `condition` holds (replies travel on real sockets; setTimeout is faked). */
const everyTurn = { everyMs: 0 }

/** A call's failure, and whether it has come yet. */
function watch(promise: Promise<unknown>): { settled: () => boolean; error: Promise<ServiceError> } {
  let settled = false
  const error = failure(promise).finally(() => (settled = true))
  return { settled: () => settled, error }
}

describe('an overall deadline per request', () => {
  it('fails a reply that trickles in byte by byte with a timeout at the deadline, not before', async () => {
    fakeTimers()
    const sent = { bytes: 0 }
    let asked = false
    const url = await serve((_request, response) => {
      asked = true
      trickle(response, 50, sent)
    })
    const call = watch(client(url, { timeouts: { totalMs: 400 }, retry: { maxAttempts: 1 } }).listCatalogs())
    await until(() => asked, 'the request to arrive', everyTurn)
    await vi.advanceTimersByTimeAsync(399)
    // The body kept coming, a byte every 50 ms, and the reply is still not given up on.
    expect(sent.bytes).toBe(7)
    expect(call.settled()).toBe(false)
    await vi.advanceTimersByTimeAsync(1)
    await until(call.settled, 'the deadline to end the call', everyTurn)
    const error = await call.error
    expect(error.kind).toBe('timeout')
    expect(error.transient).toBe(true)
    expect(error.message).toMatch(/did not finish answering .* within 0\.4 s/)
    expect(error.message).not.toMatch(/UND_ERR|AbortError/)
  })

  it('covers the wait for the headers too, when it is shorter than the headers timeout', async () => {
    fakeTimers()
    let asked = false
    const url = await serve(() => (asked = true))
    const call = watch(
      client(url, { timeouts: { totalMs: 300, headersMs: 30_000 }, retry: { maxAttempts: 1 } }).listCatalogs(),
    )
    await until(() => asked, 'the request to arrive', everyTurn)
    await vi.advanceTimersByTimeAsync(299)
    expect(call.settled()).toBe(false)
    await vi.advanceTimersByTimeAsync(1)
    await until(call.settled, 'the deadline to end the call', everyTurn)
    const error = await call.error
    expect(error.kind).toBe('timeout')
  })

  it('retries a trickled reply as transient, and the next attempt gets a fresh deadline', async () => {
    let calls = 0
    const url = await serve((_request, response) => {
      calls++
      if (calls === 1) return trickle(response, 50)
      response.end(catalogsBody)
    })
    const { logger, kinds } = retryLog()
    const catalogs = await client(url, { timeouts: { totalMs: 300 }, logger }).listCatalogs()
    expect(catalogs.map((catalog) => catalog.guid)).toEqual(['k'])
    expect(calls).toBe(2)
    expect(kinds).toEqual(['timeout'])
  })

  it("reads the caller's cancel as cancelled, not as a timeout, even mid-body", async () => {
    const url = await serve((_request, response) => trickle(response, 50))
    const controller = new AbortController()
    setTimeout(() => controller.abort(), 150)
    const error = await failure(
      client(url, { timeouts: { totalMs: 5_000 } }).listCatalogs({ signal: controller.signal }),
    )
    expect(error.kind).toBe('cancelled')
  })

  it('gives order creation its own deadline, reported as a timeout the outbox resends with the same api_guid, and does not retry it', async () => {
    let calls = 0
    fakeTimers()
    const url = await serve((_request, response) => {
      calls++
      trickle(response, 50)
    })
    const call = watch(
      client(url, { timeouts: { totalMs: 60_000, orderTotalMs: 400 } }).createOrderWithItems(
        { order: { api_guid: 'a' } },
        { vendorGuid: 'v' },
      ),
    )
    await until(() => calls === 1, 'the order to arrive', everyTurn)
    await vi.advanceTimersByTimeAsync(399)
    expect(call.settled()).toBe(false)
    await vi.advanceTimersByTimeAsync(1)
    await until(call.settled, 'the deadline to end the call', everyTurn)
    const error = await call.error
    expect(error.kind).toBe('timeout')
    expect(error.transient).toBe(true)
    expect(calls).toBe(1)
  })
})

describe('one deadline for the whole call, its retries included', () => {
  it('a reply that trickles every time ends at the call deadline, not after every attempt has had its own', async () => {
    let calls = 0
    const url = await serve((_request, response) => {
      calls++
      trickle(response, 50)
    })
    // Attempts of at most 0.8 s in a call of 2 s: two whole ones, and a third cut short by the call's end.
    const error = await failure(
      client(url, {
        timeouts: { totalMs: 800, callMs: 2_000 },
        retry: { maxAttempts: 5, baseDelayMs: 0 },
      }).listCatalogs(),
    )
    expect(error.kind).toBe('timeout')
    expect(error.transient).toBe(true)
    expect(calls).toBe(3)
    expect(error.message).toMatch(
      /did not finish answering GET \/v1\/catalogs within 2 s, the deadline for the whole call/,
    )
    expect(error.message).toContain('3 attempts')
  })

  it('no retry starts when its backoff would end past the deadline; the error says how many attempts there were and the deadline', async () => {
    let calls = 0
    const url = await serve((_request, response) => {
      calls++
      response.writeHead(503, { 'content-type': 'application/json' }).end('{}')
    })
    // A clock only the backoff moves: attempts at 0, 0.5 and 1.5 s; the next would start at 3.5 s.
    let now = 0
    const delays: number[] = []
    const error = await failure(
      client(url, {
        timeouts: { callMs: 2_000 },
        retry: { maxAttempts: 5, baseDelayMs: 500 },
        random: () => 1,
        clock: { now: () => now },
        sleep: async (ms) => {
          delays.push(ms)
          now += ms
        },
      }).listCatalogs(),
    )
    expect(calls).toBe(3)
    expect(delays).toEqual([500, 1000])
    expect(error.kind).toBe('server')
    expect(error.status).toBe(503)
    expect(error.message).toMatch(
      /^The ordering service failed \(503\).* 3 attempts; a call gets 2 s in all, retries included\.$/,
    )
  })
})

describe('a ceiling on the bytes read per reply', () => {
  it('refuses a reply whose content-length is over the ceiling without reading it', async () => {
    const counter = { written: 0, closed: false }
    const url = await serve((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': String(256 * MiB) })
      flood(response, 256 * MiB, counter)
    })
    const error = await failure(
      client(url, { maxReplyBytes: { catalogs: 1 * MiB }, retry: { maxAttempts: 1 } }).listCatalogs(),
    )
    expect(error.kind).toBe('tooLarge')
    expect(error.message).toMatch(/sent more than 1 MB/)
    expect(error.message).not.toMatch(/UND_ERR/)
    await expect.poll(() => counter.closed).toBe(true)
    expect(counter.written).toBeLessThan(16 * MiB)
  })

  it('stops reading a chunked reply as soon as it passes the ceiling', async () => {
    const counter = { written: 0, closed: false }
    const url = await serve((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' })
      response.write('{"catalog_items":[],"padding":"')
      flood(response, 256 * MiB, counter)
    })
    const error = await failure(
      client(url, { maxReplyBytes: { page: 1 * MiB }, retry: { maxAttempts: 1 } }).listCatalogItems('c', {
        limit: 100,
        offset: 0,
      }),
    )
    expect(error.kind).toBe('tooLarge')
    await expect.poll(() => counter.closed).toBe(true)
    // What left the server before the client hung up: the ceiling plus socket buffers, a few MB, nowhere near 256 MB.
    expect(counter.written).toBeLessThan(16 * MiB)
  })

  it('does not retry an oversized reply at once', async () => {
    let calls = 0
    const url = await serve((_request, response) => {
      calls++
      response.end(JSON.stringify({ catalogs: [], padding: 'x'.repeat(4096) }))
    })
    const error = await failure(client(url, { maxReplyBytes: { catalogs: 1024 } }).listCatalogs())
    expect(error.kind).toBe('tooLarge')
    expect(error.transient).toBe(false)
    expect(calls).toBe(1)
  })

  it('reads an error body only up to the ceiling, and the status still decides', async () => {
    const counter = { written: 0, closed: false }
    const url = await serve((_request, response) => {
      response.writeHead(503, { 'content-type': 'text/html' })
      response.write('<html>Service Unavailable')
      flood(response, 256 * MiB, counter)
    })
    const error = await failure(
      client(url, { maxReplyBytes: { catalogs: 1 * MiB }, retry: { maxAttempts: 1 } }).listCatalogs(),
    )
    expect(error).toMatchObject({ kind: 'server', status: 503 })
    await expect.poll(() => counter.closed).toBe(true)
    expect(counter.written).toBeLessThan(16 * MiB)
  })
})

describe('a reply cut mid-body', () => {
  it('is named truncated when the socket closes before content-length is reached', async () => {
    const url = await serve((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' })
      response.write(catalogsBody.slice(0, 20), () => response.socket?.destroy())
    })
    const error = await failure(client(url, { retry: { maxAttempts: 1 } }).listCatalogs())
    expect(error.kind).toBe('truncated')
    expect(error.transient).toBe(true)
    expect(error.message).toMatch(/stopped sending partway through its reply/)
    expect(error.message).not.toMatch(/UND_ERR|other side closed/)
    expect(error.cause).toBeDefined()
  })

  it('is named truncated when a chunked reply ends without its last chunk', async () => {
    const url = await serve((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' })
      response.write(catalogsBody.slice(0, 20), () => response.socket?.end())
    })
    expect((await failure(client(url, { retry: { maxAttempts: 1 } }).listCatalogs())).kind).toBe('truncated')
  })

  it('is retried as transient', async () => {
    let calls = 0
    const url = await serve((_request, response) => {
      calls++
      if (calls === 1) {
        response.writeHead(200, { 'content-length': String(catalogsBody.length) })
        return response.write(catalogsBody.slice(0, 10), () => response.socket?.destroy())
      }
      response.end(catalogsBody)
    })
    const { logger, kinds } = retryLog()
    expect((await client(url, { logger }).listCatalogs()).map((catalog) => catalog.guid)).toEqual(['k'])
    expect(calls).toBe(2)
    expect(kinds).toEqual(['truncated'])
  })

  it('a connection dropped before any header is still unreachable', async () => {
    const url = await serve((request) => request.socket.destroy())
    expect((await failure(client(url, { retry: { maxAttempts: 1 } }).listCatalogs())).kind).toBe('unreachable')
  })
})

describe('the new kinds', () => {
  it('map to the codes the renderer and the CLI see', () => {
    const codes = Object.fromEntries(
      (['timeout', 'truncated', 'tooLarge'] as ServiceFailureKind[]).map((kind) => [kind, errorCodeOf(kind)]),
    )
    expect(codes).toEqual({ timeout: 'UNAVAILABLE', truncated: 'UNAVAILABLE', tooLarge: 'REJECTED' })
    expect(new ServiceError('truncated', 'x').transient).toBe(true)
    expect(new ServiceError('tooLarge', 'x').transient).toBe(false)
  })
})
