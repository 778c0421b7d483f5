import type { OutboxSummary } from '../../../shared/orders'
import type { Clock, Logger } from '../../ports'
import { nodeTimers, type Timer, type TimerPort } from '../../timers'
import { farAheadMs as defaultFarAheadMs, type OutboxFlusher } from './flusher'
import type { Outbox } from './outbox'

/**
 * The window a fleet's waiting orders are spread over when the service comes back from its own
 * outage: every laptop's probe finds it back within seconds of the others, and without it their
 * orders all arrive in the same few seconds. Short, since a rep may be waiting on the order.
 */
const fleetReturnWindowMs = 30_000

/**
 * Decides when the outbox is sent: the flusher knows how to send, the driver knows when. Entries
 * waiting to retry go when they fall due, without waiting for another trigger.
 */
export interface OutboxDriver {
  /** The first flush after start-up (whatever was left queued by the last run). */
  start(): void
  /** Flush now: a draft was sent, the service came back, a sync finished. Calls coalesce in the flusher. */
  nudge(): void
  /**
   * Flush after this install's share of a short window: the service came back from an outage of its
   * own, and every laptop of the fleet has orders waiting. Without a share, now.
   */
  nudgeSpread(): void
  /** No more flushes or retry timers; the flush in flight is the flusher's to finish or cancel. */
  stop(): void
}

export interface OutboxDriverOptions {
  outbox: Pick<Outbox, 'nextRetryAt' | 'dueFarAhead' | 'summary'>
  flusher: Pick<OutboxFlusher, 'flush'>
  clock: Clock
  timers?: TimerPort
  logger: Logger
  /** After every flush, with what is left: a send that found the service unreachable is news for connectivity. */
  afterFlush?: (summary: OutboxSummary) => void
  /**
   * How much longer the service asked everyone to wait (its last Retry-After, to any request): an
   * order written meanwhile waits it out with the ones already waiting, instead of knocking at once.
   */
  quietForMs?: () => number
  /**
   * The app says Offline (its last check found the service not answering): no order is attempted,
   * and nothing is scheduled; the reactions nudge the driver the moment the service answers again.
   */
  offline?: () => boolean
  /**
   * This install's place in [0, 1) of the window after a fleet-wide outage, the same every time for
   * one install and spread across the fleet (timers.ts' installShare, taken by the composer).
   */
  afterOutageShare?: number
  /** Never retry sooner than this after a flush, whatever the entries' own schedule says. */
  minRetryDelayMs?: number
  /** An entry stored further ahead than this is due now (the flusher's farAheadMs). */
  farAheadMs?: number
}

export function createOutboxDriver(options: OutboxDriverOptions): OutboxDriver {
  const { outbox, flusher, clock, logger } = options
  const timers = options.timers ?? nodeTimers
  const minDelay = options.minRetryDelayMs ?? 1_000
  const farAheadMs = options.farAheadMs ?? defaultFarAheadMs
  const heldRetryDelayMs = 2_000
  let retryTimer: Timer | undefined
  let stopped = false

  /** Makes entries stored far ahead due now, whatever their state; how many it changed. */
  const hurryFarAhead = (): number => {
    const next = outbox.nextRetryAt()
    if (next === null || next <= clock.now() + farAheadMs) return 0
    const hurried = outbox.dueFarAhead(clock.now() + farAheadMs)
    if (hurried > 0)
      logger.warn('entries stored far ahead (the clock was wrong) are due now', {
        count: hurried,
        storedFor: new Date(next).toISOString(),
      })
    return hurried
  }

  const nudge = (): void => {
    if (stopped) return
    retryTimer?.cancel()
    const quiet = options.quietForMs?.() ?? 0
    if (quiet > 0) {
      retryTimer = timers.start(nudge, quiet, { unref: true })
      return
    }
    if (options.offline?.()) return
    let heldElsewhere = false
    try {
      hurryFarAhead()
    } catch (error) {
      logger.error('could not reschedule retries stored far ahead', {
        error: error instanceof Error ? error.stack : String(error),
      })
    }
    flusher
      .flush()
      .then((report) => {
        heldElsewhere = report.heldBy !== undefined
      })
      .catch((error: unknown) =>
        logger.error('outbox flush failed', { error: error instanceof Error ? error.stack : String(error) }),
      )
      .finally(() => {
        if (stopped) return
        options.afterFlush?.(outbox.summary())
        // Another process (the CLI, say) is sending: look again soon, it releases the lease when done.
        const next = heldElsewhere ? clock.now() + heldRetryDelayMs : outbox.nextRetryAt()
        if (next === null) return
        let delay = Math.max(heldElsewhere ? 0 : minDelay, next - clock.now())
        // Stored far ahead while this flush ran (by another process): the next nudge makes it due. One
        // that cannot be hurried is simply waited for, on a timer that cannot overflow.
        if (!heldElsewhere && delay > farAheadMs && hurryFarAhead() > 0) delay = minDelay
        retryTimer = timers.start(nudge, delay, { unref: true })
      })
  }

  return {
    start: nudge,
    nudge,
    nudgeSpread() {
      if (stopped) return
      const delay = Math.round((options.afterOutageShare ?? 0) * fleetReturnWindowMs)
      if (delay <= 0) return nudge()
      retryTimer?.cancel()
      retryTimer = timers.start(nudge, delay, { unref: true })
    },
    stop() {
      stopped = true
      retryTimer?.cancel()
    },
  }
}

/** Calls `emit` at most once per `delayMs`, however often `changed` is called: the window needs a few updates, not hundreds. */
export function coalesce(emit: () => void, delayMs: number): { changed(): void; cancel(): void } {
  let timer: NodeJS.Timeout | undefined
  let cancelled = false
  return {
    changed() {
      if (cancelled) return
      timer ??= setTimeout(() => {
        timer = undefined
        if (!cancelled) emit()
      }, delayMs)
    },
    cancel() {
      cancelled = true
      clearTimeout(timer)
    },
  }
}
