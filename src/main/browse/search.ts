/**
 * Turns what a rep types into an FTS5 query: every word must match the start of a word in one of the
 * indexed columns. A typed word with punctuation inside (a SKU such as "AB-12") becomes a phrase
 * whose last part is a prefix, which is how the unicode61 tokenizer split the indexed text.
 *
 * The query runs on the main process, so what anyone types (the window caps it at 200 characters,
 * the CLI caps nothing) must not cost more than a keystroke's wait. Each term costs FTS5 a pass over
 * the rows of every indexed word it is a prefix of: "s" over most of a catalog. So:
 * - a term typed twice counts once ("s s s" is "s");
 * - a term that only starts another one adds nothing ("cof coffee" is "coffee": every row the longer
 *   term matches, the shorter matches too);
 * - of the one-letter terms, only the first is kept ("a b c" is "a"): each matches most rows, and
 *   together they narrow almost nothing;
 * - at most MAX_SEARCH_TERMS terms, the first typed, and at most MAX_PHRASE_PARTS parts in a phrase,
 *   which ends before a part that repeats one in it (phraseParts);
 * Dropping a term only widens the match: the rows the rep looks for are still among those found.
 * Returns null when nothing searchable was typed.
 */

/** Terms in one query, at most. A rep's longest real searches ("bayside french roast 2 lb") have five or six. */
export const MAX_SEARCH_TERMS = 8

/** Parts of one punctuated word kept in its phrase, at most ("AB-12-34-56" has four). */
export const MAX_PHRASE_PARTS = 6

/** Different words read, at most: 200 characters hold 100; text beyond that is not a search. */
const MAX_WORDS_READ = 100

/**
 * The parts of a typed word, as the tokenizer splits it, up to the first that repeats one before it
 * ("s-s-s-…" is "s", "case-case-…" is "case", "ab-12-ab" is "ab 12"). FTS5 walks every part's postings
 * for a phrase, a repeated part's again in full, and a repeated part is what a paste or a held key
 * makes, not a code: "s s s s s s" walked the postings of the 118,000 rows holding "s" five times.
 */
function phraseParts(word: string): string[] {
  const parts: string[] = []
  for (const part of word.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
    if (parts.includes(part) || parts.length === MAX_PHRASE_PARTS) break
    parts.push(part)
  }
  return parts
}

export function wordPrefixQuery(typed: string): string | null {
  const terms: string[][] = []
  const seen = new Set<string>()
  for (const word of typed.trim().split(/\s+/)) {
    const parts = phraseParts(word)
    if (parts.length === 0) continue
    const key = parts.join(' ')
    if (seen.has(key)) continue
    seen.add(key)
    terms.push(parts)
    if (terms.length === MAX_WORDS_READ) break
  }
  let oneLetterKept = false
  const kept: string[] = []
  for (const [index, parts] of terms.entries()) {
    if (parts.length === 1) {
      const part = parts[0]!
      // A phrase's first part is a whole word: "ab" starts "ab 12" as well as "abc".
      if (
        terms.some(
          (other, at) =>
            at !== index && other[0]!.startsWith(part) && (other[0]!.length > part.length || other.length > 1),
        )
      )
        continue
      if ([...part].length === 1) {
        if (oneLetterKept) continue
        oneLetterKept = true
      }
    }
    // Parts are letters and digits only, so the quotes need no escaping.
    kept.push(`"${parts.join(' ')}"*`)
    if (kept.length === MAX_SEARCH_TERMS) break
  }
  return kept.length > 0 ? kept.join(' ') : null
}
