/**
 * Turns of this thread's event loop, taken one caller at a time. Each caller's synchronous work runs
 * in a turn of its own, in the order they asked, with timers, I/O and IPC handled between any two.
 *
 * Awaiting setImmediate alone does not give that: every immediate queued before a check phase runs
 * in that phase, so pages that arrived together (up to the engine's write-ahead of eight) were all
 * checked, mapped and posted in one turn, 60-140 ms in the bench's first sync. Taking turns leaves
 * a reply that arrives meanwhile waiting for one page's work at most, not eight.
 */
export class Turns {
  private last: Promise<void> = Promise.resolve()

  /** Resolves in a turn of the event loop that no earlier caller's turn shares. */
  next(): Promise<void> {
    const turn = this.last.then(nextImmediate)
    this.last = turn
    return turn
  }
}

function nextImmediate(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve))
}
