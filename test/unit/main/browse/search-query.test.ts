/**
 * What a rep types becomes an FTS5 query whose cost is bounded whatever the text: terms de-duplicated,
 * one-letter terms after the first and terms that only start another dropped, and a cap on the rest.
 * The window and the CLI both search through wordPrefixQuery. The time each query takes at bench size
 * is printed by `npm run bench:sync` (pathological searches); here only the shape is held.
 */
import { describe, expect, it } from 'vitest'
import Database from 'better-sqlite3'
import { MAX_PHRASE_PARTS, MAX_SEARCH_TERMS, wordPrefixQuery } from '../../../../src/main/browse/search'
import { servedByPrefixIndex } from '../../../../src/main/local/search-page'
import { seededRandom } from '../../../support/seeded'

function termsOf(query: string | null): string[] {
  return query === null ? [] : (query.match(/"[^"]*"\*/g) ?? [])
}

describe('wordPrefixQuery', () => {
  it('keeps one term of text that repeats a letter, however long (the CLI has no field cap)', () => {
    expect(wordPrefixQuery('a '.repeat(2500))).toBe('"a"*')
    expect(wordPrefixQuery('s '.repeat(100))).toBe('"s"*')
    expect(wordPrefixQuery('c '.repeat(100))).toBe('"c"*')
    expect(termsOf(wordPrefixQuery('coffee '.repeat(700)))).toHaveLength(1)
  })

  it('counts a term typed twice once, whatever its case', () => {
    expect(wordPrefixQuery('Ham HAM ham')).toBe('"ham"*')
    expect(wordPrefixQuery('AB-12 ab-12 roast')).toBe('"ab 12"* "roast"*')
  })

  it('keeps the first one-letter term only', () => {
    expect(wordPrefixQuery('a b c d e f g')).toBe('"a"*')
    expect(wordPrefixQuery('x roast y 2 lb')).toBe('"x"* "roast"* "lb"*')
    expect(wordPrefixQuery('2 lb coffee')).toBe('"2"* "lb"* "coffee"*')
  })

  it('drops a term that only starts another: every row the longer matches, it matches too', () => {
    expect(wordPrefixQuery('cof coffee')).toBe('"coffee"*')
    expect(wordPrefixQuery('c co cof coffee')).toBe('"coffee"*')
    expect(wordPrefixQuery('ab ab-12')).toBe('"ab 12"*')
    // Not the other way round: "coffee" is not a prefix of "cof".
    expect(wordPrefixQuery('coffee decaf')).toBe('"coffee"* "decaf"*')
  })

  it(`keeps at most ${MAX_SEARCH_TERMS} terms, the first typed, and ${MAX_PHRASE_PARTS} parts of a phrase`, () => {
    const words = Array.from({ length: 66 }, (_, i) => `w${String(i).padStart(2, '0')}`)
    expect(termsOf(wordPrefixQuery(words.join(' ')))).toEqual(
      words.slice(0, MAX_SEARCH_TERMS).map((word) => `"${word}"*`),
    )
    expect(wordPrefixQuery('ab-cd-ef-gh-ij-kl-mn-op')).toBe(
      `"${['ab', 'cd', 'ef', 'gh', 'ij', 'kl', 'mn', 'op'].slice(0, MAX_PHRASE_PARTS).join(' ')}"*`,
    )
  })

  it('ends a phrase before a part that repeats one in it: FTS5 would walk the same postings again', () => {
    expect(wordPrefixQuery('s-'.repeat(100))).toBe('"s"*')
    expect(wordPrefixQuery('case-'.repeat(40))).toBe('"case"*')
    expect(wordPrefixQuery('1-2-1-2-1-2')).toBe('"1 2"*')
    // Codes and sizes as reps type them keep every part.
    expect(wordPrefixQuery('JCC-10002')).toBe('"jcc 10002"*')
    expect(wordPrefixQuery('jcc-100')).toBe('"jcc 100"*')
    expect(wordPrefixQuery('1/2 gal')).toBe('"1 2"* "gal"*')
    expect(wordPrefixQuery('24x48')).toBe('"24x48"*')
  })

  it('nothing searchable is null', () => {
    expect(wordPrefixQuery('  ')).toBeNull()
    expect(wordPrefixQuery('" - ; "')).toBeNull()
  })

  it(`any text of up to 200 characters gives at most ${MAX_SEARCH_TERMS} terms, at most one of one letter`, () => {
    const random = seededRandom(22)
    const alphabets = ['as ', 'abcdefghijklmnopqrstuvwxyz ', 'sc -', 'ab12 -/.', 'é1 ']
    for (let run = 0; run < 2_000; run++) {
      const alphabet = alphabets[run % alphabets.length]!
      const length = 1 + Math.floor(random() * 200)
      const text = Array.from({ length }, () => alphabet[Math.floor(random() * alphabet.length)]).join('')
      const terms = termsOf(wordPrefixQuery(text))
      expect(terms.length, JSON.stringify(text)).toBeLessThanOrEqual(MAX_SEARCH_TERMS)
      expect(
        terms.filter((term) => [...term.slice(1, -2)].length === 1).length,
        JSON.stringify(text),
      ).toBeLessThanOrEqual(1)
      for (const term of terms) expect(term.slice(1, -2).split(' ').length).toBeLessThanOrEqual(MAX_PHRASE_PARTS)
    }
  })
})

describe('servedByPrefixIndex', () => {
  it('finds the same rows for a one-letter term as the plain prefix term, through the two-character prefix index', () => {
    const db = new Database(':memory:')
    db.exec(`CREATE VIRTUAL TABLE t USING fts5 (name, sku, tokenize = 'unicode61 remove_diacritics 2', prefix = '2 3')`)
    const random = seededRandom(28)
    const letters = 'abcdefghijklmnopqrstuvwxyz0123456789éøßæ'
    const insert = db.prepare('INSERT INTO t (rowid, name, sku) VALUES (?, ?, ?)')
    for (let row = 1; row <= 3_000; row++) {
      const word = () =>
        Array.from({ length: 1 + Math.floor(random() * 6) }, () => letters[Math.floor(random() * letters.length)]).join(
          '',
        )
      insert.run(row, `${word()} ${word()} Émile-${word()}`, `${word()}-${word()}`)
    }
    const rows = (match: string) =>
      (db.prepare('SELECT rowid FROM t WHERE t MATCH ? ORDER BY rowid').all(match) as { rowid: number }[]).map(
        (r) => r.rowid,
      )
    for (const letter of 'abcdefghijklmnopqrstuvwxyz0123456789') {
      const plain = wordPrefixQuery(`${letter} roast`.replace(' roast', ''))!
      const rewritten = servedByPrefixIndex(plain)
      expect(rewritten).not.toBe(plain)
      expect(rows(rewritten), letter).toEqual(rows(plain))
      expect(rows(plain).length, letter).toBeGreaterThan(0)
    }
    // With other terms, and a phrase, the query keeps its meaning.
    expect(rows(servedByPrefixIndex('"s"* "ab"*'))).toEqual(rows('"s"* "ab"*'))
    expect(servedByPrefixIndex('"ab 12"* "roast"*')).toBe('"ab 12"* "roast"*')
    // A phrase whose last part is one character ("jcc-1", "s-s-s-…") finds the rows of the plain phrase.
    for (const phrase of ['"emile 1"*', '"emile a"*', '"s s s s s s"*', '"emile e"* "a"*', '"a b"*']) {
      const rewritten = servedByPrefixIndex(phrase)
      expect(rewritten, phrase).not.toBe(phrase)
      expect(rows(rewritten), phrase).toEqual(rows(phrase))
    }
    expect(rows('"emile 1"*').length).toBeGreaterThan(0)
    db.close()
  })

  it('asks FTS5 for no prefix of one character, which the index does not keep: whatever is typed', () => {
    // A one-character prefix makes FTS5 merge the postings, positions and all, of every word that
    // starts with it before the first row: a pasted "s-s-s-…" was a phrase ending in "s"*, 590 ms at
    // a million items, and "jcc-1" on the way to "jcc-10002" cost the same for every digit.
    const oneCharacterPrefixes = (query: string) =>
      (query.match(/"[^"]*"\*/g) ?? []).filter((term) => /(^"| )[a-z0-9]"\*$/.test(term))
    for (const typed of [
      's-'.repeat(100),
      'jcc-1',
      'ab-12-3',
      'x',
      's co ca pa gl to bl la',
      'roast 2 lb',
      'a-b c-d',
    ]) {
      const query = wordPrefixQuery(typed)!
      expect(oneCharacterPrefixes(servedByPrefixIndex(query)), typed).toEqual([])
    }
  })
})
