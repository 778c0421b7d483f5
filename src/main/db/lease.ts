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
 * it. It expires unless renewed, so a process that died (SIGKILL, power cut) hands over by itself;
 * what it left half-done is recovered only by the process that takes over the expired lease, never
 * while its holder may still be working.
 */
export type LeaseName = 'outbox' | 'sync'

export interface LeaseHolder {
  owner: string
  /** Who holds it, in words ("the desktop app", "satchel flush"). */
  label: string
  pid: number
  host: string
  expiresAt: number
}

export type LeaseAttempt =
  | { acquired: true; /** The previous holder's lease had run out: what it left half-done is ours to recover. */ tookOverExpired: boolean }
  | { acquired: false; holder: LeaseHolder }

/** What the process taking a lease over learns about the holder it replaces. */
export interface Takeover {
  /**
   * When the previous holder's lease would have run out, if that is still ahead: its process is gone
   * (killed, crashed) but it renewed recently, so a request it had on the wire may still be with the
   * service until about then. Null when its lease had run out, or there was none.
   */
  unexpiredUntil: number | null
}

export interface LeaseOptions {
  /** Words for other processes' messages: who holds the lease. */
  label: string
  clock: Clock
  /** How long the lease lasts unless renewed. A dead holder's work waits this long at most. */
  ttlMs?: number
  /** Identifies this process's claim; defaults to host, pid and a random suffix. */
  owner?: string
}

const defaultLeaseTtlMs = 15_000

interface LeaseRow {
  owner: string
  label: string
  pid: number
  host: string
  expires_at: number
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

  constructor(
    private readonly db: Database,
    readonly name: LeaseName,
    private readonly options: LeaseOptions,
  ) {
    this.owner = options.owner ?? `${hostname()}/${process.pid}/${randomUUID().slice(0, 8)}`
    this.ttlMs = options.ttlMs ?? defaultLeaseTtlMs
    this.statements = {
      read: db.prepare<[string], LeaseRow>('SELECT owner, label, pid, host, expires_at FROM leases WHERE name = ?'),
      take: db.prepare<[string, string, string, number, string, number]>(
        `INSERT INTO leases (name, owner, label, pid, host, expires_at) VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT(name) DO UPDATE SET owner = excluded.owner, label = excluded.label, pid = excluded.pid, host = excluded.host, expires_at = excluded.expires_at`,
      ),
      renew: db.prepare<[number, string, string]>('UPDATE leases SET expires_at = ? WHERE name = ? AND owner = ?'),
      release: db.prepare<[string, string]>('DELETE FROM leases WHERE name = ? AND owner = ?'),
    }
  }

  private now(): number {
    return this.options.clock.now()
  }

  private holderOf(row: LeaseRow): LeaseHolder {
    return { owner: row.owner, label: row.label, pid: row.pid, host: row.host, expiresAt: row.expires_at }
  }

  /** Who holds the lease now, if anyone does (an expired lease is held by nobody). Reads only. */
  holder(): LeaseHolder | null {
    const row = this.statements.read.get(this.name)
    return row && row.expires_at > this.now() ? this.holderOf(row) : null
  }

  /**
   * Takes the lease if it is free, expired, held by a process that is gone, or already ours.
   * `recover` runs in the same write transaction when the lease was taken over from another holder
   * (or from a version of Satchel that had no leases), so no other process can start between the
   * take-over and the recovery.
   */
  tryAcquire(recover?: (takeover: Takeover) => void): LeaseAttempt {
    return this.db
      .transaction((): LeaseAttempt => {
        const row = this.statements.read.get(this.name)
        const now = this.now()
        if (row && row.owner !== this.owner && row.expires_at > now && !holderIsGone(row)) return { acquired: false, holder: this.holderOf(row) }
        const tookOverExpired = !row || row.owner !== this.owner
        this.statements.take.run(this.name, this.owner, this.options.label, process.pid, hostname(), now + this.ttlMs)
        if (tookOverExpired) recover?.({ unexpiredUntil: row && row.expires_at > now ? row.expires_at : null })
        return { acquired: true, tookOverExpired }
      })
      .immediate()
  }

  /**
   * Extends the lease; throws LeaseLostError when another process has taken it (ours ran out while
   * this process was stalled). Call inside the transaction whose writes need the lease, so they
   * commit only while it is held.
   */
  renew(): void {
    if (this.statements.renew.run(this.now() + this.ttlMs, this.name, this.owner).changes !== 1) throw new LeaseLostError(this.name)
  }

  /**
   * Whether this process holds the lease and it was renewed within the last third of its time: by
   * the sync's writer thread, which renews it in the transactions that write pages (page-writer.ts).
   * Reads only, so it never waits for that thread's write lock.
   */
  renewedLately(): boolean {
    const row = this.statements.read.get(this.name)
    return row !== undefined && row.owner === this.owner && row.expires_at - this.now() > (this.ttlMs * 2) / 3
  }

  /** The lease as the sync's writer thread renews it (WriterWorkerData.lease). */
  forWriter(): { name: LeaseName; owner: string; ttlMs: number; clockOffsetMs: number } {
    return { name: this.name, owner: this.owner, ttlMs: this.ttlMs, clockOffsetMs: this.now() - Date.now() }
  }

  /** Whether this process holds the lease now, renewing it if so. */
  stillHeld(): boolean {
    try {
      this.db.transaction(() => this.renew()).immediate()
      return true
    } catch (error) {
      if (error instanceof LeaseLostError) return false
      throw error
    }
  }

  /** Gives the lease up at once, so the next process need not wait for it to expire. */
  release(): void {
    this.statements.release.run(this.name, this.owner)
  }
}

/**
 * A holder on this machine whose process no longer exists cannot renew: its lease is as good as
 * expired, and waiting out the rest of it would only keep a restarted app from sending. (A pid reused
 * by another process reads as alive: the lease then simply runs out.)
 */
function holderIsGone(row: LeaseRow): boolean {
  if (row.host !== hostname() || row.pid === process.pid) return false
  try {
    process.kill(row.pid, 0)
    return false
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH'
  }
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
export async function untilFree<T>(attempt: () => T | Promise<T>, heldBy: (result: T) => LeaseHolder | null, options: WaitOptions): Promise<T> {
  const until = Date.now() + options.waitMs
  let told = false
  for (;;) {
    const result = await attempt()
    const holder = heldBy(result)
    if (!holder) return result
    if (options.signal?.aborted) throw options.cancelled?.() ?? new Error('Cancelled while waiting for another Satchel process.')
    if (Date.now() >= until) throw options.gaveUp(holder)
    if (!told) {
      options.onWait?.(holder)
      told = true
    }
    await new Promise((resolve) => setTimeout(resolve, 250))
  }
}
