import { EventEmitter } from 'node:events'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import {
  createConnectivityMonitor,
  networkFingerprint,
  probeService,
  syncOnReconnect,
  syncReasonFor,
  type ConnectivityState,
  type ProbeResult,
} from '../../../../src/main/connectivity'
import { refreshOnResume } from '../../../../src/main/shell/network'

let server: Server
let base: string
const hanging: (() => void)[] = []

beforeAll(async () => {
  server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://x').pathname
    switch (path.split('/')[1]) {
      case 'service':
        response.writeHead(401, { 'content-type': 'application/json' }).end('{"message":"Unauthorized"}')
        return
      case 'portal':
        response.writeHead(302, { location: 'http://login.hotel-wifi.example/?continue=1' }).end()
        return
      case 'login-page':
        response
          .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
          .end('<html><form>Accept the terms</form></html>')
        return
      case 'same-host-redirect':
        response.writeHead(301, { location: '/service/v1/catalogs' }).end()
        return
      case 'down':
        response.writeHead(503, { 'content-type': 'application/json' }).end('{"message":"maintenance"}')
        return
      case 'plain-text':
        response.writeHead(400, { 'content-type': 'text/plain' }).end('Missing required headers')
        return
      case 'hang':
        hanging.push(() => response.destroy())
        return
      default:
        response.writeHead(404).end()
    }
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})

afterAll(async () => {
  for (const release of hanging) release()
  server.closeAllConnections()
  await new Promise((resolve) => server.close(resolve))
})

describe('the reachability probe', () => {
  it('calls the service online when it answers, even with 401 or a plain-text 400', async () => {
    expect(await probeService(`${base}/service`)).toEqual({ status: 'online', detail: 'The service answered (401).' })
    expect((await probeService(`${base}/plain-text`)).status).toBe('online')
    expect((await probeService(`${base}/same-host-redirect/`)).status).toBe('online')
  })

  it('recognises a captive portal: a redirect to another host, or an HTML page', async () => {
    expect(await probeService(`${base}/portal`)).toMatchObject({
      status: 'captive-portal',
      detail: expect.stringContaining('login.hotel-wifi.example'),
    })
    expect(await probeService(`${base}/login-page`)).toMatchObject({ status: 'captive-portal' })
  })

  it('recognises an answer from the wrong host when the fetch followed the redirect itself', async () => {
    const followed = new Response('<html>login</html>', {
      status: 200,
      headers: { 'content-type': 'application/json' },
    })
    Object.defineProperty(followed, 'url', { value: 'https://portal.example/login' })
    const result = await probeService('https://orders.example.com', { fetch: async () => followed })
    expect(result).toMatchObject({ status: 'captive-portal', detail: expect.stringContaining('portal.example') })
  })

  it('calls the service unreachable on 5xx, refused connections and silence', async () => {
    expect(await probeService(`${base}/down`)).toEqual({
      status: 'unreachable',
      detail: 'The service answered 503.',
      serviceAnswered: true,
    })
    const closed = createServer()
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve))
    const port = (closed.address() as AddressInfo).port
    await new Promise((resolve) => closed.close(resolve))
    expect(await probeService(`http://127.0.0.1:${port}`)).toMatchObject({
      status: 'unreachable',
      detail: expect.stringContaining('ECONNREFUSED'),
    })
    const held = hanging.length
    expect(await probeService(`${base}/hang`, { timeoutMs: 300 })).toEqual({
      status: 'unreachable',
      detail: 'No answer within 0.3 s.',
    })
    // The request arrived and the server still holds it unanswered: the probe's own timeout ended the wait.
    expect(hanging).toHaveLength(held + 1)
  })

  it('sends no credentials and asks for JSON at the configured base URL', async () => {
    const fetch = vi.fn(
      async (_url: string, _init: RequestInit) =>
        new Response('{}', { status: 401, headers: { 'content-type': 'application/json' } }),
    )
    await probeService('https://orders.example.com/api/', { fetch })
    const [url, init] = fetch.mock.calls[0] ?? []
    expect(url).toBe('https://orders.example.com/api/v1/catalogs')
    expect(init).toMatchObject({ method: 'GET', redirect: 'manual', headers: { accept: 'application/json' } })
    expect(JSON.stringify(init?.headers)).not.toMatch(/x-api|userToken/i)
  })
})

describe('the network fingerprint', () => {
  it('changes with the addresses of external interfaces only', () => {
    const lo = {
      address: '127.0.0.1',
      netmask: '255.0.0.0',
      family: 'IPv4' as const,
      mac: '00:00:00:00:00:00',
      internal: true,
      cidr: '127.0.0.1/8',
    }
    const wifi = (address: string) => ({
      address,
      netmask: '255.255.255.0',
      family: 'IPv4' as const,
      mac: 'aa:bb:cc:dd:ee:ff',
      internal: false,
      cidr: `${address}/24`,
    })
    const home = networkFingerprint({ lo: [lo], wlan0: [wifi('192.168.1.20')] })
    expect(home).toBe('wlan0/IPv4/192.168.1.20')
    expect(networkFingerprint({ lo: [lo], wlan0: [wifi('10.0.0.7')] })).not.toBe(home)
    expect(networkFingerprint({ lo: [{ ...lo, address: '127.0.0.2' }], wlan0: [wifi('192.168.1.20')] })).toBe(home)
  })
})

function monitorWith(
  options: {
    up?: () => boolean
    baseUrl?: string | null
    probe?: (url: string) => Promise<ProbeResult>
    fingerprint?: () => string
  } = {},
) {
  const probe = vi.fn(options.probe ?? (async () => ({ status: 'online' as const, detail: 'ok' })))
  const monitor = createConnectivityMonitor({
    isNetworkUp: options.up ?? (() => true),
    baseUrl: async () => (options.baseUrl === undefined ? 'https://orders.example.com' : options.baseUrl),
    probe,
    fingerprint: options.fingerprint ?? (() => 'net-a'),
    pollIntervalMs: 1_000,
    // Hidden and with nothing to send: only the slow schedule (the watched one has its own tests).
    windowVisible: false,
    recheckOnlineMs: 60_000,
    recheckOfflineMs: 10_000,
  })
  return { monitor, probe }
}

describe('the connectivity monitor', () => {
  it('is offline without probing when the OS has no network, and not configured without an address', async () => {
    const offline = monitorWith({ up: () => false })
    expect(await offline.monitor.refresh('requested')).toMatchObject({ online: false, status: 'offline' })
    expect(offline.probe).not.toHaveBeenCalled()
    expect(await monitorWith({ baseUrl: null }).monitor.refresh('requested')).toMatchObject({
      online: false,
      status: 'not-configured',
    })
  })

  it('is online only when the probe says the service answered', async () => {
    const portal = monitorWith({ probe: async () => ({ status: 'captive-portal', detail: 'login page' }) })
    expect(await portal.monitor.refresh('requested')).toMatchObject({
      online: false,
      status: 'captive-portal',
      cause: 'login page',
      detail: expect.stringContaining('sign in'),
    })
    const { monitor } = monitorWith()
    expect(await monitor.refresh('requested')).toMatchObject({
      online: true,
      status: 'online',
      checkedAt: expect.any(Number),
    })
    expect(monitor.current().online).toBe(true)
  })

  it('reports changes, not every check', async () => {
    let status: ProbeResult['status'] = 'online'
    const { monitor } = monitorWith({ probe: async () => ({ status, detail: status }) })
    const changes: ConnectivityState[] = []
    monitor.onChange((state) => changes.push(state))
    await monitor.refresh('requested')
    await monitor.refresh('requested')
    status = 'unreachable'
    await monitor.refresh('requested')
    expect(changes.map((state) => state.status)).toEqual(['online', 'unreachable'])
  })

  it('shares a running check and runs one more after it when asked meanwhile', async () => {
    let release: () => void = () => undefined
    const { monitor, probe } = monitorWith({
      probe: () => new Promise((resolve) => (release = () => resolve({ status: 'online', detail: 'ok' }))),
    })
    const first = monitor.refresh('startup')
    const second = monitor.refresh('resume')
    const third = monitor.refresh('network-change')
    await vi.waitFor(() => expect(probe).toHaveBeenCalledTimes(1))
    release()
    await first
    await vi.waitFor(() => expect(probe).toHaveBeenCalledTimes(2))
    release()
    expect(await second).toBe(await third)
    expect(probe).toHaveBeenCalledTimes(2)
  })

  it('checks again when the network changes, and periodically', async () => {
    vi.useFakeTimers()
    try {
      let network = 'net-a'
      const { monitor, probe } = monitorWith({ fingerprint: () => network })
      const reasons: string[] = []
      monitor.onCheck((check) => reasons.push(check.reason))
      monitor.start()
      await vi.advanceTimersByTimeAsync(0)
      expect(reasons).toEqual(['startup'])
      await vi.advanceTimersByTimeAsync(5_000)
      expect(probe).toHaveBeenCalledTimes(1)
      network = 'net-b'
      await vi.advanceTimersByTimeAsync(1_000)
      expect(reasons).toEqual(['startup', 'network-change'])
      await vi.advanceTimersByTimeAsync(60_000)
      expect(reasons.at(-1)).toBe('periodic')
      monitor.stop()
      const count = probe.mock.calls.length
      await vi.advanceTimersByTimeAsync(300_000)
      expect(probe).toHaveBeenCalledTimes(count)
    } finally {
      vi.useRealTimers()
    }
  })
})

const state = (
  online: boolean,
  status: ConnectivityState['status'] = online ? 'online' : 'unreachable',
): ConnectivityState => ({ online, status, detail: '', cause: null, checkedAt: 1 })

describe('sync and flush on reconnect', () => {
  it('after a resume or a network change that finds the service, and when it comes back', () => {
    expect(syncReasonFor({ previous: state(true), state: state(true), reason: 'resume' })).toBe('resume')
    expect(syncReasonFor({ previous: state(false), state: state(true), reason: 'network-change' })).toBe(
      'network-change',
    )
    expect(syncReasonFor({ previous: state(false, 'captive-portal'), state: state(true), reason: 'periodic' })).toBe(
      'back-online',
    )
    expect(syncReasonFor({ previous: state(true), state: state(true), reason: 'periodic' })).toBeNull()
    expect(syncReasonFor({ previous: state(true), state: state(false), reason: 'resume' })).toBeNull()
    expect(
      syncReasonFor({ previous: { ...state(false), status: 'unknown' }, state: state(true), reason: 'startup' }),
    ).toBeNull()
  })

  it('resuming from sleep triggers a check and then a sync', async () => {
    const { monitor } = monitorWith()
    await monitor.refresh('startup')
    const power = new EventEmitter()
    const syncAndFlush = vi.fn()
    syncOnReconnect(monitor, syncAndFlush)
    const stop = refreshOnResume(() => [monitor], power)
    power.emit('resume')
    await vi.waitFor(() => expect(syncAndFlush).toHaveBeenCalledWith('resume'))
    stop()
    power.emit('resume')
    await new Promise((resolve) => setTimeout(resolve, 20))
    expect(syncAndFlush).toHaveBeenCalledTimes(1)
  })
})
