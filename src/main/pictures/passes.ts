/**
 * When the picture cache is filled: a pass after each sync and every quarter of an hour while the
 * app is open and the service answers, never while offline, one at a time, and none once closing
 * (a pass stops between items, or it would hold the profile open for minutes of reads).
 */
import type { Logger } from '../ports'
import type { PassReport } from './item-pictures'

const passEveryMs = 15 * 60_000

interface PicturePassesParts {
  /** Whether pictures can be fetched now: a saved connection, and the service not known to be away. */
  online(): Promise<boolean>
  /** One pass: `idle`, the tiers and then the rest of the catalog; otherwise the tiers only. */
  run(idle: boolean, signal: AbortSignal): Promise<PassReport>
  /** Each finished pass's report (the window hears of new pictures through it). */
  finished(report: PassReport): void
  /** Calls `listener` after each sync; returns the unsubscribe. */
  afterEachSync(listener: () => void): () => void
  logger: Logger
}

export class PicturePasses {
  private running: Promise<PassReport | null> | null = null
  private readonly closing = new AbortController()
  private timer: ReturnType<typeof setInterval> | undefined
  private unsubscribe: (() => void) | undefined

  constructor(private readonly parts: PicturePassesParts) {}

  /** A pass now; null when one is already running, the core is closing, or the service is away. */
  pass(idle = true): Promise<PassReport | null> {
    if (this.running || this.closing.signal.aborted) return Promise.resolve(null)
    const { parts } = this
    const current = (async () => {
      try {
        if (!(await parts.online())) return null
        const report = await parts.run(idle, this.closing.signal)
        parts.finished(report)
        parts.logger.info('item pictures pass', { ...report })
        return report
      } catch (error) {
        parts.logger.warn('item pictures pass failed', { error: (error as Error).message })
        return null
      }
    })()
    // Cleared once settled, here rather than in the body: a pass that ends before its first await
    // would clear it before it was set.
    this.running = current
    void current.finally(() => {
      if (this.running === current) this.running = null
    })
    return current
  }

  /** A pass of the tiers after the one running now, which read the tiers before they changed. */
  passAfterThis(): void {
    void (this.running ?? Promise.resolve()).then(() => this.pass(false))
  }

  start(): void {
    this.timer = setInterval(() => void this.pass(), passEveryMs)
    this.timer.unref?.()
    this.unsubscribe = this.parts.afterEachSync(() => void this.pass())
  }

  /** Stops the schedule and the pass running, and waits for it to end. */
  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer)
    this.unsubscribe?.()
    this.closing.abort()
    await this.running
  }
}
