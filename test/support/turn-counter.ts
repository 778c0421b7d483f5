/**
 * Counts turns of the event loop (check phases), for tests that say which work shared a turn: an
 * immediate that queues the next one runs once per turn.
 */
export function countTurns(): { now(): number; stop(): void } {
  let turn = 0
  let counting = true
  const count = () => {
    turn++
    if (counting) setImmediate(count)
  }
  setImmediate(count)
  return { now: () => turn, stop: () => void (counting = false) }
}
