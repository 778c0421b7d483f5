/**
 * Runs the catalog work a migration left (local/catalog-upkeep.ts) on the sync writer's thread, one
 * slice per request: each slice a short transaction there, so this thread only posts and waits, and
 * the window's own writes get the write lock between two slices.
 */
import type { CatalogUpkeepProgress } from '../local/catalog-upkeep'
import type { PageWriter } from './page-writer'

export interface UpkeepRunOptions {
  onProgress?: (progress: CatalogUpkeepProgress) => void
  signal?: AbortSignal
  /**
   * The pause after each slice. SQLite lets a waiting writer retry only now and then (its busy
   * handler sleeps between tries): with no gap the window's draft could miss every free moment.
   */
  pauseMs?: number
  /** Awaited before each slice (see CoreConfig.beforeCatalogUpdateSlice). */
  beforeSlice?: () => Promise<void>
}

/** Slices until no job is left, or the signal stops it (what is done stays done: the next run goes on). */
export async function runCatalogUpkeep(writer: Pick<PageWriter, 'upkeepSlice'>, options: UpkeepRunOptions = {}): Promise<void> {
  const pauseMs = options.pauseMs ?? 15
  for (;;) {
    if (options.signal?.aborted) return
    if (options.beforeSlice) {
      await options.beforeSlice()
      if (options.signal?.aborted) return
    }
    const progress = await writer.upkeepSlice()
    options.onProgress?.(progress)
    if (progress.job === null) return
    if (pauseMs > 0) await new Promise((resolve) => setTimeout(resolve, pauseMs))
  }
}
