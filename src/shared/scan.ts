/**
 * What a rep types or scans in the order screen's box: a code (SKU, UPC, GS1 barcode), then a
 * quantity if more than one, as reps write it: "SKU 4", "SKU x 4" (x, X or ×), "SKU*4". A quantity
 * that is not a whole number above zero is refused here, in the rep's words, before the core is
 * asked: "BCF-10001 -1" is a quantity problem, not a code the catalog lacks.
 */
import { lineQtyProblem } from './orders'

export type ScanEntry =
  { code: string; qty: number | undefined; refused?: undefined } | { code: string; qty?: undefined; refused: string }

const starred = /^(\S+?)\s*\*\s*(.*)$/
const timesOrSpace = /^(\S+?)(?:\s+[xX×](?=\s*\S)\s*|\s+)(.*)$/

export function readScan(text: string): ScanEntry {
  const typed = text.trim()
  const found = starred.exec(typed) ?? timesOrSpace.exec(typed)
  if (!found) return { code: typed, qty: undefined }
  const code = found[1]!
  const qtyText = found[2]!.trim()
  const qty = /^[+-]?(\d+\.?\d*|\.\d+)$/.test(qtyText) ? Number(qtyText) : Number.NaN
  const problem = lineQtyProblem(qty)
  if (problem === null) return { code, qty }
  const said = qtyText === '' ? 'no quantity' : `the quantity “${qtyText}”`
  return { code, refused: `${code} not added: ${said} — ${problem.charAt(0).toLowerCase()}${problem.slice(1)}.` }
}
