/**
 * The single-item reads the pictures make to the ordering service (an item's attachments), kept
 * polite: one at a time, never beside each other; none at all until the time a 429 or 503's
 * Retry-After named; and, for the background pass, no more than a number an hour, so a laptop left
 * open adds little to the fleet's load on the service (docs/pictures.md, the fleet's figures).
 */

/** The service's single-item read, whose attachments name an item's pictures where the listing does not. */
export interface AttachmentReader {
  getCatalogItem(catalogGuid: string, guid: string): Promise<unknown>
}

/** No read now: the service asked to wait (until `until`), or the background's hourly reads are spent. */
export class ReadHeld extends Error {
  constructor(
    readonly until: number,
    readonly reason: 'retry-after' | 'hourly-cap',
    /** The read was made, and the answer was the service's 429 or 503. */
    readonly made = false,
  ) {
    super(reason === 'retry-after' ? 'the service asked to wait' : 'the hourly attachment reads are spent')
    this.name = 'ReadHeld'
  }
}

/** The background's reads an hour per laptop: what the fleet's request budget leaves after syncs and probes (docs/pictures.md). */
export const backgroundReadsPerHour = 2

const hourMs = 3600_000

/** Retry-After of a failed read, where the service sent one with a 429 or 503 (the client's ServiceError). */
function askedToWait(error: unknown): number | null {
  const { status, retryAfterMs } = (error ?? {}) as { status?: unknown; retryAfterMs?: unknown }
  if (status !== 429 && status !== 503) return null
  return typeof retryAfterMs === 'number' && retryAfterMs >= 0 ? retryAfterMs : 60_000
}

export class AttachmentReads {
  /** Reads made: each is a request to the ordering service. */
  count = 0
  private turn: Promise<unknown> = Promise.resolve()
  private heldUntil = 0
  private readonly background: number[] = []

  constructor(
    private readonly reader: AttachmentReader,
    private readonly now: () => number,
    private readonly perHour = backgroundReadsPerHour,
  ) {}

  /** Until when the service asked not to be asked (0 when it did not, or that time has passed). */
  held(): number {
    return this.heldUntil > this.now() ? this.heldUntil : 0
  }

  /** The item's record; one read at a time, in the order asked. Throws ReadHeld without asking. */
  read(catalogGuid: string, guid: string, background: boolean): Promise<unknown> {
    const next = this.turn.then(() => this.readNow(catalogGuid, guid, background))
    this.turn = next.catch(() => undefined)
    return next
  }

  private async readNow(catalogGuid: string, guid: string, background: boolean): Promise<unknown> {
    const now = this.now()
    if (this.heldUntil > now) throw new ReadHeld(this.heldUntil, 'retry-after')
    if (background) {
      while (this.background.length > 0 && this.background[0]! <= now - hourMs) this.background.shift()
      if (this.background.length >= this.perHour) throw new ReadHeld(this.background[0]! + hourMs, 'hourly-cap')
      this.background.push(now)
    }
    this.count++
    try {
      return await this.reader.getCatalogItem(catalogGuid, guid)
    } catch (error) {
      const wait = askedToWait(error)
      if (wait === null) throw error
      this.heldUntil = Math.max(this.heldUntil, this.now() + wait)
      throw new ReadHeld(this.heldUntil, 'retry-after', true)
    }
  }
}
