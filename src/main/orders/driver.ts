import type { OutboxSummary } from '../../shared/orders'
import type { Clock, Logger } from '../ports'
import type { OutboxFlusher } from './flusher'
import type { Outbox } from './outbox'

/**
 * Decides when the outbox is sent: the flusher knows how to send, the driver knows when. Entries
 * waiting to retry go when they fall due, without waiting for another trigger.
 */
export interface OutboxDriver {
  /** The first flush after start-up (whatever was left queued by the last run). */
  start(): void
  /** Flush now: a draft was sent, the service came back, a sync finished. Calls coalesce in the flusher. */
  nudge(): void
  /** No more flushes or retry timers; the flush in flight is the flusher's to finish or cancel. */
  stop(): void
}

export interface OutboxDriverOptions {
  outbox: Outbox
  flusher: OutboxFlusher
  clock: Clock
  logger: Logger
  /** After every flush, with what is left: a send that found the service unreachable is news for connectivity. */
  afterFlush?: (summary: OutboxSummary) => void
  /** Never retry sooner than this after a flush, whatever the entries' own schedule says. */
  minRetryDelayMs?: number
}

export function createOutboxDriver(options: OutboxDriverOptions): OutboxDriver {
  const { outbox, flusher, clock, logger } = options
  const minDelay = options.minRetryDelayMs ?? 1_000
  const heldRetryDelayMs = 2_000
  let retryTimer: NodeJS.Timeout | undefined
  let stopped = false

  const nudge = (): void => {
    if (stopped) return
    clearTimeout(retryTimer)
    let heldElsewhere = false
    flusher
      .flush()
      .then((report) => {
        heldElsewhere = report.heldBy !== undefined
      })
      .catch((error: unknown) => logger.error('outbox flush failed', { error: error instanceof Error ? error.stack : String(error) }))
      .finally(() => {
        if (stopped) return
        options.afterFlush?.(outbox.summary())
        // Another process (the CLI, say) is sending: look again soon, it releases the lease when done.
        const next = heldElsewhere ? clock.now() + heldRetryDelayMs : outbox.nextRetryAt()
        if (next === null) return
        retryTimer = setTimeout(nudge, Math.max(heldElsewhere ? 0 : minDelay, next - clock.now()))
        retryTimer.unref?.()
      })
  }

  return {
    start: nudge,
    nudge,
    stop() {
      stopped = true
      clearTimeout(retryTimer)
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
