/**
 * The opt-in reply cache (reply-cache.ts): a CDN in front of the double for the benches. A GET's
 * reply is kept as sent and served again without the handler; writes, faults and errors get around it.
 */
import { request } from 'undici'
import { brotliDecompressSync, gunzipSync } from 'node:zlib'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { startService } from './server'
import { credentialHeaders, type As } from './helpers'
import type { RunningService, StartServiceOptions } from './types'

// The handler's first step is to authenticate: how many times it ran is how many times it was called.
const authentications = vi.hoisted(() => ({ count: 0 }))
vi.mock('./http', async (original) => {
  const actual = await original<typeof import('./http')>()
  return {
    ...actual,
    authenticate: (...args: Parameters<typeof actual.authenticate>) => {
      authentications.count += 1
      return actual.authenticate(...args)
    },
  }
})

const services: RunningService[] = []
beforeEach(() => void (authentications.count = 0))
afterEach(async () => {
  vi.restoreAllMocks()
  await Promise.all(services.splice(0).map((service) => service.close()))
})

async function started(options: StartServiceOptions = { cacheReplies: true }): Promise<RunningService> {
  const service = await startService({ size: 'tiny', seed: 4, ...options })
  services.push(service)
  return service
}

interface Raw {
  status: number
  headers: Record<string, string | string[] | undefined>
  body: Buffer
}

async function send(
  service: RunningService,
  path: string,
  options: { as?: As; acceptEncoding?: string; headers?: Record<string, string>; method?: 'GET' | 'POST' } = {},
): Promise<Raw> {
  const reply = await request(`${service.url}${path}`, {
    method: options.method ?? 'GET',
    headers: {
      ...credentialHeaders(service, options.as ?? 'apiKey'),
      ...(options.acceptEncoding ? { 'accept-encoding': options.acceptEncoding } : {}),
      ...(options.method === 'POST' ? { 'content-type': 'application/json' } : {}),
      ...options.headers,
    },
    body: options.method === 'POST' ? '{}' : undefined,
    // A connection each: reset() cuts the open ones, and a pooled one would fail the next request.
    reset: true,
  })
  return { status: reply.statusCode, headers: reply.headers, body: Buffer.from(await reply.body.arrayBuffer()) }
}

function itemsPage(service: RunningService): string {
  const catalog = service.control.catalogs().find((entry) => entry.deleted_at === null)!
  return `/v1/catalog/${String(catalog.guid)}/catalog_items?limit=100&offset=0`
}

function json(raw: Raw): Record<string, unknown> {
  const coding = raw.headers['content-encoding']
  const body = coding === 'br' ? brotliDecompressSync(raw.body) : coding === 'gzip' ? gunzipSync(raw.body) : raw.body
  return JSON.parse(body.toString('utf8')) as Record<string, unknown>
}

const replyHeaders = (raw: Raw) => ({
  type: raw.headers['content-type'],
  encoding: raw.headers['content-encoding'],
  vary: raw.headers.vary,
  length: raw.headers['content-length'],
})

describe('the double’s reply cache', () => {
  it('is off unless asked for: every GET runs the handler', async () => {
    const service = await started({})
    await send(service, '/vendors?limit=100&offset=0', { acceptEncoding: 'br' })
    await send(service, '/vendors?limit=100&offset=0', { acceptEncoding: 'br' })
    expect(authentications.count).toBe(2)
    expect(service.control.replyCache()).toBeNull()
  })

  it('answers a GET it kept with the same bytes and headers, without running the handler again', async () => {
    const service = await started()
    const path = itemsPage(service)
    const first = await send(service, path, { acceptEncoding: 'br' })
    expect(first.status).toBe(200)
    expect(first.headers['content-encoding']).toBe('br')
    expect(authentications.count).toBe(1)
    const second = await send(service, path, { acceptEncoding: 'br' })
    expect(authentications.count).toBe(1)
    expect(second.body.equals(first.body)).toBe(true)
    expect(replyHeaders(second)).toEqual(replyHeaders(first))
    expect(service.control.replyCache()).toMatchObject({ entries: 1, hits: 1, misses: 1 })
  })

  it('is emptied by a change to the data, through the control surface or the API, and then serves the new data', async () => {
    const service = await started()
    const path = itemsPage(service)
    const item = (json(await send(service, path, { acceptEncoding: 'br' })).catalog_items as { guid: string }[])[0]!
    await send(service, path, { acceptEncoding: 'br' })
    expect(authentications.count).toBe(1)

    service.control.update('catalogItem', item.guid, { name: 'Changed behind the cache' })
    const changed = json(await send(service, path, { acceptEncoding: 'br' }))
    expect((changed.catalog_items as { name: string }[])[0]!.name).toBe('Changed behind the cache')
    expect(authentications.count).toBe(2)

    // Any request that is not a read empties it, refused or not: the cache cannot tell which wrote.
    await send(service, path, { acceptEncoding: 'br' })
    expect(authentications.count).toBe(2)
    const refused = await send(service, '/vendors', { method: 'POST' })
    expect(refused.status).toBeGreaterThanOrEqual(400)
    const afterPost = authentications.count
    await send(service, path, { acceptEncoding: 'br' })
    expect(authentications.count).toBe(afterPost + 1)

    // A control call that reads, or touches only faults and the log, leaves it as it is.
    service.control.catalogs()
    service.control.clearRequestLog()
    await send(service, path, { acceptEncoding: 'br' })
    expect(authentications.count).toBe(afterPost + 1)
    service.control.reset()
    await send(service, path, { acceptEncoding: 'br' })
    expect(authentications.count).toBe(afterPost + 2)
  })

  it('never keeps a faulty reply, nor answers from the cache a request a fault applies to', async () => {
    const service = await started()
    const path = itemsPage(service)
    const route = 'GET /v1/catalog/:catalogGuid/catalog_items'
    service.control.addFault({ route, type: 'falseTotal', total: 3, times: 1 })
    const faulty = json(await send(service, path, { acceptEncoding: 'br' }))
    expect(faulty.totalCatalogItems).toBe(3)
    const clean = json(await send(service, path, { acceptEncoding: 'br' }))
    expect(clean.totalCatalogItems).not.toBe(3)
    expect(authentications.count).toBe(2)
    // Now kept: the same GET again is the cache's.
    await send(service, path, { acceptEncoding: 'br' })
    expect(authentications.count).toBe(2)

    service.control.addFault({ route, type: 'status', status: 503, times: 1 })
    expect((await send(service, path, { acceptEncoding: 'br' })).status).toBe(503)
    // Answered by the fault, neither the handler nor the cache.
    expect(authentications.count).toBe(2)
    expect(service.control.replyCache()).toMatchObject({ entries: 1, hits: 1 })
  })

  it('answers from the cache after a latency fault: the link is slow, the reply is the same', async () => {
    const service = await started()
    const path = itemsPage(service)
    const route = 'GET /v1/catalog/:catalogGuid/catalog_items'
    const first = await send(service, path, { acceptEncoding: 'br' })
    for (const phase of ['request', 'reply'] as const) {
      service.control.addFault({ route, type: 'latency', ms: 150, phase, times: 1 })
      const started = Date.now()
      const delayed = await send(service, path, { acceptEncoding: 'br' })
      // The wait is the fault's: held for its milliseconds, then the cache's bytes, the handler left out.
      expect(Date.now() - started).toBeGreaterThanOrEqual(140)
      expect(delayed.body.equals(first.body)).toBe(true)
    }
    expect(authentications.count).toBe(1)
    expect(service.control.replyCache()).toMatchObject({ entries: 1, hits: 2 })
  })

  it('never keeps a reply other than 200', async () => {
    const service = await started()
    const missing = '/v1/catalog/00000000-0000-0000-0000-000000000000/catalog_items?limit=100&offset=0'
    expect((await send(service, missing, { acceptEncoding: 'br' })).status).toBeGreaterThanOrEqual(400)
    expect((await send(service, missing, { acceptEncoding: 'br' })).status).toBeGreaterThanOrEqual(400)
    expect(authentications.count).toBe(2)
    expect(service.control.replyCache()).toMatchObject({ entries: 0 })
  })

  it('keeps each coding, customer context and set of credentials apart', async () => {
    const service = await started()
    const path = '/vendors?limit=100&offset=0'
    const br = await send(service, path, { acceptEncoding: 'br' })
    const gzip = await send(service, path, { acceptEncoding: 'gzip' })
    const plain = await send(service, path)
    expect([br, gzip, plain].map((raw) => raw.headers['content-encoding'])).toEqual(['br', 'gzip', undefined])
    expect(json(gzip).vendors).toEqual(json(br).vendors)
    expect(json(plain).vendors).toEqual(json(br).vendors)
    const session = await send(service, path, { as: 'session', acceptEncoding: 'br' })
    expect(session.status).toBe(200)
    expect(authentications.count).toBe(4)

    const vendor = service.control.customers().find((customer) => customer.deleted_at === null)!
    const catalogs = await send(service, '/v1/catalogs', { acceptEncoding: 'br' })
    const inContext = await send(service, '/v1/catalogs', {
      acceptEncoding: 'br',
      headers: { vendorGuid: String(vendor.guid) },
    })
    expect([catalogs.status, inContext.status]).toEqual([200, 200])
    expect(authentications.count).toBe(6)
    // Each again: all from the cache, each its own.
    const again = await send(service, path, { acceptEncoding: 'gzip' })
    expect(again.body.equals(gzip.body)).toBe(true)
    await send(service, '/v1/catalogs', { acceptEncoding: 'br', headers: { vendorGuid: String(vendor.guid) } })
    await send(service, path, { as: 'session', acceptEncoding: 'br' })
    expect(authentications.count).toBe(6)
    expect(service.control.replyCache()).toMatchObject({ entries: 6, hits: 3 })
  })

  it('logs every request it answers, with its status and the bytes sent', async () => {
    const service = await started()
    const path = itemsPage(service)
    const first = await send(service, path, { acceptEncoding: 'br' })
    const second = await send(service, path, { acceptEncoding: 'br' })
    expect(service.control.replyCache()).toMatchObject({ hits: 1 })
    const log = service.control.requestLog()
    expect(log.map((entry) => [entry.url, entry.status, entry.encoding, entry.sentBytes, entry.fromCache])).toEqual([
      [path, 200, 'br', first.body.length, undefined],
      [path, 200, 'br', second.body.length, true],
    ])
    expect(log[1]!.endedMs).toBeGreaterThanOrEqual(log[1]!.startedMs)
    const json = brotliDecompressSync(first.body).length
    expect(service.control.replyBytes()).toEqual({
      replies: 2,
      bodyBytes: 2 * json,
      sentBytes: 2 * first.body.length,
    })
  })

  it('keeps no more than its bound, and says so once', async () => {
    const said = vi.spyOn(process.stderr, 'write').mockImplementation(() => true)
    const service = await started({ cacheReplies: { limitBytes: 200 } })
    await send(service, '/v1/catalogs', { acceptEncoding: 'br' })
    const path = itemsPage(service)
    await send(service, path, { acceptEncoding: 'br' })
    await send(service, path, { acceptEncoding: 'br' })
    expect(authentications.count).toBe(3)
    expect(service.control.replyCache()).toMatchObject({ entries: 0, bytes: 0, refused: 3 })
    expect(said.mock.calls.filter(([line]) => String(line).includes('reply cache: full'))).toHaveLength(1)
  })
})
