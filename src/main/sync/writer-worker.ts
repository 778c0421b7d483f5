/**
 * The worker thread that writes sync's pages (see page-writer.ts): its own connection to the
 * database, the same SyncStore, one page per message, each answered after the commit that holds it.
 */
import { parentPort, workerData } from 'node:worker_threads'
import { closeDatabase, openDatabase } from '../db/database'
import { Retention } from '../store/retention'
import { SyncStore } from '../store/sync-store'
import { applyRequest, closeRequest, readyMessage, type WriterRequest, type WriterResponse, type WriterWorkerData } from './page-writer'

const data = workerData as WriterWorkerData
const db = openDatabase(data.databasePath, data.nativeBinding ? { nativeBinding: data.nativeBinding } : {})
const store = new SyncStore(db, new Retention(db))
// This connection exists only while a sync runs: it keeps the bulk-write settings throughout.
store.beginBulkWrite()
parentPort?.postMessage(readyMessage)

/**
 * Pages that arrived together are written in one transaction (each in a savepoint of its own, so one
 * bad page fails alone). A commit writes every index page the rows touched, and rows arrive in guid
 * order, random for every index: fewer, larger commits write far fewer pages (50,000 items, runs
 * interleaved: 10.7-16.2 s against 17.8-21.3 s one page per commit). The main thread reads on
 * through WAL meanwhile; its own writes wait at most one such commit.
 */
const maxRowsPerCommit = 500
const queue: WriterRequest[] = []
let flushing = false

function flush(): void {
  flushing = false
  while (queue.length > 0) {
    const batch: WriterRequest[] = []
    let rows = 0
    while (queue.length > 0 && (batch.length === 0 || rows + queue[0]!.rows.length <= maxRowsPerCommit)) {
      const next = queue.shift()!
      rows += next.rows.length
      batch.push(next)
    }
    const responses: WriterResponse[] = []
    db.transaction(() => {
      for (const request of batch) {
        try {
          responses.push({ id: request.id, ok: true, counts: applyRequest(store, request) })
        } catch (error) {
          responses.push({ id: request.id, ok: false, message: error instanceof Error ? error.message : String(error) })
        }
      }
    })()
    for (const response of responses) parentPort?.postMessage(response)
  }
}

parentPort?.on('message', (request: WriterRequest | typeof closeRequest) => {
  if (request === closeRequest) {
    flush()
    closeDatabase(db)
    parentPort?.close()
    return
  }
  queue.push(request)
  // Gather what else is already waiting before writing.
  if (!flushing) {
    flushing = true
    setImmediate(flush)
  }
})
