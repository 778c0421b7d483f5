import { describe, expect, it } from 'vitest'
import { Turns } from '../../../src/main/turns'
import { countTurns } from '../../support/turn-counter'

describe('Turns', () => {
  it('gives callers that ask together a turn of the event loop each, in the order they asked', async () => {
    const counter = countTurns()
    const turns = new Turns()
    const taken: [number, number][] = []
    await Promise.all(
      Array.from({ length: 6 }, (_, caller) => turns.next().then(() => void taken.push([caller, counter.now()]))),
    )
    counter.stop()
    expect(taken.map(([caller]) => caller)).toEqual([0, 1, 2, 3, 4, 5])
    expect(new Set(taken.map(([, at]) => at)).size).toBe(6)
  })
})
