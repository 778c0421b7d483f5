/**
 * The one rule for which item a SKU names. A catalog may hold `DPR-10001` and `dpr-10001` as two
 * items, so a case-insensitive match alone may order the wrong one: the SKU written exactly wins; a
 * match in other capitals stands only when it is the catalog's one SKU spelled so; otherwise the code
 * is ambiguous and its candidates are named, never chosen from.
 */

/** A row found by its SKU in any capitals (the SKU index is case-insensitive). */
export interface SkuCandidate {
  sku: string
  deleted_at: string | null
  unlisted_at: string | null
}

export type SkuMatch<T> = { found: T } | { ambiguous: T[] } | null

/** Enough rows of one SKU in all its capitals, deleted and kept ones included, for the rule to see them all. */
export const skuCandidatesLimit = 100

const isLive = (row: SkuCandidate): boolean => row.deleted_at === null && row.unlisted_at === null

/**
 * `candidates` are the rows whose SKU equals `typed` case-insensitively, a preferred row first among
 * rows of one SKU (live before deleted). Rows of the same SKU are one item's past and present; only
 * live rows make a match in other capitals ambiguous, as a deleted item is no longer one to order.
 */
export function matchSku<T extends SkuCandidate>(typed: string, candidates: readonly T[]): SkuMatch<T> {
  const exact = candidates.find((row) => row.sku === typed)
  if (exact) return { found: exact }
  const live = candidates.filter(isLive)
  const pool = live.length > 0 ? live : candidates
  const spellings = new Map<string, T>()
  for (const row of pool) if (!spellings.has(row.sku)) spellings.set(row.sku, row)
  if (spellings.size === 0) return null
  if (spellings.size === 1) return { found: pool[0]! }
  return { ambiguous: [...spellings.values()].sort((a, b) => (a.sku < b.sku ? -1 : a.sku > b.sku ? 1 : 0)) }
}

/** The one row a SKU names, or undefined when it names none or more than one. */
export function rowOfSku<T extends SkuCandidate>(typed: string, candidates: readonly T[]): T | undefined {
  const match = matchSku(typed, candidates)
  return match && 'found' in match ? match.found : undefined
}
