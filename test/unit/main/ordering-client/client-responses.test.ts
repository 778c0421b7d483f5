import { describe, expect, it } from 'vitest'
import { ServiceError, ServiceRejectedError } from '../../../../src/main/ordering-client/errors'
import { errorFromResponse, findRecordArray, parseRetryAfter } from '../../../../src/main/ordering-client/responses'
import { backoffDelay, withRetry, type Sleep } from '../../../../src/main/ordering-client/retry'

const json = { 'content-type': 'application/json' }
const now = Date.parse('2025-03-01T12:00:00Z')

describe('errorFromResponse', () => {
  it('classes 429 and 5xx as transient and reads Retry-After in seconds', () => {
    const limited = errorFromResponse(429, { ...json, 'retry-after': '7' }, '{"message":"slow down"}', now)
    expect(limited.kind).toBe('rateLimited')
    expect(limited.transient).toBe(true)
    expect(limited.retryAfterMs).toBe(7000)
    expect(limited.message).toContain('slow down')
    const failed = errorFromResponse(503, {}, '', now)
    expect(failed.kind).toBe('server')
    expect(failed.transient).toBe(true)
  })

  it('measures an HTTP-date Retry-After against the response Date header, not the laptop clock', () => {
    const headers = { 'retry-after': 'Wed, 01 Jan 2025 00:00:30 GMT', date: 'Wed, 01 Jan 2025 00:00:00 GMT' }
    // The laptop is a day ahead: the wait is still the 30 s the service meant.
    expect(parseRetryAfter(headers, Date.parse('2025-01-02T00:00:00Z'))).toBe(30_000)
  })

  it('classes 401 and 403 as credentials, never transient', () => {
    for (const status of [401, 403]) {
      const error = errorFromResponse(status, json, '{"message":"bad key"}', now)
      expect(error.kind).toBe('credentials')
      expect(error.transient).toBe(false)
    }
  })

  it('tells INVALID_DELTA_CURSOR apart from other 400s', () => {
    const error = errorFromResponse(400, json, '{"message":"bad cursor","code":"INVALID_DELTA_CURSOR"}', now)
    expect(error.kind).toBe('invalidCursor')
    expect(error.code).toBe('INVALID_DELTA_CURSOR')
  })

  it('reads a ReconcileErrors body into per-line errors, keeping unknown fields', () => {
    const body = {
      message: 'Order could not be reconciled',
      code: 'RECONCILE_ERRORS',
      errors: [
        {
          type: 'ITEM_INACTIVE',
          message: 'Item is inactive',
          line: 2,
          catalog_item_guid: 'g-2',
          sku: 'SKU-2',
          extra: 'kept',
        },
        { type: 'CUSTOMER_INACTIVE', message: 'Customer is inactive' },
      ],
    }
    const error = errorFromResponse(400, json, JSON.stringify(body), now)
    expect(error).toBeInstanceOf(ServiceRejectedError)
    const lines = (error as ServiceRejectedError).errors
    expect(lines[0]).toMatchObject({
      type: 'ITEM_INACTIVE',
      message: 'Item is inactive',
      line: 2,
      catalogItemGuid: 'g-2',
      sku: 'SKU-2',
    })
    expect(lines[0]?.raw.extra).toBe('kept')
    expect(lines[1]).toMatchObject({ type: 'CUSTOMER_INACTIVE', line: null, catalogItemGuid: null })
  })

  it('accepts a reconcile body in another shape: an array of strings under another key', () => {
    const error = errorFromResponse(
      400,
      json,
      JSON.stringify({ message: 'nope', problems: ['Line 1: short stock'] }),
      now,
    )
    expect(error).toBeInstanceOf(ServiceRejectedError)
    expect((error as ServiceRejectedError).errors.map((e) => e.message)).toEqual(['Line 1: short stock'])
  })

  it('keeps a plain-text error body as the message', () => {
    const error = errorFromResponse(400, { 'content-type': 'text/plain' }, 'Missing x-apiKey header', now)
    expect(error.kind).toBe('badRequest')
    expect(error.body).toBe('Missing x-apiKey header')
    expect(error.message).toContain('Missing x-apiKey header')
  })

  it('a redirect is not the service refusing: it is a login page or proxy in the way, retried as unreachable', () => {
    for (const status of [301, 302, 303, 307, 308]) {
      const error = errorFromResponse(
        status,
        { 'content-type': 'text/html', location: 'https://login.hotel-wifi.example/portal?x=1' },
        '<html>Sign in</html>',
        now,
      )
      expect(error.kind, String(status)).toBe('unreachable')
      expect(error.transient).toBe(true)
      expect(error.intercepted).toBe(true)
      expect(error.message).toContain('login.hotel-wifi.example')
    }
  })

  it('a web page answering with a 4xx is not the service either', () => {
    for (const [status, headers, text] of [
      [400, { 'content-type': 'text/html; charset=utf-8' }, '<p>Bad request</p>'],
      [404, { 'content-type': 'text/plain' }, '<!DOCTYPE html><html><body>Not found</body></html>'],
      [407, { 'content-type': 'application/xhtml+xml' }, '<html/>'],
      [403, { 'content-type': 'text/html' }, '<html>Access denied by proxy</html>'],
    ] as const) {
      const error = errorFromResponse(status, headers, text, now)
      expect(error.kind, `${status} ${text}`).toBe('unreachable')
      expect(error.intercepted).toBe(true)
    }
    // The service's own JSON error keeps its meaning.
    expect(errorFromResponse(404, json, '{"message":"no such order"}', now)).toMatchObject({
      kind: 'notFound',
      intercepted: false,
    })
  })
})

describe('findRecordArray', () => {
  const isConnection = (row: Record<string, unknown>) => typeof row.Vendor === 'object'

  it('finds customer connections under a key it was never told', () => {
    const body = { serverTimestamp: 'x', meta: { page: 1 }, connections: [{ id: 1, Vendor: { guid: 'a' } }] }
    expect(findRecordArray(body, isConnection)).toEqual([{ id: 1, Vendor: { guid: 'a' } }])
  })

  it('looks one level down and prefers the array with the right shape over other arrays', () => {
    const body = { tags: [{ name: 'x' }], data: { rows: [{ Vendor: { guid: 'b' } }] } }
    expect(findRecordArray(body, isConnection)).toEqual([{ Vendor: { guid: 'b' } }])
  })

  it('answers an empty page as empty, and a body without any array as unreadable', () => {
    expect(findRecordArray({ vendors: [], serverTimestamp: 'x' }, isConnection)).toEqual([])
    expect(findRecordArray({ message: 'hi' }, isConnection)).toBeNull()
  })
})

describe('withRetry', () => {
  const policy = { maxAttempts: 4, baseDelayMs: 100, maxDelayMs: 400, maxRetryAfterMs: 10_000 }

  function recorder(): { sleep: Sleep; delays: number[] } {
    const delays: number[] = []
    return { delays, sleep: async (ms) => void delays.push(ms) }
  }

  it('retries transient failures with capped, jittered exponential backoff', async () => {
    const { sleep, delays } = recorder()
    let calls = 0
    const result = await withRetry(
      async () => {
        calls++
        if (calls < 4) throw new ServiceError('unreachable', 'down')
        return 'done'
      },
      { policy, sleep, random: () => 1 },
    )
    expect(result).toBe('done')
    expect(delays).toEqual([100, 200, 400])
    // Jitter keeps at least half of each step.
    expect(backoffDelay(10, policy, () => 0)).toBe(200)
  })

  it('waits exactly what Retry-After asks', async () => {
    const { sleep, delays } = recorder()
    let calls = 0
    await withRetry(
      async () => {
        if (calls++ === 0) throw new ServiceError('rateLimited', 'busy', { status: 429, retryAfterMs: 3000 })
        return 'ok'
      },
      { policy, sleep, random: () => 0.5 },
    )
    expect(delays).toEqual([3000])
  })

  it('gives up after the last attempt and never retries credentials or rejections', async () => {
    const { sleep } = recorder()
    let calls = 0
    await expect(
      withRetry(
        async () => {
          calls++
          throw new ServiceError('server', 'boom', { status: 503 })
        },
        { policy, sleep, random: () => 0 },
      ),
    ).rejects.toMatchObject({ kind: 'server' })
    expect(calls).toBe(4)

    calls = 0
    await expect(
      withRetry(
        async () => {
          calls++
          throw new ServiceError('credentials', 'no', { status: 401 })
        },
        { policy, sleep, random: () => 0 },
      ),
    ).rejects.toMatchObject({ kind: 'credentials' })
    expect(calls).toBe(1)
  })
})
