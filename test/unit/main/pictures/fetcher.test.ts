import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { FetchFailed, PictureFetcher, retryAfterMs } from '../../../../src/main/pictures/fetcher'
import { itemPng } from '../../../service/images'

const servers: Server[] = []
const fetchers: PictureFetcher[] = []
afterEach(async () => {
  // A host still dripping a picture would hold both closes below open for good: its connections go first.
  for (const server of servers) server.closeAllConnections()
  for (const fetcher of fetchers.splice(0)) await fetcher.close()
  for (const server of servers.splice(0)) await new Promise((done) => server.close(done))
})

async function host(handle: (request: IncomingMessage, response: ServerResponse) => void): Promise<string> {
  const server = createServer(handle)
  servers.push(server)
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

function fetcher(options: ConstructorParameters<typeof PictureFetcher>[0] = {}): PictureFetcher {
  const made = new PictureFetcher(options)
  fetchers.push(made)
  return made
}

const none = { etag: null, lastModified: null }

describe('fetching a picture politely', () => {
  it('keeps to its per-host cap however many are asked for at once', async () => {
    let inFlight = 0
    let most = 0
    const origin = await host((_request, response) => {
      inFlight++
      most = Math.max(most, inFlight)
      setTimeout(() => {
        inFlight--
        response.writeHead(200, { 'content-type': 'image/png' }).end(itemPng('A', 0))
      }, 30)
    })
    const polite = fetcher({ perHost: 2 })
    const outcomes = await Promise.all(
      Array.from({ length: 8 }, (_, n) => polite.fetch(new URL(`/p${n}.png`, origin), none)),
    )
    expect(outcomes.every((outcome) => outcome.kind === 'fresh')).toBe(true)
    expect(most).toBe(2)
    expect(polite.figures.requests).toBe(8)
  })

  it('sends the copy’s validators, and a 304 costs no picture bytes', async () => {
    const seen: (string | undefined)[][] = []
    const origin = await host((request, response) => {
      seen.push([request.headers['if-none-match'], request.headers['if-modified-since']])
      response.writeHead(304).end()
    })
    const polite = fetcher()
    const outcome = await polite.fetch(new URL('/a.png', origin), {
      etag: '"v1"',
      lastModified: 'Thu, 01 Jan 2026 00:00:00 GMT',
    })
    expect(outcome).toEqual({ kind: 'not-modified' })
    expect(seen).toEqual([['"v1"', 'Thu, 01 Jan 2026 00:00:00 GMT']])
    expect(polite.figures).toEqual({ requests: 1, bytes: 0, notModified: 1 })
  })

  it('holds to a host’s Retry-After: no request to it until then', async () => {
    let requests = 0
    const origin = await host((_request, response) => {
      requests++
      response.writeHead(503, { 'retry-after': '120' }).end('busy')
    })
    let now = 1_000_000
    const polite = fetcher({ now: () => now })
    const first = await polite.fetch(new URL('/a.png', origin), none).catch((error: unknown) => error)
    expect(first).toBeInstanceOf(FetchFailed)
    expect((first as FetchFailed).retryAfterMs).toBe(120_000)
    await expect(polite.fetch(new URL('/b.png', origin), none)).rejects.toBeInstanceOf(FetchFailed)
    expect(requests).toBe(1)
    now += 120_001
    await expect(polite.fetch(new URL('/b.png', origin), none)).rejects.toBeInstanceOf(FetchFailed)
    expect(requests).toBe(2)
  })

  it('refuses a redirect to plain http elsewhere, and follows one that stays safe', async () => {
    const origin = await host((request, response) => {
      if (request.url === '/away.png') response.writeHead(302, { location: 'http://cdn.example/a.png' }).end()
      else if (request.url === '/moved.png') response.writeHead(301, { location: '/here.png' }).end()
      else response.writeHead(200, { 'content-type': 'image/png' }).end(itemPng('A', 0))
    })
    const polite = fetcher()
    await expect(polite.fetch(new URL('/away.png', origin), none)).rejects.toMatchObject({ reason: 'address' })
    await expect(polite.fetch(new URL('/moved.png', origin), none)).resolves.toMatchObject({ kind: 'fresh' })
  })

  it('refuses a redirect to another port on this computer: only the picture’s own origin, or https', async () => {
    let reached = 0
    const control = await host((_request, response) => {
      reached += 1
      response.writeHead(200, { 'content-type': 'image/png' }).end(itemPng('B', 0))
    })
    const origin = await host((request, response) => {
      if (request.url === '/sideways.png') response.writeHead(302, { location: `${control}/control/reset` }).end()
      else response.writeHead(200, { 'content-type': 'image/png' }).end(itemPng('A', 0))
    })
    const polite = fetcher()
    await expect(polite.fetch(new URL('/sideways.png', origin), none)).rejects.toMatchObject({
      reason: 'address',
      message: expect.stringMatching(/followed only on its own host or to https/),
    })
    expect(reached).toBe(0)
  })

  it('gives up on a picture sent a byte at a time once its deadline passes, and frees the slot for the next', async () => {
    const origin = await host((request, response) => {
      if (request.url === '/slow.png') {
        response.writeHead(200, { 'content-type': 'image/png' })
        // A byte every 200 ms: never idle long enough for an idle timeout, never done.
        const drip = setInterval(() => response.write(Buffer.from([0x89])), 200)
        response.on('close', () => clearInterval(drip))
        return
      }
      response.writeHead(200, { 'content-type': 'image/png' }).end(itemPng('A', 0))
    })
    const patient = fetcher({ perHost: 1, timeoutMs: 5_000, deadlineMs: 1_500 })
    const slow = patient.fetch(new URL('/slow.png', origin), none)
    const next = patient.fetch(new URL('/next.png', origin), none)
    const failure = await slow.then(
      () => null,
      (error: unknown) => error,
    )
    expect(failure).toBeInstanceOf(FetchFailed)
    expect((failure as FetchFailed).message).toMatch(/took longer than 1\.5 s/)
    expect((await next).kind).toBe('fresh')
  })

  it('reads Retry-After as seconds or as a date', () => {
    expect(retryAfterMs('30', 0)).toBe(30_000)
    expect(retryAfterMs(new Date(90_000).toUTCString(), 30_000)).toBe(60_000)
    expect(retryAfterMs('soon', 0)).toBeNull()
    expect(retryAfterMs(undefined, 0)).toBeNull()
  })
})
