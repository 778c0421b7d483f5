/**
 * The entry of sync's two worker threads, one file for both, so the app's and the CLI's builds each
 * bundle one worker: the page writer (writer-thread.ts) and the page reader (reader-thread.ts), as
 * workerData.role says (page-writer.ts starts both).
 */
import { workerData } from 'node:worker_threads'
import { runPageReader } from './reader-thread'
import type { SyncThreadData } from './thread-data'
import { runPageWriter } from './writer-thread'

const data = workerData as SyncThreadData
if (data.role === 'reader') runPageReader(data)
else runPageWriter(data)
