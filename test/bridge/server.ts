/**
 * The test bridge: serves the built renderer and the core's handler table to a plain browser, so the
 * real renderer runs against the real core where no Electron binary exists. Loopback only, with a
 * per-run token and an Origin check, because anything on this machine could otherwise call the core.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { extname, join, normalize, resolve, sep } from 'node:path'
import ts from 'typescript'
import { WebSocketServer, type WebSocket } from 'ws'
import { methodNames, type MethodName } from '../../src/shared/channels'
import { parsePicturePath, type PictureSize } from '../../src/shared/pictures'
import { fail } from '../../src/shared/result'
import type { HandlerTable } from '../../src/main/core/handlers'
import type { EventStream } from '../../src/main/events'
import { bridgePaths, type CallMessage, type ServerMessage } from './protocol'

export interface BridgeOptions {
  handlers: HandlerTable
  events: EventStream
  /** The built renderer (electron-vite's out/renderer); without it only the socket is served. */
  rendererDir?: string
  port?: number
  token?: string
  /** The item pictures of the core on screen, from its cache only (the shell's protocol in the app). */
  pictures?: (itemGuid: string, size: PictureSize, position: number) => Buffer | null
}

export interface Bridge {
  url: string
  socketUrl: string
  token: string
  close(): Promise<void>
}

const contentTypes: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.json': 'application/json',
}

let standInSource: Promise<string> | undefined
function compiledStandIn(): Promise<string> {
  standInSource ??= readFile(join(__dirname, 'stand-in.ts'), 'utf8').then(
    (source) =>
      ts.transpileModule(source, { compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.None } })
        .outputText,
  )
  return standInSource
}

function tokensMatch(expected: string, given: string | null): boolean {
  if (!given) return false
  const a = Buffer.from(expected)
  const b = Buffer.from(given)
  return a.length === b.length && timingSafeEqual(a, b)
}

export async function startBridge(options: BridgeOptions): Promise<Bridge> {
  const token = options.token ?? randomBytes(24).toString('base64url')
  const rendererDir = options.rendererDir ? resolve(options.rendererDir) : undefined
  let origin = ''

  async function serveStatic(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', origin)
    if (url.pathname === bridgePaths.standIn) {
      const config = {
        socketUrl: origin.replace(/^http/, 'ws') + bridgePaths.socket,
        token,
        methods: methodNames,
        pictureBase: bridgePaths.pictures,
      }
      response.writeHead(200, { 'content-type': contentTypes['.js']!, 'cache-control': 'no-store' })
      response.end(`var __SATCHEL_BRIDGE__ = ${JSON.stringify(config)};\n${await compiledStandIn()}`)
      return
    }
    if (url.pathname.startsWith(bridgePaths.pictures)) {
      servePicture(url.pathname.slice(bridgePaths.pictures.length), response)
      return
    }
    if (!rendererDir) {
      response.writeHead(404).end('No renderer is served by this bridge.')
      return
    }
    const relative = url.pathname === '/' ? 'index.html' : decodeURIComponent(url.pathname).replace(/^\/+/, '')
    const file = normalize(join(rendererDir, relative))
    if (!file.startsWith(rendererDir + sep)) {
      response.writeHead(403).end()
      return
    }
    try {
      let body: Buffer | string = await readFile(file)
      if (relative === 'index.html') {
        // The stand-in must define window.satchel before the app's module script runs, as the preload does.
        body = body.toString('utf8').replace('<head>', `<head>\n    <script src="${bridgePaths.standIn}"></script>`)
      }
      response.writeHead(200, { 'content-type': contentTypes[extname(file)] ?? 'application/octet-stream' })
      response.end(body)
    } catch {
      response.writeHead(404).end('Not found')
    }
  }

  /** As the shell's protocol answers (src/main/shell/pictures.ts): the cache's bytes, or 204. */
  function servePicture(path: string, response: ServerResponse): void {
    const picture = parsePicturePath(path)
    if (!picture) {
      response.writeHead(400).end()
      return
    }
    const bytes = options.pictures?.(picture.itemGuid, picture.size, picture.position) ?? null
    if (!bytes) {
      response.writeHead(204, { 'cache-control': 'no-cache' }).end()
      return
    }
    response.writeHead(200, {
      'content-type': 'image/webp',
      'cache-control': 'no-cache',
      'x-content-type-options': 'nosniff',
    })
    response.end(bytes)
  }

  const server = createServer((request, response) => {
    serveStatic(request, response).catch((error: unknown) => {
      response.writeHead(500).end(String(error))
    })
  })
  const sockets = new WebSocketServer({ noServer: true })

  server.on('upgrade', (request, socket, head) => {
    const url = new URL(request.url ?? '/', origin)
    const originOk = !request.headers.origin || request.headers.origin === origin
    if (url.pathname !== bridgePaths.socket || !originOk || !tokensMatch(token, url.searchParams.get('token'))) {
      socket.write('HTTP/1.1 401 Unauthorized\r\nConnection: close\r\n\r\n')
      socket.destroy()
      return
    }
    sockets.handleUpgrade(request, socket, head, (ws) => serveSocket(ws))
  })

  function serveSocket(ws: WebSocket): void {
    const send = (message: ServerMessage) => {
      if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(message))
    }
    const unsubscribe = options.events.subscribe((event) => send({ event }))
    ws.on('close', unsubscribe)
    ws.on('message', (data) => {
      let call: CallMessage
      try {
        call = JSON.parse(String(data)) as CallMessage
      } catch {
        return
      }
      if (typeof call.id !== 'number') return
      if (!(methodNames as readonly string[]).includes(call.method)) {
        send({ id: call.id, result: fail('INVALID_ARGUMENT', `Unknown method: ${String(call.method)}`) })
        return
      }
      void options.handlers[call.method as MethodName](call.argument).then((result) => send({ id: call.id, result }))
    })
  }

  await new Promise<void>((resolveListen, reject) => {
    server.once('error', reject)
    server.listen(options.port ?? 0, '127.0.0.1', () => resolveListen())
  })
  const { port } = server.address() as AddressInfo
  origin = `http://127.0.0.1:${port}`

  return {
    url: `${origin}/`,
    socketUrl: origin.replace(/^http/, 'ws') + bridgePaths.socket,
    token,
    async close() {
      for (const client of sockets.clients) client.terminate()
      sockets.close()
      server.closeAllConnections()
      await new Promise<void>((done) => server.close(() => done()))
    },
  }
}
