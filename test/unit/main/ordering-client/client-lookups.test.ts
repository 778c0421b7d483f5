/**
 * The SKU lookup and the typeahead, whose request and reply the spec does not show: the client sends
 * one body both spellings of a service can read, and finds the items in any of the envelopes a
 * service might answer with; a 404 is "none". docs/interface.md lists the choice.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { ServiceClient } from '../../../../src/main/ordering-client/client'
import { ServiceError } from '../../../../src/main/ordering-client/errors'

const catalogGuid = '11111111-1111-4111-8111-111111111111'
const item = { guid: '22222222-2222-4222-8222-222222222222', sku: 'NEW-1', upc: '614141000036', name: 'New' }

let server: Server | undefined
const clients: ServiceClient[] = []
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()))
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()))
  server = undefined
})

/** A service answering every request with `status` and `body`; the requests' paths and bodies are kept. */
async function serviceAnswering(status: number, body: unknown): Promise<{ client: ServiceClient; asked: unknown[] }> {
  const asked: unknown[] = []
  server = createServer((request: IncomingMessage, response) => {
    let text = ''
    request.on('data', (chunk: Buffer) => (text += chunk.toString()))
    request.on('end', () => {
      asked.push({ path: request.url, body: text ? (JSON.parse(text) as unknown) : null })
      response.writeHead(status, { 'content-type': 'application/json' })
      response.end(JSON.stringify(body))
    })
  })
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve))
  const client = new ServiceClient({
    connection: {
      baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      auth: { kind: 'apiKey', apiKey: 'key', apiSecret: 'secret' },
    },
    sleep: async () => {},
    random: () => 0,
    retry: { maxAttempts: 1 },
  })
  clients.push(client)
  return { client, asked }
}

describe('the SKU lookup', () => {
  it('sends the catalog and the SKU in both spellings', async () => {
    const { client, asked } = await serviceAnswering(200, { catalog_items: [item], notFound: [] })
    await client.lookupSku(catalogGuid, 'NEW-1')
    expect(asked).toEqual([
      { path: '/v1/catalog_items/sku-lookup', body: { catalogGuid, sku: 'NEW-1', skus: ['NEW-1'] } },
    ])
  })

  it.each([
    ['catalog_items, as the double answers', { catalog_items: [item, item], notFound: [] }],
    ['a bare array', [item]],
    ['another key', { results: [item] }],
    ['catalog_item', { catalog_item: item }],
    ['the item itself', item],
    ['the guid under another name', { items: [{ catalog_item_guid: item.guid, sku: item.sku, upc: item.upc }] }],
  ])('finds the item in %s, once', async (_, body) => {
    const { client } = await serviceAnswering(200, body)
    expect(await client.lookupSku(catalogGuid, 'NEW-1')).toEqual([{ guid: item.guid, sku: 'NEW-1', upc: item.upc }])
  })

  it('reads a 404 and an empty list as none, and a reply with no items as unreadable', async () => {
    expect(
      await (await serviceAnswering(404, { message: 'SKU not found' })).client.lookupSku(catalogGuid, 'X'),
    ).toEqual([])
    await server!.close()
    expect(
      await (await serviceAnswering(200, { catalog_items: [], notFound: ['X'] })).client.lookupSku(catalogGuid, 'X'),
    ).toEqual([])
    await server!.close()
    const { client } = await serviceAnswering(200, { message: 'ok' })
    await expect(client.lookupSku(catalogGuid, 'X')).rejects.toBeInstanceOf(ServiceError)
  })
})

describe('the typeahead', () => {
  it('sends the text under both names it may be read by, and finds the items as the lookup does', async () => {
    const { client, asked } = await serviceAnswering(200, { catalog_items: [item], total: 1, hasMoreItems: false })
    expect(await client.typeahead(catalogGuid, '614141000036', 25)).toEqual([
      { guid: item.guid, sku: 'NEW-1', upc: item.upc },
    ])
    expect(asked).toEqual([
      {
        path: `/v1/catalog/${catalogGuid}/catalog_items/typeahead`,
        body: { query: '614141000036', search: '614141000036', limit: 25 },
      },
    ])
  })
})
