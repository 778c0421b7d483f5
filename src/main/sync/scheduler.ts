/**
 * When sync runs: at start-up, every N minutes (settings.syncIntervalMinutes), when connectivity
 * returns, when the connection changes, and on demand — and never two at once. A request while a
 * run is going joins that run; a request for a full listing during a delta runs once more after it.
 */
import type { SyncStatus } from '../../shared/synced'
import { CoreError } from '../errors'
import type { Clock, Logger, SyncGate } from '../ports'
import { startTimer, type Timer } from '../timers'
import type { SyncEngine, SyncProgress, SyncReport } from './engine'
import type { LocalCopy } from '../local/copy'

export interface SyncSchedulerOptions {
  /** The engine for the saved connection, or null when none is configured. */
  createEngine: () => Promise<Pick<SyncEngine, 'run'> | null>
  store: LocalCopy
  intervalMinutes: () => number
  clock: Clock
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
  private lastReport: SyncReport | null = null
  private timer: Timer | null = null
  private nextSyncAt: number | null = null
  private started = false
  private stopped = false

  constructor(private readonly options: SyncSchedulerOptions) {}

  /** Starts the start-up sync (on the next tick, so listeners can subscribe first) and the interval. */
  start(): void {
    if (this.started || this.stopped) return
    this.started = true
    this.schedule(0)
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
    this.syncNow().catch((error: unknown) => {
      if (error instanceof CoreError && error.code === 'NOT_CONFIGURED') return
      this.options.logger.warn('background sync failed', { reason, error: error instanceof Error ? error.message : String(error) })
    })
  }

  /** The laptop is back online. */
  connectivityRestored(): void {
    this.trigger('back-online')
  }

  /** The interval setting changed: the next background run is due N minutes after the last one. */
  settingsChanged(): void {
    if (this.started && !this.stopped && !this.running) this.schedule(this.intervalMs())
  }

  /** Runs a sync now, or joins the one already running. */
  syncNow(options: { full?: boolean } = {}): Promise<SyncReport> {
    if (this.stopped) return Promise.reject(new CoreError('CANCELLED', 'Satchel is shutting down.'))
    const full = options.full === true
    if (this.running) {
      if (!full || this.running.full) return this.running.promise
      this.followUp ??= this.running.promise.then(
        () => this.begin(true),
        () => this.begin(true),
      ).finally(() => {
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
    const scopes = this.options.store.allScopes().map((scope) => ({
      scope: scope.scope,
      lastSyncAt: scope.lastSuccessAt,
      unfinished: scope.run !== null,
      lastError: scope.lastError,
    }))
    return {
      running: this.running !== null,
      progress: this.running ? this.progress : null,
      lastSyncAt: this.options.store.lastSyncAt(),
      lastReport: this.lastReport ?? this.options.store.lastReport(),
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
    ).finally(() => {
      this.running = null
      this.progress = null
      if (this.started && !this.stopped) this.schedule(this.intervalMs())
      if (announced) this.options.onStatus?.(this.status())
      // The turn passes on only after this run's end is told, so no two runs ever show at once.
      leave?.()
    })
    // Claimed before the first await, so a second request joins this run.
    this.running = { full, promise, controller }
    return promise
  }

  private async execute(full: boolean, signal: AbortSignal, announce: () => void, tookTurn: (leave: () => void) => void): Promise<SyncReport> {
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
    })
    this.lastReport = report
    this.options.logger.info('sync finished', { ok: report.ok, full, durationMs: report.durationMs, error: report.error?.message })
    this.options.onFinished?.(report)
    return report
  }

  private intervalMs(): number {
    return Math.max(1, this.options.intervalMinutes()) * 60_000
  }

  private schedule(delayMs: number): void {
    this.clearTimer()
    this.nextSyncAt = this.options.clock.now() + delayMs
    // A pending background sync must not keep a CLI or test process alive. The interval is a
    // setting: one longer than Node's timers take (24.8 days) waits that long rather than firing at once.
    this.timer = startTimer(
      () => {
        this.timer = null
        this.nextSyncAt = null
        this.trigger(delayMs === 0 ? 'start-up' : 'interval')
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
