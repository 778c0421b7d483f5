/**
 * The paging and full-text machinery the catalog item and customer searches share (catalog-items/reads.ts,
 * customers.ts own their SQL and hand its parts here), and the statement cache for queries whose SQL
 * varies with their filters. It names no table.
 */
import type { Database, Statement } from 'better-sqlite3'

/**
 * Above this many matches a search is not ranked by relevance: bm25 must score every match before the
 * first row comes back, which on 100,000 items takes longer than a keystroke.
 */
const rankedSearchLimit = 1000

interface SearchPageSpec {
  fts: 'catalog_item_search' | 'customer_search'
  /** The table and its alias, e.g. 'customers c'. */
  table: string
  columns: string
  rank: string
  index: string
  where: string[]
  params: Record<string, unknown>
  /** The FTS5 query (wordPrefixQuery); null lists by name. */
  match: string | null
  /**
   * How a broad match is listed. 'by name' walks the name index against the whole match set, whose
   * cost grows with the matches (fine for customers, a few tens of thousands). 'as indexed' streams the
   * matches in the index's order and stops at the page: a million items cost what a thousand do.
   */
  broad: 'by name' | 'as indexed'
  /**
   * Walk the index from its newest rows down. The index is shared by every catalog, in the order
   * items arrived, and a first sync brings one catalog after another: a catalog that arrived last
   * finds its matches at the top, where walking up from the bottom would first pass every match of
   * the catalogs before it (50 ms at 100,000 items, 0.5 s at a million, for "s").
   */
  newestFirst?: boolean
  /** Matches are counted no further than this; past it the count is the cap, `capped` set. */
  countCap: number
  /** While `index` is missing: list in arrival order; `count` estimates an unfiltered total cheaply. */
  arrival?: { count: string }
  /**
   * A match listed in another row's place (a family's member as its family): the SQL, over the
   * table's alias, of the local_id listed for a matching row. The rows a match finds are told apart
   * by it, in the order the match is listed, so several matches of one family are one row and a page
   * further on does not meet it again. `where` then filters the matching rows; leaving such rows out
   * of a listing with no match is the caller's, as a term of `where`.
   */
  listedAs?: string
  /**
   * A narrow table, keyed like `table` and holding just what a match is filtered on, that a full-text
   * match is joined to in `table`'s place: its own alias, filters and `listedAs`, over the same
   * parameters. `table` is then read only for the rows of the page (and, ranked, for the name that
   * breaks ties). Joining each match to its wide row only to filter it cost up to 120 ms at a
   * million items, where most matches are another catalog's or folded into a family.
   */
  narrow?: { table: string; where: string[]; listedAs?: string }
}

/** What a match is joined to and filtered on: the narrow table when the spec has one, else its own table. */
interface MatchedSide {
  table: string
  alias: string
  where: string[]
  listedAs: string | undefined
}

function matchedSide(spec: SearchPageSpec): MatchedSide {
  const side = spec.narrow ?? spec
  return { table: side.table, alias: side.table.split(' ')[1]!, where: side.where, listedAs: side.listedAs }
}

export interface SearchCount {
  total: number
  /** More match than `total`: the count stopped at its cap. */
  capped: boolean
}

export class SearchPages {
  private readonly indexExists
  /** Searches combine filters, so their SQL varies; each variant is prepared once and kept. */
  private readonly prepared = new Map<string, Statement<Record<string, unknown>, unknown>>()
  private readonly places: ListingPlaces
  private readonly written: () => string
  /**
   * The whole match set of the last match that was not broad, as broadMatches read it, and the writes
   * it was read after. A search that finds few or no rows walks the index to its end to know it, each
   * statement again: the page's ranking, then its count (the screen asks for it next) walked what the
   * plan had walked already, three walks of 10–60 ms each for 8 broad words that match nothing at a
   * million items. With the set known, none matched is no rows, and the count filters the set.
   */
  private narrowMatches: { key: string; written: string; rowids: number[] } | null = null

  constructor(private readonly db: Database) {
    this.places = new ListingPlaces(db)
    this.written = writeStamp(db)
    this.indexExists = db
      .prepare<[string], number>("SELECT 1 FROM sqlite_schema WHERE type = 'index' AND name = ?")
      .pluck()
  }

  all<T>(sql: string, params: Record<string, unknown>): T[] {
    return unlessIndexGone(sql, (text) => this.statement(text).all(params) as T[])
  }

  count(sql: string, params: Record<string, unknown>): number {
    return unlessIndexGone(sql, (text) => Number(this.statement(text).pluck().get(params) ?? 0))
  }

  /**
   * More matches than can be ranked within a keystroke: then the first of them in the order a
   * streamed page reads them (rowids), else null. Reads no further than it needs to know.
   */
  private broadMatches(spec: SearchPageSpec): number[] | null {
    const { fts } = spec
    const sql = `SELECT rowid FROM ${fts} WHERE ${fts} MATCH @match ${spec.newestFirst ? 'ORDER BY rowid DESC' : ''} LIMIT ${rankedSearchLimit + 1}`
    const first = unlessIndexGone(sql, (text) => this.statement(text).pluck().all(spec.params) as number[])
    if (first.length > rankedSearchLimit) return first
    this.narrowMatches = { key: matchKey(spec), written: this.written(), rowids: first }
    return null
  }

  /** Every row the match of `spec` finds, when an earlier plan read them all and nothing was written since; else null. */
  private knownMatches(spec: SearchPageSpec): number[] | null {
    const known = this.narrowMatches
    return known && known.key === matchKey(spec) && known.written === this.written() ? known.rowids : null
  }

  /**
   * How the search of `spec` runs: its SQL parts, decided once for its rows and its count alike.
   * Streamed, `first` holds the first matches in the order the page reads them.
   */
  private plan(spec: SearchPageSpec): {
    kind: 'ranked' | 'streamed' | 'arrival' | 'by name'
    alias: string
    first?: number[]
  } {
    const { match } = spec
    const { alias } = this.matched(spec)
    const first = match !== null && !this.knownMatches(spec) ? this.broadMatches(spec) : null
    const broad = first !== null
    if (match && !broad) return { kind: 'ranked', alias }
    if (broad && spec.broad === 'as indexed') return { kind: 'streamed', alias, first }
    if (spec.arrival && !this.indexExists.get(spec.index)) return { kind: 'arrival', alias }
    return { kind: 'by name', alias }
  }

  /** The table's alias, and the match as the full-text index serves it (servedByPrefixIndex) put in the parameters. */
  private matched(spec: SearchPageSpec): { kind: 'streamed'; alias: string } {
    if (spec.match) spec.params.match = servedByPrefixIndex(spec.match)
    return { kind: 'streamed', alias: spec.table.split(' ')[1]! }
  }

  /**
   * One page of a search, and whether rows follow it (one row more is read to know).
   * - A narrow full-text match is ranked by bm25, then name.
   * - A broad one ("s", "co") listed 'as indexed' comes in the index's order, read no further than
   *   the page: ranking or sorting it would read every match first, a second at a million items.
   * - With no match, or a broad one listed 'by name', rows go by name, walking an index that holds
   *   every filtered column, so rows skipped on the way to a deep offset cost no table lookup.
   * - While a first sync has the name index deferred, rows come in the order they arrived: sorting a
   *   whole catalog by name on every keystroke would hold the window.
   */
  page<Row>(spec: SearchPageSpec): { rows: Row[]; more: boolean } {
    const { fts, table, columns, where, params } = spec
    const { kind, alias, first } = this.plan(spec)
    if (kind === 'ranked' && this.knownMatches(spec)?.length === 0) return { rows: [], more: false }
    const page = { ...params, limit: Number(params.limit) + 1 }
    let rows: Row[]
    if ((kind === 'ranked' || kind === 'streamed') && (spec.listedAs || spec.narrow)) {
      rows = this.listedInPlace<Row>(spec, kind, page, first)
    } else if (kind === 'ranked' || kind === 'streamed') {
      const from = `${fts} s JOIN ${table} ON ${alias}.local_id = s.rowid`
      const order =
        kind === 'ranked'
          ? `ORDER BY ${spec.rank}, ${alias}.name COLLATE NOCASE`
          : spec.newestFirst
            ? 'ORDER BY s.rowid DESC'
            : ''
      rows = this.all<Row>(
        `SELECT ${columns} FROM ${from} WHERE ${fts} MATCH @match AND ${where.join(' AND ')} ${order} LIMIT @limit OFFSET @offset`,
        page,
      )
    } else {
      const filters = spec.match
        ? [...where, `${alias}.local_id IN (SELECT rowid FROM ${fts} WHERE ${fts} MATCH @match)`]
        : where
      if (kind === 'arrival') {
        rows = this.all<Row>(
          `SELECT ${columns} FROM ${table} WHERE ${filters.join(' AND ')} ORDER BY ${alias}.local_id LIMIT @limit OFFSET @offset`,
          page,
        )
      } else {
        rows = this.byName<Row>(spec, alias, filters, page)
      }
    }
    const more = rows.length > Number(params.limit)
    return { rows: more ? rows.slice(0, -1) : rows, more }
  }

  /**
   * A page of rows by name. Walking to a deep offset reads every index entry before it (190 ms for a
   * page 600,000 rows into a catalog of a million items), so a page starts from the nearest row an
   * earlier page of the same listing met before it: a seek in the name index to that row's name, then
   * only the rows between. Scrolling on, that is the row just before the page.
   */
  private byName<Row>(spec: SearchPageSpec, alias: string, filters: string[], page: Record<string, unknown>): Row[] {
    const { table, columns } = spec
    const walk = (terms: string[], offset: string) =>
      `SELECT ${columns} FROM ${table} WHERE ${alias}.local_id IN (
         SELECT ${alias}.local_id FROM ${table} ${this.indexedBy(spec.index)} WHERE ${terms.join(' AND ')}
         ORDER BY ${alias}.name COLLATE NOCASE, ${alias}.local_id LIMIT @limit OFFSET ${offset}
       ) ORDER BY ${alias}.name COLLATE NOCASE, ${alias}.local_id`
    const offset = Number(page.offset)
    const listing = this.places.listing(walk(filters, '@offset'), page)
    const place = this.places.before(listing, offset)
    const rows = place
      ? this.all<Row>(
          walk(
            [
              ...filters,
              `${alias}.name COLLATE NOCASE >= @placeName`,
              `(${alias}.name COLLATE NOCASE > @placeName OR ${alias}.local_id > @placeId)`,
            ],
            '@placeOffset',
          ),
          { ...page, placeName: place.name, placeId: place.localId, placeOffset: offset - place.position - 1 },
        )
      : this.all<Row>(walk(filters, '@offset'), page)
    this.places.note(listing, offset, rows)
    return rows
  }

  /**
   * A page of a match whose rows are listed as `spec.listedAs` names: the rows listed, each once, in
   * the order of their first match (ranked: their best), then read whole. Streamed, the distinct rows
   * still come in the index's order and stop at the page: each match is checked against those already
   * met, so a broad search reads no further than before.
   */
  private listedInPlace<Row>(
    spec: SearchPageSpec,
    kind: 'ranked' | 'streamed',
    page: Record<string, unknown>,
    first?: number[],
  ): Row[] {
    const { table: wide, columns } = spec
    const { table, alias, where, listedAs = `${alias}.local_id` } = matchedSide(spec)
    // Streamed, the page is first looked for among the first matches the plan read: when they hold it
    // whole (and one row more), it is the page the whole match gives, without reading the match again
    // (17 ms at a million items for a long prefix of a common word, "spray case"). The same
    // statement as listedMatches' streamed one, over those matches only (s.rowid is the row's local_id).
    const fromFirst =
      kind === 'streamed' && first
        ? this.all<{ listed: number }>(
            `SELECT DISTINCT ${listedAs} AS listed FROM ${table} WHERE ${alias}.local_id IN (SELECT value FROM json_each(@first)) AND ${where.join(' AND ')}
             ORDER BY ${alias}.local_id ${spec.newestFirst ? 'DESC' : ''} LIMIT @limit OFFSET @offset`,
            { ...page, first: JSON.stringify(first) },
          )
        : []
    const listed = fromFirst.length === page.limit ? fromFirst : this.listedMatches(spec, kind, page)
    if (listed.length === 0) return []
    const read = this.all<Row & { local_id: number }>(
      `SELECT ${columns} FROM ${wide} WHERE ${wide.split(' ')[1]!}.local_id IN (SELECT value FROM json_each(@listed))`,
      {
        listed: JSON.stringify(listed.map((row) => row.listed)),
      },
    )
    const byKey = new Map(read.map((row) => [row.local_id, row]))
    return listed.flatMap((row) => byKey.get(row.listed) ?? [])
  }

  /** The local_ids listed for a page of the whole match (see listedInPlace). */
  private listedMatches(
    spec: SearchPageSpec,
    kind: 'ranked' | 'streamed',
    page: Record<string, unknown>,
  ): { listed: number }[] {
    const { fts } = spec
    const { table, alias, where, listedAs = `${alias}.local_id` } = matchedSide(spec)
    const from = `${fts} s JOIN ${table} ON ${alias}.local_id = s.rowid WHERE ${fts} MATCH @match AND ${where.join(' AND ')}`
    const wide = spec.table.split(' ')[1]!
    // Ranked, ties go by name, which only the wide row holds: it is read after the narrow one's filters,
    // for the few matches (rankedSearchLimit at most) that pass them.
    const ranked = spec.narrow
      ? `${fts} s CROSS JOIN ${table} ON ${alias}.local_id = s.rowid CROSS JOIN ${spec.table} ON ${wide}.local_id = s.rowid WHERE ${fts} MATCH @match AND ${where.join(' AND ')}`
      : from
    return kind === 'ranked'
      ? this.all<{ listed: number }>(
          // Materialized: FTS5 scores a row (bm25) only in the query that matches it, not in an aggregate over it.
          `WITH matched AS MATERIALIZED (SELECT ${listedAs} AS listed, ${spec.rank} AS rank, ${wide}.name AS name FROM ${ranked})
             SELECT listed FROM matched GROUP BY listed ORDER BY min(rank), min(name COLLATE NOCASE), listed LIMIT @limit OFFSET @offset`,
          page,
        )
      : this.all<{ listed: number }>(
          `SELECT DISTINCT ${listedAs} AS listed FROM ${from} ${spec.newestFirst ? 'ORDER BY s.rowid DESC' : ''} LIMIT @limit OFFSET @offset`,
          page,
        )
  }

  /**
   * How many rows the search of `spec` matches. A match is counted no further than the cap: past it
   * the rep narrows the search, and counting every match of "s" would read a million rows. With no
   * match the count is exact (an index walk); while a first sync has the name index deferred, the
   * arrival estimate stands in.
   */
  countMatches(spec: SearchPageSpec): SearchCount {
    const { fts, table, where, params } = spec
    // A match listed 'as indexed' is counted by the same statement, ranked or streamed: telling which
    // would read the match once more, as long again as the count for a long prefix of a common word
    // ("spray case": 17 ms of 54 at a million items).
    const { kind, alias } = spec.match && spec.broad === 'as indexed' ? this.matched(spec) : this.plan(spec)
    if (spec.match && kind === 'by name') {
      // The name index holds every filtered column: probing the match set from it reads no table row,
      // where joining each match to its row would (four times slower for 12,000 customers).
      return {
        total: this.count(
          `SELECT count(*) FROM ${table} ${this.indexedBy(spec.index)} WHERE ${where.join(' AND ')} AND ${alias}.local_id IN (SELECT rowid FROM ${fts} WHERE ${fts} MATCH @match)`,
          params,
        ),
        capped: false,
      }
    }
    const known = spec.match ? this.knownMatches(spec) : null
    if (known) {
      const side = matchedSide(spec)
      const counted =
        known.length === 0
          ? 0
          : this.count(
              `SELECT count(*) FROM (SELECT ${side.listedAs ? `DISTINCT ${side.listedAs}` : '1'} FROM ${side.table} WHERE ${side.alias}.local_id IN (SELECT value FROM json_each(@known)) AND ${side.where.join(' AND ')} LIMIT ${spec.countCap + 1})`,
              { ...params, known: JSON.stringify(known) },
            )
      return { total: Math.min(counted, spec.countCap), capped: counted > spec.countCap }
    }
    if (spec.match) {
      const side = matchedSide(spec)
      const counted = this.count(
        `SELECT count(*) FROM (SELECT ${side.listedAs ? `DISTINCT ${side.listedAs}` : '1'} FROM ${fts} s JOIN ${side.table} ON ${side.alias}.local_id = s.rowid WHERE ${fts} MATCH @match AND ${side.where.join(' AND ')} ${spec.newestFirst ? 'ORDER BY s.rowid DESC' : ''} LIMIT ${spec.countCap + 1})`,
        params,
      )
      return { total: Math.min(counted, spec.countCap), capped: counted > spec.countCap }
    }
    if (kind === 'arrival') return { total: this.count(spec.arrival!.count, params), capped: false }
    return {
      total: this.count(
        `SELECT count(*) FROM ${table} ${this.indexedBy(spec.index)} WHERE ${where.join(' AND ')}`,
        params,
      ),
      capped: false,
    }
  }

  /**
   * Names an index for the planner when it exists. A catalog's first sync builds its item indexes only
   * once its pages are in (local/deferred-indexes.ts); meanwhile the same queries run without.
   */
  indexedBy(index: string): string {
    return this.indexExists.get(index) ? `INDEXED BY ${index}` : ''
  }

  private statement(sql: string): Statement<Record<string, unknown>, unknown> {
    let statement = this.prepared.get(sql)
    if (!statement) {
      statement = this.db.prepare<Record<string, unknown>, unknown>(sql)
      this.prepared.set(sql, statement)
    }
    return statement
  }
}

/** A row met in a listing by name: its position in the listing, and the name and local_id it sorts by. */
interface ListingPlace {
  position: number
  name: string
  localId: number
}

/**
 * Where rows of the listings by name read lately sit (SearchPages.byName). A write by any connection
 * (PRAGMA data_version for the others', total_changes() for this one's) may move rows, so every place
 * is forgotten then. A few listings are kept, each with a bounded number of places: the first and
 * last rows of each page read.
 */
class ListingPlaces {
  private static readonly listings = 8
  private static readonly placesPerListing = 4000
  private readonly byListing = new Map<string, ListingPlace[]>()
  private readonly written
  private stamp = ''

  constructor(db: Database) {
    this.written = writeStamp(db)
  }

  /** The key of a listing: its SQL and parameters, but not where its page starts or how long it is. */
  listing(sql: string, params: Record<string, unknown>): string {
    const { offset: _offset, limit: _limit, ...rest } = params
    return `${sql}\n${JSON.stringify(rest)}`
  }

  /** The nearest place met before `offset` in the listing, if no write came since. */
  before(listing: string, offset: number): ListingPlace | null {
    const stamp = this.written()
    if (stamp !== this.stamp) {
      this.byListing.clear()
      this.stamp = stamp
    }
    let nearest: ListingPlace | null = null
    for (const place of this.byListing.get(listing) ?? [])
      if (place.position < offset && (!nearest || place.position > nearest.position)) nearest = place
    return nearest
  }

  /** Notes the first and last rows of a page read from `offset` (rows that carry a name and local_id). */
  note(listing: string, offset: number, rows: unknown[]): void {
    if (rows.length === 0) return
    let places = this.byListing.get(listing)
    if (!places) {
      if (this.byListing.size >= ListingPlaces.listings) this.byListing.delete(this.byListing.keys().next().value!)
      places = []
      this.byListing.set(listing, places)
    }
    if (places.length + 2 > ListingPlaces.placesPerListing) places.splice(0, places.length)
    // The first row, and the last two: the page read next starts after the last row shown (the last
    // row read is the one more that tells whether rows follow).
    for (const index of new Set([0, Math.max(0, rows.length - 2), rows.length - 1])) {
      const row = rows[index] as { name?: unknown; local_id?: unknown }
      if (typeof row.name === 'string' && typeof row.local_id === 'number')
        places.push({ position: offset + index, name: row.name, localId: row.local_id })
    }
  }
}

/**
 * What changes with any write to the database: another connection's (PRAGMA data_version) or this
 * one's (total_changes()), which data_version does not count.
 */
function writeStamp(db: Database): () => string {
  const others = db.prepare<[], number>('PRAGMA data_version').pluck()
  const own = db.prepare<[], number>('SELECT total_changes()').pluck()
  return () => `${others.get()}:${own.get()}`
}

/** The full-text table and the match as it is run (SearchPages.matched put it in the parameters). */
function matchKey(spec: SearchPageSpec): string {
  return `${spec.fts}\n${String(spec.params.match)}`
}

/** Runs `run(sql)`; if the writer thread dropped a named index in between (DeferredItemIndexes.defer), runs it again without naming one. */
function unlessIndexGone<T>(sql: string, run: (sql: string) => T): T {
  try {
    return run(sql)
  } catch (error) {
    if (!/no such index/.test(String((error as Error)?.message)) || !sql.includes('INDEXED BY')) throw error
    return run(sql.replace(/INDEXED BY \w+/g, ''))
  }
}

/**
 * The search indexes keep the prefixes of two and three characters (prefix = '2 3'), not of one. A
 * term that ends in a one-character prefix makes FTS5 open and merge the postings of every word that
 * starts with that character before the first row, whatever the LIMIT: about 130 ms at a million
 * items for "s"*, and as much for a phrase ending in one ("s s s s s s"*, 130–160 ms for each
 * statement of a search; "jcc 1"*, typed on the way to "jcc-10002", 45–52 ms). The same rows are those
 * whose word there is the character itself or starts with one of its two-character prefixes, each one
 * read of the prefix index, so such a term, a bare letter or a phrase's last part, is rewritten as
 * that union (2 ms for the first rows of "s" at a million, 14–16 ms for all of "jcc 1").
 * The union names the second characters a word can have after the tokenizer's folding: ASCII letters
 * and digits, and the Latin letters that carry no diacritic to remove. A word whose second character
 * is from another script is missed by a one-letter search; the second letter typed finds it. A last
 * character outside Latin script keeps the plain prefix term (correct, slower).
 */
const SECOND_CHARACTERS = [...'abcdefghijklmnopqrstuvwxyz0123456789æðøþßđħıłŋœ']

/** A term (a word or a phrase, as wordPrefixQuery writes it) whose last part is one character: its parts before it, and that character. */
const endsInOneCharacter = /^"((?:[^" ]+ )*)([a-z0-9])"\*$/

export function servedByPrefixIndex(query: string): string {
  const terms = query.match(/"[^"]*"\*/g) ?? []
  if (!terms.some((term) => endsInOneCharacter.test(term))) return query
  // A group joins the other terms by an explicit AND: FTS5 reads a bare space after ')' as an error.
  return terms
    .map((term) => {
      const [, before, last] = endsInOneCharacter.exec(term) ?? []
      return last
        ? `("${before}${last}" OR ${SECOND_CHARACTERS.map((second) => `"${before}${last}${second}"*`).join(' OR ')})`
        : term
    })
    .join(' AND ')
}
