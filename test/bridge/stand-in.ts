/**
 * Browser-side stand-in for the Electron preload: defines window.satchel with the contract's methods
 * and forwards each call over the bridge's WebSocket. Self-contained (no imports) because the bridge
 * serves it as one classic script, with its configuration prepended as `__SATCHEL_BRIDGE__`.
 */
interface StandInConfig {
  socketUrl: string
  token: string
  methods: string[]
  pictureBase: string
}

type Envelope = { ok: true; value: unknown } | { ok: false; error: { code: string; message: string } }

declare const __SATCHEL_BRIDGE__: StandInConfig

;(() => {
  const config = __SATCHEL_BRIDGE__
  const pending = new Map<number, (result: Envelope) => void>()
  const listeners = new Set<(event: unknown) => void>()
  const outbox: string[] = []
  let socket: WebSocket | undefined
  let nextId = 1

  function connect(): void {
    const ws = new WebSocket(`${config.socketUrl}?token=${encodeURIComponent(config.token)}`)
    socket = ws
    ws.onopen = () => {
      for (const message of outbox.splice(0)) ws.send(message)
    }
    ws.onmessage = (message) => {
      const data = JSON.parse(String(message.data)) as { id?: number; result?: Envelope; event?: unknown }
      if (typeof data.id === 'number' && data.result) {
        pending.get(data.id)?.(data.result)
        pending.delete(data.id)
      } else if (data.event) {
        for (const listener of listeners) listener(data.event)
      }
    }
    ws.onclose = () => {
      // Like a crashed main process: calls in flight fail, and the window reconnects when it can.
      for (const resolve of pending.values())
        resolve({ ok: false, error: { code: 'INTERNAL', message: 'The connection to Satchel’s core was lost.' } })
      pending.clear()
      socket = undefined
      setTimeout(connect, 500)
    }
  }

  const api: Record<string, unknown> = {}
  for (const method of config.methods) {
    api[method] = (argument?: unknown) =>
      new Promise<Envelope>((resolve) => {
        const id = nextId++
        pending.set(id, resolve)
        const message = JSON.stringify({ id, method, argument })
        if (socket && socket.readyState === WebSocket.OPEN) socket.send(message)
        else outbox.push(message)
      })
  }
  api.onEvent = (listener: (event: unknown) => void) => {
    listeners.add(listener)
    return () => {
      listeners.delete(listener)
    }
  }
  // The bridge serves item pictures on its own origin, as the shell's protocol does in the app.
  api.pictureBase = config.pictureBase
  Object.defineProperty(window, 'satchel', { value: Object.freeze(api), writable: false, configurable: false })
  connect()
})()
