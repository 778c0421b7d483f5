/**
 * Pictures in a list load a few at a time. A screenful of rows settling at once would otherwise ask
 * for all its pictures together; each answer is handled on the page's main thread, and a burst of
 * them landing in the same few frames takes the frames of a scroll still moving (docs/pictures.md).
 * A turn starts at an idle moment (whenIdle) and ends when its picture is drawn or failed, or its row
 * is gone; rows ask in the order they appeared, so a screen fills from the top.
 */
import { whenIdle } from './whenIdle'

/** Pictures loading at once: a screenful fills in a few hundred ms and no frame handles more than a few answers. */
export const PICTURES_AT_ONCE = 4
/** A turn held this long is given up (its picture may still come): one slow answer does not stop the list. */
export const LONGEST_TURN_MS = 2000

interface Turn {
  start: () => void
  state: 'waiting' | 'held' | 'ended'
  takeBack?: () => void
  timer?: ReturnType<typeof setTimeout>
}

const waiting = new Set<Turn>()
let held = 0

function giveTurns(): void {
  for (const turn of waiting) {
    if (held >= PICTURES_AT_ONCE) return
    waiting.delete(turn)
    held++
    turn.state = 'held'
    turn.takeBack = whenIdle(() => {
      turn.timer = setTimeout(() => end(turn), LONGEST_TURN_MS)
      turn.start()
    })
  }
}

function end(turn: Turn): void {
  if (turn.state === 'ended') return
  if (turn.state === 'waiting') waiting.delete(turn)
  else {
    turn.takeBack?.()
    clearTimeout(turn.timer)
    held--
  }
  turn.state = 'ended'
  giveTurns()
}

/**
 * Runs `start` when a turn is free and the page is idle. The returned function ends the turn: call it
 * when the picture is drawn or failed, or its box is gone (before it started, `start` never runs).
 */
export function takeTurn(start: () => void): () => void {
  const turn: Turn = { start, state: 'waiting' }
  waiting.add(turn)
  giveTurns()
  return () => end(turn)
}
