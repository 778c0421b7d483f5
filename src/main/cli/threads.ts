/**
 * The worker threads of the CLI as built with the app (bin.ts, out/main/cli.js): the build's own
 * entries of the sync writer, set before any command runs. A source checkout sets none, and the
 * sync starts its writer from the TypeScript file (sync/page-writer.ts, sourceWriterWorker).
 */
import type { Worker, WorkerOptions } from 'node:worker_threads'

/** Each takes the thread's options (sync/page-writer.ts, writerThreadOptions) and starts it. */
export const builtThreads: { writer?: (options: WorkerOptions) => Worker } = {}
