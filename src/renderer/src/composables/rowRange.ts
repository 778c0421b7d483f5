import { defaultRangeExtractor, type Range } from '@tanstack/vue-virtual'

/** Rows drawn beyond each edge of the view, so a wheel or a key brings in rows already there. */
export const OVERSCAN = 12

/**
 * The rows to draw for the view: the overscan on both sides while the rep scrolls row by row, none
 * when the view moved more than its own height since the last (a scrollbar dragged, a key to the
 * end). Rows drawn ahead of a view that is gone before they are reached are work for nothing: 24
 * rows in every frame of a drag through 100,000. The next small move draws them again.
 */
export function overscanUnlessJumping(): (range: Range) => number[] {
  let lastStart: number | null = null
  return (range) => {
    const shown = range.endIndex - range.startIndex + 1
    const jumped = lastStart !== null && Math.abs(range.startIndex - lastStart) > shown
    lastStart = range.startIndex
    return defaultRangeExtractor(jumped ? { ...range, overscan: 0 } : range)
  }
}
