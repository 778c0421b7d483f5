/**
 * The writes of a scope's pages not yet in: the scope's run holds it (scopes.ts), the paging feeds
 * and watches it (paging.ts) and the run waits on it (engine.ts).
 */

/**
 * A scope's pages on their way to the writer. Fetching goes on while they are written (and the
 * listing's catch-up and count go out before the last of them is in); what reads the scope's rows
 * back waits for drained() first.
 */
export class WritesInFlight {
  private readonly pending = new Set<Promise<void>>()
  private failure: { error: unknown } | null = null
  private onFailure: ((error: unknown) => void) | null = null

  get size(): number {
    return this.pending.size
  }

  add(write: Promise<void>): void {
    this.pending.add(write)
    write.then(
      () => this.pending.delete(write),
      (error: unknown) => {
        this.pending.delete(write)
        this.failure ??= { error }
        this.onFailure?.(error)
      },
    )
  }

  /** While fetching: a write that fails stops the fetching (at once, if one failed already). */
  watch(onFailure: (error: unknown) => void): () => void {
    this.onFailure = onFailure
    if (this.failure) onFailure(this.failure.error)
    return () => void (this.onFailure = null)
  }

  /** Until one more write settles. */
  async oneSettled(): Promise<void> {
    await Promise.race(this.pending).catch(() => {})
  }

  /** Until every write is in; throws the first that failed. */
  async drained(): Promise<void> {
    while (this.pending.size > 0) await Promise.allSettled([...this.pending])
    if (this.failure) throw this.failure.error
  }
}
