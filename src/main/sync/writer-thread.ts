/**
 * The worker thread that writes sync's pages (see page-writer.ts): its own connection to the
 * database, the same LocalCopy, one page per message, each answered after the commit that holds it.
 * The rows of most pages come from the page reader's thread (page-reader.ts), not the main thread.
 */
import { parentPort, workerData } from 'node:worker_threads'
import { closeDatabase, openDatabase } from '../db/database'
import { Lease } from '../db/lease'
import { openLocalData } from '../local/data'
import { applyRequest, heldRequest, requestSize, type WriterRequest, type WriterResponse } from './page-writer'
import { closeRequest, readyMessage, type HeldRows, type WriterWorkerData } from './thread-data'

function runPageWriter(data: WriterWorkerData): void {
  // The main thread made the database: a missing one here is a fault to report, never one to make.
  const db = openDatabase(data.databasePath, {
    create: false,
    ...(data.nativeBinding ? { nativeBinding: data.nativeBinding } : {}),
  })
  // The writer's own connection: its own surface on it.
  const copy = openLocalData(db).copy
  // This connection exists only while a sync runs: it keeps the bulk-write settings throughout. Its
  // checkpoints run on this thread, so they may come less often than the main thread's (which stall the
  // window): every 32 MB of WAL rather than 1 MB during a first listing (of items, customers or orders),
  // whose pages are new and written once (first syncs measured the same at 8 and 32 MB, 11,400-14,200
  // items/s; the index builds that end one follow its orders' first page, and keep that). Other writes
  // (deltas, a known catalog's listing) land on pages all over a large database, and a page written
  // by several commits is copied by every checkpoint between them: a delta of 10,000 changes at a
  // million items wrote 170 MB of WAL, and seven checkpoints inside its commits took 2-3 s of its
  // 6 s. They wait for the one that runs after the run (SyncEngine.run), unless the WAL passes 256 MB
  // (journal_size_limit, database.ts, gives the file's room back once it is copied).
  copy.beginBulkWrite()
  // The catalog update's slices (an upgrade's copy and fills) write their pages once, as a first
  // listing does, while the window's connection leaves its checkpoints to this one (sync/catalog-update.ts).
  const checkpointPages = { firstListing: 8000, catalogUpdate: 8000, otherwise: 65536 }
  let checkpointEvery = 0
  function checkpointFor(batch: readonly WriterRequest[]): void {
    checkpointEveryPages(
      batch.some((request) => 'context' in request && request.context.fresh)
        ? checkpointPages.firstListing
        : checkpointPages.otherwise,
    )
  }
  function checkpointEveryPages(pages: number): void {
    if (pages === checkpointEvery) return
    db.pragma(`wal_autocheckpoint = ${pages}`)
    checkpointEvery = pages
  }
  checkpointFor([])
  // The main thread's lease, on this connection: renewed in each batch's transaction (Lease.renew
  // throws LeaseLostError once another process has taken it over, and the batch commits nothing).
  const lease = data.lease
    ? new Lease(db, data.lease.name, {
        label: 'the sync writer',
        owner: data.lease.owner,
        ttlMs: data.lease.ttlMs,
        clock: { now: () => Date.now() + data.lease!.clockOffsetMs },
      })
    : null
  parentPort?.postMessage(readyMessage)

  /**
   * Pages that arrived together are written in one transaction (each in a savepoint of its own, so one
   * bad page fails alone). A commit writes every index page the rows touched and flushes a full-text
   * segment, so fewer, larger commits write far less: 30,000 items of a first sync, pages already
   * fetched, went from 3,160 to 5,418 items/s between 500 and 2,000 rows per commit (50,000 items one
   * page per commit against 500 had shown the same: 17.8-21.3 s against 10.7-16.2 s). The engine keeps
   * enough pages coming for a batch to fill (SyncEngine's writeAhead). The main thread reads on through
   * WAL meanwhile; its own writes wait at most one such commit.
   */
  const maxRowsPerCommit = 2000
  const queue: WriterRequest[] = []
  let flushing = false
  const wake = () => {
    if (flushing || queue.length === 0) return
    flushing = true
    // Gather what else is already waiting before writing.
    setImmediate(flush)
  }

  /**
   * The rows of pages the reader decoded for this thread (page-reader.ts), by ticket, until a `held`
   * request writes them or a `discardHeld` lets them go. They come on a channel of their own, so a
   * page's rows may come after the request that writes it: the queue waits for them at its front.
   */
  const heldRows = new Map<number, HeldRows>()
  const letGo = new Set<number>()
  data.pages?.on('message', (rows: HeldRows) => {
    if (letGo.delete(rows.ticket)) return
    heldRows.set(rows.ticket, rows)
    wake()
  })

  /** The queue's first request, a held page's turned into its rows' own; null while they are on their way. */
  function front(): WriterRequest | null {
    const request = queue[0]!
    if (request.op !== 'held') return request
    const rows = heldRows.get(request.ticket)
    if (!rows) return null
    heldRows.delete(request.ticket)
    return (queue[0] = heldRequest(request.id, rows, request.context))
  }

  function flush(): void {
    flushing = false
    while (queue.length > 0) {
      const first = front()
      if (first === null) return
      if (runsAlone(first)) {
        // Alone, outside a batch: the index builds commit one by one (LocalCopy.finishBulk), so the main
        // connection's writes wait for one build at most.
        const request = queue.shift()!
        parentPort?.postMessage(request.op === 'catalogUpdate' ? catalogUpdateSlice(request) : respond(request))
        continue
      }
      const batch: WriterRequest[] = []
      let rows = 0
      let next: WriterRequest | null
      while (
        queue.length > 0 &&
        (next = front()) !== null &&
        !runsAlone(next) &&
        (batch.length === 0 || rows + requestSize(next) <= maxRowsPerCommit)
      ) {
        const next = queue.shift()!
        rows += requestSize(next)
        batch.push(next)
      }
      const responses: WriterResponse[] = []
      // IMMEDIATE: the main connection writes while a sync runs (lease renewals, drafts, the outbox).
      // A deferred transaction that read a row before that write committed could not write after it
      // (SQLite answers "database is locked" at once, with no wait); taking the write lock first makes
      // the page wait its turn instead.
      try {
        checkpointFor(batch)
        db.transaction(() => {
          lease?.renew()
          for (const request of batch) responses.push(respond(request))
        }).immediate()
      } catch (error) {
        // Nothing of the batch committed (the lease was lost, or the transaction failed): every page in
        // it fails, and the sync stops with this reason.
        responses.splice(0, responses.length, ...batch.map((request) => failure(request, error)))
      }
      for (const response of responses) parentPort?.postMessage(response)
    }
  }

  /** Requests that make transactions of their own (index builds, the recount, the checkpoint, a catalog update slice), outside any batch. */
  function runsAlone(request: WriterRequest): boolean {
    return (
      request.op === 'finishBulk' ||
      request.op === 'recountItems' ||
      request.op === 'checkpoint' ||
      request.op === 'catalogUpdate'
    )
  }

  /**
   * One slice of an upgrade's catalog update (local/catalog-update-jobs.ts), with the lease renewed in its
   * transaction as a batch of pages renews it: the update holds the sync lease for minutes at a million
   * items, and another process must not take it for stale meanwhile.
   */
  function catalogUpdateSlice(request: WriterRequest): WriterResponse {
    checkpointEveryPages(checkpointPages.catalogUpdate)
    try {
      return db
        .transaction(() => {
          lease?.renew()
          return respond(request)
        })
        .immediate()
    } catch (error) {
      return failure(request, error)
    }
  }

  function respond(request: WriterRequest): WriterResponse {
    try {
      return { id: request.id, ok: true, counts: applyRequest(copy, request) }
    } catch (error) {
      return failure(request, error)
    }
  }

  /** A request that failed, with SQLite's code: the main thread tells a full disk (SQLITE_FULL) by it. */
  function failure(request: WriterRequest, error: unknown): WriterResponse {
    const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined
    return {
      id: request.id,
      ok: false,
      message: error instanceof Error ? error.message : String(error),
      ...(typeof code === 'string' ? { code } : {}),
    }
  }

  parentPort?.on('message', (request: WriterRequest | typeof closeRequest) => {
    if (request === closeRequest) {
      flush()
      data.pages?.close()
      closeDatabase(db)
      parentPort?.close()
      return
    }
    if (request.op === 'discardHeld') {
      if (!heldRows.delete(request.ticket)) letGo.add(request.ticket)
      parentPort?.postMessage({ id: request.id, ok: true, counts: { fetched: 0, upserted: 0, deleted: 0 } })
      return
    }
    queue.push(request)
    wake()
  })
}

runPageWriter(workerData as WriterWorkerData)
