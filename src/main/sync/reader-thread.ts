/**
 * The page reader's thread (page-reader.ts): each page's bytes inflated, parsed and checked as the
 * fetching thread would have (reply-value.ts, listing-pages.ts), a catalog's items checked for
 * another catalog's and prepared as the writer stores them (item-page.ts), the rows handed to the
 * writer's thread, and the page's summary back to the thread that asked.
 */
import { parentPort, threadId, workerData } from 'node:worker_threads'
import { ServiceError } from '../ordering-client/errors'
import { listingPage } from '../ordering-client/listing-pages'
import { replyValue } from '../ordering-client/reply-value'
import type { CatalogItemRecord } from '../ordering-client/schemas'
import { prepareItemPage } from '../local/item-page'
import { keysOf, strayItems } from './listed-pages'
import type { ReadAnswer, ReadRequest } from './page-reader'
import { closeRequest, readyMessage, type HeldRows, type ReaderWorkerData } from './thread-data'

function runPageReader(data: ReaderWorkerData): void {
  const writer = data.pages

  function read(request: ReadRequest): ReadAnswer {
    const { listing, wire } = request
    const bytes = Buffer.from(wire.bytes.buffer, wire.bytes.byteOffset, wire.bytes.byteLength)
    const page = listingPage(listing, replyValue({ ...wire, bytes }))
    let rows: HeldRows
    if (listing.kind === 'catalogItems') {
      const items = page.rows as CatalogItemRecord[]
      const stray = request.stray && strayItems(items, request.stray)
      if (stray) throw stray
      // Prepared before its listing and time are known; the writer's thread stamps them (stampItemPage).
      rows = {
        ticket: request.ticket,
        kind: 'catalogItems',
        page: prepareItemPage(listing.catalogGuid, items, null, null),
      }
    } else {
      rows = { ticket: request.ticket, kind: listing.kind, rows: page.rows } as HeldRows
    }
    // Before the summary: the writer's thread has the rows by the time it is told to write them, or soon after.
    writer.postMessage(rows)
    return {
      id: request.id,
      ok: true,
      summary: {
        ...keysOf(listing.kind, page.rows),
        serverTimestamp: page.serverTimestamp,
        total: page.total,
        hasMore: page.hasMore,
        decodedOn: threadId,
      },
    }
  }

  parentPort?.on('message', (message: ReadRequest | typeof closeRequest) => {
    if (message === closeRequest) {
      writer.close()
      parentPort?.close()
      return
    }
    let answer: ReadAnswer
    try {
      answer = read(message)
    } catch (error) {
      answer =
        error instanceof ServiceError
          ? {
              id: message.id,
              ok: false,
              message: error.message,
              kind: error.kind,
              detail: { status: error.status, body: error.body },
            }
          : { id: message.id, ok: false, message: error instanceof Error ? error.message : String(error) }
    }
    parentPort?.postMessage(answer)
  })
  parentPort?.postMessage(readyMessage)
}

// Its own entry, apart from the writer's: this thread loads no database code, and its memory is the app's.
runPageReader(workerData as ReaderWorkerData)
