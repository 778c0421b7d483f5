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

describe('credentialRedactor: a secret in pieces (docs/security.md)', () => {
  const signature = 'kX3vQ9pLw2Zr8TnB5yHc7MdF4sGj6UaE1oIqRtYxVbN'
  const token = `eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJ1c2VyLTEyIn0.${signature}`
  const apiSecret = 'sk_live_7Hq2Zp9XwL4mRt6Vb'
  const redact = credentialRedactor([
    { value: token, headers: ['userToken'] },
    { value: 'hpk_5f2a9c0d7e', headers: ['x-apiKey'] },
    { value: apiSecret, headers: ['x-apiSecret'] },
  ])

  /** Every run of eight characters of `secret`, as is and lower-cased, and in base64 at each byte offset. */
  function piecesOf(secret: string): string[] {
    const runs = (text: string) => Array.from({ length: text.length - 7 }, (_, at) => text.slice(at, at + 8))
    const encoded = [0, 1, 2].flatMap((offset) => {
      const bytes = Buffer.from(secret).subarray(offset)
      return runs(bytes.subarray(0, Math.floor(bytes.length / 3) * 3).toString('base64'))
    })
    return [...runs(secret), ...runs(secret.toLowerCase()), ...encoded]
  }

  /** The text as a reader would undo it: whitespace and line breaks out, entities and percent-encoding decoded. */
  function undone(text: string): string {
    return text
      .replace(/\s+/g, '')
      .replace(/&#(\d+);/g, (_, code: string) => String.fromCharCode(Number(code)))
      .replace(/&#x([0-9a-f]+);/gi, (_, code: string) => String.fromCharCode(parseInt(code, 16)))
      .replace(/%([0-9a-f]{2})/gi, (_, code: string) => String.fromCharCode(parseInt(code, 16)))
  }

  function expectNoPiece(text: string, secret: string): void {
    const read = undone(text)
    for (const piece of piecesOf(secret)) expect(read, `"${piece}" of the secret is left`).not.toContain(piece)
  }

  const spellings: [string, string, string][] = [
    [
      'a 502 quoting userToken: over two lines',
      `Bad gateway. userToken:\n ${token.slice(0, 60)}\n${token.slice(60)}`,
      signature,
    ],
    ['the token as numeric HTML entities', [...token].map((char) => `&#${char.charCodeAt(0)};`).join(''), signature],
    [
      'the token as hex HTML entities',
      [...token].map((char) => `&#x${char.charCodeAt(0).toString(16)};`).join(''),
      signature,
    ],
    [
      'the token percent-encoded character by character',
      [...token].map((char) => `%${char.charCodeAt(0).toString(16).padStart(2, '0')}`).join(''),
      signature,
    ],
    ['the token in base64', `echo: ${Buffer.from(`userToken: ${token}`).toString('base64')}`, signature],
    ['the token in base64url', `echo: ${Buffer.from(`t=${token}`).toString('base64url')}`, signature],
    ['the token spaced out', `token was ${[...token].join(' ')}`, signature],
    ['the signature alone, in capitals', `sig ${signature.toUpperCase()} end`, signature],
    [
      'the API secret split by a line break',
      `x-apiSecret: ${apiSecret.slice(0, 11)}\r\n${apiSecret.slice(11)}`,
      apiSecret,
    ],
    [
      'the API secret with a JSON line break inside',
      `{"echo":"${apiSecret.slice(0, 9)}\\n${apiSecret.slice(9)}"}`,
      apiSecret,
    ],
    ['nine characters of the API secret', `it began ${apiSecret.slice(4, 13)} and went on`, apiSecret],
  ]
  for (const [spelled, text, secret] of spellings) {
    it(`masks ${spelled}`, () => {
      const redacted = redact(text)
      expect(redacted).toContain('[redacted]')
      expectNoPiece(redacted, secret)
    })
  }

  it('keeps what is not a secret: the token’s header and payload (public), GUIDs, words, and seven characters of a secret', () => {
    const text =
      'user 3f2b6c1e-9a4d-4e8b-b1c2-d3e4f5a6b7c8 at eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9: step sk_live failed'
    expect(redact(text)).toBe(text)
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
