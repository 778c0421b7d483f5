import type { Clock, Logger } from '../ports'
import { silentLogger, systemClock } from '../ports'
import { networkFingerprint } from './fingerprint'
import { probeService, type ProbeResult } from './probe'

export type ConnectivityStatus =
  /** Not checked yet. */
  | 'unknown'
  /** The service answered. */
  | 'online'
  /** The operating system reports no network at all. */
  | 'offline'
  /** A network is up but a login page or another host answered instead of the service. */
  | 'captive-portal'
  /** A network is up but the service did not answer (DNS, TLS, timeout, 5xx). */
  | 'unreachable'
  /** No service address saved yet, so there is nothing to reach. */
  | 'not-configured'

export interface ConnectivityState {
  /** True only when the configured service itself answered the last check. */
  online: boolean
  status: ConnectivityStatus
  detail: string
  /** Milliseconds since the epoch of the last completed check; null before the first. */
  checkedAt: number | null
}

export type CheckReason = 'startup' | 'resume' | 'network-change' | 'periodic' | 'settings-changed' | 'requested'

export interface ConnectivityCheck {
  previous: ConnectivityState
  state: ConnectivityState
  reason: CheckReason
}

/** Whether the ordering service answers; the core turns its changes into the contract's connectivity event. */
export interface ConnectivityMonitor {
  current(): ConnectivityState
  /** Called when `online` or `status` changes. Returns the unsubscribe function. */
  onChange(listener: (state: ConnectivityState) => void): () => void
  /** Called after every completed check, changed or not. */
  onCheck(listener: (check: ConnectivityCheck) => void): () => void
  /** Checks now; concurrent calls share one check, and one more runs afterwards if asked meanwhile. */
  refresh(reason: CheckReason): Promise<ConnectivityState>
  start(): void
  stop(): void
}

export interface ConnectivityMonitorOptions {
  /** net.isOnline() in the app: cheap, but only says an interface is up. */
  isNetworkUp: () => boolean
  /** The saved service address, or null when none is configured. */
  baseUrl: () => Promise<string | null>
  probe?: (baseUrl: string) => Promise<ProbeResult>
  fingerprint?: () => string
  clock?: Clock
  logger?: Logger
  /** How often the cheap signals (isNetworkUp, fingerprint) are polled. */
  pollIntervalMs?: number
  /** How often the service is probed again while it answers. */
  recheckOnlineMs?: number
  /** How often while it does not: a rep who just signed in to the hotel Wi-Fi should not wait long. */
  recheckOfflineMs?: number
}

const initialState: ConnectivityState = { online: false, status: 'unknown', detail: 'Not checked yet.', checkedAt: null }

export function createConnectivityMonitor(options: ConnectivityMonitorOptions): ConnectivityMonitor {
  const probe = options.probe ?? ((baseUrl: string) => probeService(baseUrl))
  const fingerprint = options.fingerprint ?? (() => networkFingerprint())
  const clock = options.clock ?? systemClock
  const logger = options.logger ?? silentLogger
  const pollIntervalMs = options.pollIntervalMs ?? 5_000
  const recheckOnlineMs = options.recheckOnlineMs ?? 5 * 60_000
  const recheckOfflineMs = options.recheckOfflineMs ?? 30_000

  let state = initialState
  const changeListeners = new Set<(state: ConnectivityState) => void>()
  const checkListeners = new Set<(check: ConnectivityCheck) => void>()
  let running: Promise<ConnectivityState> | undefined
  let queued: { reason: CheckReason; promise: Promise<ConnectivityState> } | undefined
  let timer: ReturnType<typeof setInterval> | undefined
  let lastNetworkUp: boolean | undefined
  let lastFingerprint: string | undefined

  async function check(): Promise<ConnectivityState> {
    const at = clock.now()
    if (!options.isNetworkUp()) return { online: false, status: 'offline', detail: 'This computer has no network connection.', checkedAt: at }
    const baseUrl = await options.baseUrl()
    if (!baseUrl) return { online: false, status: 'not-configured', detail: 'No service address is saved yet.', checkedAt: at }
    const result = await probe(baseUrl)
    return { online: result.status === 'online', status: result.status, detail: result.detail, checkedAt: clock.now() }
  }

  function publish(next: ConnectivityState, reason: CheckReason): void {
    const previous = state
    state = next
    if (previous.status !== next.status || previous.online !== next.online) {
      logger.info('connectivity changed', { status: next.status, detail: next.detail, reason })
      for (const listener of changeListeners) listener(next)
    }
    for (const listener of checkListeners) listener({ previous, state: next, reason })
  }

  function run(reason: CheckReason): Promise<ConnectivityState> {
    const promise = check()
      .catch((error: unknown): ConnectivityState => {
        logger.warn('connectivity check failed', { error: error instanceof Error ? error.message : String(error) })
        return { online: false, status: 'unreachable', detail: 'The connection check failed.', checkedAt: clock.now() }
      })
      .then((next) => {
        publish(next, reason)
        return next
      })
    running = promise.finally(() => {
      running = undefined
    })
    return promise
  }

  function refresh(reason: CheckReason): Promise<ConnectivityState> {
    if (!running) return run(reason)
    // A check already under way may have started before the event (a resume, a new network), so its
    // answer can be stale: run exactly one more after it, shared by everyone who asks meanwhile.
    if (!queued) {
      const after = running.then(() => {
        const next = queued
        queued = undefined
        return run(next?.reason ?? reason)
      })
      queued = { reason, promise: after }
    } else if (reason === 'resume' || reason === 'network-change') {
      queued.reason = reason
    }
    return queued.promise
  }

  function poll(): void {
    const up = options.isNetworkUp()
    const print = fingerprint()
    const changed = (lastNetworkUp !== undefined && up !== lastNetworkUp) || (lastFingerprint !== undefined && print !== lastFingerprint)
    lastNetworkUp = up
    lastFingerprint = print
    if (changed) {
      void refresh('network-change')
      return
    }
    const since = state.checkedAt === null ? Infinity : clock.now() - state.checkedAt
    if (!running && since >= (state.online ? recheckOnlineMs : recheckOfflineMs)) void refresh('periodic')
  }

  return {
    current: () => state,
    onChange(listener) {
      changeListeners.add(listener)
      return () => changeListeners.delete(listener)
    },
    onCheck(listener) {
      checkListeners.add(listener)
      return () => checkListeners.delete(listener)
    },
    refresh,
    start() {
      if (timer) return
      lastNetworkUp = options.isNetworkUp()
      lastFingerprint = fingerprint()
      void refresh('startup')
      timer = setInterval(poll, pollIntervalMs)
    },
    stop() {
      if (timer) clearInterval(timer)
      timer = undefined
    },
  }
}
