/**
 * Turns what a rep types into an FTS5 query: every word must match the start of a word in one of the
 * indexed columns. A typed word with punctuation inside (a SKU such as "AB-12") becomes a phrase
 * whose last part is a prefix, which is how the unicode61 tokenizer split the indexed text.
 * Returns null when nothing searchable was typed.
 */
export function wordPrefixQuery(typed: string): string | null {
  const terms: string[] = []
  for (const word of typed.trim().split(/\s+/)) {
    const parts = word.match(/[\p{L}\p{N}]+/gu)
    if (!parts || parts.length === 0) continue
    // Parts are letters and digits only, so the quotes need no escaping.
    terms.push(`"${parts.join(' ')}"*`)
  }
  return terms.length > 0 ? terms.join(' ') : null
}
