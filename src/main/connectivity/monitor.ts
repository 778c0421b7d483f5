import type { Clock, Logger } from '../ports'
import { silentLogger, systemClock } from '../ports'
import { clampPeriod } from '../timers'
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
  /** What it means for the rep, in their words: never an error code. */
  detail: string
  /** The technical reason (ECONNREFUSED, a timeout, the portal's host) for the log and a "details" disclosure; null when online. */
  cause: string | null
  /** Milliseconds since the epoch of the last completed check; null before the first. */
  checkedAt: number | null
}

type CheckReason =
  | 'startup'
  | 'resume'
  | 'network-change'
  | 'periodic'
  | 'settings-changed'
  | 'requested'
  /** A request to the service failed in transport: look now rather than at the next scheduled check. */
  | 'transport-failure'
  /** The window came back into view: the rep is about to trust what the status bar says. */
  | 'window-shown'
  /** A request to the service got an answer: that is as good as a probe. */
  | 'reply'

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
  /** The service answered a request (any status it gives, including a refusal): it is reachable. */
  replied(): void
  /** A request failed in transport (refused, timed out, cut off, 5xx): check now. */
  transportFailed(cause: string): void
  /** Whether the rep can see the window; while they can, the service is checked every few seconds. */
  setWindowVisible(visible: boolean): void
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
  /** Whether orders wait to be sent: while they do, the service is checked as often as when the window is visible. */
  hasWaitingWork?: () => boolean
  /** Whether the window starts visible; the renderer reports changes through the contract. */
  windowVisible?: boolean
  /** How often the cheap signals (isNetworkUp, fingerprint) are polled and the schedule looked at. */
  pollIntervalMs?: number
  /**
   * While the rep is looking or orders wait: how often the service is probed while it answers, and
   * while it does not. The status must flip within 10 s either way, since a rep trusts the status bar
   * to say whether an order can go: a probe interval plus the probe's own timeout plus one poll stays
   * under that.
   */
  activeOnlineMs?: number
  activeOfflineMs?: number
  /** Otherwise (window hidden, nothing to send): nobody is waiting on the answer, so rarely. */
  recheckOnlineMs?: number
  /** A rep who just signed in to the hotel Wi-Fi should not wait long. */
  recheckOfflineMs?: number
}

const initialState: ConnectivityState = { online: false, status: 'unknown', detail: 'Not checked yet.', cause: null, checkedAt: null }

/** The rep's sentence for each status; the technical cause goes to `cause`. */
export function describeStatus(status: ConnectivityStatus): string {
  switch (status) {
    case 'online':
      return 'The ordering service answers.'
    case 'offline':
      return 'This laptop has no network connection — your orders are safe on this laptop.'
    case 'captive-portal':
      return 'This network wants you to sign in first (a hotel or café login page answered) — your orders are safe on this laptop.'
    case 'unreachable':
      return 'Can’t reach the ordering service — your orders are safe on this laptop.'
    case 'not-configured':
      return 'No service address is saved yet.'
    case 'unknown':
      return 'Not checked yet.'
  }
}

function stateOf(status: ConnectivityStatus, cause: string | null, checkedAt: number): ConnectivityState {
  return { online: status === 'online', status, detail: describeStatus(status), cause: status === 'online' ? null : cause, checkedAt }
}

export function createConnectivityMonitor(options: ConnectivityMonitorOptions): ConnectivityMonitor {
  const probe = options.probe ?? ((baseUrl: string) => probeService(baseUrl))
  const fingerprint = options.fingerprint ?? (() => networkFingerprint())
  const clock = options.clock ?? systemClock
  const logger = options.logger ?? silentLogger
  const pollIntervalMs = options.pollIntervalMs ?? 1_000
  const activeOnlineMs = options.activeOnlineMs ?? 4_000
  const activeOfflineMs = options.activeOfflineMs ?? 3_000
  const recheckOnlineMs = options.recheckOnlineMs ?? 5 * 60_000
  const recheckOfflineMs = options.recheckOfflineMs ?? 30_000
  const hasWaitingWork = options.hasWaitingWork ?? (() => false)
  let windowVisible = options.windowVisible ?? true

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
    if (!options.isNetworkUp()) return stateOf('offline', 'The operating system reports no network connection.', at)
    const baseUrl = await options.baseUrl()
    if (!baseUrl) return stateOf('not-configured', null, at)
    const result = await probe(baseUrl)
    return stateOf(result.status, result.detail, clock.now())
  }

  function publish(next: ConnectivityState, reason: CheckReason): void {
    const previous = state
    state = next
    if (previous.status !== next.status || previous.online !== next.online) {
      logger.info('connectivity changed', { status: next.status, cause: next.cause, reason })
      for (const listener of changeListeners) listener(next)
    }
    for (const listener of checkListeners) listener({ previous, state: next, reason })
  }

  function run(reason: CheckReason): Promise<ConnectivityState> {
    const promise = check()
      .catch((error: unknown): ConnectivityState => {
        logger.warn('connectivity check failed', { error: error instanceof Error ? error.message : String(error) })
        return stateOf('unreachable', `The connection check failed: ${error instanceof Error ? error.message : String(error)}`, clock.now())
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
    } else if (reason === 'resume' || reason === 'network-change' || reason === 'transport-failure') {
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
    if (!running && since() >= interval()) void refresh('periodic')
  }

  // A last check "in the future" was stamped by a clock since set back: it says nothing about how
  // long ago it was, so it is as good as none, rather than a reason to wait until that time comes.
  const since = () => {
    const elapsed = state.checkedAt === null ? Infinity : clock.now() - state.checkedAt
    return elapsed < 0 ? Infinity : elapsed
  }
  /** Someone is waiting on the answer while the window is in view or an order waits to go. */
  const interval = () => {
    const active = windowVisible || hasWaitingWork()
    if (state.online) return active ? activeOnlineMs : recheckOnlineMs
    return active ? activeOfflineMs : recheckOfflineMs
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
    replied() {
      // No probe needed: the service just answered. A check under way may still say otherwise; it
      // started before this answer, and the next one settles it.
      publish(stateOf('online', null, clock.now()), 'reply')
    },
    transportFailed(cause) {
      logger.info('a request to the service failed in transport; checking', { cause })
      void refresh('transport-failure')
    },
    setWindowVisible(visible) {
      const shown = visible && !windowVisible
      windowVisible = visible
      if (shown && timer && since() >= activeOfflineMs) void refresh('window-shown')
    },
    start() {
      if (timer) return
      lastNetworkUp = options.isNetworkUp()
      lastFingerprint = fingerprint()
      void refresh('startup')
      timer = setInterval(poll, clampPeriod(pollIntervalMs))
    },
    stop() {
      if (timer) clearInterval(timer)
      timer = undefined
    },
  }
}
