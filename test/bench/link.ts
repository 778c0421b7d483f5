/**
 * A link with a bandwidth, for the benches: a loopback TCP proxy in front of the double that counts
 * every byte each way and, when shaped, paces them as one link would: each direction one queue at
 * `bitsPerSecond` shared by every connection, each chunk arriving `oneWayMs` after it has left (an
 * 80 ms round trip is 40 ms each way). It can be cut: every connection dropped and new ones refused
 * for a while, as a rep's Wi-Fi does.
 */
import { createServer, connect, type Server, type Socket } from 'node:net'

export interface LinkOptions {
  /** The double's address, e.g. http://127.0.0.1:4010. */
  target: string
  /** No shaping when left out: counting only. */
  bitsPerSecond?: number
  oneWayMs?: number
}

export interface Link {
  url: string
  /** Bytes carried from the service to Satchel, and the other way. */
  readonly down: number
  readonly up: number
  /** Drops every connection and refuses new ones for `downMs`. */
  cut(downMs: number): void
  close(): Promise<void>
}

/** One direction of the link: a queue that delivers each chunk in order, paced and delayed. */
class Direction {
  bytes = 0
  private freeAt = 0
  constructor(
    private readonly bytesPerMs: number | null,
    private readonly oneWayMs: number,
  ) {}

  /** Sends `chunk` to `to` when the link would have delivered it; `from` is paused while a lot waits. */
  carry(chunk: Buffer, from: Socket, to: Socket): void {
    this.bytes += chunk.length
    if (this.bytesPerMs === null) {
      if (!to.destroyed) to.write(chunk)
      return
    }
    const now = performance.now()
    this.freeAt = Math.max(now, this.freeAt) + chunk.length / this.bytesPerMs
    const arrives = this.freeAt + this.oneWayMs
    // The sender waits, as TCP's window would make it, while more than a second's worth is queued.
    if (this.freeAt - now > 1000) {
      from.pause()
      setTimeout(() => from.resume(), this.freeAt - now - 1000)
    }
    setTimeout(
      () => {
        if (!to.destroyed) to.write(chunk)
      },
      Math.max(0, arrives - now),
    )
  }
}

export async function startLink(options: LinkOptions): Promise<Link> {
  const target = new URL(options.target)
  const bytesPerMs = options.bitsPerSecond ? options.bitsPerSecond / 8 / 1000 : null
  const oneWayMs = options.oneWayMs ?? 0
  const down = new Direction(bytesPerMs, oneWayMs)
  const up = new Direction(bytesPerMs, oneWayMs)
  const sockets = new Set<Socket>()
  let refuseUntil = 0
  const server: Server = createServer((client) => {
    if (performance.now() < refuseUntil) {
      client.destroy()
      return
    }
    const service = connect(Number(target.port), target.hostname)
    sockets.add(client)
    sockets.add(service)
    client.setNoDelay(true)
    service.setNoDelay(true)
    // A shaped link delivers FIN after the data before it.
    const end = (socket: Socket) => () =>
      setTimeout(() => socket.end(), bytesPerMs === null ? 0 : Math.max(0, oneWayMs + 1))
    client.on('data', (chunk: Buffer) => up.carry(chunk, client, service))
    service.on('data', (chunk: Buffer) => down.carry(chunk, service, client))
    client.on('end', end(service))
    service.on('end', end(client))
    const close = () => {
      client.destroy()
      service.destroy()
      sockets.delete(client)
      sockets.delete(service)
    }
    client.on('error', close)
    service.on('error', close)
    client.on('close', close)
    service.on('close', close)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  return {
    url: `http://127.0.0.1:${port}`,
    get down() {
      return down.bytes
    },
    get up() {
      return up.bytes
    },
    cut(downMs) {
      refuseUntil = performance.now() + downMs
      for (const socket of sockets) socket.destroy()
      sockets.clear()
    },
    async close() {
      for (const socket of sockets) socket.destroy()
      await new Promise((resolve) => server.close(resolve))
    },
  }
}
