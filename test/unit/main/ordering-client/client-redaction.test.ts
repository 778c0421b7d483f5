import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { credentialRedactor } from '../../../../src/main/errors'
import { ServiceClient } from '../../../../src/main/ordering-client/client'
import type { ServiceAuth } from '../../../../src/main/ordering-client/connection'
import { ServiceError, ServiceRejectedError } from '../../../../src/main/ordering-client/errors'

describe('credentialRedactor', () => {
  const secret = 'Zq9/x+Kd3&pL"7<w>'
  const redact = credentialRedactor([
    { value: 'hpk_5f2a9c', headers: ['x-apiKey'] },
    { value: secret, headers: ['x-apiSecret'] },
  ])

  it('masks a value in every spelling a reply may use, the header named or not, in any case', () => {
    const texts = [
      `x-apisecret ${secret}`,
      `x-apiSecret: ${secret}`,
      `x-apisecret=${secret}`,
      `{"x-apiSecret":${JSON.stringify(secret)}}`,
      `{"x-apiSecret":"${JSON.stringify(secret).slice(1, -1).replace(/\//g, '\\/')}"}`,
      `GET /v1/catalogs?secret=${encodeURIComponent(secret)}`,
      `<td>x-apiSecret</td><td>Zq9/x+Kd3&amp;pL&quot;7&lt;w&gt;</td>`,
      `the secret was ${secret.toUpperCase()}!`,
      `HPK_5F2A9C`,
    ]
    for (const text of texts) {
      const redacted = redact(text)
      expect(redacted).toContain('[redacted]')
      expect(redacted.toLowerCase()).not.toContain('zq9')
      expect(redacted.toLowerCase()).not.toContain('5f2a9c')
    }
    expect(redact(`x-apiSecret: ${secret} and x-apiKey=hpk_5f2a9c`)).toBe(
      'x-apiSecret: [redacted] and x-apiKey=[redacted]',
    )
  })

  it('masks a value that holds another whole, longest first', () => {
    const nested = credentialRedactor([{ value: 'abc', headers: ['x-apiSecret'] }, { value: 'abc-longer-one' }])
    expect(nested('key abc-longer-one, x-apiSecret: abc-longer-one, secret abc')).toBe(
      'key [redacted], x-apiSecret: [redacted], secret [redacted]',
    )
  })

  it('masks a short value after its header and where it stands alone, never inside a word', () => {
    const short = credentialRedactor([{ value: 'ab1', headers: ['x-apiSecret'] }])
    expect(short('X-APISECRET: ab1; x-apisecret AB1')).toBe('X-APISECRET: [redacted]; x-apisecret [redacted]')
    expect(short('secret ab1, or "ab1".')).toBe('secret [redacted], or "[redacted]".')
    expect(short('tab1e cab1n ab12')).toBe('tab1e cab1n ab12')
  })

  it('leaves a text with none of the values as it is, and ignores empty values', () => {
    expect(credentialRedactor([{ value: '', headers: ['userToken'] }])('userToken: ')).toBe('userToken: ')
    expect(redact('The ordering service failed (502)')).toBe('The ordering service failed (502)')
  })
})

type Handler = (request: IncomingMessage, response: ServerResponse) => void
let server: Server | undefined
const clients: ServiceClient[] = []

afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()))
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()))
  server = undefined
})

async function client(auth: ServiceAuth, handler: Handler): Promise<ServiceClient> {
  server = createServer(handler)
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve))
  const made = new ServiceClient({
    connection: { baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, auth },
    sleep: async () => {},
    random: () => 0,
    retry: { maxAttempts: 2 },
  })
  clients.push(made)
  return made
}

/** Quotes the request's headers back, as a proxy's error page does. */
const echo = (request: IncomingMessage) =>
  Object.entries(request.headers)
    .map(([name, value]) => `${name} ${String(value)}`)
    .join(' ')

async function failure(call: Promise<unknown>): Promise<ServiceError> {
  const error = await call.then(
    () => null,
    (caught: unknown) => caught,
  )
  expect(error).toBeInstanceOf(ServiceError)
  return error as ServiceError
}

/** Every string in the error, its causes included, as one text. */
function everything(error: unknown): string {
  const parts: unknown[] = []
  for (let at: unknown = error; at instanceof Error; at = at.cause)
    parts.push(at.message, (at as ServiceError).body, (at as Partial<ServiceRejectedError>).errors)
  return JSON.stringify(parts)
}

describe('ServiceClient errors carry no credential of its connection', () => {
  const apiKey = { kind: 'apiKey', apiKey: 'hpk_0123456789ab', apiSecret: 'c30d0b988b61304e23f60a94a10d841e' } as const
  const session = {
    kind: 'session',
    userGuid: 'u-1',
    userToken: 'eyJhbGciOi.eyJzdWIiOiIxIn0.c2lnbmF0dXJl-token',
    supplierGuid: 's-1',
  } as const

  it('a 502 quoting the headers, retried: message, body and the first attempt in cause', async () => {
    const made = await client(apiKey, (request, response) => {
      response.statusCode = 502
      response.end(`Bad gateway. ${echo(request)}`)
    })
    const error = await failure(made.listCatalogs())
    expect(error.kind).toBe('server')
    expect(error.message).toContain('x-apisecret [redacted]')
    expect(error.cause).toBeInstanceOf(ServiceError)
    expect(everything(error)).not.toMatch(/hpk_0123456789ab|c30d0b988b61304e23f60a94a10d841e/)
  })

  it('a long page cut for the message is redacted before the cut, so no part of the secret is left', async () => {
    const made = await client(apiKey, (_request, response) => {
      response.statusCode = 500
      // The secret straddles the 500th character, where the message's quote of the page ends.
      response.end(`${'x'.repeat(490)} ${apiKey.apiSecret} tail`)
    })
    const error = await failure(made.listCatalogs())
    expect(everything(error)).not.toMatch(/c30d0b98/)
    // The mark itself may be cut: what is left of it is all that stands where the secret was.
    expect(error.message).toContain(' [redacted')
  })

  it('a 400 naming the secret in its message and a line, escaped in JSON: a rejection with every line redacted', async () => {
    const made = await client(apiKey, (_request, response) => {
      response.statusCode = 400
      response.setHeader('content-type', 'application/json')
      response.end(
        `{"message":"x-apiSecret=${apiKey.apiSecret} refused","errors":[{"message":"key \\u0068pk_0123456789ab","sku":"${apiKey.apiSecret}"}]}`,
      )
    })
    const error = await failure(made.createOrderWithItems({ order: {} }))
    expect(error).toBeInstanceOf(ServiceRejectedError)
    expect(error.message).toBe('The ordering service rejected the request: x-apiSecret=[redacted] refused')
    expect((error as ServiceRejectedError).errors[0]).toMatchObject({ message: 'key [redacted]', sku: '[redacted]' })
    expect(everything(error)).not.toMatch(/hpk_0123456789ab|c30d0b988b61304e23f60a94a10d841e/)
  })

  it('a session token echoed by a portal page or a reply that is not JSON', async () => {
    let html = true
    const made = await client(session, (request, response) => {
      response.statusCode = html ? 403 : 200
      response.setHeader('content-type', html ? 'text/html' : 'application/json')
      response.end(html ? `<html>${echo(request)}</html>` : `not json: usertoken=${session.userToken}`)
    })
    const portal = await failure(made.listCatalogs())
    expect(portal.kind).toBe('unreachable')
    html = false
    const garbled = await failure(made.listCatalogs())
    for (const error of [portal, garbled]) expect(everything(error)).not.toContain('c2lnbmF0dXJl')
    expect(garbled.body).toBe('not json: usertoken=[redacted]')
  })
})
