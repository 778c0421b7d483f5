/**
 * The requests a scope's paging has on the wire, at most `size` at once. A request gives its slot
 * back as soon as its reply's bytes are in (the service client calls onReceived before decoding
 * them), so the next request goes out while this thread still decodes the reply: over a WAN the
 * slot would otherwise sit idle for the decode, and for the decodes of the replies that arrived
 * with it (several milliseconds each, a few percent of every 80 ms round trip).
 */
export class RequestSlots {
  private free: number
  private readonly waiting: (() => void)[] = []

  constructor(size: number) {
    this.free = Math.max(1, size)
  }

  /** Resolves once a slot is free, in the order asked, with the function that gives it back (once). */
  async take(): Promise<() => void> {
    if (this.free > 0) this.free--
    else await new Promise<void>((resolve) => this.waiting.push(resolve))
    let held = true
    return () => {
      if (!held) return
      held = false
      const next = this.waiting.shift()
      if (next) next()
      else this.free++
    }
  }
}
