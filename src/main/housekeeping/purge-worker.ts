/**
 * The purge's thread: its own connection to the database, deleting one slice per message (see
 * purge.ts). Its commits' WAL checkpoints (with their fsyncs) run here too, never on the main thread.
 */
import { parentPort, workerData } from 'node:worker_threads'
import { closeDatabase, openDatabase } from '../db/database'
import { DraftRepository } from '../orders/drafts'
import { Outbox } from '../orders/outbox/outbox'
import { systemClock } from '../ports'
import { QuoteRepository } from '../quotes/repository'
import {
  purgeWorkerClose,
  purgeWorkerReady,
  runSlice,
  type PurgeWorkerData,
  type PurgeWorkerResponse,
  type SliceRequest,
} from './purge-slices'

const data = workerData as PurgeWorkerData
// The main thread made the database: a missing one here is a fault to report, never one to make.
const db = openDatabase(data.databasePath, {
  create: false,
  ...(data.nativeBinding ? { nativeBinding: data.nativeBinding } : {}),
})
const tables = {
  db,
  outbox: new Outbox(db, new DraftRepository(db, systemClock), systemClock),
  quotes: new QuoteRepository(db),
}
parentPort?.postMessage(purgeWorkerReady)

parentPort?.on('message', (message: { id: number; request: SliceRequest } | typeof purgeWorkerClose) => {
  if (message === purgeWorkerClose) {
    try {
      // What the last slices left in the WAL, copied here rather than at the main thread's next commit.
      db.pragma('wal_checkpoint(PASSIVE)')
    } finally {
      closeDatabase(db)
      parentPort?.close()
    }
    return
  }
  let response: PurgeWorkerResponse
  try {
    response = { id: message.id, ok: true, result: runSlice(tables, message.request) }
  } catch (error) {
    response = { id: message.id, ok: false, message: error instanceof Error ? error.message : String(error) }
  }
  parentPort?.postMessage(response)
})
