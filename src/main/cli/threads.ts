/**
 * The worker threads of the CLI as built with the app (bin.ts, out/main/cli.js): the build's own
 * entries of sync's writer and reader, set before any command runs. A source checkout sets none, and
 * the sync starts its threads from the TypeScript files (sync/page-writer.ts, sourceSyncThread).
 */
import type { Worker, WorkerOptions } from 'node:worker_threads'

/** Each takes the thread's options (sync/page-writer.ts, syncThreadOptions) and starts it. */
export const builtThreads: {
  writer?: (options: WorkerOptions) => Worker
  reader?: (options: WorkerOptions) => Worker
} = {}
