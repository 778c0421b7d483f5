import { describe, expect, it } from 'vitest'
import { formatMoney } from '../../../src/shared/money'

describe('formatMoney', () => {
  it('is en-US dollars by default, as the core and the CLI write them', () => {
    expect(formatMoney(1234.5)).toBe('$1,234.50')
    expect(formatMoney(-3)).toBe('-$3.00')
    expect(formatMoney(0)).toBe('$0.00')
  })

  it('writes the amount in the locale a screen passes', () => {
    expect(formatMoney(1234.5, 'de-DE')).toBe('1.234,50\u00a0$')
    expect(formatMoney(1234.5, 'en-GB')).toBe('US$1,234.50')
    expect(formatMoney(1234.5, 'en-US', 'EUR')).toBe('€1,234.50')
  })

  it('keeps one formatter per locale and currency, so the last call does not change the next', () => {
    expect(formatMoney(1, 'de-DE')).toBe('1,00\u00a0$')
    expect(formatMoney(1)).toBe('$1.00')
    expect(formatMoney(1, 'de-DE', 'EUR')).toBe('1,00\u00a0€')
    expect(formatMoney(1, 'de-DE')).toBe('1,00\u00a0$')
  })

  it("says '—' for no amount rather than NaN", () => {
    expect(formatMoney(null)).toBe('—')
    expect(formatMoney(undefined)).toBe('—')
    expect(formatMoney(Number.NaN)).toBe('—')
    expect(formatMoney(Number.POSITIVE_INFINITY, 'de-DE')).toBe('—')
  })
})
