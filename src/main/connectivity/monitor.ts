import type { Clock, Logger, NetworkPort } from '../ports'
import { silentLogger, systemClock } from '../ports'
import { clampPeriod, nodeTimers, type Timer, type TimerPort } from '../timers'
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
  /** The rep did something that needs the service (focused the window, opened a screen, pressed Send or Sync). */
  | 'rep-acted'
  /** A request to the service got an answer: that is as good as a probe. */
  | 'reply'

export interface ConnectivityCheck {
  previous: ConnectivityState
  state: ConnectivityState
  reason: CheckReason
  /**
   * When the service came back after this long without an answer (milliseconds since the last time
   * it answered); absent otherwise. A fleet that waited through a long outage returns over a longer window.
   */
  outageMs?: number
  /**
   * On a return: the service itself answered while it was out (a 5xx), so the whole fleet comes back
   * now, not this laptop alone.
   */
  fleetOutage?: boolean
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
  /**
   * The service answered a request (any status it gives, including a refusal): it is reachable. With
   * a Retry-After, no probe is sent until it has run out: the service said how long to leave it be.
   */
  replied(retryAfterMs?: number): void
  /** A request failed in transport (refused, timed out, cut off, 5xx): check now. */
  transportFailed(cause: string, retryAfterMs?: number): void
  /** Whether the rep can see the window; a window coming into view counts as the rep acting. */
  setWindowVisible(visible: boolean): void
  /**
   * The rep did something that needs the service: its answer is checked now (unless one just came)
   * and watched closely for a while after.
   */
  repActed(): void
  /** Orders started or stopped waiting, or a sync started or ended: the schedule is looked at again. */
  attentionChanged(): void
  /** How much longer the service's last Retry-After runs (0 when none does): sending waits it out too. */
  quietForMs(): number
  start(): void
  stop(): void
}

export interface ConnectivityMonitorOptions {
  /** net.isOnline() in the app: cheap, but only says an interface is up. */
  isNetworkUp: () => boolean
  /**
   * The operating system's network-change events, when the platform gives them: the monitor then
   * polls nothing. Without them, the cheap local signals (isNetworkUp, fingerprint) are polled.
   */
  watchNetwork?: (listener: () => void) => () => void
  /** The saved service address, or null when none is configured. */
  baseUrl: () => Promise<string | null>
  probe?: (baseUrl: string) => Promise<ProbeResult>
  fingerprint?: () => string
  clock?: Clock
  timers?: TimerPort
  logger?: Logger
  /**
   * Whether someone is waiting on the service (orders waiting to be sent, a sync running): while
   * they do, the service is watched as closely as after the rep acts.
   */
  hasWaitingWork?: () => boolean
  /** Whether the window starts visible (it counts as the rep opening it); the renderer reports changes through the contract. */
  windowVisible?: boolean
  /** How often the cheap local signals are polled where no network-change events come. */
  pollIntervalMs?: number
  /**
   * While work waits or the rep just acted: how often the service is probed while it answers, and
   * while it does not. The status must flip within 10 s either way, since a rep trusts the status
   * bar to say whether an order can go: a probe interval (5 s, counted from the last check's end)
   * plus the probe's own timeout (4 s) stays under that. Every waiting laptop of a fleet probes at
   * this rate while the service is down, so it is as long as the 10 s allow.
   */
  activeOnlineMs?: number
  activeOfflineMs?: number
  /** How long after the rep acts the service stays watched that closely. */
  attentionMs?: number
  /**
   * Otherwise (nobody acting, nothing waiting, the window in view or not): nobody is waiting on the
   * answer, and every real request (a sync) answers the question on the way, so rarely.
   */
  recheckOnlineMs?: number
  /** A rep who just signed in to the hotel Wi-Fi should not wait long. */
  recheckOfflineMs?: number
}

const initialState: ConnectivityState = {
  online: false,
  status: 'unknown',
  detail: 'Not checked yet.',
  cause: null,
  checkedAt: null,
}

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

/** The monitor's view of the network port: without one, any network is taken as up and only the service's answers say. */
export function networkSignals(
  network: NetworkPort | undefined,
): Pick<ConnectivityMonitorOptions, 'isNetworkUp' | 'watchNetwork'> {
  return {
    isNetworkUp: () => network?.isUp() ?? true,
    ...(network?.onChange ? { watchNetwork: network.onChange.bind(network) } : {}),
  }
}

/** What the status bar shows as Offline; before the first check nothing is known (and orders go). */
export function looksOffline(monitor: Pick<ConnectivityMonitor, 'current'>): boolean {
  return !monitor.current().online && monitor.current().status !== 'unknown'
}

function stateOf(status: ConnectivityStatus, cause: string | null, checkedAt: number): ConnectivityState {
  return {
    online: status === 'online',
    status,
    detail: describeStatus(status),
    cause: status === 'online' ? null : cause,
    checkedAt,
  }
}

export function createConnectivityMonitor(options: ConnectivityMonitorOptions): ConnectivityMonitor {
  const probe = options.probe ?? ((baseUrl: string) => probeService(baseUrl))
  const fingerprint = options.fingerprint ?? (() => networkFingerprint())
  const clock = options.clock ?? systemClock
  const timers = options.timers ?? nodeTimers
  const logger = options.logger ?? silentLogger
  const pollIntervalMs = options.pollIntervalMs ?? 1_000
  const activeOnlineMs = options.activeOnlineMs ?? 5_000
  const activeOfflineMs = options.activeOfflineMs ?? 5_000
  const attentionMs = options.attentionMs ?? 60_000
  const recheckOnlineMs = options.recheckOnlineMs ?? 20 * 60_000
  const recheckOfflineMs = options.recheckOfflineMs ?? 2 * 60_000
  const askWaitingWork = options.hasWaitingWork ?? (() => false)
  // Asked from timers: a database gone under the core (unplugged, locked by another program) must
  // not throw there and end the process; the rep's own calls meet it and are told.
  const waitingWork = () => {
    try {
      return askWaitingWork()
    } catch (error) {
      logger.warn('whether work waits could not be read', {
        error: error instanceof Error ? error.message : String(error),
      })
      return false
    }
  }
  let windowVisible = options.windowVisible ?? true
  // Durations (attention, a Retry-After, an outage) are measured on the monotonic clock where there
  // is one, so a wall clock set back or forward neither stretches nor cuts them.
  const steady = () => clock.monotonic?.() ?? clock.now()

  let state = initialState
  const changeListeners = new Set<(state: ConnectivityState) => void>()
  const checkListeners = new Set<(check: ConnectivityCheck) => void>()
  let running: Promise<ConnectivityState> | undefined
  let queued: { reason: CheckReason; promise: Promise<ConnectivityState> } | undefined
  let started = false
  let checkTimer: Timer | undefined
  let pollTimer: Timer | undefined
  let unwatchNetwork: (() => void) | undefined
  let lastNetworkUp: boolean | undefined
  let lastFingerprint: string | undefined
  /** When the rep last acted (steady clock), or null. */
  let actedAt: number | null = null
  /** No probe before this (steady clock): the service asked for quiet with a Retry-After. */
  let quietUntil = -Infinity
  /** When the service last answered (steady clock), or null: how long an outage lasted. */
  let lastAnsweredAt: number | null = null

  /** Since the service last answered, a check found it answering that it was down (a 5xx). */
  let serviceWasDown = false

  interface Checked {
    state: ConnectivityState
    retryAfterMs?: number
    serviceAnswered?: true
  }

  async function check(): Promise<Checked> {
    const at = clock.now()
    if (!options.isNetworkUp())
      return { state: stateOf('offline', 'The operating system reports no network connection.', at) }
    const baseUrl = await options.baseUrl()
    if (!baseUrl) return { state: stateOf('not-configured', null, at) }
    const result = await probe(baseUrl)
    return {
      state: stateOf(result.status, result.detail, clock.now()),
      ...(result.retryAfterMs === undefined ? {} : { retryAfterMs: result.retryAfterMs }),
      ...(result.serviceAnswered ? { serviceAnswered: result.serviceAnswered } : {}),
    }
  }

  /** The longest quiet a Retry-After buys: a service's typo must not silence the status for days. */
  const longestQuietMs = 60 * 60_000
  function askedForQuiet(retryAfterMs: number | undefined): void {
    if (retryAfterMs === undefined || !(retryAfterMs > 0)) return
    quietUntil = Math.max(quietUntil, steady() + Math.min(retryAfterMs, longestQuietMs))
  }
  const quiet = () => steady() < quietUntil

  function publish(next: ConnectivityState, reason: CheckReason, serviceAnswered = false): void {
    const previous = state
    state = next
    const now = steady()
    const returned = next.online && !previous.online && previous.status !== 'unknown'
    const outageMs = returned && lastAnsweredAt !== null ? Math.max(0, now - lastAnsweredAt) : null
    const fleetOutage = returned && serviceWasDown
    if (serviceAnswered) serviceWasDown = true
    if (next.online) {
      lastAnsweredAt = now
      serviceWasDown = false
    }
    if (previous.status !== next.status || previous.online !== next.online) {
      logger.info('connectivity changed', { status: next.status, cause: next.cause, reason })
      for (const listener of changeListeners) listener(next)
    }
    for (const listener of checkListeners)
      listener({
        ...{ previous, state: next, reason },
        ...(outageMs === null ? {} : { outageMs }),
        ...(fleetOutage ? { fleetOutage } : {}),
      })
    arm()
  }

  function run(reason: CheckReason): Promise<ConnectivityState> {
    const promise = check()
      .catch((error: unknown): Checked => {
        logger.warn('connectivity check failed', { error: error instanceof Error ? error.message : String(error) })
        return {
          state: stateOf(
            'unreachable',
            `The connection check failed: ${error instanceof Error ? error.message : String(error)}`,
            clock.now(),
          ),
        }
      })
      .then((checked) => {
        askedForQuiet(checked.retryAfterMs)
        publish(checked.state, reason, checked.serviceAnswered === true)
        return checked.state
      })
    running = promise.finally(() => {
      running = undefined
    })
    return promise
  }

  function refresh(reason: CheckReason): Promise<ConnectivityState> {
    // The rep pressed "Check" (or a screen asked): they are looking, so keep looking with them.
    if (reason === 'requested') actedAt = steady()
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

  // A last check "in the future" was stamped by a clock since set back: it says nothing about how
  // long ago it was, so it is as good as none, rather than a reason to wait until that time comes.
  const since = () => {
    const elapsed = state.checkedAt === null ? Infinity : clock.now() - state.checkedAt
    return elapsed < 0 ? Infinity : elapsed
  }
  /** Someone is waiting on the answer: work waits (orders, a sync), or the rep acted a moment ago. */
  const attentive = () => waitingWork() || (actedAt !== null && steady() - actedAt < attentionMs)
  const interval = () => {
    const active = attentive()
    if (state.online) return active ? activeOnlineMs : recheckOnlineMs
    return active ? activeOfflineMs : recheckOfflineMs
  }

  /**
   * One timer for the next check, armed for when it falls due and looked at again whenever what
   * decides it changes (a check, a reply, the rep acting, work waiting): when nothing happens,
   * nothing runs, and a laptop left open costs the service a request every few minutes at most.
   */
  function arm(atLeastMs = 0): void {
    if (!started) return
    checkTimer?.cancel()
    const delay = Math.max(atLeastMs, interval() - since(), quietUntil - steady())
    checkTimer = timers.start(due, delay, { unref: true })
  }

  function due(): void {
    checkTimer = undefined
    // A check under way re-arms when it publishes.
    if (running) return
    if (since() >= interval() && !quiet()) void refresh('periodic')
    else arm()
  }

  function pollNetwork(): void {
    pollTimer = timers.start(pollNetwork, clampPeriod(pollIntervalMs), { unref: true })
    const up = options.isNetworkUp()
    const print = fingerprint()
    const changed =
      (lastNetworkUp !== undefined && up !== lastNetworkUp) ||
      (lastFingerprint !== undefined && print !== lastFingerprint)
    lastNetworkUp = up
    lastFingerprint = print
    if (changed) void refresh('network-change')
  }

  function acted(reason: CheckReason): void {
    actedAt = steady()
    if (!started) return
    // An answer from a moment ago is still the truth, and so is a service that asked for quiet.
    if (!running && since() >= activeOfflineMs && !quiet()) void refresh(reason)
    else arm()
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
    replied(retryAfterMs) {
      askedForQuiet(retryAfterMs)
      // No probe needed: the service just answered. A check under way may still say otherwise; it
      // started before this answer, and the next one settles it.
      publish(stateOf('online', null, clock.now()), 'reply')
    },
    transportFailed(cause, retryAfterMs) {
      askedForQuiet(retryAfterMs)
      if (quiet()) {
        logger.info('a request to the service failed and it asked for quiet; checking when that ends', { cause })
        arm()
        return
      }
      logger.info('a request to the service failed in transport; checking', { cause })
      void refresh('transport-failure')
    },
    setWindowVisible(visible) {
      const shown = visible && !windowVisible
      windowVisible = visible
      // The renderer says so when the window loads, is shown or is focused: each is the rep looking.
      if (visible) acted(shown ? 'window-shown' : 'rep-acted')
    },
    repActed() {
      acted('rep-acted')
    },
    attentionChanged() {
      // Work that starts (a sync, an order to send) asks the service itself, and its answer or its
      // failure comes sooner than a probe would: the close watch begins one interval from now.
      if (started && !running) arm(interval())
    },
    quietForMs: () => Math.max(0, quietUntil - steady()),
    start() {
      if (started) return
      started = true
      // A window open at start is the rep opening Satchel.
      if (windowVisible) actedAt = steady()
      lastNetworkUp = options.isNetworkUp()
      lastFingerprint = fingerprint()
      void refresh('startup')
      if (options.watchNetwork) unwatchNetwork = options.watchNetwork(() => void refresh('network-change'))
      else pollTimer = timers.start(pollNetwork, clampPeriod(pollIntervalMs), { unref: true })
    },
    stop() {
      started = false
      checkTimer?.cancel()
      pollTimer?.cancel()
      unwatchNetwork?.()
      checkTimer = undefined
      pollTimer = undefined
      unwatchNetwork = undefined
    },
  }
}
