/**
 * The benches' link (test/bench/link.ts): it counts what it delivers, not what it was handed, so a
 * cut's "fetched again" row does not count bytes that were still queued in the link and never arrived.
 */
import { createServer, connect, type Server } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { startLink, type Link } from '../../bench/link'
import { until } from '../../support/until'

let server: Server | null = null
let link: Link | null = null

afterEach(async () => {
  await link?.close()
  await new Promise((done) => (server ? server.close(done) : done(undefined)))
  server = null
  link = null
})

/** A service that answers each connection with `bytes` bytes at once. */
async function serviceSending(bytes: number): Promise<string> {
  server = createServer((socket) => socket.end(Buffer.alloc(bytes, 0x61)))
  await new Promise<void>((done) => server!.listen(0, '127.0.0.1', done))
  return `http://127.0.0.1:${(server.address() as { port: number }).port}`
}

/** Connects through the link and counts what arrives until the link closes the connection. */
function receive(url: string): { received: () => number; closed: Promise<void> } {
  const { port } = new URL(url)
  let received = 0
  const socket = connect(Number(port), '127.0.0.1')
  socket.on('data', (chunk: Buffer) => (received += chunk.length))
  const closed = new Promise<void>((done) => socket.on('close', () => done()))
  socket.on('error', () => {})
  return { received: () => received, closed }
}

describe('the benches’ link', () => {
  it('delivers everything the service sent before its close, and counts it', async () => {
    link = await startLink({ target: await serviceSending(40_000), bitsPerSecond: 8_000_000, oneWayMs: 5 })
    const client = receive(link.url)
    await client.closed
    expect(client.received()).toBe(40_000)
    await until(() => link!.down === 40_000, 'the link to publish its count')
  })

  it('counts only what was delivered before a cut; what the link held is dropped', async () => {
    // 200 KB at 1 Mbit/s takes 1.6 s: cut a quarter of the way in.
    link = await startLink({ target: await serviceSending(200_000), bitsPerSecond: 1_000_000, oneWayMs: 5 })
    const client = receive(link.url)
    await until(() => client.received() > 20_000, 'a tenth of the reply to arrive')
    link.cut(1000)
    await client.closed
    await link.close()
    expect(link.down).toBe(client.received())
    expect(link.down).toBeLessThan(200_000)
    expect(link.dropped).toBeGreaterThan(0)
    // The service may not have handed the link all of it: the link makes it wait past a second queued.
    expect(link.down + link.dropped).toBeLessThanOrEqual(200_000)
  })
})
