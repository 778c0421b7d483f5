/**
 * The sync writer's requests that hold SQLite's write lock for seconds at a million items: the
 * indexes a first sync builds at its end (finishBulk, 1 to 3 s each), the recount after it, and the
 * catalog update's slices, one of which rebuilds a whole index (itemKeys: 0.8 to 3.1 s). A write on
 * the window's connection meanwhile waits in SQLite's busy handler, which sleeps on the calling
 * thread: the whole main process, window included, would stand still for that long. The rep's writes
 * (core/handlers.ts, writingMethods) wait here instead, asynchronously, and run the moment the
 * request is answered: before the writer's next request, which the main thread posts no sooner.
 */
import type { PageWriter } from './page-writer'

export class LongWrites {
  private readonly inFlight = new Set<Promise<unknown>>()

  /** Holds `work` as in flight until it settles; returns it unchanged. */
  track<T>(work: Promise<T>): Promise<T> {
    const held = work.then(
      () => undefined,
      () => undefined,
    )
    this.inFlight.add(held)
    void held.then(() => this.inFlight.delete(held))
    return work
  }

  /** Resolves once none is in flight, those begun meanwhile included; at once when none is. */
  async settled(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.all([...this.inFlight])
  }
}

/** `writer` with its long requests tracked by `longWrites`; the rest as they are. */
export function trackingLongWrites(writer: PageWriter, longWrites: LongWrites): PageWriter {
  return {
    onThisThread: writer.onThisThread,
    reader: writer.reader,
    applyHeld: (page, context) => writer.applyHeld(page, context),
    discardHeld: (page) => writer.discardHeld(page),
    applyCatalogItems: (catalogGuid, rows, context) => writer.applyCatalogItems(catalogGuid, rows, context),
    applyCustomers: (rows, context) => writer.applyCustomers(rows, context),
    applyOrders: (rows, context) => writer.applyOrders(rows, context),
    finishBulk: () => longWrites.track(writer.finishBulk()),
    recountItems: (listedCatalogs) => longWrites.track(writer.recountItems(listedCatalogs)),
    countRows: (resource, scope, listingId) => writer.countRows(resource, scope, listingId),
    checkpoint: () => writer.checkpoint(),
    catalogUpdateSlice: () => longWrites.track(writer.catalogUpdateSlice()),
    close: () => writer.close(),
  }
}
