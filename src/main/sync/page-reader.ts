/**
 * Sync's page reader: a thread that decodes the listing pages a sync fetches (inflates, parses and
 * checks them, and prepares catalog items as the writer stores them) and hands their rows straight
 * to the writer's thread. The thread that fetched a page gets back only what the paging needs of
 * it (ListedPage: its count, the keys of its first and last rows, what the service said of the
 * listing) and a ticket for the rows, which the writer's thread holds until told to write them.
 *
 * In the app the fetching thread is the window's main process thread, which also answers every call
 * the renderer makes: at a million items a first sync's pages are 2 GB of JSON, seconds of CPU in
 * turns of several milliseconds each, beside a writer that took the other core. The bytes cross here
 * as they came off the wire, about a tenth of that. (The inline writer, for a database in memory,
 * has no reader: its pages are decoded and written on the calling thread.)
 */
import type { Worker } from 'node:worker_threads'
import { ServiceError, type ServiceFailureKind } from '../ordering-client/errors'
import type { Listing } from '../ordering-client/listing-pages'
import type { WireReply } from '../ordering-client/reply-value'
import { startWorkerCalls } from '../worker-calls'
import type { ListedPage, StrayCheck } from './listed-pages'
import { closeRequest, readyMessage, type HeldPage, type ReaderWorkerData, type SyncThreadData } from './thread-data'

/** One page to decode: its listing, its bytes as they came, and the ticket its rows are held under. */
export interface ReadRequest {
  id: number
  ticket: number
  listing: Listing
  wire: Omit<WireReply, 'bytes'> & { bytes: Uint8Array }
  /** A catalog's item pages are checked for another catalog's items (listed-pages.ts's strayItems). */
  stray: StrayCheck | null
}

/** What comes back of a page: all but its rows, and the thread that decoded it. */
type ReadSummary = Omit<ListedPage<never>, 'rows'> & { decodedOn: number }

export type ReadAnswer =
  | { id: number; ok: true; summary: ReadSummary }
  | { id: number; ok: false; message: string; kind?: ServiceFailureKind; detail?: { status?: number; body?: unknown } }

export interface PageReader {
  /**
   * Decodes a page on the reader's thread, where its rows stay until the writer's thread takes them
   * (PageWriter.applyHeld or discardHeld). Fails as this thread's decoding would have (reply-value.ts,
   * listing-pages.ts), unredacted: the caller's transport redacts.
   */
  read(listing: Listing, wire: WireReply, stray: StrayCheck | null): Promise<ListedPage<never> & { decodedOn: number }>
  close(): Promise<void>
}

export async function startPageReader(
  create: (data: SyncThreadData) => Worker,
  data: ReaderWorkerData,
): Promise<PageReader> {
  const calls = await startWorkerCalls<Omit<ReadRequest, 'id'>>(create(data), {
    name: 'sync page reader',
    readyMessage,
    closeMessage: closeRequest,
    post: (id, request) => ({ ...request, id }),
    answer: (message) => {
      const answer = message as ReadAnswer
      return answer.ok
        ? { id: answer.id, ok: true, value: answer.summary }
        : { id: answer.id, ok: false, message: answer.message, code: answer.kind, detail: answer.detail }
    },
    // A service's fault stays one (a cut reply is tried again); anything else is the reader's own.
    failed: (message, kind, detail) =>
      kind === undefined
        ? new Error(`Reading a synced page failed: ${message}`)
        : new ServiceError(kind as ServiceFailureKind, message, (detail ?? {}) as { status?: number; body?: unknown }),
  })
  let nextTicket = 1
  return {
    async read(listing, wire, stray) {
      const held: HeldPage = { ticket: nextTicket++ }
      const summary = (await calls.call({ ticket: held.ticket, listing, wire, stray })) as ReadSummary
      return { ...summary, rows: held }
    },
    close: () => calls.close(),
  }
}
