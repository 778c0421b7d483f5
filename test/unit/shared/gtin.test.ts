import { describe, expect, it } from 'vitest'
import { GS, gtinCheckDigitOk, misScanText, scannedGtin, storedGtinForms } from '../../../src/shared/gtin'

// BCF-10001's UPC-A in the double's data, and its GTIN-14.
const upc = '067191014636'
const gtin14 = '00067191014636'

describe('scannedGtin: the GTIN a scanner sends, whatever the spelling', () => {
  it('reads UPC-A, EAN-13 with a leading 0 and GTIN-14 as the same 14 digits', () => {
    expect(scannedGtin(upc)).toBe(gtin14)
    expect(scannedGtin('0067191014636')).toBe(gtin14)
    expect(scannedGtin(gtin14)).toBe(gtin14)
    expect(scannedGtin(' 96385074 ')).toBe('00000096385074')
  })

  it('reads AI (01) of a GS1 element string, with or without parentheses, FNC1 as GS, lot and expiry after', () => {
    expect(scannedGtin(`(01)${gtin14}`)).toBe(gtin14)
    expect(scannedGtin(`(01)${gtin14}(17)271231(10)LOT42`)).toBe(gtin14)
    expect(scannedGtin(`01${gtin14}`)).toBe(gtin14)
    expect(scannedGtin(`01${gtin14}17271231${GS}10LOT42`)).toBe(gtin14)
    expect(scannedGtin(`01${gtin14}10LOT42`)).toBe(gtin14)
    expect(scannedGtin(`${GS}01${gtin14}${GS}10LOT42`)).toBe(gtin14)
    expect(scannedGtin(`]C101${gtin14}10LOT42`)).toBe(gtin14)
  })

  it('is null for what is not a GTIN', () => {
    for (const code of ['BCF-10001', '12345', '0123456789', '(10)LOT42', `(01)${upc}`, ''])
      expect(scannedGtin(code), code).toBeNull()
  })
})

describe('check digits and stored spellings', () => {
  it('checks the GS1 check digit', () => {
    expect(gtinCheckDigitOk(gtin14)).toBe(true)
    expect(gtinCheckDigitOk('00067191014637')).toBe(false)
    expect(gtinCheckDigitOk('00000096385074')).toBe(true)
  })

  it('gives each spelling a supplier may have stored, as far as the leading zeros allow', () => {
    expect(storedGtinForms(gtin14)).toEqual([gtin14, '0067191014636', upc])
    expect(storedGtinForms('00000096385074')).toEqual(['00000096385074', '0000096385074', '000096385074', '96385074'])
    expect(storedGtinForms('10067191014633')).toEqual(['10067191014633'])
  })

  it('says a GTIN with a wrong check digit is a mis-scan, and says nothing of other codes', () => {
    expect(misScanText('067191014637')).toBe(
      '067191014637 is not a valid barcode (its check digit is wrong): probably a mis-scan — scan it again.',
    )
    expect(misScanText(upc)).toBeNull()
    expect(misScanText('BCF-10001')).toBeNull()
  })
})
