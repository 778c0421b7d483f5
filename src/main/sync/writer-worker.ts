/**
 * The worker thread that writes sync's pages (see page-writer.ts): its own connection to the
 * database, the same SyncStore, one page per message, answered after the page's commit.
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

parentPort?.on('message', (request: WriterRequest | typeof closeRequest) => {
  if (request === closeRequest) {
    closeDatabase(db)
    parentPort?.close()
    return
  }
  let response: WriterResponse
  try {
    response = { id: request.id, ok: true, counts: applyRequest(store, request) }
  } catch (error) {
    response = { id: request.id, ok: false, message: error instanceof Error ? error.message : String(error) }
  }
  parentPort?.postMessage(response)
})
