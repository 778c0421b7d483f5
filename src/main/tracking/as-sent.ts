/**
 * A full order beside what this laptop sent for it (issue 37): the supplier's copy may hold a line
 * replaced by an item never ordered, or another quantity, and shown bare it reads as what the rep
 * ordered. Each line that differs says so, and a line sent that the copy lacks is named.
 */
type Json = Record<string, unknown>

/** A line as the laptop sent it (the outbox's draft line). */
export interface SentLine {
  catalogItemGuid: string
  sku: string
  qty: number
}

export interface AsSent {
  /** Per line of the copy, in order: why it differs from what was sent, or null. */
  notAsSent: (string | null)[]
  sentMissing: { sku: string; qty: number }[]
}

const text = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null)
const number = (value: unknown): number | null => (typeof value === 'number' && Number.isFinite(value) ? value : null)

/** The copy's lines (the service's Order_Items) against the lines sent; every line is as sent when `sent` is null (not sent from here). */
export function compareWithSent(items: Json[], sent: readonly SentLine[] | null): AsSent {
  if (sent === null) return { notAsSent: items.map(() => null), sentMissing: [] }
  const matched = new Set<SentLine>()
  const notAsSent = items.map((line) => {
    const item = line.Catalog_Item && typeof line.Catalog_Item === 'object' ? (line.Catalog_Item as Json) : {}
    const guid = (text(line.catalog_item_guid) ?? text(item.guid))?.toLowerCase()
    const sku = text(line.sku) ?? text(item.sku)
    const was = sent.find(
      (candidate) =>
        !matched.has(candidate) && (guid ? candidate.catalogItemGuid.toLowerCase() === guid : candidate.sku === sku),
    )
    if (!was) return 'Differs from what was sent: not on the order as sent.'
    matched.add(was)
    const qty = number(line.qty)
    // A backorder split off at submission takes its quantity off the line: together they are what was sent.
    if (qty === null || qty === was.qty || qty + (number(line.qty_backordered) ?? 0) === was.qty) return null
    return `Differs from what was sent: sent as ${was.qty}.`
  })
  return {
    notAsSent,
    sentMissing: sent.filter((line) => !matched.has(line)).map((line) => ({ sku: line.sku, qty: line.qty })),
  }
}
