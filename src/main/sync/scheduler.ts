/**
 * When sync runs: at start-up, every N minutes (settings.syncIntervalMinutes), when connectivity
 * returns, when the connection changes, and on demand — and never two at once. A request while a
 * run is going joins that run; a request for a full listing during a delta runs once more after it.
 *
 * A fleet of laptops shares one service, so the background runs are spread and give way: the
 * start-up, interval and reconnect runs are put off by a share of the interval drawn once per install
 * (one laptop keeps a steady rhythm, laptops opened together at 8:00 do not sync together), a service
 * coming back after an outage gets the laptops that waited over a window that grows with the outage,
 * a 429 or 503 with Retry-After holds every background run until it has passed, and 503s in a row
 * widen the interval (up to 4x) until a run succeeds. A run the rep asks for is never held.
 */
import type { SyncProgress, SyncReport, SyncStatus, SyncWait } from '../../shared/synced'
import { CoreError } from '../errors'
import type { Clock, Logger, SyncGate } from '../ports'
import { isServiceError, ServiceError } from '../ordering-client/errors'
import { installShare, nodeTimers, type Timer, type TimerPort } from '../timers'
import type { SyncRunOptions } from './engine'
import type { LocalCopy } from '../local/copy'

/** The service asked for less: a 429 or 503, and how long it said to wait when it did. */
interface ServiceBusy {
  status: number
  retryAfterMs?: number
}

/** A run as the scheduler starts it: it says when it waits before syncing, and for what. */
interface ScheduledRunOptions extends SyncRunOptions {
  onWaiting?: (waitingFor: SyncWait | null) => void
}

export interface SyncSchedulerOptions {
  /** The engine for the saved connection, or null when none is configured. */
  createEngine: () => Promise<{ run(options: ScheduledRunOptions): Promise<SyncReport> } | null>
  copy: Pick<LocalCopy, 'allScopes' | 'lastSyncAt' | 'lastReport'>
  intervalMinutes: () => number
  clock: Clock
  timers?: TimerPort
  /**
   * This install's seed and the share of the interval background runs are spread over; without it
   * (the CLI, tests of the run itself) runs start when due.
   */
  spread?: { seed: string; share?: number }
  /**
   * How much longer a Retry-After the service gave any other request (a probe, an order) runs: the
   * laptop's background runs wait it out as they wait out one given to a sync request.
   */
  quietForMs?: () => number
  logger: Logger
  onStatus?: (status: SyncStatus) => void
  onProgress?: (progress: SyncProgress) => void
  onFinished?: (report: SyncReport) => void
  /** Shared with other profiles' schedulers: a run waits its turn here before it starts. */
  gate?: SyncGate
}

interface Running {
  full: boolean
  promise: Promise<SyncReport>
  controller: AbortController
}

export class SyncScheduler {
  private running: Running | null = null
  private followUp: Promise<SyncReport> | null = null
  private progress: SyncProgress | null = null
  private waitingFor: SyncWait | null = null
  private lastReport: SyncReport | null = null
  private timer: Timer | null = null
  private nextSyncAt: number | null = null
  private started = false
  private stopped = false
  /** No background run before this (clock.now()): the service said how long to wait. */
  private heldUntil = -Infinity
  /** Runs in a row that met a 503; each doubles the interval, up to 4x. */
  private unavailableRuns = 0
  private sawUnavailable = false

  constructor(private readonly options: SyncSchedulerOptions) {}

  /**
   * Starts the start-up sync (on the next tick, so listeners can subscribe first) and the interval.
   * A profile that has never synced has nothing to show meanwhile (an empty Customers list until its
   * point of the spread): it syncs at once, whether the app started on it or the rep switched to it.
   */
  start(): void {
    if (this.started || this.stopped) return
    this.started = true
    const neverSynced = this.options.copy.lastSyncAt() === null
    this.schedule(neverSynced ? 0 : this.spreadOver(this.intervalMs(), 'start-up'), 'start-up')
  }

  /** Stops the timer and cancels a running sync; resolves once it has wound down. */
  async stop(): Promise<void> {
    this.stopped = true
    this.clearTimer()
    const running = this.running
    if (running) {
      running.controller.abort()
      await running.promise.catch(() => undefined)
    }
    await this.followUp?.catch(() => undefined)
  }

  /** A sync soon, for the connectivity monitor and other background triggers; never throws. */
  trigger(reason: string): void {
    if (this.stopped) return
    // The service asked for quiet: this run waits until it has passed, with the rest of the laptop's.
    if (!this.running && this.heldFor() > 0) {
      this.holdNext(reason)
      return
    }
    this.syncNow().catch((error: unknown) => {
      if (error instanceof CoreError && error.code === 'NOT_CONFIGURED') return
      this.options.logger.warn('background sync failed', {
        reason,
        error: error instanceof Error ? error.message : String(error),
      })
    })
  }

  /**
   * The service answers again after `outageMs` without: the sync (and the sending it starts) comes a
   * share of a window later, the window as long as half the outage, at least 30 s and at most the
   * interval, so the laptops that waited do not all come back in the same second.
   */
  connectivityRestored(outageMs = 0): void {
    if (this.stopped) return
    const windowMs = Math.min(this.intervalMs(), Math.max(30_000, outageMs / 2))
    const delay = Math.round(this.installShare('reconnect') * windowMs)
    if (this.running || delay <= 0) this.trigger('back-online')
    else if (this.nextSyncAt === null || this.nextSyncAt > this.options.clock.now() + delay)
      this.schedule(delay, 'back-online')
  }

  /**
   * A request of a sync met a 429 or 503. With a Retry-After, no background run starts before it has
   * passed (this one ends as the client's retries decide); a 503 also counts toward a wider interval.
   */
  serviceBusy(busy: ServiceBusy): void {
    if (busy.status === 503) this.sawUnavailable = true
    const wait = busy.retryAfterMs
    if (wait === undefined || !(wait > 0)) return
    this.heldUntil = Math.max(this.heldUntil, this.options.clock.now() + Math.min(wait, longestHoldMs))
    if (this.started && !this.stopped && !this.running && this.nextSyncAt !== null && this.nextSyncAt < this.heldUntil)
      this.holdNext('interval')
  }

  /** The interval setting changed: the next background run is due N minutes after the last one. */
  settingsChanged(): void {
    if (this.started && !this.stopped && !this.running)
      this.schedule(Math.max(this.nextIntervalMs(), this.heldFor()), 'interval')
  }

  /** Runs a sync now, or joins the one already running. */
  syncNow(options: { full?: boolean } = {}): Promise<SyncReport> {
    if (this.stopped) return Promise.reject(new CoreError('CANCELLED', 'Satchel is shutting down.'))
    const full = options.full === true
    if (this.running) {
      if (!full || this.running.full) return this.running.promise
      this.followUp ??= this.running.promise
        .then(
          () => this.begin(true),
          () => this.begin(true),
        )
        .finally(() => {
          this.followUp = null
        })
      return this.followUp
    }
    return this.begin(full)
  }

  /** Cancels the running sync; pages already applied stay, and the next run resumes from them. */
  cancel(): boolean {
    if (!this.running) return false
    this.running.controller.abort()
    return true
  }

  isRunning(): boolean {
    return this.running !== null
  }

  status(): SyncStatus {
    const scopes = this.options.copy.allScopes().map((scope) => ({
      scope: scope.scope,
      lastSyncAt: scope.lastSuccessAt,
      unfinished: scope.run !== null,
      lastError: scope.lastError,
    }))
    return {
      running: this.running !== null,
      progress: this.running ? this.progress : null,
      waitingFor: this.running ? this.waitingFor : null,
      lastSyncAt: this.options.copy.lastSyncAt(),
      lastReport: this.lastReport ?? this.options.copy.lastReport(),
      nextSyncAt: this.nextSyncAt,
      scopes,
    }
  }

  private begin(full: boolean): Promise<SyncReport> {
    if (this.running) return this.running.promise
    const controller = new AbortController()
    this.clearTimer()
    let announced = false
    let leave: (() => void) | undefined
    const promise = this.execute(
      full,
      controller.signal,
      () => {
        announced = true
        this.options.onStatus?.(this.status())
      },
      (release) => (leave = release),
    )
      .then(
        (report) => {
          this.countUnavailable(report.ok)
          return report
        },
        (error: unknown) => {
          this.countUnavailable(false)
          throw error
        },
      )
      .finally(() => {
        this.running = null
        this.progress = null
        this.waitingFor = null
        if (this.started && !this.stopped) this.schedule(Math.max(this.nextIntervalMs(), this.heldFor()), 'interval')
        if (announced) this.options.onStatus?.(this.status())
        // The turn passes on only after this run's end is told, so no two runs ever show at once.
        leave?.()
      })
    // Claimed before the first await, so a second request joins this run.
    this.running = { full, promise, controller }
    return promise
  }

  private async execute(
    full: boolean,
    signal: AbortSignal,
    announce: () => void,
    tookTurn: (leave: () => void) => void,
  ): Promise<SyncReport> {
    const engine = await this.options.createEngine()
    // Nothing to sync against yet: no status change to announce.
    if (!engine) throw new CoreError('NOT_CONFIGURED', 'Set up the connection to the ordering service first.')
    // Other profiles' runs go first when they asked first (or are on screen): this one waits its turn.
    if (this.options.gate) tookTurn(await this.options.gate.enter(signal))
    announce()
    const report = await engine.run({
      full,
      signal,
      onProgress: (progress) => {
        this.progress = progress
        this.options.onProgress?.(progress)
      },
      onWaiting: (waitingFor) => {
        if (waitingFor === this.waitingFor || this.running?.controller.signal !== signal) return
        this.waitingFor = waitingFor
        this.options.onStatus?.(this.status())
      },
    })
    this.lastReport = report
    this.options.logger.info('sync finished', {
      ok: report.ok,
      full,
      durationMs: report.durationMs,
      error: report.error?.message,
    })
    this.options.onFinished?.(report)
    return report
  }

  private intervalMs(): number {
    return Math.max(1, this.options.intervalMinutes()) * 60_000
  }

  /** This install's number in [0, 1) for `purpose`; 0 without a spread, so runs start when due. */
  private installShare(purpose: string): number {
    const spread = this.options.spread
    return spread ? installShare(spread.seed, purpose) : 0
  }

  /** This install's part of the spread's share of `spanMs`. */
  private spreadOver(spanMs: number, purpose: string): number {
    return Math.round(this.installShare(purpose) * (this.options.spread?.share ?? defaultShare) * spanMs)
  }

  /**
   * The interval to the next background run: the setting, moved by this install's share (a steady
   * rhythm per laptop, spread across the fleet), doubled per run in a row that met a 503 (at most 4x).
   */
  private nextIntervalMs(): number {
    const interval = this.intervalMs()
    // Centred on the setting: on average a laptop syncs as often as the rep set.
    const offset = this.options.spread
      ? this.spreadOver(interval, 'interval') - ((this.options.spread.share ?? defaultShare) * interval) / 2
      : 0
    const widened = 2 ** Math.min(this.unavailableRuns, 2)
    return (interval + offset) * widened
  }

  private heldFor(): number {
    return Math.max(0, this.heldUntil - this.options.clock.now(), this.options.quietForMs?.() ?? 0)
  }

  /** The next run waits out the hold, plus this install's share of it, so the fleet does not return on its last second. */
  private holdNext(reason: string): void {
    const held = this.heldFor()
    this.schedule(held + this.spreadOver(held, 'held'), reason)
  }

  private countUnavailable(ok: boolean): void {
    if (ok) this.unavailableRuns = 0
    else if (this.sawUnavailable) this.unavailableRuns++
    this.sawUnavailable = false
  }

  private schedule(delayMs: number, reason: string): void {
    this.clearTimer()
    this.nextSyncAt = this.options.clock.now() + delayMs
    // A pending background sync must not keep a CLI or test process alive. The interval is a
    // setting: one longer than Node's timers take (24.8 days) waits that long rather than firing at once.
    this.timer = (this.options.timers ?? nodeTimers).start(
      () => {
        this.timer = null
        this.nextSyncAt = null
        this.trigger(reason)
      },
      delayMs,
      { unref: true },
    )
  }

  private clearTimer(): void {
    this.timer?.cancel()
    this.timer = null
    this.nextSyncAt = null
  }
}

/** The share of the interval background runs are spread over, when a spread is given without one. */
const defaultShare = 0.2

/** The longest a Retry-After holds the background runs: a service's typo must not stop sync for days. */
const longestHoldMs = 60 * 60_000

/**
 * The client a run uses, with every 429 and 503 it meets told to `onBusy`. While the service's last
 * Retry-After (to any request: a probe's, an order's) runs, a request of the run is not sent: it
 * fails as that 429 would, so a run under way stops with the rest of the laptop. The client's own
 * behaviour and errors are otherwise untouched.
 */
export function watchBusy<T extends object>(
  client: T,
  onBusy: (busy: ServiceBusy) => void,
  quietForMs: () => number = () => 0,
): T {
  return new Proxy(client, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver)
      if (typeof value !== 'function') return value
      return (...args: unknown[]) => {
        const quiet = quietForMs()
        const result: unknown =
          quiet > 0
            ? Promise.reject(
                new ServiceError('rateLimited', 'The ordering service asked Satchel to wait before asking again.', {
                  status: 429,
                  retryAfterMs: quiet,
                }),
              )
            : (value as (...a: unknown[]) => unknown).apply(target, args)
        if (!(result instanceof Promise)) return result
        return result.catch((error: unknown) => {
          if (isServiceError(error) && (error.status === 429 || error.status === 503)) {
            onBusy({
              status: error.status,
              ...(error.retryAfterMs === undefined ? {} : { retryAfterMs: error.retryAfterMs }),
            })
          }
          throw error
        })
      }
    },
  })
}
