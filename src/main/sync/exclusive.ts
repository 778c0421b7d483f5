import { CoreError } from '../errors'
import { describeHolder, untilFree, type Lease, type LeaseHolder } from '../db/lease'
import type { Logger } from '../ports'

export interface SyncLeaseOptions {
  /** How long to wait for another process's sync to finish before giving up (0: do not wait). */
  waitMs: number
  /** Told once, when this process starts waiting. */
  onWait?: (holder: LeaseHolder) => void
  logger?: Logger
  /** The caller's own cancel (Ctrl+C, quitting); it ends the wait too. */
  signal?: AbortSignal
}

/**
 * Runs a sync while this process holds the database's sync lease. The app and a CLI `sync` write the
 * same resume bookkeeping (cursors, listing ids, pages done); two runs interleaving it would resume
 * from a page neither wrote. The lease is renewed while the run goes on; if it is lost anyway (this
 * process was stalled past its expiry and another took it), the run is cancelled, and its pages so
 * far stay as written.
 */
export async function withSyncLease<T>(
  lease: Lease,
  run: (signal: AbortSignal) => Promise<T>,
  options: SyncLeaseOptions,
): Promise<T> {
  await untilFree(
    () => lease.tryAcquire(),
    (attempt) => (attempt.acquired ? null : attempt.holder),
    {
      waitMs: options.waitMs,
      onWait: options.onWait,
      signal: options.signal,
      cancelled: () => new CoreError('CANCELLED', 'Sync was cancelled while waiting for another Satchel process.'),
      gaveUp: (holder) =>
        new CoreError(
          'CONFLICT',
          `${describeHolder(holder)} is syncing this database; try again when it has finished.`,
        ),
    },
  )
  const controller = new AbortController()
  const stopOnCancel = () => controller.abort(options.signal?.reason)
  options.signal?.addEventListener('abort', stopOnCancel, { once: true })
  const keepAlive = setInterval(
    () => {
      // While the writer thread writes pages it renews the lease itself; renewing here would wait for
      // its write lock with the event loop blocked (a batch's commit, or an index build of ~0.4 s).
      if (lease.renewedLately() || lease.stillHeld()) return
      options.logger?.warn('another Satchel process took over the sync lease; this sync stops')
      controller.abort(new Error('sync lease lost'))
    },
    Math.max(250, lease.ttlMs / 3),
  )
  try {
    return await run(controller.signal)
  } finally {
    clearInterval(keepAlive)
    options.signal?.removeEventListener('abort', stopOnCancel)
    lease.release()
  }
}
