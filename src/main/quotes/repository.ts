import { randomInt } from 'node:crypto'
import { z } from 'zod'
import { quoteSchema, type Quote, type QuoteSummary } from '../../shared/quotes'
import type { Database } from '../db/database'
import { CoreError } from '../errors'

/** What a quote holds besides the columns: everything but its id, number and timestamps. */
const documentSchema = quoteSchema.omit({ id: true, number: true, createdAt: true, updatedAt: true })
export type QuoteFields = z.infer<typeof documentSchema>

interface QuoteRow {
  id: number
  number: string
  customer_guid: string
  customer_name: string
  document: string
  created_at: string
  updated_at: string
}

// No 0/O or 1/I: a rep reads the number aloud over the phone.
const prefixAlphabet = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789'

/** A laptop's quote prefix: four letters and digits, drawn once, so two reps' Q-numbers never collide in practice. */
function newDevicePrefix(random: (max: number) => number = randomInt): string {
  return Array.from({ length: 4 }, () => prefixAlphabet[random(prefixAlphabet.length)]).join('')
}

/** The quotes table and its numbering. Each write is one statement or one transaction. */
export class QuoteRepository {
  private readonly statements

  constructor(
    private readonly db: Database,
    private readonly newPrefix: () => string = () => newDevicePrefix(),
  ) {
    this.statements = {
      numbering: db.prepare<[], { prefix: string; last: number }>(
        'SELECT prefix, last FROM quote_numbering WHERE only = 1',
      ),
      startNumbering: db.prepare<[string]>('INSERT INTO quote_numbering (only, prefix, last) VALUES (1, ?, 0)'),
      takeNumber: db.prepare('UPDATE quote_numbering SET last = last + 1 WHERE only = 1'),
      insert: db.prepare<[string, string, string, string, string, string, string]>(
        'INSERT INTO quotes (number, customer_guid, customer_name, search_text, document, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
      ),
      update: db.prepare<[string, string, string, string, string, number]>(
        'UPDATE quotes SET customer_guid = ?, customer_name = ?, search_text = ?, document = ?, updated_at = ? WHERE id = ?',
      ),
      one: db.prepare<[number], QuoteRow>('SELECT * FROM quotes WHERE id = ?'),
      remove: db.prepare<[number]>('DELETE FROM quotes WHERE id = ?'),
      windowEnd: db
        .prepare<[number, number], number | null>(
          'SELECT max(id) FROM (SELECT id FROM quotes WHERE id > ? ORDER BY id LIMIT ?)',
        )
        .pluck(),
      purgeExpired: db.prepare<[number, number, string, string]>(
        `DELETE FROM quotes WHERE id > ? AND id <= ? AND json_extract(document, '$.validUntil') < ?
           AND coalesce(json_extract(document, '$.convertedDraftId'), 0) NOT IN (SELECT value FROM json_each(?))`,
      ),
      count: db.prepare<[], number>('SELECT count(*) FROM quotes').pluck(),
      openCount: db
        .prepare<[string], number>(
          `SELECT count(*) FROM quotes WHERE json_extract(document, '$.convertedAt') IS NULL AND json_extract(document, '$.validUntil') >= ?`,
        )
        .pluck(),
      convertedDraftIds: db
        .prepare<[number, number], number>(
          `SELECT json_extract(document, '$.convertedDraftId') FROM quotes
         WHERE id > ? AND id <= ? AND json_extract(document, '$.convertedDraftId') IS NOT NULL`,
        )
        .pluck(),
    }
  }

  /** The prefix, drawn on first use and kept. */
  prefix(): string {
    const numbering = this.statements.numbering.get()
    if (numbering) return numbering.prefix
    this.statements.startNumbering.run(this.newPrefix())
    return this.statements.numbering.get()!.prefix
  }

  create(fields: QuoteFields, now: string): Quote {
    const id = this.db
      .transaction(() => {
        this.prefix()
        this.statements.takeNumber.run()
        const { prefix, last } = this.statements.numbering.get()!
        const number = `Q-${prefix}-${String(last).padStart(4, '0')}`
        const document = documentSchema.parse(fields)
        return this.statements.insert.run(
          number,
          document.customerGuid,
          document.customerName,
          searchText(number, document),
          JSON.stringify(document),
          now,
          now,
        ).lastInsertRowid
      })
      .immediate()
    return this.get(Number(id))
  }

  find(id: number): Quote | null {
    const row = this.statements.one.get(id)
    return row ? toQuote(row) : null
  }

  get(id: number): Quote {
    const quote = this.find(id)
    if (!quote) throw new CoreError('NOT_FOUND', 'That quote no longer exists; it may have been deleted.')
    return quote
  }

  save(id: number, fields: QuoteFields, now: string): Quote {
    const current = this.get(id)
    const document = documentSchema.parse(fields)
    this.statements.update.run(
      document.customerGuid,
      document.customerName,
      searchText(current.number, document),
      JSON.stringify(document),
      now,
      id,
    )
    return this.get(id)
  }

  delete(id: number): void {
    this.statements.remove.run(id)
  }

  /**
   * Looks at the next `window` quotes after id `afterId` and removes those whose validity ended
   * before `beforeDay` (YYYY-MM-DD); answers how many went and the last id looked at (null once
   * there are none left). A quote converted into a draft that is still open (`openDraftIds`) stays:
   * the draft links back to the offer it came from.
   */
  purgeExpired(
    beforeDay: string,
    openDraftIds: readonly number[],
    afterId: number,
    window: number,
  ): { removed: number; lastId: number | null } {
    const lastId = this.statements.windowEnd.get(afterId, window) ?? null
    if (lastId === null) return { removed: 0, lastId }
    return {
      removed: this.statements.purgeExpired.run(afterId, lastId, beforeDay, JSON.stringify(openDraftIds)).changes,
      lastId,
    }
  }

  count(): number {
    return this.statements.count.get() ?? 0
  }

  /** Quotes still valid on `today` and not yet made into a draft: the customer may still say yes. */
  openCount(today: string): number {
    return this.statements.openCount.get(today) ?? 0
  }

  /**
   * The drafts the next `window` quotes after id `afterId` were converted into (the draft, or the
   * order it was sent as), and the last id looked at (null once there are none left).
   */
  convertedDraftIds(afterId: number, window: number): { draftIds: number[]; lastId: number | null } {
    const lastId = this.statements.windowEnd.get(afterId, window) ?? null
    return { draftIds: lastId === null ? [] : this.statements.convertedDraftIds.all(afterId, lastId), lastId }
  }

  /** Newest first; `query` matches the number, the customer's name, a SKU, an item's name, PO or notes. */
  list(options: { customerGuid?: string; query?: string; today: string }): QuoteSummary[] {
    const where: string[] = []
    const params: Record<string, unknown> = {}
    if (options.customerGuid) {
      where.push('customer_guid = @customer')
      params.customer = options.customerGuid
    }
    for (const [index, word] of (options.query ?? '').toLowerCase().split(/\s+/).filter(Boolean).entries()) {
      where.push(`instr(search_text, @word${index}) > 0`)
      params[`word${index}`] = word
    }
    const sql = `SELECT * FROM quotes ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY id DESC LIMIT 500`
    return this.db
      .prepare<Record<string, unknown>, QuoteRow>(sql)
      .all(params)
      .map((row) => {
        const quote = toQuote(row)
        return {
          id: quote.id,
          number: quote.number,
          customerGuid: quote.customerGuid,
          customerName: quote.customerName,
          subTotal: quote.subTotal,
          validUntil: quote.validUntil,
          createdAt: quote.createdAt,
          updatedAt: quote.updatedAt,
          convertedAt: quote.convertedAt,
          convertedDraftId: quote.convertedDraftId,
          lineCount: quote.lines.length,
          expired: quote.convertedAt === null && quote.validUntil < options.today,
        }
      })
  }
}

function toQuote(row: QuoteRow): Quote {
  const document = documentSchema.parse(JSON.parse(row.document))
  return { id: row.id, number: row.number, createdAt: row.created_at, updatedAt: row.updated_at, ...document }
}

/** Lower-cased, so a search is a plain substring test. */
function searchText(number: string, quote: QuoteFields): string {
  return [number, quote.customerName, quote.poNo, quote.note, ...quote.lines.flatMap((line) => [line.sku, line.name])]
    .join('\n')
    .toLowerCase()
}
