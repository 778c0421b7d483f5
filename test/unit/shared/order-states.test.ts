import { describe, expect, it } from 'vitest'
import { orderStateName, orderStateWords } from '../../../src/shared/order-states'

describe('order states in words', () => {
  it('says the interface’s states as people read them', () => {
    expect(['PRELIMINARY', 'SUBMITTED', 'SHIPPED', 'COMPLETED', 'CANCELLED'].map(orderStateWords)).toEqual([
      'In review',
      'Submitted',
      'Shipped',
      'Completed',
      'Cancelled',
    ])
    expect(orderStateWords(orderStateName(2))).toBe('Submitted')
  })

  it('puts a state it does not know, in capitals, in sentence case, and keeps one already in words', () => {
    expect(orderStateWords('PARTIALLY_SHIPPED')).toBe('Partially shipped')
    expect(orderStateWords('ON HOLD')).toBe('On hold')
    expect(orderStateWords('Awaiting payment')).toBe('Awaiting payment')
    expect(orderStateWords('State 42')).toBe('State 42')
  })
})
