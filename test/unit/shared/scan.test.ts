import { describe, expect, it } from 'vitest'
import { readScan } from '../../../src/shared/scan'

describe('readScan: the scan box’s code and quantity', () => {
  it('reads a code alone, and a whole quantity after it as reps write one', () => {
    expect(readScan('  BCF-10001 ')).toEqual({ code: 'BCF-10001', qty: undefined })
    expect(readScan('BCF-10001 4')).toEqual({ code: 'BCF-10001', qty: 4 })
    expect(readScan('BCF-10001 x 2')).toEqual({ code: 'BCF-10001', qty: 2 })
    expect(readScan('BCF-10001 X2')).toEqual({ code: 'BCF-10001', qty: 2 })
    expect(readScan('BCF-10001 × 3')).toEqual({ code: 'BCF-10001', qty: 3 })
    expect(readScan('BCF-10001*3')).toEqual({ code: 'BCF-10001', qty: 3 })
    expect(readScan('(01)00067191014636(17)271231')).toEqual({ code: '(01)00067191014636(17)271231', qty: undefined })
  })

  it('refuses a quantity that is not a whole number above zero, saying it is the quantity', () => {
    expect(readScan('BCF-10001 -1')).toEqual({
      code: 'BCF-10001',
      refused: 'BCF-10001 not added: the quantity “-1” — enter a quantity above zero.',
    })
    expect(readScan('BCF-10001 1.5').refused).toBe(
      'BCF-10001 not added: the quantity “1.5” — enter a whole number: items are ordered in whole units.',
    )
    expect(readScan('BCF-10001 x').refused).toBe(
      'BCF-10001 not added: the quantity “x” — enter the quantity as a number.',
    )
    expect(readScan('BCF-10001 0').refused).toBe('BCF-10001 not added: the quantity “0” — enter a quantity above zero.')
    expect(readScan('BCF-10001 2000000').refused).toMatch(/the quantity “2000000” — enter a quantity of at most/)
    expect(readScan('BCF-10001*').refused).toBe('BCF-10001 not added: no quantity — enter the quantity as a number.')
    expect(readScan('BCF-10001 4 4').refused).toMatch(/the quantity “4 4”/)
  })
})
