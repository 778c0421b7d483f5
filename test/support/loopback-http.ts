/**
 * What the client's tests share: a bare node:http server on 127.0.0.1 that answers as each test
 * tells it (below what any framework would allow: cut bodies, false encodings, trickles), and the
 * ServiceError a call failed with.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { ServiceError } from '../../src/main/ordering-client/errors'

export type Handler = (request: IncomingMessage, response: ServerResponse) => void

/**
 * One server at a time for a test file: `serve` starts it and gives its address, `keep` notes a
 * client made against it, and `close` (in afterEach) closes the clients, then the server.
 */
export function loopbackServer() {
  let server: Server | undefined
  const clients: { close(): Promise<void> }[] = []
  return {
    keep<T extends { close(): Promise<void> }>(client: T): T {
      clients.push(client)
      return client
    },
    async serve(handler: Handler): Promise<string> {
      const started = createServer(handler)
      server = started
      await new Promise<void>((resolve) => started.listen(0, '127.0.0.1', resolve))
      return `http://127.0.0.1:${(started.address() as AddressInfo).port}`
    },
    async close(): Promise<void> {
      await Promise.all(clients.splice(0).map((client) => client.close()))
      const running = server
      server = undefined
      if (!running) return
      running.closeAllConnections()
      await new Promise<void>((resolve) => running.close(() => resolve()))
    },
  }
}

/** The ServiceError the call failed with; a call that succeeds, or fails otherwise, fails the test. */
export async function failure(promise: Promise<unknown>): Promise<ServiceError> {
  try {
    await promise
  } catch (error) {
    if (error instanceof ServiceError) return error
    throw error
  }
  throw new Error('expected the call to fail')
}
