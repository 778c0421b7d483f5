import { readFileSync } from 'node:fs'
import { hostname } from 'node:os'
import { randomUUID } from 'node:crypto'
import type { Database } from './database'
import type { Clock } from '../ports'

/**
 * A lease on one job that only one process may do at a time on a database: sending the outbox, or
 * writing a sync run's resume bookkeeping. The desktop app and any number of CLI processes share
 * the file, and SQLite's locks only cover one transaction; a lease covers the whole job.
 *
 * It is taken and renewed in write transactions, so two processes can never both believe they hold
 * it. What it must never depend on is two processes agreeing on the time: a laptop's wall clock can
 * be minutes off, set by hand, or corrected while Satchel runs, and a lease judged by comparing one
 * process's "expires at" with another's "now" was taken from a live sender (whose clock was slow)
 * and resent its order while the first request was still with the service. So the holder's clock is
 * never read by anyone else, and a lease ends only on evidence the taker gathers itself:
 *
 * - the holder is gone: it ran on this machine and its process no longer exists, or its pid now
 *   belongs to a process started at another moment (the pid was reused). That is checked with
 *   kill(pid, 0) and, where /proc exists, the process's start time since boot, stored with the lease.
 *   A dead holder's lease is taken over at once;
 * - the holder stopped renewing: every renewal counts up `renewals`, and a process that watches the
 *   row stay the same for the holder's whole TTL on its own monotonic clock takes the lease over.
 *   That covers a holder that hangs, one on another machine, and one whose death cannot be seen.
 *
 * A live holder renews every third of its TTL whatever its clock says, so it never loses the lease
 * to another live process, and no clock, however wrong, lets a process take a lease it has not
 * watched go stale. `expires_at` is still written, in the holder's own clock, for older versions of
 * Satchel and for the holder's own bookkeeping; others read it only as a hint for how long a dead
 * holder's last request may still be with the service, bounded by one TTL.
 *
 * What a holder left half-done is recovered only by the process that takes its lease over, never
 * while it may still be working.
 */
export type LeaseName = 'outbox' | 'sync'

export interface LeaseHolder {
  owner: string
  /** Who holds it, in words ("the desktop app", "satchel flush"). */
  label: string
  pid: number
  host: string
  /** When the lease runs out unless renewed, by the holder's clock (which may be wrong). */
  expiresAt: number
}

export type LeaseAttempt =
  | {
      acquired: true
      /** The previous holder was gone or had stopped renewing: what it left half-done is ours to recover. */ tookOverExpired: boolean
    }
  | { acquired: false; holder: LeaseHolder }

/** What the process taking a lease over learns about the holder it replaces. */
export interface Takeover {
  /**
   * Until when (by this process's clock) the previous holder's last request may still be with the
   * service: its process is gone (killed, crashed) but it may have renewed moments ago. Null when it
   * stopped renewing at least a TTL ago, or there was none.
   */
  unexpiredUntil: number | null
}

export interface LeaseOptions {
  /** Words for other processes' messages: who holds the lease. */
  label: string
  /** Its now() stamps `expires_at`; its monotonic() (now() when it has none) times how long a holder was watched. */
  clock: Clock
  /** How long the lease lasts unless renewed. A holder that stops renewing is replaced after this long. */
  ttlMs?: number
  /** Identifies this process's claim; defaults to host, pid and a random suffix. */
  owner?: string
}

export const defaultLeaseTtlMs = 15_000

interface LeaseRow {
  owner: string
  label: string
  pid: number
  host: string
  expires_at: number
  renewals: number
  ttl_ms: number
  started: string | null
}

export class LeaseLostError extends Error {
  constructor(name: LeaseName) {
    super(`This process no longer holds the ${name} lease; another Satchel process took it over.`)
    this.name = 'LeaseLostError'
  }
}

export class Lease {
  readonly owner: string
  readonly ttlMs: number
  private readonly statements
  private readonly monotonic: () => number
  /** Another holder's row as last seen, and since when (monotonic) it has not changed. */
  private watched: { stamp: string; since: number } | null = null
  /** This holder's renewal count as last seen by renewedLately or written here. */
  private ownRenewals: number | null = null

  constructor(
    private readonly db: Database,
    readonly name: LeaseName,
    private readonly options: LeaseOptions,
  ) {
    this.owner = options.owner ?? `${hostname()}/${process.pid}/${randomUUID().slice(0, 8)}`
    this.ttlMs = options.ttlMs ?? defaultLeaseTtlMs
    const clock = options.clock
    this.monotonic = clock.monotonic ? () => clock.monotonic!() : () => clock.now()
    this.statements = {
      read: db.prepare<[string], LeaseRow>(
        'SELECT owner, label, pid, host, expires_at, renewals, ttl_ms, started FROM leases WHERE name = ?',
      ),
      take: db.prepare<[string, string, string, number, string, number, number, string | null], { renewals: number }>(
        `INSERT INTO leases (name, owner, label, pid, host, expires_at, ttl_ms, started) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT(name) DO UPDATE SET owner = excluded.owner, label = excluded.label, pid = excluded.pid, host = excluded.host,
           expires_at = excluded.expires_at, ttl_ms = excluded.ttl_ms, started = excluded.started, renewals = leases.renewals + 1
         RETURNING renewals`,
      ),
      renew: db.prepare<[number, string, string], { renewals: number }>(
        'UPDATE leases SET expires_at = ?, renewals = renewals + 1 WHERE name = ? AND owner = ? RETURNING renewals',
      ),
      release: db.prepare<[string, string]>('DELETE FROM leases WHERE name = ? AND owner = ?'),
    }
  }

  private now(): number {
    return this.options.clock.now()
  }

  private holderOf(row: LeaseRow): LeaseHolder {
    return { owner: row.owner, label: row.label, pid: row.pid, host: row.host, expiresAt: row.expires_at }
  }

  /** How long (monotonic ms) this process has seen another holder's row unchanged: 0 the first time, or after it renewed. */
  private watch(row: LeaseRow): number {
    const stamp = `${row.owner}\u0000${row.renewals}\u0000${row.expires_at}`
    const now = this.monotonic()
    if (this.watched?.stamp !== stamp) this.watched = { stamp, since: now }
    return now - this.watched.since
  }

  /** Whether another holder's lease has ended: its process is gone, or it has not renewed for its TTL while this process watched. */
  private ended(row: LeaseRow): { gone: boolean; watchedMs: number; ended: boolean } {
    const watchedMs = this.watch(row)
    const gone = holderIsGone(row)
    return { gone, watchedMs, ended: gone || watchedMs >= row.ttl_ms }
  }

  /** Who holds the lease now, if anyone does (a lease whose holder is gone or stopped renewing is held by nobody). Reads only. */
  holder(): LeaseHolder | null {
    const row = this.statements.read.get(this.name)
    if (!row) return null
    if (row.owner !== this.owner && this.ended(row).ended) return null
    return this.holderOf(row)
  }

  /**
   * Takes the lease if it is free, its holder is gone or stopped renewing, or it is already ours.
   * `recover` runs in the same write transaction when the lease was taken over from another holder
   * (or from a version of Satchel that had no leases), so no other process can start between the
   * take-over and the recovery.
   */
  tryAcquire(recover?: (takeover: Takeover) => void): LeaseAttempt {
    return this.db
      .transaction((): LeaseAttempt => {
        const row = this.statements.read.get(this.name)
        const now = this.now()
        let unexpiredUntil: number | null = null
        if (row && row.owner !== this.owner) {
          const { gone, watchedMs, ended } = this.ended(row)
          if (!ended) return { acquired: false, holder: this.holderOf(row) }
          if (gone) {
            // Its last request may still be with the service for up to a TTL after it last renewed.
            // When that was is known only by its own clock: read as a hint, never past one TTL from
            // now, and never past a TTL from when this process first saw the row unchanged.
            const hinted = Math.min(Math.max(0, row.expires_at - now), row.ttl_ms)
            const remaining = Math.min(hinted, row.ttl_ms - watchedMs)
            if (remaining > 0) unexpiredUntil = now + remaining
          }
        }
        const tookOverExpired = !row || row.owner !== this.owner
        this.ownRenewals = this.statements.take.get(
          this.name,
          this.owner,
          this.options.label,
          process.pid,
          hostname(),
          now + this.ttlMs,
          this.ttlMs,
          thisProcessStart(),
        )!.renewals
        this.watched = null
        if (tookOverExpired) recover?.({ unexpiredUntil })
        return { acquired: true, tookOverExpired }
      })
      .immediate()
  }

  /**
   * Extends the lease; throws LeaseLostError when another process has taken it (this process
   * stopped renewing for a whole TTL and another took it over). Call inside the transaction whose
   * writes need the lease, so they commit only while it is held.
   */
  renew(): void {
    const renewed = this.statements.renew.get(this.now() + this.ttlMs, this.name, this.owner)
    if (!renewed) throw new LeaseLostError(this.name)
    this.ownRenewals = renewed.renewals
  }

  /** Whether this process holds the lease at this moment. Reads only; for a last look before a request goes out. */
  holdsNow(): boolean {
    return this.statements.read.get(this.name)?.owner === this.owner
  }

  /**
   * Whether this process holds the lease and someone else in it renewed it lately: the sync's writer
   * thread, which renews it in the transactions that write pages (page-writer.ts), on its own
   * connection. Lately means since the last time this was asked (the keep-alive asks every third
   * of the TTL), or an `expires_at` within the last third of the TTL by this process's clock; one
   * beyond a whole TTL ahead (the clock was set back) does not count. Reads only, so it never waits
   * for that thread's write lock.
   */
  renewedLately(): boolean {
    const row = this.statements.read.get(this.name)
    if (row === undefined || row.owner !== this.owner) return false
    const counted = this.ownRenewals !== null && row.renewals !== this.ownRenewals
    this.ownRenewals = row.renewals
    const left = row.expires_at - this.now()
    return counted || (left > (this.ttlMs * 2) / 3 && left <= this.ttlMs)
  }

  /** The lease as the sync's writer thread renews it (WriterWorkerData.lease). */
  forWriter(): { name: LeaseName; owner: string; ttlMs: number; clockOffsetMs: number } {
    return { name: this.name, owner: this.owner, ttlMs: this.ttlMs, clockOffsetMs: this.now() - Date.now() }
  }

  /**
   * Whether this process holds the lease now, renewing it if so. Called from keep-alive timers on the
   * main thread, so it never waits for the write lock: while another connection holds it (the sync's
   * writer thread committing, or building an index over a million items for seconds; or another
   * process) the lease cannot change hands, so the answer is the row as it reads now, and the next
   * look renews it. Waiting would hold the window for the busy timeout and then throw from a timer.
   */
  stillHeld(): boolean {
    const wait = this.db.pragma('busy_timeout', { simple: true }) as number
    this.db.pragma('busy_timeout = 0')
    try {
      this.db.transaction(() => this.renew()).immediate()
      return true
    } catch (error) {
      if (error instanceof LeaseLostError) return false
      if ((error as { code?: unknown })?.code === 'SQLITE_BUSY') return this.holdsNow()
      throw error
    } finally {
      this.db.pragma(`busy_timeout = ${wait}`)
    }
  }

  /** Gives the lease up at once, so the next process need not wait for it to expire. */
  release(): void {
    this.statements.release.run(this.name, this.owner)
    this.ownRenewals = null
  }
}

/**
 * When a process started, as "<boot id>:<clock ticks since boot>" from /proc, or null where there
 * is no /proc (macOS, Windows) or it cannot be read. Two processes that ever had the same pid on one
 * machine differ here, so a pid reused after the holder died cannot pass for the holder.
 */
function processStart(pid: number | 'self'): string | null {
  try {
    bootId ??= readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim()
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    // The command name (field 2) is in parentheses and may hold spaces; the start time is field 22.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    const ticks = fields[19]
    return ticks && /^\d+$/.test(ticks) ? `${bootId}:${ticks}` : null
  } catch {
    return null
  }
}
let bootId: string | undefined
let ownStart: string | null | undefined
const thisProcessStart = (): string | null => (ownStart === undefined ? (ownStart = processStart('self')) : ownStart)

/**
 * A holder on this machine whose process no longer exists cannot renew: its lease is as good as
 * ended, and waiting out its TTL would only keep a restarted app from sending. Its pid may since
 * belong to another process (a container restarted, or pids wrapped around): where both start times
 * are known and differ, it is that other process, and the holder is gone too.
 */
function holderIsGone(row: LeaseRow): boolean {
  if (row.host !== hostname()) return false
  if (row.pid !== process.pid) {
    try {
      process.kill(row.pid, 0)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ESRCH') return true
    }
  }
  if (row.started === null) return false
  const started = row.pid === process.pid ? thisProcessStart() : processStart(row.pid)
  return started !== null && started !== row.started
}

/** "the desktop app (pid 4242)", for messages to the person at the keyboard. */
export function describeHolder(holder: LeaseHolder): string {
  return `${holder.label} (pid ${holder.pid}${holder.host === hostname() ? '' : ` on ${holder.host}`})`
}

export interface WaitOptions {
  /** How long to keep trying before giving up (0: try once). */
  waitMs: number
  /** Told once, when the first attempt finds the lease held. */
  onWait?: (holder: LeaseHolder) => void
  /** The error to give up with once waitMs has passed. */
  gaveUp: (holder: LeaseHolder) => Error
  /** Ends the wait early, with the error `cancelled` makes. */
  signal?: AbortSignal
  cancelled?: () => Error
}

/**
 * Runs `attempt` until what it returns names no holder: every 250 ms while another process holds the
 * lease (heldBy gives it), telling onWait once, giving up after waitMs or when the signal aborts.
 * What waits for the sync lease and what waits for the outbox lease both come here.
 */
export async function untilFree<T>(
  attempt: () => T | Promise<T>,
  heldBy: (result: T) => LeaseHolder | null,
  options: WaitOptions,
): Promise<T> {
  // Measured on the monotonic clock: a wall clock set while waiting neither cuts nor stretches the wait.
  const until = performance.now() + options.waitMs
  let told = false
  for (;;) {
    const result = await attempt()
    const holder = heldBy(result)
    if (!holder) return result
    if (options.signal?.aborted)
      throw options.cancelled?.() ?? new Error('Cancelled while waiting for another Satchel process.')
    if (performance.now() >= until) throw options.gaveUp(holder)
    if (!told) {
      options.onWait?.(holder)
      told = true
    }
    await new Promise((resolve) => setTimeout(resolve, 250))
  }
}
