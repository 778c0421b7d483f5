/**
 * A link with a bandwidth, for the benches: a loopback TCP proxy in front of the double that counts
 * every byte each way and, when shaped, paces them as one link would: each direction one queue at
 * `bitsPerSecond` shared by every connection, each chunk arriving `oneWayMs` after it has left (an
 * 80 ms round trip is 40 ms each way). It can be cut: every connection dropped and new ones refused
 * for a while, as a rep's Wi-Fi does.
 *
 * The proxy runs on a thread of its own (startLink): on the bench's thread its pacing timers would
 * wait behind Satchel's main-thread work (decoding replies, handing pages over), and a link that
 * delivers late whenever the laptop is busy is not a link, it is the laptop.
 */
import { createServer, connect, type Server, type Socket } from 'node:net'
import { createRequire } from 'node:module'
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads'

export interface LinkOptions {
  /** The double's address, e.g. http://127.0.0.1:4010. */
  target: string
  /** No shaping when left out: counting only. */
  bitsPerSecond?: number
  oneWayMs?: number
}

export interface Link {
  url: string
  /**
   * Bytes delivered from the service to Satchel, and the other way: counted as they come out of the
   * link, as a data plan counts them. Bytes still queued in the link when it is cut never arrive and
   * are counted in `dropped` instead.
   */
  readonly down: number
  readonly up: number
  readonly dropped: number
  /** performance.now() of the last byte delivered to Satchel: what came after it was Satchel's own work. */
  readonly lastDownAt: number
  /** Drops every connection and refuses new ones for `downMs`. */
  cut(downMs: number): void
  /**
   * Bytes delivered to Satchel in each `binMs` from the link's start (epoch ms `startedAt`): where a
   * shaped run left the link idle. Complete once the link is closed.
   */
  timeline(): { startedAt: number; binMs: number; down: number[] }
  close(): Promise<void>
}

const timelineBinMs = 100

/** One direction of the link: a queue that delivers each chunk in order, paced and delayed. */
class Direction {
  bytes = 0
  dropped = 0
  lastAt = 0
  readonly bins: number[] = []
  readonly startedAt = performance.now()
  /** Bytes on their way through the link (shaped only): lost if it is cut. */
  private queued = 0
  private freeAt = 0
  /** Bumped by a cut: chunks queued before it are lost with the link. */
  private generation = 0
  constructor(
    private readonly bytesPerMs: number | null,
    private readonly oneWayMs: number,
  ) {}

  /** Sends `chunk` to `to` when the link would have delivered it; `from` is paused while a lot waits. */
  carry(chunk: Buffer, from: Socket, to: Socket): void {
    if (this.bytesPerMs === null) {
      this.deliver(chunk, to, this.generation)
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
    const generation = this.generation
    this.queued += chunk.length
    setTimeout(() => this.deliver(chunk, to, generation), Math.max(0, arrives - now))
  }

  /** Runs `then` once everything queued so far has been delivered (a FIN follows the data before it). */
  afterQueued(then: () => void): void {
    if (this.bytesPerMs === null) return then()
    const now = performance.now()
    setTimeout(then, Math.max(0, this.freeAt - now) + this.oneWayMs + 1)
  }

  /** The link went down: what it held is gone, and it is idle when it comes back. */
  cut(): void {
    this.generation++
    this.freeAt = 0
    this.dropped += this.queued
    this.queued = 0
  }

  private deliver(chunk: Buffer, to: Socket, generation: number): void {
    // A chunk from before a cut was counted as dropped by the cut.
    if (generation !== this.generation) return
    if (this.bytesPerMs !== null) this.queued -= chunk.length
    if (to.destroyed) {
      this.dropped += chunk.length
      return
    }
    to.write(chunk)
    this.bytes += chunk.length
    this.lastAt = performance.now()
    const bin = Math.floor((this.lastAt - this.startedAt) / timelineBinMs)
    while (this.bins.length <= bin) this.bins.push(0)
    this.bins[bin]! += chunk.length
  }
}

/** The proxy itself, on the thread it is started on. */
async function serveLink(options: LinkOptions): Promise<Link> {
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
    client.on('data', (chunk: Buffer) => up.carry(chunk, client, service))
    service.on('data', (chunk: Buffer) => down.carry(chunk, service, client))
    client.on('end', () => up.afterQueued(() => service.end()))
    service.on('end', () => down.afterQueued(() => client.end()))
    const close = () => {
      client.destroy()
      service.destroy()
      sockets.delete(client)
      sockets.delete(service)
    }
    client.on('error', close)
    service.on('error', close)
    client.on('close', close)
    // The service closing is a FIN behind its last bytes: the laptop's side closes once they are in.
    service.on('close', () => down.afterQueued(close))
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
    get dropped() {
      return down.dropped + up.dropped
    },
    get lastDownAt() {
      return down.lastAt
    },
    timeline() {
      return { startedAt: down.startedAt + performance.timeOrigin, binMs: timelineBinMs, down: down.bins }
    },
    cut(downMs) {
      refuseUntil = performance.now() + downMs
      down.cut()
      up.cut()
      for (const socket of sockets) socket.destroy()
      sockets.clear()
    },
    async close() {
      for (const socket of sockets) socket.destroy()
      await new Promise((resolve) => server.close(resolve))
    },
  }
}

/** Counters the proxy's thread writes and the bench reads: down, up, dropped, last byte down (epoch ms). */
const DOWN = 0
const UP = 1
const DROPPED = 2
const LAST_DOWN_AT = 3

interface LinkThreadData {
  link: LinkOptions
  counters: SharedArrayBuffer
}

/** Starts the link on a thread of its own; its figures are read as the proxy writes them. */
export async function startLink(options: LinkOptions): Promise<Link> {
  const counters = new SharedArrayBuffer(4 * Float64Array.BYTES_PER_ELEMENT)
  const figures = new Float64Array(counters)
  const resolve = createRequire(__filename).resolve
  const bootstrap = `require(${JSON.stringify(resolve('tsx/cjs'))}); require(${JSON.stringify(__filename)})`
  const worker = new Worker(bootstrap, { eval: true, workerData: { link: options, counters } satisfies LinkThreadData })
  const url = await new Promise<string>((done, fail) => {
    worker.once('message', (message: { url: string }) => done(message.url))
    worker.once('error', fail)
  })
  let closed: Promise<void> | null = null
  let timeline: ReturnType<Link['timeline']> = { startedAt: 0, binMs: timelineBinMs, down: [] }
  return {
    url,
    get down() {
      return figures[DOWN]!
    },
    get up() {
      return figures[UP]!
    },
    get dropped() {
      return figures[DROPPED]!
    },
    get lastDownAt() {
      return figures[LAST_DOWN_AT]! - performance.timeOrigin
    },
    cut(downMs) {
      worker.postMessage({ cut: downMs })
    },
    timeline: () => timeline,
    close() {
      closed ??= new Promise<void>((done) => {
        worker.once('message', (message: { timeline: typeof timeline }) => {
          timeline = message.timeline
          void worker.terminate().then(() => done())
        })
        worker.postMessage({ close: true })
      })
      return closed
    },
  }
}

if (!isMainThread && (workerData as Partial<LinkThreadData> | null)?.link) {
  const { link: options, counters } = workerData as LinkThreadData
  const figures = new Float64Array(counters)
  void serveLink(options).then((link) => {
    const publish = () => {
      figures[DOWN] = link.down
      figures[UP] = link.up
      figures[DROPPED] = link.dropped
      figures[LAST_DOWN_AT] = link.lastDownAt + performance.timeOrigin
    }
    const timer = setInterval(publish, 5)
    parentPort!.on('message', (message: { cut?: number; close?: boolean }) => {
      if (message.cut !== undefined) link.cut(message.cut)
      if (message.close)
        void link.close().then(() => {
          clearInterval(timer)
          publish()
          parentPort!.postMessage({ closed: true, timeline: link.timeline() })
        })
    })
    parentPort!.postMessage({ url: link.url })
  })
}
