/**
 * Whether a delta's cursor can be trusted, judged by the service's own clock (the engine's header,
 * "A cursor is not trusted once…"): the overlap and the gap, asked by the paging of every reply and
 * by the run after it.
 */
import type { Page } from '../ordering-client/client'
import { parseServerTime } from '../local/time'

/** The service replays this much before a cursor (spec, Limits): a cursor ahead by less misses nothing. */
const OVERLAP_MS = 60_000

/** A delta's cursor turned out to be ahead of the service's clock; the scope is listed in full instead. */
export class UntrustedCursor extends Error {
  constructor(
    readonly cursor: string,
    readonly reason: string,
    readonly serverTimestamp: string | null,
  ) {
    super(`Delta cursor ${cursor} not trusted: ${reason}`)
    this.name = 'UntrustedCursor'
  }
}

/**
 * Why `cursor` cannot be trusted, judged by a later reply of the service; null when it can (or when
 * either time is missing or unreadable). The laptop's clock plays no part.
 */
export function distrust(
  cursor: string | null,
  page: Pick<Page<unknown>, 'serverTimestamp'> | null,
): UntrustedCursor | null {
  const cursorMs = parseServerTime(cursor)
  const stampMs = parseServerTime(page?.serverTimestamp)
  if (cursor === null || cursorMs === null || stampMs === null || cursorMs - stampMs <= OVERLAP_MS) return null
  return new UntrustedCursor(
    cursor,
    `the service's serverTimestamp ${page!.serverTimestamp} is ${describeGap(cursorMs - stampMs)} behind it`,
    page!.serverTimestamp,
  )
}

function describeGap(ms: number): string {
  if (ms >= 2 * 60 * 60_000) return `${Math.round(ms / (60 * 60_000))} h`
  if (ms >= 2 * 60_000) return `${Math.round(ms / 60_000)} min`
  return `${Math.round(ms / 1000)} s`
}
