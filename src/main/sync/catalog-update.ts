/**
 * Runs the catalog work a migration left (local/catalog-update-jobs.ts) on the sync writer's thread, one
 * slice per request: each slice a short transaction there, so this thread only posts and waits, and
 * the window's own writes get the write lock between two slices.
 */
import type { CatalogUpdateProgress } from '../local/catalog-update-jobs'
import type { PageWriter } from './page-writer'

export interface CatalogUpdateRunOptions {
  onProgress?: (progress: CatalogUpdateProgress) => void
  signal?: AbortSignal
  /**
   * The pause after each slice. SQLite lets a waiting writer retry only now and then (its busy
   * handler sleeps between tries): with no gap the window's draft could miss every free moment.
   */
  pauseMs?: number
  /** Awaited before each slice (see CoreConfig.beforeCatalogUpdateSlice). */
  beforeSlice?: () => Promise<void>
  /**
   * Stops the window's connection from checkpointing while the slices run, returning the function
   * that restores it (LocalCopy.leaveCheckpointsToWriter), for a writer on a thread of its own. Its
   * slices fill the WAL (migration 10's copy: 4,000 pages in a few seconds), and the window's next
   * commit, a draft's save, found it past its 1,000-page threshold and copied it on the main thread:
   * a save held the main thread 29 ms at the median and 200 ms at most at a million items. The
   * writer's connection checkpoints as it goes instead (writer-thread.ts), and once more at the end.
   */
  leaveCheckpoints?: () => () => void
}

/** Slices until no job is left, or the signal stops it (what is done stays done: the next run goes on). */
export async function runCatalogUpdate(
  writer: Pick<PageWriter, 'catalogUpdateSlice' | 'checkpoint'>,
  options: CatalogUpdateRunOptions = {},
): Promise<void> {
  const restore = options.leaveCheckpoints?.()
  try {
    await slices(writer, options)
  } finally {
    if (restore) {
      // What the slices left in the WAL is copied on the writer's thread, not by the window's next commit.
      try {
        await writer.checkpoint()
      } finally {
        restore()
      }
    }
  }
}

async function slices(writer: Pick<PageWriter, 'catalogUpdateSlice'>, options: CatalogUpdateRunOptions): Promise<void> {
  const pauseMs = options.pauseMs ?? 15
  for (;;) {
    if (options.signal?.aborted) return
    if (options.beforeSlice) {
      await options.beforeSlice()
      if (options.signal?.aborted) return
    }
    const progress = await writer.catalogUpdateSlice()
    options.onProgress?.(progress)
    if (progress.job === null) return
    if (pauseMs > 0) await new Promise((resolve) => setTimeout(resolve, pauseMs))
  }
}
