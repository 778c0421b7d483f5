/**
 * Barcodes as scanners send them, read for the GTIN they carry. One item's GTIN reaches the box in
 * several spellings: a UPC-A (12 digits), the same as EAN-13 with a leading 0, a case label's GTIN-14
 * (`00` and the UPC), a GS1-128 label's element string (`(01)` and the GTIN-14, often followed by a
 * lot `(10)` or an expiry `(17)`, with or without the parentheses, FNC1 sent as the GS character).
 * GS1's rule is to compare GTINs as 14 digits, zero-padded, so every spelling is one number here.
 *
 * Written here rather than taken from a GS1 library: only AI (01) is read, the one that names the item,
 * and the rest of the element string is ignored, which is a dozen lines; a full parser would add a
 * runtime dependency to the contract both sides load.
 */

/** The group separator a scanner sends for FNC1 between GS1 elements. */
export const GS = '\x1d'

const gtinLengths = new Set([8, 12, 13, 14])
// A symbology identifier some scanners put first: ]C1 (GS1-128), ]e0 (DataBar), ]d2 (DataMatrix), ]Q3 (QR).
const symbologyPrefix = /^\][A-Za-z]\d/
// AI (01) is fixed at 14 digits, so what follows it is the next element ("(17)…", GS then "10…",
// or straight on: "17…"), or nothing.
const bracketed = /^\(01\)(\d{14})/
const bare = /^01(\d{14})/

/**
 * The GTIN a scanned or typed code carries, as 14 digits; null when it is not a GTIN (a SKU, a code
 * of another length, an element string without AI 01).
 */
export function scannedGtin(code: string): string | null {
  let text = code.trim().replace(symbologyPrefix, '')
  while (text.startsWith(GS)) text = text.slice(1)
  if (/^\d+$/.test(text) && gtinLengths.has(text.length)) return text.padStart(14, '0')
  const inBrackets = bracketed.exec(text)
  if (inBrackets) return nextElement(text.slice(inBrackets[0].length), '(') ? inBrackets[1]! : null
  const plain = text.length > 14 ? bare.exec(text) : null
  return plain && nextElement(text.slice(plain[0].length), 'digit') ? plain[1]! : null
}

/** Whether what follows AI (01) starts the next element, as the string's own form writes one. */
function nextElement(rest: string, next: '(' | 'digit'): boolean {
  if (rest === '' || rest.startsWith(GS)) return true
  return next === '(' ? rest.startsWith('(') : /^\d/.test(rest)
}

/** Whether a 14-digit GTIN's last digit is its check digit (weights 3 and 1 from the right). */
export function gtinCheckDigitOk(gtin14: string): boolean {
  if (!/^\d{14}$/.test(gtin14)) return false
  let sum = 0
  for (let index = 0; index < 13; index++) sum += Number(gtin14[index]) * (index % 2 === 0 ? 3 : 1)
  return (10 - (sum % 10)) % 10 === Number(gtin14[13])
}

/**
 * The spellings a supplier may have stored a GTIN in: GTIN-14, EAN-13, UPC-A and GTIN-8, as far as
 * the leading zeros allow, longest first.
 */
export function storedGtinForms(gtin14: string): string[] {
  const forms: string[] = []
  for (const length of [14, 13, 12, 8]) {
    const cut = gtin14.slice(0, 14 - length)
    if (/^0*$/.test(cut)) forms.push(gtin14.slice(14 - length))
  }
  return forms
}

/**
 * Why a code that found nothing was probably not read right: a GTIN whose check digit is wrong is a
 * mis-scan (or a mistyped digit), not an item missing from the catalog. Null when the code is not a
 * GTIN or its check digit holds. Only asked once nothing matched: a stored code matched exactly wins,
 * valid check digit or not, as suppliers' data has bad ones.
 */
export function misScanText(code: string): string | null {
  const gtin = scannedGtin(code)
  if (gtin === null || gtinCheckDigitOk(gtin)) return null
  return `${printable(code)} is not a valid barcode (its check digit is wrong): probably a mis-scan — scan it again.`
}

/** The code as the rep can read it: the GS character shown as a space. */
function printable(code: string): string {
  return code.trim().replaceAll(GS, ' ')
}
