/**
 * How far V8 lets a heap's old generation grow past what its last full collection left alive before
 * it collects again. With 2 GB or more allowed for the heap (any laptop with 8 GB, as the app and the
 * CLI run by default) V8 allows up to 4 times; below that, 1.3 to 2 times. A sync moves the service's
 * pages through the main thread at 10-20 MB/s of short-lived records, and V8 moves some of every page
 * into the old generation (2-2.5 MB a young collection during a first sync's item scopes, measured with
 * --trace-gc-nvp, while no page is held once it is handed to the writer: sync-engine-memory.test.ts):
 * with 25-40 MB alive, the main thread's heap climbed to 130-150 MB between full collections, the
 * largest part of the first sync's peak resident memory, and the writer thread's to 50 MB with 10-15
 * alive. At twice what is alive, bench:first-sync-memory's peak at a million items went from 303 to
 * 241 MB with the same rate. At 1.5 times it was 10-20 MB lower again, but the main thread ran a
 * full collection twice a second (pauses to 32 ms on the shared machine, as long as its longest
 * scavenges); at twice, 10 in a first sync at 100,000 items instead of 27, pauses to 12 ms.
 *
 * A V8 setting, set once at run time: it holds for every heap of the process from the next full
 * collection on, the Electron main process, the CLI and the benches alike (a command-line flag would
 * not reach the packaged app's main process).
 */
import { setFlagsFromString } from 'node:v8'

/** The old generation's growth between full collections, in percent of what the last one left alive. */
export const heapGrowingPercent = 100

let set = false

/** Sets heapGrowingPercent for the whole process, once. */
export function limitHeapGrowth(): void {
  if (set) return
  set = true
  setFlagsFromString(`--heap-growing-percent=${heapGrowingPercent}`)
}
