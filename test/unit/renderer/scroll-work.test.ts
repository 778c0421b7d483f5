import { afterEach, describe, expect, it, vi } from 'vitest'
import {
  OVERSCAN,
  overscanUnlessJumping,
  pagesAsTheViewRests,
  REST_AFTER_JUMP_MS,
  ROWS_AHEAD,
} from '../../../src/renderer/src/composables/rowRange'

/**
 * What a list scrolled at speed is spared: rows drawn ahead of a view that jumped (none, until the
 * rep moves row by row again), pages asked for a view gone before it rested, and pictures asked for
 * rows gone before the page was idle.
 */
const view = (startIndex: number, shown = 15) => ({
  startIndex,
  endIndex: startIndex + shown - 1,
  overscan: OVERSCAN,
  count: 100_000,
})

describe('rows drawn beyond the view', () => {
  it('draws the overscan on each side while the view moves row by row', () => {
    const rows = overscanUnlessJumping()
    expect(rows(view(1000))).toEqual(Array.from({ length: 15 + 2 * OVERSCAN }, (_, i) => 1000 - OVERSCAN + i))
    expect(rows(view(1003))).toHaveLength(15 + 2 * OVERSCAN)
  })

  it('draws only the view when it moved more than its own height, and the overscan again at the next small move', () => {
    const rows = overscanUnlessJumping()
    rows(view(1000))
    expect(rows(view(1250))).toEqual(Array.from({ length: 15 }, (_, i) => 1250 + i))
    expect(rows(view(1251))).toHaveLength(15 + 2 * OVERSCAN)
  })

  it('keeps the first rows whole at the top of the list', () => {
    expect(overscanUnlessJumping()(view(0))).toEqual(Array.from({ length: 15 + OVERSCAN }, (_, i) => i))
  })
})

describe('pages asked for as the view moves', () => {
  afterEach(() => vi.useRealTimers())

  /** A list of pages of 100 rows whose asks the test records, in order. */
  function pages() {
    vi.useFakeTimers()
    const asked: number[] = []
    const view = pagesAsTheViewRests(100, (page) => asked.push(page))
    return { view, asked }
  }

  it('asks at once for the pages of a view moved row by row, then for those ROWS_AHEAD beyond it', () => {
    expect(ROWS_AHEAD).toBe(50)
    const { view, asked } = pages()
    view.show(0, 14, true)
    expect(asked).toEqual([0])
    asked.length = 0
    view.show(10, 24)
    view.show(20, 34)
    view.show(30, 44)
    expect(asked).toEqual([0, 0, 0])
    asked.length = 0
    // Row 54 + 50 is on the next page: asked before a row of it is drawn.
    view.show(40, 54)
    expect(asked).toEqual([0, 1])
    asked.length = 0
    for (const first of [50, 60, 70, 80, 90]) view.show(first, first + 14)
    expect(asked.slice(-2)).toEqual([0, 1])
  })

  it('asks at once for a new search, however far its rows are', () => {
    const { view, asked } = pages()
    view.show(0, 14, true)
    asked.length = 0
    // The page drawn first, then the one ahead above it.
    view.show(5_020, 5_034, true)
    expect(asked).toEqual([50, 49])
  })

  it('asks for nothing while the view jumps, then only for the pages where it rested', () => {
    const { view, asked } = pages()
    view.show(0, 14, true)
    asked.length = 0
    for (let first = 250; first <= 2_520; first += 250) {
      view.show(first, first + 14)
      vi.advanceTimersByTime(REST_AFTER_JUMP_MS - 1)
    }
    expect(asked).toEqual([])
    vi.advanceTimersByTime(1)
    expect(asked).toEqual([25, 24])
  })

  it('asks at once when the rep moves row by row after a jump', () => {
    const { view, asked } = pages()
    view.show(0, 14, true)
    view.show(40_030, 40_044)
    asked.length = 0
    view.show(40_033, 40_047)
    expect(asked).toEqual([400, 399])
    vi.advanceTimersByTime(REST_AFTER_JUMP_MS)
    expect(asked).toEqual([400, 399])
  })

  it('asks again for the view where it is when told a page came in, but not while it rests after a jump', () => {
    const { view, asked } = pages()
    view.show(95, 109, true)
    asked.length = 0
    view.again()
    expect(asked).toEqual([0, 1])
    view.show(30_000, 30_014)
    asked.length = 0
    view.again()
    expect(asked).toEqual([])
    vi.advanceTimersByTime(REST_AFTER_JUMP_MS)
    expect(asked).toEqual([300, 299])
  })

  it('asks for nothing once the list is gone', () => {
    const { view, asked } = pages()
    view.show(0, 14, true)
    view.show(9_000, 9_014)
    view.dispose()
    vi.advanceTimersByTime(REST_AFTER_JUMP_MS)
    expect(asked).toEqual([0])
  })
})

describe('work that waits for an idle moment', () => {
  afterEach(() => {
    vi.unstubAllGlobals()
    vi.resetModules()
  })

  /** whenIdle against a browser whose idle moments the test hands out. */
  async function withIdleMoments() {
    const moments: ((deadline: { timeRemaining(): number; didTimeout: boolean }) => void)[] = []
    vi.stubGlobal('requestIdleCallback', (run: (typeof moments)[number]) => moments.push(run))
    const { whenIdle } = await import('../../../src/renderer/src/composables/whenIdle')
    const idle = (ms: number, didTimeout = false) => {
      let left = ms
      moments.shift()!({ timeRemaining: () => left--, didTimeout })
    }
    return { whenIdle, idle, moments }
  }

  it('runs nothing before the page is idle, and a task taken back never', async () => {
    const { whenIdle, idle, moments } = await withIdleMoments()
    const ran: string[] = []
    whenIdle(() => ran.push('stays'))
    const takeBack = whenIdle(() => ran.push('scrolled past'))
    expect(ran).toEqual([])
    expect(moments).toHaveLength(1)
    takeBack()
    idle(50)
    expect(ran).toEqual(['stays'])
    expect(moments).toHaveLength(0)
  })

  it('stops when the idle moment runs short and goes on at the next', async () => {
    const { whenIdle, idle } = await withIdleMoments()
    const ran: number[] = []
    for (let n = 0; n < 6; n++) whenIdle(() => ran.push(n))
    // 5, 4, 3 and 2 ms left: four start; at 1 ms the next waits for the next idle moment.
    idle(5)
    expect(ran).toEqual([0, 1, 2, 3])
    idle(50)
    expect(ran).toEqual([0, 1, 2, 3, 4, 5])
  })

  it('runs every waiting task once the wait for idleness ran out', async () => {
    const { whenIdle, idle } = await withIdleMoments()
    const ran: number[] = []
    for (let n = 0; n < 4; n++) whenIdle(() => ran.push(n))
    idle(0, true)
    expect(ran).toEqual([0, 1, 2, 3])
  })
})

describe('pictures in a list, a few at a time', () => {
  afterEach(() => {
    vi.useRealTimers()
    vi.unstubAllGlobals()
    vi.resetModules()
  })

  async function withTurns() {
    const moments: ((deadline: { timeRemaining(): number; didTimeout: boolean }) => void)[] = []
    vi.stubGlobal('requestIdleCallback', (run: (typeof moments)[number]) => moments.push(run))
    const turns = await import('../../../src/renderer/src/composables/pictureTurns')
    const idle = () => moments.shift()?.({ timeRemaining: () => 50, didTimeout: false })
    return { ...turns, idle }
  }

  it('starts at most PICTURES_AT_ONCE, at an idle moment, in the order the rows asked', async () => {
    const { takeTurn, idle, PICTURES_AT_ONCE } = await withTurns()
    const started: number[] = []
    const ends = Array.from({ length: 10 }, (_, n) => takeTurn(() => started.push(n)))
    expect(started).toEqual([])
    idle()
    expect(started).toEqual(Array.from({ length: PICTURES_AT_ONCE }, (_, n) => n))
    // A picture drawn gives its turn to the next row, at the next idle moment.
    ends[1]!()
    expect(started).toHaveLength(PICTURES_AT_ONCE)
    idle()
    expect(started).toEqual([...Array.from({ length: PICTURES_AT_ONCE }, (_, n) => n), PICTURES_AT_ONCE])
  })

  it('a row gone before its turn never starts, and one gone before the idle moment gives its turn back', async () => {
    const { takeTurn, idle, PICTURES_AT_ONCE } = await withTurns()
    const started: number[] = []
    const ends = Array.from({ length: PICTURES_AT_ONCE + 2 }, (_, n) => takeTurn(() => started.push(n)))
    ends[0]!() // holding a turn, not started: its turn goes to the first waiting row
    ends[PICTURES_AT_ONCE + 1]!() // waiting: never starts
    ends[0]!() // ending twice gives back one turn, not two
    idle()
    expect(started).toEqual(Array.from({ length: PICTURES_AT_ONCE }, (_, n) => n + 1))
  })

  it('gives up a turn held past LONGEST_TURN_MS, so one slow picture does not stop the list', async () => {
    vi.useFakeTimers()
    const { takeTurn, idle, PICTURES_AT_ONCE, LONGEST_TURN_MS } = await withTurns()
    const started: number[] = []
    for (let n = 0; n <= PICTURES_AT_ONCE; n++) takeTurn(() => started.push(n))
    idle()
    expect(started).toHaveLength(PICTURES_AT_ONCE)
    vi.advanceTimersByTime(LONGEST_TURN_MS - 1)
    idle()
    expect(started).toHaveLength(PICTURES_AT_ONCE)
    vi.advanceTimersByTime(1)
    idle()
    expect(started).toHaveLength(PICTURES_AT_ONCE + 1)
  })
})
