import { type IncomingMessage } from 'node:http'
import { afterEach, describe, expect, it } from 'vitest'
import { ServiceClient } from '../../../../src/main/ordering-client/client'
import type { ServiceConnection } from '../../../../src/main/ordering-client/connection'
import { loopbackServer } from '../../../support/loopback-http'

const server = loopbackServer()

afterEach(async () => {
  await server.close()
})

const { serve } = server

function client(
  baseUrl: string,
  auth: ServiceConnection['auth'],
  extra: Partial<ConstructorParameters<typeof ServiceClient>[0]> = {},
): ServiceClient {
  const made = new ServiceClient({ connection: { baseUrl, auth }, sleep: async () => {}, random: () => 0, ...extra })
  server.keep(made)
  return made
}

const apiKey = {
  kind: 'apiKey',
  apiKey: 'key-1',
  apiSecret: 'secret-1',
  userGuid: '11111111-1111-4111-8111-111111111111',
} as const
const item = (guid: string, extra: Record<string, unknown> = {}) => ({
  guid,
  id: 1,
  sku: 'S',
  name: 'N',
  pricing: { Retail: 2, Gold: 'N/A' },
  ...extra,
})

/** A listing's only page, of one item. */
const onePage = JSON.stringify({
  catalog_items: [item('a')],
  totalCatalogItems: 1,
  hasMoreItems: false,
  serverTimestamp: '2025-01-01T00:00:00.000Z',
})

describe('ServiceClient over HTTP', () => {
  it('sends the API key header set with userGuid and vendorGuid, and keeps unknown fields', async () => {
    const seen: IncomingMessage['headers'][] = []
    const url = await serve((request, response) => {
      seen.push(request.headers)
      response.setHeader('content-type', 'application/json')
      response.end(
        JSON.stringify({
          catalog_items: [item('a', { future_field: { nested: true } })],
          totalCatalogItems: 1,
          hasMoreItems: false,
          resource: 'catalog_items',
          serverTimestamp: '2025-01-01T00:00:00.000Z',
        }),
      )
    })
    const page = await client(url, apiKey).listCatalogItems('cat-1', { limit: 100, offset: 0 }, { vendorGuid: 'v-1' })
    expect(seen[0]).toMatchObject({
      'x-apikey': 'key-1',
      'x-apisecret': 'secret-1',
      userguid: apiKey.userGuid,
      vendorguid: 'v-1',
    })
    expect(page.rows[0]?.future_field).toEqual({ nested: true })
    expect(page).toMatchObject({ total: 1, hasMore: false, serverTimestamp: '2025-01-01T00:00:00.000Z' })
  })

  it('sends the user session header set', async () => {
    const seen: IncomingMessage['headers'][] = []
    const url = await serve((request, response) => {
      seen.push(request.headers)
      response.end(JSON.stringify({ catalogs: [], resource: 'Catalog' }))
    })
    const session = { kind: 'session', userGuid: 'u-1', userToken: 'jwt.token.here', supplierGuid: 's-1' } as const
    await client(url, session).listCatalogs()
    expect(seen[0]).toMatchObject({ userguid: 'u-1', usertoken: 'jwt.token.here', supplierguid: 's-1' })
    expect(seen[0]?.['x-apikey']).toBeUndefined()
  })

  it('finds customer rows by their Vendor shape, whatever the envelope calls them', async () => {
    const url = await serve((_request, response) => {
      response.end(
        JSON.stringify({
          serverTimestamp: 'T',
          count: 1,
          supplierVendors: [{ id: 9, category: 'A', Vendor: { guid: 'c-1', name: 'Acme', odd: 1 } }],
        }),
      )
    })
    const page = await client(url, apiKey).listCustomers({ limit: 100, offset: 0 })
    expect(page.rows[0]?.customer).toMatchObject({ guid: 'c-1', name: 'Acme', odd: 1 })
    expect(page.rows[0]?.connection).toEqual({ id: 9, category: 'A' })
    expect(page.total).toBe(1)
  })

  it('retries a dropped connection and a 503, then succeeds', async () => {
    let calls = 0
    const url = await serve((request, response) => {
      calls++
      if (calls === 1) return request.socket.destroy()
      if (calls === 2) {
        response.statusCode = 503
        return response.end('overloaded')
      }
      response.end(JSON.stringify({ catalogs: [{ guid: 'k', name: 'Main' }], resource: 'Catalog' }))
    })
    const catalogs = await client(url, apiKey).listCatalogs()
    expect(catalogs.map((c) => c.guid)).toEqual(['k'])
    expect(calls).toBe(3)
  })

  it('says when a page is received, before decoding it, once, and not for the failures it retries', async () => {
    let calls = 0
    const url = await serve((_request, response) => {
      calls++
      if (calls === 1) {
        response.statusCode = 503
        return response.end('overloaded')
      }
      response.end(onePage)
    })
    const steps: string[] = []
    const page = client(url, apiKey).listCatalogItems(
      'cat-1',
      { limit: 100, offset: 0 },
      { onReceived: () => steps.push(`received after ${calls} requests`) },
    )
    void page.then(() => steps.push('decoded'))
    await page
    expect(steps).toEqual(['received after 2 requests', 'decoded'])
  })

  it('waits for the caller before decoding a received page, past the attempt’s deadline, and decodes it then', async () => {
    // The sync keeps a reply's bytes while the writer has no room for more decoded pages; that wait
    // is the laptop's, not the service's, and must not read as a service too slow to answer.
    const url = await serve((_request, response) => {
      response.end(onePage)
    })
    const steps: string[] = []
    let room = () => {}
    const page = client(url, apiKey, { timeouts: { totalMs: 100 }, retry: { maxAttempts: 1 } }).listCatalogItems(
      'cat-1',
      { limit: 100, offset: 0 },
      {
        onReceived: () => steps.push('received'),
        beforeDecode: () => {
          steps.push('waiting')
          return new Promise<void>((resolve) => (room = resolve))
        },
      },
    )
    void page.then(() => steps.push('decoded'))
    await new Promise((resolve) => setTimeout(resolve, 300))
    expect(steps).toEqual(['received', 'waiting'])
    room()
    expect((await page).rows.map((row) => row.guid)).toEqual(['a'])
    expect(steps).toEqual(['received', 'waiting', 'decoded'])
  })

  it('stops at once on 401 with a credentials error', async () => {
    let calls = 0
    const url = await serve((_request, response) => {
      calls++
      response.statusCode = 401
      response.end(JSON.stringify({ message: 'Invalid API key' }))
    })
    await expect(client(url, apiKey).listCatalogs()).rejects.toMatchObject({ kind: 'credentials', status: 401 })
    expect(calls).toBe(1)
  })

  it('says a credential that cannot be sent in a header is wrong, without asking the service', async () => {
    // A key pasted with a line break (or a character beyond Latin-1) is refused by undici before any
    // request, and was reported as "cannot be reached", a network problem the rep cannot fix.
    let calls = 0
    const url = await serve((_request, response) => {
      calls++
      response.end('{"catalogs":[]}')
    })
    const pasted = { ...apiKey, apiSecret: 'secret-1\nsecret-2' }
    const failure = client(url, pasted).listCatalogs()
    await expect(failure).rejects.toMatchObject({ kind: 'credentials' })
    await expect(failure).rejects.toThrow(/API secret.*line break/)
    const session = {
      kind: 'session',
      userGuid: '11111111-1111-4111-8111-111111111111',
      userToken: 'tok€n',
      supplierGuid: '22222222-2222-4222-8222-222222222222',
    } as const
    await expect(client(url, session).listCatalogs()).rejects.toThrow(/user token.*character/)
    expect(calls).toBe(0)
  })

  it('reports an unreachable service as transient', async () => {
    const url = await serve(() => {})
    await server.close()
    await expect(client(url, apiKey, { retry: { maxAttempts: 1 } }).listCatalogs()).rejects.toMatchObject({
      kind: 'unreachable',
    })
  })

  it('times out a service that never answers', async () => {
    const url = await serve(() => {})
    const slow = client(url, apiKey, { timeouts: { headersMs: 200 }, retry: { maxAttempts: 1 } })
    await expect(slow.listCatalogs()).rejects.toMatchObject({ kind: 'timeout' })
  })

  it('is cancelled by its AbortSignal', async () => {
    const url = await serve(() => {})
    const controller = new AbortController()
    const pending = client(url, apiKey).listCatalogs({ signal: controller.signal })
    setImmediate(() => controller.abort())
    await expect(pending).rejects.toMatchObject({ kind: 'cancelled' })
  })

  it('refuses a page that does not fit the contract, naming the field', async () => {
    const url = await serve((_request, response) => {
      response.end(JSON.stringify({ catalog_items: [{ id: 1, name: 'no guid' }], totalCatalogItems: 1 }))
    })
    await expect(client(url, apiKey).listCatalogItems('c', { limit: 10, offset: 0 })).rejects.toMatchObject({
      kind: 'invalidResponse',
      message: expect.stringContaining('catalog_items.0.guid'),
    })
  })

  it('names the items and the envelope fields that do not fit, items first, in a page and in a batch', async () => {
    const bodies = [
      { catalog_items: [{ guid: '' }, 'not an item'], totalCatalogItems: 'many', hasMoreItems: 1 },
      { catalog_items: { guid: 'a' } },
      ['a page as an array'],
    ]
    const url = await serve((_request, response) => response.end(JSON.stringify(bodies.shift())))
    const service = client(url, apiKey)
    await expect(service.listCatalogItems('c', { limit: 10, offset: 0 })).rejects.toMatchObject({
      kind: 'invalidResponse',
      message:
        'The ordering service sent a catalog item page that Satchel cannot read: catalog_items.0.guid: Too small: expected string to have >=1 characters; catalog_items.1: Invalid input: expected object; totalCatalogItems: Invalid input: expected number, received string',
    })
    await expect(service.getCatalogItemsByGuid('c', ['a'])).rejects.toMatchObject({
      message: expect.stringContaining(
        'a catalog item batch that Satchel cannot read: catalog_items: Invalid input: expected array',
      ),
    })
    await expect(service.listCatalogItems('c', { limit: 10, offset: 0 })).rejects.toMatchObject({
      message: expect.stringContaining('cannot read: : Invalid input: expected object, received array'),
    })
  })

  it('sends orderWithItems once, without retrying a transient failure', async () => {
    let calls = 0
    const url = await serve((_request, response) => {
      calls++
      response.statusCode = 503
      response.end('down')
    })
    await expect(
      client(url, apiKey).createOrderWithItems({ catalogGuid: 'c' }, { vendorGuid: 'v' }),
    ).rejects.toMatchObject({ kind: 'server' })
    expect(calls).toBe(1)
  })
})
