/**
 * One slice of the purge, the same on either thread: the main thread's connection (an in-memory
 * database, a test, a build without the purge's thread) or the purge's own (purge-worker.ts).
 */
import { performance } from 'node:perf_hooks'
import { Worker, type WorkerOptions } from 'node:worker_threads'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import type { Database } from '../db/database'
import { startWorkerCalls } from '../worker-calls'
import { databaseSize } from '../db/storage'
import type { Outbox } from '../orders/outbox/outbox'
import type { QuoteRepository } from '../quotes/repository'

/** What one slice does: a window of rows by id, after `afterId`. */
export type SliceRequest =
  | { kind: 'expiredQuotes'; validBefore: string; openDraftIds: number[]; afterId: number; window: number }
  | { kind: 'convertedDraftIds'; afterId: number; window: number }
  | { kind: 'sentOrders'; sentBefore: string; keepDraftIds: number[]; afterId: number; window: number }

export interface SliceResult {
  removed: number
  /** For convertedDraftIds: the drafts the window's kept quotes were converted into. */
  draftIds: number[]
  /** The window's last id, or null when no rows were left. */
  lastId: number | null
  /** Bytes the slice put on SQLite's free list. */
  freed: number
  /** Rows the slice changed. */
  changes: number
  /** How long the slice's transaction (its commit included) took, on the thread that ran it. */
  ms: number
}

export interface SliceTables {
  db: Database
  outbox: Pick<Outbox, 'purgeSent'>
  quotes: Pick<QuoteRepository, 'purgeExpired' | 'convertedDraftIds'>
}

/** Runs one slice in one IMMEDIATE transaction, with the pages it freed and the rows it changed. */
export function runSlice(tables: SliceTables, request: SliceRequest): SliceResult {
  const { db } = tables
  const totalChanges = db.prepare<[], number>('SELECT total_changes()').pluck()
  const started = performance.now()
  const result = db
    .transaction(() => {
      const freeBefore = databaseSize(db).freeBytes
      const changesBefore = totalChanges.get() ?? 0
      const window = slice(tables, request)
      return {
        ...window,
        freed: Math.max(0, databaseSize(db).freeBytes - freeBefore),
        changes: (totalChanges.get() ?? 0) - changesBefore,
      }
    })
    .immediate()
  return { ...result, ms: performance.now() - started }
}

function slice(
  tables: SliceTables,
  request: SliceRequest,
): { removed: number; draftIds: number[]; lastId: number | null } {
  switch (request.kind) {
    case 'expiredQuotes':
      return {
        ...tables.quotes.purgeExpired(request.validBefore, request.openDraftIds, request.afterId, request.window),
        draftIds: [],
      }
    case 'convertedDraftIds':
      return { ...tables.quotes.convertedDraftIds(request.afterId, request.window), removed: 0 }
    case 'sentOrders':
      return {
        ...tables.outbox.purgeSent(request.sentBefore, request.keepDraftIds, request.afterId, request.window),
        draftIds: [],
      }
  }
}

export interface PurgeWorkerData {
  databasePath: string
  nativeBinding?: string
}

/** The purge's thread, as the main thread sees it. */
export interface PurgeThread {
  run(request: SliceRequest): Promise<SliceResult>
  /** Checkpoints what its slices left in the WAL, closes its connection and ends. */
  close(): Promise<void>
}

/** The worker's first message, once its connection is open; and the last request, to end it. */
export const purgeWorkerReady = 'ready'
export const purgeWorkerClose = 'close'

export type PurgeWorkerResponse =
  { id: number; ok: true; result: SliceResult } | { id: number; ok: false; message: string }

/**
 * Starts the purge's thread and waits until its connection is open, so one that cannot start is
 * known before a slice depends on it. `create` builds the Worker: the Electron build supplies its
 * bundled entry (CoreConfig.ports.purgeWorker), a source checkout sourcePurgeWorker.
 */
export async function startPurgeThread(
  create: (data: PurgeWorkerData) => Worker,
  data: PurgeWorkerData,
): Promise<PurgeThread> {
  const calls = await startWorkerCalls<SliceRequest>(create(data), {
    name: "purge's thread",
    readyMessage: purgeWorkerReady,
    closeMessage: purgeWorkerClose,
    post: (id, request) => ({ id, request }),
    answer: (message) => {
      const response = message as PurgeWorkerResponse
      return response.ok ? { id: response.id, ok: true, value: response.result } : response
    },
    failed: (message) => new Error(`A purge slice failed: ${message}`),
  })
  return {
    run: (request) => calls.call(request) as Promise<SliceResult>,
    close: () => calls.close(),
  }
}

/** How the purge's thread is started: a small young generation, as the sync writer's (page-writer.ts). */
export function purgeThreadOptions(data: PurgeWorkerData): WorkerOptions {
  return { workerData: data, resourceLimits: { maxYoungGenerationSizeMb: 4 } }
}

/**
 * The purge's thread in a source checkout (tsx, the CLI, tests, benches): the TypeScript file itself
 * behind tsx's require hook; null in a bundled build, which passes its own factory instead.
 */
export function sourcePurgeWorker(): ((data: PurgeWorkerData) => Worker) | null {
  if (!__filename.endsWith('.ts')) return null
  return (data) => {
    const bootstrap = `require(${JSON.stringify(createRequire(__filename).resolve('tsx/cjs'))}); require(${JSON.stringify(join(__dirname, 'purge-worker.ts'))})`
    return new Worker(bootstrap, { eval: true, ...purgeThreadOptions(data) })
  }
}

/**
 * The purge's slices run on a thread of their own (housekeeping/purge.ts) where one can start: a file
 * database, and a build that supplies its bundled worker (`worker`) or a source checkout. Otherwise
 * none, and they run on the main thread.
 */
export function purgeThreadFor(
  db: Database,
  worker: ((data: PurgeWorkerData) => Worker) | undefined,
  nativeBinding: string | undefined,
): { purgeThread?: () => Promise<PurgeThread> } {
  const purgeWorker = worker ?? sourcePurgeWorker()
  const onDisk = !db.memory && db.name !== '' && db.name !== ':memory:'
  return purgeWorker && onDisk
    ? {
        purgeThread: () =>
          startPurgeThread(purgeWorker, { databasePath: db.name, ...(nativeBinding ? { nativeBinding } : {}) }),
      }
    : {}
}
