/**
 * How far V8 lets a heap's old generation grow past what its last full collection left alive before
 * it collects again. With 2 GB or more allowed for the heap (any laptop with 8 GB, as the app and the
 * CLI run by default) V8 allows up to 4 times; below that, 1.3 to 2 times. A sync moves the service's
 * pages through the main thread at 10-20 MB/s of short-lived records, and V8 moves some of them into
 * the old generation: 2-2.5 MB a young collection during a first sync's item scopes while zod checked
 * the pages' items arrays, 0.1-0.25 MB since (--trace-gc-nvp; schemas.ts, catalogItemsIssues). With
 * 25-40 MB alive, the main thread's heap had climbed to 130-150 MB between full collections, and over
 * a million-item first sync it still reached 106 MB at V8's own growth (peak RSS 280 MB); the writer
 * thread's went to 50 MB with 10-15 alive. At twice what is alive, bench:first-sync-memory's peak at a
 * million items is 245 MB (303 before both changes), the main thread's heap 83 MB, the writer's 30,
 * with 2 full collections of the main thread in a first sync at 100,000 items. 1.5 times was tried:
 * 10-20 MB lower, but a full collection twice a second, pauses to 32 ms on the shared machine.
 *
 * A V8 setting, set once at run time: it holds for every heap of the process from the next full
 * collection on, the Electron main process, the CLI and the benches alike (a command-line flag would
 * not reach the packaged app's main process). V8 can freeze its flags once initialised, and a flag
 * set after that aborts the process; Node and Electron's main process both start V8 with
 * --no-freeze-flags-after-init (Electron: shell/browser/javascript_environment.cc), which is what
 * lets v8.setFlagsFromString work there.
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
