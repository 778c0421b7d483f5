/**
 * The reply faults: trickle, oversized, truncate, futureClock and badPricing, each proven on the wire.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { request } from 'undici'
import { startService } from './index'
import type { RunningService } from './types'
import { catalogs, credentialHeaders, get, post, type Json } from './helpers'
import { FaultBody, LONG_PRICE_KEY_LENGTH } from './reply-faults'

let service: RunningService
let catalogGuid: string
let itemsPath: string
const ITEMS_ROUTE = 'GET /v1/catalog/:catalogGuid/catalog_items'
const BATCH_ROUTE = 'POST /v1/catalog/:catalogGuid/catalog_items/batch'

beforeAll(async () => {
  service = await startService({ size: 'tiny', seed: 29 })
  catalogGuid = catalogs(service).first.guid
  itemsPath = `/v1/catalog/${catalogGuid}/catalog_items`
})
afterEach(() => {
  service.control.clearFaults()
})
afterAll(async () => {
  await service.close()
})

interface Received {
  status: number
  headers: Record<string, string | string[] | undefined>
  /** Each body chunk's size, in the order they arrived. */
  arrivals: { bytes: number }[]
  body: Buffer
  /** The error that ended the body early, if one did. */
  error?: Error & { code?: string }
}

/** Reads a reply chunk by chunk with undici, on a fresh connection, keeping what arrived before any failure. */
async function receive(
  path: string,
  init: { method?: 'GET' | 'POST'; body?: unknown; stopAfter?: number } = {},
): Promise<Received> {
  const controller = new AbortController()
  const response = await request(service.url + path, {
    method: init.method ?? 'GET',
    headers: {
      ...credentialHeaders(service, 'apiKey'),
      ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
    reset: true,
    signal: controller.signal,
  })
  const received: Received = {
    status: response.statusCode,
    headers: response.headers,
    arrivals: [],
    body: Buffer.alloc(0),
  }
  const chunks: Buffer[] = []
  let total = 0
  try {
    for await (const chunk of response.body as AsyncIterable<Buffer>) {
      chunks.push(chunk)
      total += chunk.length
      received.arrivals.push({ bytes: chunk.length })
      if (init.stopAfter !== undefined && total >= init.stopAfter) {
        response.body.on('error', () => {})
        controller.abort()
        break
      }
    }
  } catch (error) {
    received.error = error as Received['error']
  }
  received.body = Buffer.concat(chunks)
  return received
}

describe('trickle', () => {
  it('sends the headers at once, then bytesPerTick bytes every intervalMs', async () => {
    const whole = (await get(service, '/v1/catalogs')).text
    expect(whole.length).toBeGreaterThan(200)
    service.control.addFault({
      route: 'GET /v1/catalogs',
      type: 'trickle',
      bytesPerTick: 200,
      intervalMs: 40,
      times: 1,
    })
    const reply = await receive('/v1/catalogs')
    expect(reply.status).toBe(200)
    expect(reply.headers['content-length']).toBe(String(Buffer.byteLength(reply.body)))
    expect(reply.body.toString()).toBe(whole)
    expect(Math.max(...reply.arrivals.map((arrival) => arrival.bytes))).toBeLessThanOrEqual(200)
    // The next request is whole and fast again.
    expect((await get(service, '/v1/catalogs')).text).toBe(whole)
  })

  it('paces the body on the clock: the first bytes at once, then bytesPerTick every intervalMs and none between', async () => {
    // On vitest's fake clock, so the pace is a matter of order however loaded the machine.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] })
    try {
      const body = new FaultBody([Buffer.alloc(500, 0x78)], { pace: { bytesPerTick: 200, intervalMs: 40 } })
      const chunks: number[] = []
      let ended = false
      body.on('data', (chunk: Buffer) => chunks.push(chunk.length))
      body.on('end', () => (ended = true))
      const turn = () => new Promise((resolve) => setImmediate(resolve))
      await vi.advanceTimersByTimeAsync(0)
      await turn()
      expect(chunks).toEqual([200])
      await vi.advanceTimersByTimeAsync(39)
      await turn()
      expect(chunks).toEqual([200])
      await vi.advanceTimersByTimeAsync(1)
      await turn()
      expect(chunks).toEqual([200, 200])
      await vi.advanceTimersByTimeAsync(40)
      await turn()
      expect(chunks).toEqual([200, 200, 100])
      await vi.advanceTimersByTimeAsync(40)
      await turn()
      expect(ended).toBe(true)
    } finally {
      vi.useRealTimers()
    }
  })

  it('stops sending when the client hangs up', async () => {
    service.control.addFault({ route: ITEMS_ROUTE, type: 'trickle', intervalMs: 10, times: 1 })
    const reply = await receive(`${itemsPath}?limit=100`, { stopAfter: 5 })
    expect(reply.body.length).toBeGreaterThanOrEqual(5)
    expect(reply.body.length).toBeLessThan(50)
    expect((await get(service, `${itemsPath}?limit=1`)).status).toBe(200)
  })
})

describe('oversized', () => {
  it('pads the body to N bytes with a long field, keeping it valid JSON', async () => {
    service.control.addFault({ route: ITEMS_ROUTE, type: 'oversized', bytes: 300_000, times: 1 })
    const reply = await receive(`${itemsPath}?limit=2`)
    expect(reply.headers['content-length']).toBe('300000')
    expect(reply.body.length).toBe(300_000)
    const json = JSON.parse(reply.body.toString()) as Json
    expect(json.catalog_items).toHaveLength(2)
    expect(json.__padding).toMatch(/^x+$/)
  })

  it('pads with filler after the JSON when valid is false, and can go chunked', async () => {
    service.control.addFault({
      route: ITEMS_ROUTE,
      type: 'oversized',
      bytes: 200_000,
      valid: false,
      contentLength: false,
      times: 1,
    })
    const reply = await receive(`${itemsPath}?limit=2`)
    expect(reply.headers['content-length']).toBeUndefined()
    expect(reply.headers['transfer-encoding']).toBe('chunked')
    expect(reply.body.length).toBe(200_000)
    expect(() => JSON.parse(reply.body.toString()) as unknown).toThrow()
    expect(reply.body.toString()).toMatch(/^\{"catalog_items":\[.*\}x+$/s)
  })

  it('streams a huge body without building it, and stops when the client hangs up', async () => {
    service.control.addFault({ route: 'GET /v1/catalogs', type: 'oversized', bytes: 2 * 1024 ** 3, times: 1 })
    const reply = await receive('/v1/catalogs', { stopAfter: 1024 * 1024 })
    expect(reply.headers['content-length']).toBe(String(2 * 1024 ** 3))
    expect(reply.body.length).toBeGreaterThanOrEqual(1024 * 1024)
    expect((await get(service, '/v1/catalogs')).status).toBe(200)
  })
})

describe('truncate', () => {
  it('announces the full length, sends the first N bytes, then closes the connection', async () => {
    const whole = (await get(service, '/v1/catalogs')).text
    service.control.addFault({ route: 'GET /v1/catalogs', type: 'truncate', bytes: 50, times: 1 })
    const reply = await receive('/v1/catalogs')
    expect(reply.status).toBe(200)
    expect(reply.headers['content-length']).toBe(String(Buffer.byteLength(whole)))
    expect(reply.body.toString()).toBe(whole.slice(0, 50))
    expect(reply.error).toBeDefined()
  })

  it('with bytes 0 sends the headers and no body', async () => {
    service.control.addFault({ route: 'GET /v1/catalogs', type: 'truncate', bytes: 0, times: 1 })
    const reply = await receive('/v1/catalogs')
    expect(reply.status).toBe(200)
    expect(reply.body.length).toBe(0)
    expect(reply.error).toBeDefined()
  })

  it('combines with trickle: a slow reply that then stops', async () => {
    service.control.addFault({ route: 'GET /v1/catalogs', type: 'trickle', bytesPerTick: 10, intervalMs: 5, times: 1 })
    service.control.addFault({ route: 'GET /v1/catalogs', type: 'truncate', bytes: 35, times: 1 })
    const reply = await receive('/v1/catalogs')
    expect(reply.body.length).toBe(35)
    expect(reply.error).toBeDefined()
  })
})

describe('futureClock', () => {
  const day = 24 * 60 * 60 * 1000
  const hour = 60 * 60 * 1000

  /** A reply and the real clock read just before and just after it, so its stamps can be bracketed however slow the machine. */
  async function during(
    path: string,
  ): Promise<{ reply: Awaited<ReturnType<typeof get>>; before: number; after: number }> {
    const before = Date.now()
    const reply = await get(service, path)
    return { reply, before, after: Date.now() }
  }

  /** serverTimestamp and the Date header lie in [before, after] moved by `offsetMs` (the header counts whole seconds). */
  function expectStamped(
    { reply, before, after }: Awaited<ReturnType<typeof during>>,
    offsetMs: number,
    header = true,
  ): void {
    const stamped = Date.parse(reply.json.serverTimestamp as string)
    expect(stamped).toBeGreaterThanOrEqual(before + offsetMs)
    expect(stamped).toBeLessThanOrEqual(after + offsetMs)
    if (!header) return
    const dated = Date.parse(reply.headers.get('date')!)
    expect(dated).toBeGreaterThanOrEqual(Math.floor((before + offsetMs) / 1000) * 1000)
    expect(dated).toBeLessThanOrEqual(after + offsetMs)
  }

  it('shifts serverTimestamp and the Date header for the next N replies, while data keeps its real stamps', async () => {
    service.control.addFault({ route: '*', type: 'futureClock', offsetMs: day, times: 2 })
    const first = await during(`${itemsPath}?limit=1`)
    expectStamped(first, day)
    const stamped = Date.parse(first.reply.json.serverTimestamp as string)

    // Data changed meanwhile is stamped with the double's real clock, behind the reported one.
    const [item] = service.control.catalogItems(catalogGuid)
    const changed = service.control.update('catalogItem', item!.guid as string, {
      name: 'Renamed while the clock ran ahead',
    })
    expect(Date.parse(changed.updated_at as string)).toBeLessThan(stamped - day / 2)
    expectStamped(await during('/vendors?limit=1'), day, false)

    // A delta from the skewed cursor misses the change; from a real cursor it is there.
    const third = await during(
      `${itemsPath}?limit=100&lastUpdatedAt=${encodeURIComponent(first.reply.json.serverTimestamp as string)}`,
    )
    expectStamped(third, 0)
    expect((third.reply.json.catalog_items as Json[]).map((row) => row.guid)).not.toContain(item!.guid)
  })

  it('defaults to one day ahead, and a negative offset puts the clock behind', async () => {
    service.control.addFault({ route: 'GET /vendors', type: 'futureClock', times: 1 })
    expectStamped(await during('/vendors?limit=1'), day, false)
    service.control.addFault({ route: 'GET /v1/orders', type: 'futureClock', offsetMs: -hour, times: 1 })
    expectStamped(await during('/v1/orders?limit=1'), -hour, false)
  })
})

describe('badPricing', () => {
  /** Raw text of every `pricing` object, and the same parsed. */
  function pricingOf(text: string): { raw: string[]; parsed: Record<string, unknown>[] } {
    const raw = [...text.matchAll(/"pricing":(\{(?:[^{}"]|"(?:[^"\\]|\\.)*")*\})/g)].map((match) => match[1]!)
    return { raw, parsed: raw.map((object) => JSON.parse(object) as Record<string, unknown>) }
  }

  it('injects every bad value and key by default into listing page rows, written as raw JSON text', async () => {
    service.control.addFault({ route: ITEMS_ROUTE, type: 'badPricing', times: 1 })
    const reply = await get(service, `${itemsPath}?limit=10`)
    expect(reply.status).toBe(200)
    const { raw, parsed } = pricingOf(reply.text)
    expect(raw).toHaveLength(10)
    const values = parsed.flatMap((pricing) => Object.values(pricing))
    expect(values).toContain(-5)
    expect(values).toContain('12.50')
    expect(values).toContain(Infinity)
    expect(raw.join('')).toContain(':1e400')
    for (const [index, pricing] of parsed.entries()) {
      const keys = Object.keys(pricing)
      expect(keys).toEqual(expect.arrayContaining(['__proto__', 'constructor', '', 'k'.repeat(LONG_PRICE_KEY_LENGTH)]))
      expect(Object.getOwnPropertyDescriptor(pricing, '__proto__')?.value).toBe(1)
      expect(raw[index]).toContain('"__proto__":1')
    }
    // The reply as a whole still parses: what is wrong is only inside pricing.
    expect((reply.json.catalog_items as Json[]).length).toBe(10)
    // Only the next reply: the one after is clean.
    const clean = pricingOf((await get(service, `${itemsPath}?limit=10`)).text).parsed
    expect(
      clean
        .flatMap((pricing) => Object.values(pricing))
        .every((value) => (typeof value === 'number' && value >= 0) || value === 'N/A'),
    ).toBe(true)
  })

  it('injects only the chosen values into one price group, in the by-guid batch', async () => {
    const items = service.control
      .catalogItems(catalogGuid)
      .filter((row) => row.deleted_at === null)
      .slice(0, 4)
    const group = Object.keys(items[0]!.pricing as Record<string, unknown>)[0]!
    service.control.addFault({
      route: BATCH_ROUTE,
      type: 'badPricing',
      values: ['negative'],
      priceGroup: group,
      times: 1,
    })
    const reply = await post(service, `/v1/catalog/${catalogGuid}/catalog_items/batch`, {
      type: 'guid',
      values: items.map((row) => row.guid),
    })
    expect(reply.status).toBe(200)
    for (const row of reply.json.catalog_items as Json[]) {
      const original = items.find((item) => item.guid === row.guid)!.pricing as Record<string, unknown>
      expect(row.pricing[group]).toBe(-5)
      expect(Object.keys(row.pricing)).toEqual(Object.keys(original))
      for (const name of Object.keys(original)) if (name !== group) expect(row.pricing[name]).toEqual(original[name])
    }
  })

  it('injects only the chosen keys, with the chosen value', async () => {
    service.control.addFault({
      route: ITEMS_ROUTE,
      type: 'badPricing',
      keys: ['__proto__', 'empty'],
      keyValue: { polluted: true },
      times: 1,
    })
    const reply = await get(service, `${itemsPath}?limit=3`)
    const { raw, parsed } = pricingOf(reply.text)
    for (const [index, pricing] of parsed.entries()) {
      expect(raw[index]).toContain('"__proto__":{"polluted":true}')
      expect(pricing['']).toEqual({ polluted: true })
      expect(Object.keys(pricing)).not.toContain('constructor')
      expect(
        Object.values(pricing)
          .filter((value) => typeof value !== 'object')
          .every((value) => typeof value === 'number' || value === 'N/A'),
      ).toBe(true)
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
  })

  it('rejects unknown values and keys', () => {
    expect(() =>
      service.control.addFault({ route: ITEMS_ROUTE, type: 'badPricing', values: ['zero' as 'negative'] }),
    ).toThrow(/values/)
    expect(() =>
      service.control.addFault({ route: ITEMS_ROUTE, type: 'badPricing', keys: ['toString' as 'empty'] }),
    ).toThrow(/keys/)
    expect(() => service.control.addFault({ route: ITEMS_ROUTE, type: 'badPricing', values: [], keys: [] })).toThrow(
      /value or a key/,
    )
  })
})

describe('the reply faults over the HTTP control surface', () => {
  it('are added with POST /__control/addFault', async () => {
    const controlled = await startService({ size: 'tiny', seed: 31, httpControl: true })
    try {
      const response = await request(`${controlled.url}/__control/addFault`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ rule: { route: 'GET /v1/catalogs', type: 'oversized', bytes: 10_000, times: 1 } }),
      })
      expect(response.statusCode).toBe(200)
      expect(((await response.body.json()) as Json).result).toMatch(/^fault-/)
      expect((await get(controlled, '/v1/catalogs')).text.length).toBe(10_000)
      const refused = await request(`${controlled.url}/__control/addFault`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ rule: { route: '*', type: 'trickle', bytesPerTick: 0 } }),
      })
      expect(refused.statusCode).toBe(400)
      expect(((await refused.body.json()) as Json).code).toBe('CONTROL_ERROR')
    } finally {
      await controlled.close()
    }
  })
})
