/**
 * The ordering client against the double's reply faults: a trickle ends in a timeout within the
 * deadline, an oversized page is dropped as tooLarge while it streams, a reply cut mid-body is
 * truncated and retried, and an order whose confirmation is lost that way is committed once and
 * found again by resending the same api_guid.
 */
import { createServer } from 'node:net'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { ServiceClient } from '../../src/main/ordering-client/client'
import type { ServiceClientOptions } from '../../src/main/ordering-client/transport'
import type { LogFields, Logger } from '../../src/main/ports'
import { startService } from '../service/index'
import type { RunningService } from '../service/types'
import { catalogs, openCustomer, orderableItems, orderBody } from '../service/helpers'
import { failure } from '../support/loopback-http'

const itemsRoute = 'GET /v1/catalog/:catalogGuid/catalog_items'
const orderRoute = 'POST /v1/orderWithItems'

let service: RunningService
let catalogGuid: string
const clients: ServiceClient[] = []

beforeAll(async () => {
  service = await startService({ size: 'tiny', seed: 41 })
  catalogGuid = catalogs(service).first.guid as string
})
afterEach(async () => {
  service.control.clearFaults()
  await Promise.all(clients.splice(0).map((client) => client.close()))
})
afterAll(async () => {
  await service.close()
})

function client(extra: Partial<ServiceClientOptions> = {}): ServiceClient {
  const { apiKey, apiSecret } = service.credentials
  const made = new ServiceClient({
    connection: { baseUrl: service.url, auth: { kind: 'apiKey', apiKey, apiSecret } },
    sleep: async () => {},
    random: () => 0,
    ...extra,
  })
  clients.push(made)
  return made
}

/** A logger that keeps the kind of each failure the client retried. */
function retryLog(kinds: unknown[]): Logger {
  const logger: Logger = {
    debug() {},
    info() {},
    warn(_message: string, fields?: LogFields) {
      kinds.push(fields?.kind)
    },
    error() {},
    child: () => logger,
  }
  return logger
}

describe('the client against reply faults', () => {
  it('gives up on a trickling page at the deadline, and the retry gets the page', async () => {
    service.control.addFault({ route: itemsRoute, type: 'trickle', bytesPerTick: 1, intervalMs: 50, times: 1 })
    service.control.clearRequestLog()
    const retries: unknown[] = []
    const page = await client({ timeouts: { totalMs: 1500 }, logger: retryLog(retries) }).listCatalogItems(
      catalogGuid,
      {
        limit: 10,
        offset: 0,
      },
    )
    expect(page.rows).toHaveLength(10)
    // At a byte per 50 ms the page would take minutes: the deadline gave up on the trickle, and one retry got the page.
    expect(service.control.requestLog().filter((entry) => entry.route === itemsRoute)).toHaveLength(2)
    expect(retries).toEqual(['timeout'])
    service.control.addFault({ route: itemsRoute, type: 'trickle', bytesPerTick: 1, intervalMs: 50, times: 1 })
    const once = client({ timeouts: { totalMs: 300 }, retry: { maxAttempts: 1 } })
    expect((await failure(once.listCatalogItems(catalogGuid, { limit: 10, offset: 0 }))).kind).toBe('timeout')
  })

  it('drops an oversized page as tooLarge, announced or chunked', async () => {
    const small = client({ maxReplyBytes: { page: 512 * 1024 } })
    service.control.addFault({ route: itemsRoute, type: 'oversized', bytes: 1024 ** 3, times: 1 })
    expect((await failure(small.listCatalogItems(catalogGuid, { limit: 10, offset: 0 }))).kind).toBe('tooLarge')
    service.control.addFault({ route: itemsRoute, type: 'oversized', bytes: 1024 ** 3, contentLength: false, times: 1 })
    expect((await failure(small.listCatalogItems(catalogGuid, { limit: 10, offset: 0 }))).kind).toBe('tooLarge')
    // Not retried: both faults were used up by one request each, and the next call is clean.
    expect((await small.listCatalogItems(catalogGuid, { limit: 10, offset: 0 })).rows).toHaveLength(10)
  })

  it('names a reply cut mid-body truncated, and retries it', async () => {
    service.control.addFault({ route: 'GET /v1/catalogs', type: 'truncate', bytes: 40, times: 1 })
    expect((await failure(client({ retry: { maxAttempts: 1 } }).listCatalogs())).kind).toBe('truncated')
    service.control.addFault({ route: 'GET /v1/catalogs', type: 'truncate', bytes: 40, times: 1 })
    expect((await client().listCatalogs()).length).toBeGreaterThan(0)
  })

  it('an order whose confirmation trickles past the deadline is committed once, and a resend with its api_guid finds it', async () => {
    const { first } = catalogs(service)
    const [row] = orderableItems(service, first.guid as string)
    const customer = openCustomer(service)
    const body = orderBody(first, [{ item: row, qty: 1 }])
    service.control.addFault({ route: orderRoute, type: 'trickle', bytesPerTick: 1, intervalMs: 50, times: 1 })
    // At a byte per 50 ms the confirmation takes tens of seconds, so 1.5 s always gives up on it; the resend gets the
    // client's usual deadline, since a loaded CI machine can take longer than a short one to answer a plain POST.
    const impatient = client({ timeouts: { orderTotalMs: 1500 } })
    const error = await failure(impatient.createOrderWithItems(body, { vendorGuid: customer.guid as string }))
    expect(error).toMatchObject({ kind: 'timeout', transient: true })
    expect(service.control.ordersByApiGuid(body.order.api_guid as string)).toHaveLength(1)
    const resent = await client().createOrderWithItems(body, { vendorGuid: customer.guid as string })
    expect(resent.order.guid).toBe(service.control.ordersByApiGuid(body.order.api_guid as string)[0]?.guid)
    expect(service.control.ordersByApiGuid(body.order.api_guid as string)).toHaveLength(1)
  })
})

/** A loopback port nobody listens on: connecting to it is refused. */
async function closedPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  await new Promise((resolve) => server.close(resolve))
  return port
}

describe('an order request that provably never left this laptop', () => {
  const at = (baseUrl: string) =>
    client({
      connection: {
        baseUrl,
        auth: { kind: 'apiKey', apiKey: service.credentials.apiKey, apiSecret: service.credentials.apiSecret },
      },
    })
  const send = (made: ServiceClient) => {
    const { first } = catalogs(service)
    const body = orderBody(first, [{ item: orderableItems(service, first.guid as string)[0], qty: 1 }])
    return failure(made.createOrderWithItems(body, { vendorGuid: openCustomer(service).guid as string }))
  }

  it('is told apart when the connection is refused, the name is unknown, or TLS fails before the request', async () => {
    const posted = () => service.control.requestLog().filter((entry) => entry.route === orderRoute).length
    const before = posted()
    const refused = await send(at(`http://127.0.0.1:${await closedPort()}`))
    expect({ kind: refused.kind, neverLeft: refused.neverLeft }).toEqual({ kind: 'unreachable', neverLeft: true })
    const unknownName = await send(at('http://satchel-ordering.invalid'))
    expect({ kind: unknownName.kind, neverLeft: unknownName.neverLeft }).toEqual({
      kind: 'unreachable',
      neverLeft: true,
    })
    // TLS spoken to a plain-HTTP port: the handshake fails before a byte of the request is written.
    const handshake = await send(at(service.url.replace(/^http:/, 'https:')))
    expect({ kind: handshake.kind, neverLeft: handshake.neverLeft }).toEqual({ kind: 'unreachable', neverLeft: true })
    expect(posted()).toBe(before)
  })

  it('is not claimed when the connection dies after the request was written', async () => {
    service.control.addFault({ route: orderRoute, type: 'destroySocket', times: 1 })
    const reset = await send(client())
    expect({ kind: reset.kind, neverLeft: reset.neverLeft }).toEqual({ kind: 'unreachable', neverLeft: false })
  })
})
