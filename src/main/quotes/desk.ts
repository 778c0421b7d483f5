import type { DraftCheck } from '../../shared/orders'
import type { Quote, QuoteChange, QuoteLine, QuoteSummary } from '../../shared/quotes'
import type { Database } from '../db/database'
import { CoreError } from '../errors'
import type { OrderDesk } from '../orders/desk'
import type { Clock } from '../ports'
import { roundMoney } from '../pricing'
import { QuoteRepository, type QuoteFields } from './repository'
import { formatMoney } from '../../shared/money'

export interface QuoteDeskOptions {
  db: Database
  clock: Clock
  desk: OrderDesk
  /** Days a new quote is valid for (the quoteValidityDays setting). */
  validityDays: () => number
  /** When a catalog's items last finished syncing (ms), for "prices as of". */
  catalogSyncedAt: (catalogGuid: string) => number | null
  /** Reads the draft's items again from the service when it answers (the send path's refresh). */
  refreshDraft: (draftId: number) => Promise<void>
  newPrefix?: () => string
}

const msPerDay = 86_400_000

/**
 * Quotes: a customer's lines at the prices of the day, kept on this laptop and never sent. A quote
 * becomes an order only by being converted into a draft, which then goes through every check a draft
 * does, with the prices of the day it is converted.
 */
export class QuoteDesk {
  readonly quotes: QuoteRepository
  private readonly desk: OrderDesk
  private readonly clock: Clock

  constructor(private readonly options: QuoteDeskOptions) {
    this.quotes = new QuoteRepository(options.db, options.newPrefix)
    this.desk = options.desk
    this.clock = options.clock
  }

  private now(): string {
    return new Date(this.clock.now()).toISOString()
  }

  /** The local calendar day, as quotes' validity is counted in the rep's days. */
  today(offsetDays = 0): string {
    return localDay(this.clock.now(), offsetDays)
  }

  /**
   * The draft as it stands, priced now, becomes a new quote. The draft is deleted in the same
   * transaction unless `keepDraft`: a quote converted later makes its own draft, and a draft left
   * behind would be a second order alike, one press of Send away.
   */
  saveDraft(draftId: number, { keepDraft }: { keepDraft: boolean }): Quote {
    return this.options.db.transaction(() => this.quoteDraft(draftId, keepDraft)).immediate()
  }

  private quoteDraft(draftId: number, keepDraft: boolean): Quote {
    const check = this.desk.check(draftId)
    const draft = check.draft
    if (!draft.customerGuid)
      throw new CoreError(
        'CONFLICT',
        'A quote is for a customer already on this laptop; a new customer’s first order cannot be quoted.',
      )
    if (!draft.catalogGuid) throw new CoreError('CONFLICT', 'Choose a catalog before saving a quote.')
    if (draft.lines.length === 0) throw new CoreError('CONFLICT', 'Add at least one line before saving a quote.')
    const priced = new Map(check.lines.map((line) => [line.lineId, line]))
    const lines: QuoteLine[] = draft.lines.map((line) => ({
      lineId: line.lineId,
      catalogItemGuid: line.catalogItemGuid,
      sku: line.sku,
      name: line.name,
      qty: line.qty,
      note: line.note,
      unitPrice: priced.get(line.lineId)?.unitPrice ?? null,
      lineTotal: priced.get(line.lineId)?.lineTotal ?? null,
    }))
    const syncedAt = this.options.catalogSyncedAt(draft.catalogGuid)
    const quote = this.quotes.create(
      {
        customerGuid: draft.customerGuid,
        customerName: this.desk.customerName(draft.customerGuid),
        catalogGuid: draft.catalogGuid,
        priceGroupGuid: draft.priceGroupGuid,
        priceGroupName: check.priceGroup?.name ?? null,
        poNo: draft.poNo,
        note: draft.note,
        shippingInstructions: draft.shippingInstructions,
        shipTo: draft.shipTo,
        lines,
        subTotal: subTotalOf(lines),
        validUntil: this.today(this.options.validityDays()),
        pricesAsOf: syncedAt === null ? null : new Date(syncedAt).toISOString(),
        convertedAt: null,
        convertedDraftId: null,
      },
      this.now(),
    )
    if (!keepDraft) this.desk.deleteDraft(draftId)
    return quote
  }

  list(options: { customerGuid?: string; query?: string } = {}): QuoteSummary[] {
    return this.quotes.list({ ...options, today: this.today() })
  }

  get(id: number): Quote {
    return this.quotes.get(id)
  }

  /**
   * Validity, PO, notes and quantities; lines left out of `lines` are removed. Prices stay as
   * quoted: a quantity change recomputes the line at the quoted unit price, since that is the offer.
   */
  update(
    id: number,
    changes: { validUntil?: string; poNo?: string; note?: string; lines?: { lineId: string; qty: number }[] },
  ): Quote {
    const quote = this.editable(id)
    let lines = quote.lines
    if (changes.lines) {
      const wanted = new Map(changes.lines.map((line) => [line.lineId, line.qty]))
      const unknown = changes.lines.find((line) => !quote.lines.some((l) => l.lineId === line.lineId))
      if (unknown) throw new CoreError('NOT_FOUND', 'That line is no longer on the quote.')
      if (wanted.size === 0)
        throw new CoreError('CONFLICT', 'A quote needs at least one line; delete the quote instead.')
      lines = quote.lines
        .filter((line) => wanted.has(line.lineId))
        .map((line) => {
          const qty = wanted.get(line.lineId)!
          return { ...line, qty, lineTotal: line.unitPrice === null ? null : roundMoney(line.unitPrice * qty) }
        })
    }
    const { id: _id, number: _n, createdAt: _c, updatedAt: _u, ...fields } = quote
    const next: QuoteFields = {
      ...fields,
      ...(changes.validUntil !== undefined ? { validUntil: changes.validUntil } : {}),
      ...(changes.poNo !== undefined ? { poNo: changes.poNo } : {}),
      ...(changes.note !== undefined ? { note: changes.note } : {}),
      lines,
      subTotal: subTotalOf(lines),
    }
    return this.quotes.save(id, next, this.now())
  }

  /** A copy with a new number and a fresh validity, as quoted (not re-priced), not converted. */
  duplicate(id: number): Quote {
    const { id: _id, number: _n, createdAt: _c, updatedAt: _u, ...fields } = this.get(id)
    return this.quotes.create(
      { ...fields, validUntil: this.today(this.options.validityDays()), convertedAt: null, convertedDraftId: null },
      this.now(),
    )
  }

  delete(id: number): void {
    this.get(id)
    this.quotes.delete(id)
  }

  /**
   * A new draft with the quote's customer, fields and lines, priced today: the items are read again
   * from the service when it answers, and every line whose price or availability moved since the
   * quote is named. Lines no longer in the catalog are left out (and named). The quote is marked
   * converted so it is not converted twice by mistake: in the same transaction as the draft and its
   * lines, before the service is asked anything, so neither a second press of Convert meanwhile nor
   * a crash can leave a second draft, or a draft beside a quote still open.
   */
  async convert(id: number): Promise<{ check: DraftCheck; changes: QuoteChange[] }> {
    const { quote, draft, unknown } = this.options.db
      .transaction(() => {
        const quote = this.editable(id)
        const draft = this.desk.createDraft({
          customerGuid: quote.customerGuid,
          catalogGuid: quote.catalogGuid,
          ...(quote.priceGroupGuid ? { priceGroupGuid: quote.priceGroupGuid } : {}),
          poNo: quote.poNo,
          note: quote.note,
          shippingInstructions: quote.shippingInstructions,
          ...(quote.shipTo ? { shipTo: quote.shipTo } : {}),
        })
        const { unknown } = this.desk.addLines(
          draft.id,
          quote.lines.map((line) => ({
            catalogItemGuid: line.catalogItemGuid,
            qty: line.qty,
            ...(line.note ? { note: line.note } : {}),
          })),
          // A quoted line no longer offered is kept and named in the changes below, not dropped unsaid.
          { refuseNotOffered: false },
        )
        const { id: _id, number: _n, createdAt: _c, updatedAt: _u, ...fields } = quote
        this.quotes.save(id, { ...fields, convertedAt: this.now(), convertedDraftId: draft.id }, this.now())
        return { quote, draft, unknown }
      })
      .immediate()
    await this.options.refreshDraft(draft.id)
    // The refresh may have changed prices since the lines were added: the draft takes today's, and
    // the list below tells the rep how they differ from the quote's.
    const check = this.desk.acceptCurrentPrices(draft.id)
    const changes: QuoteChange[] = []
    for (const line of quote.lines) {
      const current = check.draft.lines.find((l) => l.catalogItemGuid === line.catalogItemGuid)
      if (!current || unknown.includes(line.catalogItemGuid)) {
        changes.push(change(line, 'gone', null, 'no longer in the catalog; left out'))
        continue
      }
      const priced = check.lines.find((l) => l.lineId === current.lineId)
      const price = priced?.unitPrice ?? null
      if (price === null) {
        const reason = check.issues.find(
          (issue) => issue.lineId === current.lineId && issue.severity === 'error',
        )?.message
        changes.push(change(line, 'notOffered', null, reason ?? 'not offered any more'))
      } else if (line.unitPrice === null || Math.abs(line.unitPrice - price) >= 0.005) {
        changes.push(
          change(
            line,
            'price',
            price,
            `${line.unitPrice === null ? 'not offered' : formatMoney(line.unitPrice, this.desk.locale)} → ${formatMoney(price, this.desk.locale)}`,
          ),
        )
      }
    }
    return { check: this.desk.check(draft.id), changes }
  }

  private editable(id: number): Quote {
    const quote = this.get(id)
    if (quote.convertedAt)
      throw new CoreError(
        'CONFLICT',
        `Quote ${quote.number} was converted into a draft; duplicate it to make a new one.`,
      )
    return quote
  }
}

function change(line: QuoteLine, kind: QuoteChange['kind'], currentPrice: number | null, message: string): QuoteChange {
  return { sku: line.sku, name: line.name, qty: line.qty, kind, quotedPrice: line.unitPrice, currentPrice, message }
}

function subTotalOf(lines: QuoteLine[]): number {
  return roundMoney(lines.reduce((sum, line) => sum + (line.lineTotal ?? 0), 0))
}

/** The calendar day on this laptop (YYYY-MM-DD) at `ms`, `offsetDays` later: quotes' validity is counted in the rep's days. */
export function localDay(ms: number, offsetDays = 0): string {
  const date = new Date(ms + offsetDays * msPerDay)
  const pad = (n: number) => String(n).padStart(2, '0')
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`
}
