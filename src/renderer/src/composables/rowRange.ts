import { defaultRangeExtractor, type Range } from '@tanstack/vue-virtual'

/**
 * Rows drawn beyond each edge of the view, so a wheel or a key brings in rows already there: two
 * frames of a fast wheel. Few, since a page landing under them draws them all again at once; the
 * pages ROWS_AHEAD keep their items in before they are drawn.
 */
export const OVERSCAN = 6

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

/** After a jump, how long the view stays where it landed before its pages are asked for. */
export const REST_AFTER_JUMP_MS = 100
/**
 * Rows beyond each edge of the rows drawn whose pages are asked for too: a page in before its rows
 * are drawn costs the frame it lands in only its parsing, where a page that lands under drawn rows
 * has them all drawn again at once, in whatever frame the rep's scroll is in.
 */
export const ROWS_AHEAD = 50

/**
 * When to ask for the pages a view shows: at once while the rep scrolls row by row (with the rows
 * ahead, so a page is in before its rows are drawn), or when a new search starts; after a jump (the
 * view moved past all the rows it had drawn), only once the view has rested REST_AFTER_JUMP_MS where
 * it landed. A scrollbar dragged through 100,000 rows passes pages in every frame; each one asked
 * for is a query in the core and a page of rows drawn in the window, for a view already gone. Rows
 * passed at speed show their placeholder instead.
 */
export function pagesAsTheViewRests(
  pageSize: number,
  fetch: (page: number) => void,
  restMs = REST_AFTER_JUMP_MS,
): { show(first: number, last: number, fresh?: boolean): void; again(): void; dispose(): void } {
  let shown: { first: number; last: number } | null = null
  let resting: ReturnType<typeof setTimeout> | undefined
  const pageOf = (row: number) => Math.floor(Math.max(0, row) / pageSize)
  const fetchShown = () => {
    resting = undefined
    if (!shown) return
    // The pages of the rows drawn first, then those of the rows ahead on either side.
    const first = pageOf(shown.first)
    const last = pageOf(shown.last)
    for (let page = first; page <= last; page++) fetch(page)
    for (let page = pageOf(shown.first - ROWS_AHEAD); page < first; page++) fetch(page)
    for (let page = last + 1; page <= pageOf(shown.last + ROWS_AHEAD); page++) fetch(page)
  }
  return {
    /** The view shows rows `first` to `last`; `fresh` when they belong to a search just started. */
    show(first, last, fresh = false) {
      const jumped = shown !== null && !fresh && Math.abs(first - shown.first) > last - first + 1
      shown = { first, last }
      clearTimeout(resting)
      if (jumped) resting = setTimeout(fetchShown, restMs)
      else fetchShown()
    },
    /** Asks again for the view where it is (a page has come in), unless it is resting after a jump. */
    again() {
      if (resting === undefined) fetchShown()
    },
    dispose() {
      clearTimeout(resting)
    },
  }
}
