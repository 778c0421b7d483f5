/**
 * What sync's two threads are started with and say to the main thread and to each other: the page
 * writer (writer-thread.ts, page-writer.ts) and the page reader (reader-thread.ts, page-reader.ts),
 * each its own entry.
 */
import type { MessagePort } from 'node:worker_threads'
import type { CustomerConnection } from '../ordering-client/listing-pages'
import type { OrderRecord } from '../ordering-client/schemas'
import type { Lease } from '../db/lease'
import type { PreparedItemPage } from '../local/item-page'

/** A page the reader thread decoded and handed to the writer's thread, which keeps it until told to write it or let it go. */
export interface HeldPage {
  readonly ticket: number
}

/** What the reader hands the writer's thread for a held page: catalog items prepared, as the main thread would. */
export type HeldRows =
  | { ticket: number; kind: 'catalogItems'; page: PreparedItemPage }
  | { ticket: number; kind: 'customers'; rows: CustomerConnection[] }
  | { ticket: number; kind: 'orders'; rows: OrderRecord[] }

/** Sent last: the worker closes its connection and ends. */
export const closeRequest = 'close'
/** The worker's first message, once its connection is open. */
export const readyMessage = 'ready'

export interface WriterWorkerData {
  role?: 'writer'
  databasePath: string
  nativeBinding?: string
  /**
   * The sync lease this process holds (Lease.forWriter): renewed in every transaction that writes
   * pages, so they commit only while it is held, and the main thread need not renew it meanwhile.
   */
  lease?: ReturnType<Lease['forWriter']>
  /** Where the page reader hands its pages (HeldRows); none when it runs without one. */
  pages?: MessagePort
}

export interface ReaderWorkerData {
  role: 'reader'
  /** Where it hands the writer's thread the rows of each page it decodes (HeldRows). */
  pages: MessagePort
}

/** Either of sync's threads: one factory starts both (CoreConfig.ports.syncThread), each from its own entry. */
export type SyncThreadData = WriterWorkerData | ReaderWorkerData
