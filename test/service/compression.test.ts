/** The double compresses as a service behind a web server does, as each request asks, and not when told not to. */
import { brotliDecompressSync, gunzipSync } from 'node:zlib'
import { request } from 'undici'
import { afterEach, describe, expect, it } from 'vitest'
import { negotiateEncoding } from './compression'
import { startService } from './server'
import type { RunningService } from './types'

const services: RunningService[] = []
afterEach(async () => {
  await Promise.all(services.splice(0).map((service) => service.close()))
})

async function get(service: RunningService, path: string, acceptEncoding?: string) {
  const { apiKey, apiSecret } = service.credentials
  const reply = await request(`${service.url}${path}`, {
    headers: {
      'x-apiKey': apiKey,
      'x-apiSecret': apiSecret,
      ...(acceptEncoding ? { 'accept-encoding': acceptEncoding } : {}),
    },
  })
  return { encoding: reply.headers['content-encoding'], body: Buffer.from(await reply.body.arrayBuffer()) }
}

describe('the double’s compression', () => {
  it('answers in the coding the request prefers of br, gzip and deflate, and as it is without one', async () => {
    const service = await startService({ size: 'tiny', seed: 3 })
    services.push(service)
    const plain = await get(service, '/vendors?limit=100&offset=0')
    expect(plain.encoding).toBeUndefined()
    const br = await get(service, '/vendors?limit=100&offset=0', 'gzip, deflate, br')
    expect(br.encoding).toBe('br')
    const gzip = await get(service, '/vendors?limit=100&offset=0', 'gzip;q=1, br;q=0')
    expect(gzip.encoding).toBe('gzip')
    expect(JSON.parse(gunzipSync(gzip.body).toString()).vendors).toEqual(JSON.parse(plain.body.toString()).vendors)
    expect(JSON.parse(brotliDecompressSync(br.body).toString()).vendors).toEqual(
      JSON.parse(plain.body.toString()).vendors,
    )
    expect(gzip.body.length).toBeLessThan(plain.body.length / 4)
  })

  it('sends everything as it is with compress off', async () => {
    const service = await startService({ size: 'tiny', seed: 3, compress: false })
    services.push(service)
    expect((await get(service, '/vendors?limit=100&offset=0', 'br, gzip')).encoding).toBeUndefined()
  })

  it('reads accept-encoding as web servers do', () => {
    expect(negotiateEncoding(undefined)).toBeNull()
    expect(negotiateEncoding('identity')).toBeNull()
    expect(negotiateEncoding('*')).toBe('br')
    expect(negotiateEncoding('gzip, deflate')).toBe('gzip')
    expect(negotiateEncoding('br;q=0, *;q=0.5')).toBe('gzip')
    expect(negotiateEncoding('deflate')).toBe('deflate')
  })
})
