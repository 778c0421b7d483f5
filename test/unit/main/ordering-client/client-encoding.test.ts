/**
 * Compressed replies, read whole and inflated in one call (encoding.ts's inflateWhole), against a raw
 * node:http server on 127.0.0.1 that sends whatever bytes a test gives it: br, gzip, deflate and
 * stacked codings read back to the same value; bytes that do not inflate in the coding named are a
 * reply cut short (retried, and said plainly); a small reply that inflates past the ceiling is
 * refused with the ceiling's message and not retried; the wire's bytes are held to the ceiling too;
 * an error reply in a coding still says what the service said.
 */
import { type IncomingMessage } from 'node:http'
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib'
import { randomBytes } from 'node:crypto'
import { afterEach, describe, expect, it } from 'vitest'
import { ServiceClient } from '../../../../src/main/ordering-client/client'
import type { ServiceClientOptions } from '../../../../src/main/ordering-client/transport'
import { failure, loopbackServer } from '../../../support/loopback-http'

const server = loopbackServer()

afterEach(async () => {
  await server.close()
})

const { serve } = server

function client(baseUrl: string, extra: Partial<ServiceClientOptions> = {}): ServiceClient {
  const made = new ServiceClient({
    connection: { baseUrl, auth: { kind: 'apiKey', apiKey: 'key-1', apiSecret: 'secret-1' } },
    sleep: async () => {},
    random: () => 0,
    ...extra,
  })
  server.keep(made)
  return made
}

const MiB = 1024 * 1024

/** A catalog list of `count` catalogs (about 60 bytes each), the names given or made up. */
function catalogList(count: number, name = (index: number) => `Catalog ${index}`): Buffer {
  const catalogs = Array.from({ length: count }, (_, index) => ({ guid: `c-${index}`, name: name(index) }))
  return Buffer.from(JSON.stringify({ catalogs, resource: 'Catalog' }))
}

/** Answers every request with `body` labelled `encoding`, counting the requests. */
async function answering(
  body: Buffer,
  encoding: string,
  status = 200,
): Promise<{ url: string; requests: IncomingMessage[] }> {
  const requests: IncomingMessage[] = []
  const url = await serve((request, response) => {
    requests.push(request)
    response.writeHead(status, {
      'content-type': 'application/json',
      'content-encoding': encoding,
      'content-length': String(body.length),
    })
    response.end(body)
  })
  return { url, requests }
}

describe('a compressed reply, inflated in one call', () => {
  const plain = catalogList(500)
  const expected = Array.from({ length: 500 }, (_, index) => `Catalog ${index}`)

  it.each([
    ['br', brotliCompressSync(plain)],
    ['gzip', gzipSync(plain)],
    ['x-gzip', gzipSync(plain)],
    ['deflate', deflateSync(plain)],
    ['gzip, br', brotliCompressSync(gzipSync(plain))],
    ['identity, gzip', gzipSync(plain)],
  ])('reads a reply in %s as the JSON it inflates to', async (encoding, body) => {
    const { url, requests } = await answering(body, encoding)
    const catalogs = await client(url).listCatalogs()
    expect(catalogs.map((catalog) => catalog.name)).toEqual(expected)
    expect(requests[0]?.headers['accept-encoding']).toBe('br, gzip, deflate')
  })

  it('retries a reply that claims gzip and is not, and says so when every attempt was', async () => {
    const { url, requests } = await answering(plain, 'gzip')
    const error = await failure(client(url, { retry: { maxAttempts: 2 } }).listCatalogs())
    expect(error.kind).toBe('truncated')
    expect(error.transient).toBe(true)
    expect(error.message).toMatch(/claims to be gzip-encoded and does not inflate/)
    expect(requests).toHaveLength(2)
  })

  it('takes a br reply cut short as one that does not inflate, and the retry that inflates is read', async () => {
    const whole = brotliCompressSync(plain)
    let calls = 0
    const url = await serve((_request, response) => {
      calls++
      const body = calls === 1 ? whole.subarray(0, whole.length - 40) : whole
      response.writeHead(200, { 'content-encoding': 'br', 'content-length': String(body.length) })
      response.end(body)
    })
    expect((await client(url).listCatalogs()).map((catalog) => catalog.name)).toEqual(expected)
    expect(calls).toBe(2)
  })

  it('refuses bytes that are not in any coding it asked for', async () => {
    const { url } = await answering(plain, 'zstd')
    const error = await failure(client(url, { retry: { maxAttempts: 1 } }).listCatalogs())
    expect(error.kind).toBe('truncated')
    expect(error.message).toMatch(/claims to be zstd-encoded and does not inflate \(.*did not ask for \(zstd\)\)/)
  })

  it.each([
    ['gzip', gzipSync(Buffer.alloc(3 * MiB, 0x20))],
    ['br', brotliCompressSync(Buffer.alloc(3 * MiB, 0x20))],
  ])(
    'refuses a few KB in %s that inflate past the ceiling, with the ceiling’s message, and once',
    async (encoding, body) => {
      expect(body.length).toBeLessThan(20 * 1024)
      const { url, requests } = await answering(body, encoding)
      const error = await failure(client(url, { maxReplyBytes: { catalogs: 1 * MiB } }).listCatalogs())
      expect(error.kind).toBe('tooLarge')
      expect(error.message).toMatch(/sent more than 1 MB in answer to GET \/v1\/catalogs once inflated/)
      expect(error.transient).toBe(false)
      expect(requests).toHaveLength(1)
    },
  )

  it('reads a reply that inflates to exactly the ceiling', async () => {
    const { url } = await answering(gzipSync(plain), 'gzip')
    const catalogs = await client(url, { maxReplyBytes: { catalogs: plain.length } }).listCatalogs()
    expect(catalogs).toHaveLength(500)
  })

  it('holds the wire’s bytes to the ceiling too, before inflating anything', async () => {
    // Random bytes do not compress: the gzip is larger than the ceiling on the wire.
    const body = gzipSync(randomBytes(2 * MiB))
    const url = await serve((_request, response) => {
      response.writeHead(200, { 'content-encoding': 'gzip' })
      response.end(body)
    })
    const error = await failure(client(url, { maxReplyBytes: { catalogs: 1 * MiB } }).listCatalogs())
    expect(error.kind).toBe('tooLarge')
    expect(error.message).toMatch(/sent more than 1 MB in answer to GET \/v1\/catalogs/)
    expect(error.message).not.toMatch(/once inflated/)
  })

  it('reads an error reply in gzip for what the service said; the status decides', async () => {
    const body = gzipSync(JSON.stringify({ message: 'Catalog access denied for this key', code: 'NO_ACCESS' }))
    const { url } = await answering(body, 'gzip', 403)
    const error = await failure(client(url).listCatalogs())
    expect(error).toMatchObject({ kind: 'credentials', status: 403, code: 'NO_ACCESS' })
    expect(error.message).toMatch(/Catalog access denied for this key/)
  })
})
