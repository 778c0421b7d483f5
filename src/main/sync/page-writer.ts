/**
 * Where sync's pages are written. Writing 100,000 catalog items (JSON, indexes, full-text index,
 * checkpoints) is most of a first sync's work, and on the main thread it held the event loop for
 * hundreds of milliseconds at a time. The worker writer does it on a worker thread with its own
 * connection to the same database file (WAL lets the main thread keep reading meanwhile); the inline
 * writer does it on the calling thread, for in-memory databases and for tests of the engine alone.
 */
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { MessageChannel, Worker, type WorkerOptions } from 'node:worker_threads'
import type { CustomerConnection } from '../ordering-client/client'
import type { CatalogItemRecord, OrderRecord } from '../ordering-client/schemas'
import { prepareItemPage, preparedSize, stampItemPage, type PreparedItemPage } from '../local/item-page'
import { type ApplyContext, type ApplyCounts, type LocalCopy, type SyncedTableName } from '../local/copy'
import type { CatalogUpdateProgress } from '../local/catalog-update-jobs'
import { DatabaseFileError, isNoRoom } from '../db/file-errors'
import { startWorkerCalls } from '../worker-calls'
import { startPageReader, type PageReader } from './page-reader'
import {
  closeRequest,
  readyMessage,
  type HeldPage,
  type HeldRows,
  type SyncThreadData,
  type WriterWorkerData,
} from './thread-data'

export type { SyncThreadData, WriterWorkerData } from './thread-data'

export interface PageWriter {
  /** Writes on the calling thread (which then wants the bulk-write settings on its connection). */
  readonly onThisThread: boolean
  /**
   * Decodes listing pages on a thread of its own and hands their rows to this writer's thread, so
   * only a page's summary comes back here (page-reader.ts); null for the inline writer, handed rows.
   */
  readonly reader: PageReader | null
  /** Writes a page the reader holds for this writer's thread (PageReader.read). */
  applyHeld(page: HeldPage, context: ApplyContext): Promise<ApplyCounts>
  /** Lets go of a held page that will not be written (its listing stopped before it). */
  discardHeld(page: HeldPage): void
  applyCatalogItems(catalogGuid: string, rows: CatalogItemRecord[], context: ApplyContext): Promise<ApplyCounts>
  applyCustomers(rows: CustomerConnection[], context: ApplyContext): Promise<ApplyCounts>
  applyOrders(rows: OrderRecord[], context: ApplyContext): Promise<ApplyCounts>
  /** Builds the indexes a first listing deferred (LocalCopy.finishBulk), after the pages before it. */
  finishBulk(): Promise<void>
  /** Counts the items of these catalogs, listed in full (and any not counted yet), per category again (LocalCopy.recountItems). */
  recountItems(listedCatalogs: string[]): Promise<void>
  /**
   * A scope's live rows (LocalCopy.countLive), or with `listingId` those the listing saw
   * (countListedLive), once the pages before are written: an index walk per row, 0.1-0.3 s for a
   * catalog of 700,000 items, which on the window's thread would hold it.
   */
  countRows(resource: SyncedTableName, scope: string | null, listingId: number | null): Promise<number>
  /**
   * Copies the run's WAL into the database, on the writer's thread, once its pages are in. A no-op
   * for the inline writer, whose connection checkpoints as it commits (LocalCopy.beginBulkWrite).
   */
  checkpoint(): Promise<void>
  /** One slice of the catalog work a migration left (local/catalog-update-jobs.ts), and where it stands after. */
  catalogUpdateSlice(): Promise<CatalogUpdateProgress>
  close(): Promise<void>
}

/**
 * What the worker is asked to do: one page, in one transaction. Catalog items come prepared
 * (item-page.ts): checked and mapped on the posting thread, plain column values on the way over.
 */
export type WriterRequest =
  | { id: number; op: 'catalogItems'; page: PreparedItemPage; context: ApplyContext }
  | { id: number; op: 'customers'; rows: CustomerConnection[]; context: ApplyContext }
  | { id: number; op: 'orders'; rows: OrderRecord[]; context: ApplyContext }
  | { id: number; op: 'finishBulk'; rows: [] }
  | { id: number; op: 'recountItems'; catalogGuids: string[]; rows: [] }
  | { id: number; op: 'countRows'; resource: SyncedTableName; scope: string | null; listingId: number | null; rows: [] }
  | { id: number; op: 'checkpoint'; rows: [] }
  | { id: number; op: 'catalogUpdate'; rows: [] }
  | { id: number; op: 'held'; ticket: number; context: ApplyContext; rows: [] }
  | { id: number; op: 'discardHeld'; ticket: number; rows: [] }

/** `counts` is the rows a countRows request counted, the catalog update's progress for catalogUpdate, the page's ApplyCounts for the others. */
export type WriterResponse =
  | { id: number; ok: true; counts: ApplyCounts | number | CatalogUpdateProgress }
  | { id: number; ok: false; message: string; code?: string }

/** How many records a request writes: the worker's measure of a batch. */
export function requestSize(request: WriterRequest): number {
  return request.op === 'catalogItems' ? preparedSize(request.page) : request.rows.length
}

/** Distributes over the union, so each request keeps its own fields. */
type WithoutId<T> = T extends unknown ? Omit<T, 'id'> : never

/** The request that writes a held page's rows, with the context it was prepared without. */
export function heldRequest(id: number, rows: HeldRows, context: ApplyContext): WriterRequest {
  switch (rows.kind) {
    case 'catalogItems':
      return { id, op: 'catalogItems', page: stampItemPage(rows.page, context.listingId, context.serverTime), context }
    case 'customers':
      return { id, op: 'customers', rows: rows.rows, context }
    case 'orders':
      return { id, op: 'orders', rows: rows.rows, context }
  }
}

/** Applies a request to the local copy: the worker's whole job, and the inline writer's. */
export function applyRequest(
  copy: LocalCopy,
  request: WithoutId<WriterRequest>,
): ApplyCounts | number | CatalogUpdateProgress {
  switch (request.op) {
    case 'held':
    case 'discardHeld':
      // The writer's thread turns a held page into its rows' request (heldRequest) before it is applied.
      throw new Error(`a ${request.op} request reached the local copy`)
    case 'catalogItems':
      return copy.applyItemPage(request.page, request.context)
    case 'customers':
      return copy.applyCustomers(request.rows, request.context)
    case 'orders':
      return copy.applyOrders(request.rows, request.context)
    case 'finishBulk':
      copy.finishBulk()
      return { fetched: 0, upserted: 0, deleted: 0 }
    case 'recountItems':
      copy.recountItems(request.catalogGuids)
      return { fetched: 0, upserted: 0, deleted: 0 }
    case 'countRows':
      return request.listingId === null
        ? copy.countLive(request.resource, request.scope)
        : copy.countListedLive(request.resource, request.scope, request.listingId)
    case 'checkpoint':
      copy.checkpoint()
      return { fetched: 0, upserted: 0, deleted: 0 }
    case 'catalogUpdate':
      return copy.catalogUpdateJobs().slice()
  }
}

/**
 * A write's failure as the sync reports it: a full disk (SQLite's code, passed on by the worker) is
 * DISK_FULL for the writer's database, which the report keeps (failures.ts); anything else as it came.
 */
function writerFailure<E>(error: E, databasePath: string | undefined): E | DatabaseFileError {
  if (databasePath === undefined || !isNoRoom(error, databasePath)) return error
  const failure = new DatabaseFileError(databasePath, { kind: 'diskFull', cause: 'writing' }, 'app')
  failure.cause = error
  return failure
}

/** `databasePath`: the local copy's file, so a full disk is told for it (none for a database in memory). */
export function inlineWriter(copy: LocalCopy, databasePath?: string): PageWriter {
  const write = async <T>(work: () => T): Promise<T> => {
    try {
      return work()
    } catch (error) {
      throw writerFailure(error, databasePath)
    }
  }
  return {
    onThisThread: true,
    reader: null,
    applyHeld: () => Promise.reject(new Error('the inline writer holds no pages')),
    discardHeld: () => {},
    applyCatalogItems: (catalogGuid, rows, context) => write(() => copy.applyCatalogItems(catalogGuid, rows, context)),
    applyCustomers: (rows, context) => write(() => copy.applyCustomers(rows, context)),
    applyOrders: (rows, context) => write(() => copy.applyOrders(rows, context)),
    finishBulk: () => write(() => void applyRequest(copy, { op: 'finishBulk', rows: [] })),
    recountItems: (catalogGuids) =>
      write(() => void applyRequest(copy, { op: 'recountItems', catalogGuids, rows: [] })),
    countRows: (resource, scope, listingId) =>
      write(() => applyRequest(copy, { op: 'countRows', resource, scope, listingId, rows: [] }) as number),
    checkpoint: async () => {},
    catalogUpdateSlice: () => write(() => copy.catalogUpdateJobs().slice()),
    close: async () => {},
  }
}

/**
 * Starts the worker that writes pages and waits until its connection is open, so a worker that cannot
 * start (no native module for this runtime, say) is known before any page depends on it. Beside it,
 * the page reader (page-reader.ts), which decodes the listing pages a sync fetches and hands their rows
 * straight to the writer's thread: neither the rows nor a copy of them cross this thread.
 * `create` builds the Worker: the Electron build supplies its own bundle (see CoreConfig.ports).
 */
export async function startWorkerWriter(
  create: (data: SyncThreadData) => Worker,
  data: WriterWorkerData,
): Promise<PageWriter> {
  const channel = new MessageChannel()
  // Both threads start at once: each takes a few hundred ms to load its code in a source checkout.
  const [writing, reading] = await Promise.allSettled([
    startWorkerCalls<WithoutId<WriterRequest>>(create({ ...data, pages: channel.port1 }), {
      name: 'sync writer',
      readyMessage,
      closeMessage: closeRequest,
      post: (id, request) => ({ ...request, id }),
      answer: (message) => {
        const response = message as WriterResponse
        return response.ok ? { id: response.id, ok: true, value: response.counts } : response
      },
      failed: (message, code) =>
        writerFailure(
          Object.assign(new Error(`Writing synced data failed: ${message}`), code === undefined ? {} : { code }),
          data.databasePath,
        ),
    }),
    startPageReader(create, { role: 'reader', pages: channel.port2 }),
  ])
  if (writing.status === 'rejected' || reading.status === 'rejected') {
    if (writing.status === 'fulfilled') await writing.value.close()
    if (reading.status === 'fulfilled') await reading.value.close()
    throw writing.status === 'rejected' ? writing.reason : (reading as PromiseRejectedResult).reason
  }
  const calls = writing.value
  const reader: PageReader = reading.value
  const send = (request: WithoutId<WriterRequest>) =>
    calls.call(request) as Promise<ApplyCounts | number | CatalogUpdateProgress>
  return {
    onThisThread: false,
    reader,
    applyHeld: (page, context) => send({ op: 'held', ticket: page.ticket, context, rows: [] }) as Promise<ApplyCounts>,
    discardHeld: (page) => void send({ op: 'discardHeld', ticket: page.ticket, rows: [] }).catch(() => {}),
    applyCatalogItems: (catalogGuid, rows, context) =>
      send({
        op: 'catalogItems',
        page: prepareItemPage(catalogGuid, rows, context.listingId, context.serverTime),
        context,
      }) as Promise<ApplyCounts>,
    applyCustomers: (rows, context) => send({ op: 'customers', rows, context }) as Promise<ApplyCounts>,
    applyOrders: (rows, context) => send({ op: 'orders', rows, context }) as Promise<ApplyCounts>,
    finishBulk: async () => void (await send({ op: 'finishBulk', rows: [] })),
    recountItems: async (catalogGuids) => void (await send({ op: 'recountItems', catalogGuids, rows: [] })),
    countRows: (resource, scope, listingId) =>
      send({ op: 'countRows', resource, scope, listingId, rows: [] }) as Promise<number>,
    checkpoint: async () => void (await send({ op: 'checkpoint', rows: [] })),
    catalogUpdateSlice: () => send({ op: 'catalogUpdate', rows: [] }) as Promise<CatalogUpdateProgress>,
    // The reader first: no page reaches the writer's thread after it has closed.
    close: async () => {
      await reader.close()
      await calls.close()
    },
  }
}

/**
 * How the writer's thread is started, in a source checkout and in the Electron build alike. Its
 * young generation is capped: it allocates little that lives (a page's column values, gone once
 * written), yet V8 grew its new space towards the default 48 MB over a first sync, all of it in the
 * app's resident memory. At 4 MB the bench's first sync peaked 10-15 MB lower with the same rate
 * (scavenges of a few MB of short-lived values cost well under a millisecond each).
 */
export function syncThreadOptions(data: SyncThreadData): WorkerOptions {
  // The reader's young values (a page parsed, checked and prepared) die as its page is handed on; it
  // gets more room for them than the writer, whose values live until their commit.
  const youngMb = data.role === 'reader' ? 8 : 4
  return {
    workerData: data,
    resourceLimits: { maxYoungGenerationSizeMb: youngMb },
    ...(data.pages ? { transferList: [data.pages] } : {}),
  }
}

/**
 * The worker in a source checkout (tsx, the CLI, tests): the TypeScript file itself, behind tsx's
 * require hook (a worker does not inherit --import loaders). A bundled build has no such file and
 * passes its own factory instead (see CoreConfig.ports).
 */
export function sourceSyncThread(data: SyncThreadData): Worker {
  const resolve = createRequire(__filename).resolve
  const file = data.role === 'reader' ? 'reader-thread.ts' : 'writer-thread.ts'
  const bootstrap = `require(${JSON.stringify(resolve('tsx/cjs'))}); require(${JSON.stringify(join(__dirname, file))})`
  return new Worker(bootstrap, { eval: true, ...syncThreadOptions(data) })
}

/** Whether this code runs from source, where sourceSyncThread can start. */
export function runningFromSource(): boolean {
  return __filename.endsWith('.ts')
}
