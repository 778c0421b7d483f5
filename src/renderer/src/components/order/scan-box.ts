/**
 * What the order screen's "Add lines" box tells the rep about an add, in the words of the outcome the
 * core answered: a code it did not find, a code more than one item has, or the line it went into.
 */
import { ambiguousCodeText, type AmbiguousCode } from '../../../../shared/orders'
import type { CatalogLoading } from '../../../../shared/synced'
import { formatNumber } from '../../format'
import { unknownSkuText, type NotOnLaptop } from './unknown-skus'

/** What the core made of an add, per line the screen asked for. */
export interface AddOutcome {
  unknown: string[]
  ambiguous: AmbiguousCode[]
  /** Set only while the catalog is in its first sync and some code was not found. */
  catalogLoading: CatalogLoading | null
  /** With codes not found: the last sync's time, and whether the service was asked. */
  notOnLaptop: NotOnLaptop | null
  /** Codes the local copy lacked whose items the service had: read in and added. */
  newSinceSync: string[]
  /**
   * Each line an item went into, in the order given: its SKU, quantity now, how much this add put on
   * it, whether it is a new line, whether it started at the item's minimum order quantity (no
   * quantity was given), and the errors on it.
   */
  added: { sku: string; qty: number; added: number; newLine: boolean; atMinimum: boolean; problems: string[] }[]
  /** Codes that named a family: its grid opens instead of a line. */
  families: { code: string; guid: string; title: string }[]
  /** Codes whose item this customer's price group is not offered: no line, and the core's reason. */
  notOffered: { code: string; sku: string; reason: string }[]
}

export type ScanMessage = { text: string; kind: 'ok' | 'problem' }

export function ambiguousText(found: AmbiguousCode): string {
  return ambiguousCodeText(found)
}

/**
 * One scan's outcome, said the way it turned out: a line added with a problem is a problem (the
 * core's words, an error tone), not "Added".
 */
export function scannedMessage(code: string, outcome: AddOutcome): ScanMessage {
  const ambiguous = outcome.ambiguous[0]
  if (ambiguous) return { text: ambiguousText(ambiguous), kind: 'problem' }
  const notOffered = outcome.notOffered[0]
  if (notOffered) return { text: notOffered.reason, kind: 'problem' }
  const family = outcome.families[0]
  if (family)
    return { text: `${family.code} is the family ${family.title}: enter its quantities in the grid.`, kind: 'ok' }
  const line = outcome.added[0]
  if (!line) return { text: unknownSkuText(code, outcome.catalogLoading, outcome.notOnLaptop), kind: 'problem' }
  // What went on and what the line holds now: "BCF-10001 ×4 — line now 8", "BCF-10001 ×4 — new line".
  const result = line.newLine
    ? line.atMinimum
      ? 'new line, its minimum order quantity'
      : 'new line'
    : `line now ${formatNumber(line.qty)}`
  const fresh = outcome.newSinceSync.includes(code)
    ? ' (new since the last sync: read from the supplier’s service)'
    : ''
  const said = `${line.sku} ×${formatNumber(line.added)} — ${result}${fresh}`
  const problems = line.problems
  if (problems.length > 0)
    return { text: `${said}, but it cannot be sent as it is: ${problems.join(' ')}`, kind: 'problem' }
  return { text: `${said}.`, kind: 'ok' }
}
