import { randomUUID } from 'node:crypto'
import {
  ambiguousCodeText,
  draftSchema,
  maxOrderLines,
  type AmbiguousCode,
  outboxEntrySchema,
  tooManyLinesMessage,
  type Draft,
  type DraftCheck,
  type DraftIssue,
  type DraftLine,
  type NewCustomer,
  type OutboxEntry,
  type ShipTo,
} from '../../shared/orders'
import type { Database } from '../db/database'
import { CoreError } from '../errors'
import type { Clock } from '../ports'
import { DraftRepository, newLineId, type DraftFields } from './drafts'
import { itemOfCode } from './item-of-code'
import type { CatalogItemFacts, OrderLookup } from './lookup'
import { Outbox } from './outbox/outbox'
import { unitPriceAt } from '../pricing'
import { notOfferedReason, seenLine, startingQty, storableQty, type SeenLine } from './line-terms'
import { resolvePriceGroup } from './price-group'
import { buildOrderRequest } from './request'
import { checkDraft } from './validation'
import { madeOnThisLaptop } from './customer-writes'

export interface NewDraft {
  customerGuid?: string
  newCustomer?: NewCustomer
  /** A customer made on this laptop (its outbox key): the draft stands for it until it is sent. */
  customerLocalId?: string
  catalogGuid?: string
  apiGuid?: string
  priceGroupGuid?: string
  poNo?: string
  note?: string
  shippingInstructions?: string
  shipTo?: ShipTo
  remainInPreliminary?: boolean
}

export type DraftChanges = Partial<
  Pick<
    Draft,
    | 'customerGuid'
    | 'newCustomer'
    | 'catalogGuid'
    | 'priceGroupGuid'
    | 'poNo'
    | 'note'
    | 'shippingInstructions'
    | 'shipTo'
    | 'remainInPreliminary'
  >
>

export interface LineToAdd {
  catalogItemGuid?: string
  sku?: string
  /** Left out for a scan or a pick: one more on a line already there, else the item's minimum (at least one). */
  qty?: number
  note?: string
}

/** A checked draft on its way to the outbox: the reply is known before anything is written. */
export interface PreparedSend {
  /** The entry as it will be once queued, computed and validated before the commit. */
  readonly entry: OutboxEntry
  /**
   * The one durable transaction: the draft leaves the drafts and enters the outbox. Returns the queued
   * entry. `dependsOn`: the outbox entry it waits for (the new customer it is for, made offline).
   */
  commit(dependsOn?: number | null): OutboxEntry
}

/**
 * A whole order given at once (the CLI's draft file), built and checked in memory: nothing is
 * written until `prepareSend().commit()`, the one durable transaction that queues it, so a refused
 * or interrupted order leaves no draft behind.
 */
export interface ComposedOrder {
  /** The order's one check. */
  readonly check: DraftCheck
  /** For each line given, in order: the draft line it went into (a repeated item adds to one line), or null when its item is not in the catalog. */
  readonly lineIds: (string | null)[]
  /** The codes that named a family's parent (never ordered): their lineIds are null too. */
  readonly families: FamilyCode[]
  /** The codes that could mean more than one item (a shared UPC, a SKU in other capitals than two): their lineIds are null too. */
  readonly ambiguous: AmbiguousCode[]
  /** As `OrderDesk.prepareSend`, from the check above. */
  prepareSend(): PreparedSend
}

const emptyOrderMessage = 'Add at least one line before sending.'

/** A code (or a guid) whose item the draft's price group is not offered: refused, with why and what to do. */
export interface NotOfferedCode {
  code: string
  sku: string
  reason: string
}

/** A code (or a guid, as the line gave it) that named a family's parent: what to open instead of adding a line. */
interface FamilyCode {
  code: string
  guid: string
  title: string
}

/**
 * Everything a rep does with orders on this laptop: drafts, their checks, and handing them to the
 * outbox. Used by the IPC handlers and by the CLI alike.
 */
export class OrderDesk {
  readonly drafts: DraftRepository
  readonly outbox: Outbox
  /** Each draft's last removed line and its place, for Undo: a few seconds' worth, so not kept on disk. */
  private readonly removed = new Map<number, { line: DraftLine; index: number }>()

  constructor(
    db: Database,
    private readonly lookup: OrderLookup,
    private readonly clock: Clock,
    private readonly defaults: () => { remainInPreliminary: boolean },
    /** The rep's locale, for the amounts in the desk's messages and the quotes' (the CLI keeps en-US). */
    readonly locale = 'en-US',
  ) {
    this.drafts = new DraftRepository(db, clock)
    this.outbox = new Outbox(db, this.drafts, clock)
  }

  createDraft(given: NewDraft): Draft {
    const { fields, apiGuid } = this.newDraft(given)
    return apiGuid ? this.drafts.create(fields, apiGuid) : this.drafts.create(fields)
  }

  /**
   * A whole order at once: its lines merged as `addLines` merges them, checked once and priced once,
   * without ever being saved as a draft. The cost grows with the lines, never with their square.
   */
  composeOrder(given: NewDraft, toAdd: LineToAdd[]): ComposedOrder {
    const { fields, apiGuid } = this.newDraft(given)
    const now = new Date(this.clock.now()).toISOString()
    // Number 0: it never was a draft the rep could open. Reopened after a refusal, it gets a number.
    const empty: Draft = { ...fields, id: 0, apiGuid: apiGuid ?? randomUUID(), createdAt: now, updatedAt: now }
    // A whole order is checked as given: a line not offered is the check's error on that line.
    const { lines, lineIds, families, ambiguous } = this.mergeLines(empty, toAdd, { refuseNotOffered: false })
    // The shape a saved draft would have been given, so the outbox's copy reads back like any other.
    const check = checkDraft(draftSchema.parse({ ...empty, lines }), this.lookup, this.locale)
    return { check, lineIds, families, ambiguous, prepareSend: () => this.sendingOf(check) }
  }

  /** A new draft's fields, with the checks a new draft must pass; nothing is written. */
  private newDraft(given: NewDraft): { fields: DraftFields; apiGuid: string | undefined } {
    // An api_guid is a UUID: kept in lower case, so the same key in other capitals is the same order.
    const input = given.apiGuid ? { ...given, apiGuid: given.apiGuid.toLowerCase() } : given
    if (input.customerGuid && input.newCustomer)
      throw new CoreError('INVALID_ARGUMENT', 'A draft is for an existing customer or a new one, not both.')
    const made = input.customerLocalId
      ? madeOnThisLaptop(this.outbox, input.customerLocalId, (guid) => !!this.lookup.customer(guid))
      : null
    const madeHere = made && 'newCustomer' in made ? made.newCustomer : null
    const customerGuid = input.customerGuid ?? (made && 'customerGuid' in made ? made.customerGuid : undefined)
    if (customerGuid && !this.lookup.customer(customerGuid))
      throw new CoreError('NOT_FOUND', 'That customer is not on this laptop.')
    const catalogGuid = input.catalogGuid ?? this.startingCatalog(customerGuid ?? null)
    if (input.apiGuid && (this.drafts.findByApiGuid(input.apiGuid) || this.outbox.find(input.apiGuid))) {
      throw new CoreError('CONFLICT', `An order with api_guid ${input.apiGuid} already exists on this laptop.`)
    }
    const fields: DraftFields = {
      customerGuid: customerGuid ?? null,
      newCustomer: madeHere ?? input.newCustomer ?? null,
      customerLocalId: madeHere ? input.customerLocalId!.toLowerCase() : null,
      catalogGuid,
      priceGroupGuid: input.priceGroupGuid ?? null,
      // A customer who orders on a standing PO gets it on each new order; the rep may change it.
      poNo: input.poNo ?? (customerGuid ? (this.lookup.customer(customerGuid)?.standingPo ?? '') : ''),
      note: input.note ?? '',
      shippingInstructions: input.shippingInstructions ?? '',
      shipTo: input.shipTo ?? null,
      remainInPreliminary: input.remainInPreliminary ?? this.defaults().remainInPreliminary,
      lines: [],
      rejection: null,
    }
    return { fields, apiGuid: input.apiGuid }
  }

  /**
   * The catalog a new order starts on, so the rep never starts on "Choose a catalog…": the one the
   * customer is locked to or the only one they may use; else the last one used for them (an order on
   * this laptop, then their order history); else the last one the rep used; else the first they may
   * use. A new customer starts on the catalog the service will put it on (activeCatalogs' first), at
   * that catalog's main group: the rep's last catalog gave its first order prices and items the
   * customer would not have ("BCF-10001 is not in this catalog").
   */
  private startingCatalog(customerGuid: string | null): string | null {
    const allowed = customerGuid ? this.lookup.catalogsForCustomer(customerGuid) : this.lookup.activeCatalogs()
    if (!allowed?.length) return null
    if (allowed?.length === 1 || !customerGuid) return allowed[0]!
    const usable = (guid: string | null | undefined): guid is string => !!guid && allowed.includes(guid)
    if (customerGuid) {
      const forCustomer = this.usedCatalogs(customerGuid).find(usable) ?? this.lookup.lastOrderCatalog(customerGuid)
      if (usable(forCustomer)) return forCustomer
    }
    const byRep = this.usedCatalogs(null).find(usable)
    if (byRep) return byRep
    return allowed[0]!
  }

  /** Catalogs of the orders written on this laptop (drafts and the outbox), newest first: a customer's, or all with null. */
  private usedCatalogs(customerGuid: string | null): string[] {
    return [...this.drafts.recentCatalogs(customerGuid), ...this.outbox.read.recentCatalogs(customerGuid)]
      .sort((a, b) => (a.at < b.at ? 1 : a.at > b.at ? -1 : 0))
      .slice(0, 20)
      .map((used) => used.catalogGuid)
  }

  customerName(guid: string | null): string {
    return guid ? (this.lookup.customer(guid)?.name ?? '') : ''
  }

  check(id: number): DraftCheck {
    return checkDraft(this.drafts.get(id), this.lookup, this.locale)
  }

  listDrafts(): DraftCheck[] {
    return this.drafts.list().map((draft) => checkDraft(draft, this.lookup, this.locale))
  }

  updateDraft(id: number, changes: DraftChanges): DraftCheck {
    const draft = this.drafts.get(id)
    const next = { ...draft, ...changes }
    if (changes.customerGuid) next.newCustomer = null
    if (changes.newCustomer) next.customerGuid = null
    // Another customer chosen: the order no longer waits for the one made on this laptop.
    if (changes.customerGuid || changes.newCustomer) next.customerLocalId = null
    // Choosing the customer of a draft with no PO yet brings in their standing PO, as a new draft would.
    if (changes.customerGuid && changes.poNo === undefined && draft.poNo.trim() === '')
      next.poNo = this.lookup.customer(changes.customerGuid)?.standingPo ?? ''
    const catalogChanged = changes.catalogGuid !== undefined && changes.catalogGuid !== draft.catalogGuid
    if (catalogChanged && draft.lines.length > 0) {
      throw new CoreError(
        'CONFLICT',
        'Remove the lines before switching catalogs: their items and prices belong to the current one.',
      )
    }
    return checkDraft(this.drafts.save(id, fieldsOf(next)), this.lookup, this.locale)
  }

  deleteDraft(id: number): void {
    this.drafts.get(id)
    this.drafts.delete(id)
  }

  /**
   * Adds lines by catalog item or by code (typed, scanned or pasted): a code is an item's exact UPC,
   * else its SKU. An item already on the draft adds to that line's quantity, as scanning the same box
   * twice means two boxes. Answers, for each line given, the draft line it went into (null when it
   * went into none), the codes no item has, and the codes more than one item has (named, never guessed).
   */
  addLines(
    id: number,
    toAdd: LineToAdd[],
    options = { refuseNotOffered: true },
  ): {
    check: DraftCheck
    unknown: string[]
    ambiguous: AmbiguousCode[]
    lineIds: (string | null)[]
    startedAtMinimum: string[]
    families: FamilyCode[]
    notOffered: NotOfferedCode[]
  } {
    const draft = this.drafts.get(id)
    const { lines, unknown, ambiguous, lineIds, startedAtMinimum, families, notOffered } = this.mergeLines(
      draft,
      toAdd,
      options,
    )
    return {
      check: checkDraft(this.drafts.save(id, fieldsOf({ ...draft, lines })), this.lookup, this.locale),
      unknown,
      ambiguous,
      lineIds,
      startedAtMinimum,
      families,
      notOffered,
    }
  }

  /**
   * The draft's lines with `toAdd` merged in, and for each one added the line it went into (null for
   * an item not in the catalog, also listed in `unknown`). One look-up per line added: an item
   * already on the draft is found by its guid in a map, and the price group is resolved once.
   * `refuseNotOffered`: an item the draft's price group is not offered adds no line (a scan, a pick),
   * named in `notOffered` with why and what to do, since the supplier would refuse the line.
   */
  private mergeLines(
    draft: Draft,
    toAdd: LineToAdd[],
    { refuseNotOffered }: { refuseNotOffered: boolean },
  ): {
    lines: DraftLine[]
    unknown: string[]
    ambiguous: AmbiguousCode[]
    lineIds: (string | null)[]
    startedAtMinimum: string[]
    families: FamilyCode[]
    notOffered: NotOfferedCode[]
  } {
    if (!draft.catalogGuid)
      throw new CoreError('CONFLICT', 'Choose a catalog before adding lines.', [
        { path: 'catalog', message: 'Choose a catalog before adding lines.' },
      ])
    const catalogGuid = draft.catalogGuid
    const { seen, group } = this.pricingOf(draft)
    const lines = [...draft.lines]
    const lineOfItem = new Map(lines.map((line, index) => [line.catalogItemGuid, index]))
    const unknown: string[] = []
    const ambiguous: AmbiguousCode[] = []
    const lineIds: (string | null)[] = []
    const startedAtMinimum: string[] = []
    const families: FamilyCode[] = []
    const notOffered: NotOfferedCode[] = []
    for (const [index, wanted] of toAdd.entries()) {
      if (wanted.qty !== undefined) storableQty(wanted.qty, `lines.${index}.qty`)
      const item = wanted.catalogItemGuid
        ? this.lookup.catalogItem(catalogGuid, wanted.catalogItemGuid)
        : wanted.sku
          ? itemOfCode(this.lookup, catalogGuid, wanted.sku)
          : null
      if (item && 'code' in item) {
        ambiguous.push(item)
        lineIds.push(null)
        continue
      }
      if (!item || item.deleted) {
        unknown.push(wanted.sku ?? wanted.catalogItemGuid ?? '')
        lineIds.push(null)
        continue
      }
      // A family's parent only names its members: the rep picks them on its grid.
      if (item.isFamily) {
        families.push({ code: wanted.sku ?? wanted.catalogItemGuid ?? item.sku, guid: item.guid, title: item.name })
        lineIds.push(null)
        continue
      }
      // No group to price by (none in the catalog): the check says so; the line is not refused here.
      if (refuseNotOffered && group && !unitPriceAt(item, group.name, 1).offered) {
        notOffered.push({
          code: wanted.sku ?? wanted.catalogItemGuid ?? item.sku,
          sku: item.sku,
          reason: notOfferedReason(item.sku, group.name),
        })
        lineIds.push(null)
        continue
      }
      const existing = lineOfItem.get(item.guid)
      if (existing !== undefined) {
        const line = lines[existing]!
        const qty = storableQty(line.qty + (wanted.qty ?? 1), `lines.${index}.qty`)
        lines[existing] = { ...seen(item, qty), lineId: line.lineId, note: wanted.note ?? line.note }
        lineIds.push(line.lineId)
      } else {
        // Refused at the first line past the cap, before the rest are looked up.
        if (lines.length >= maxOrderLines)
          throw new CoreError('INVALID_ARGUMENT', tooManyLinesMessage(), [
            { path: 'lines', message: tooManyLinesMessage() },
          ])
        const lineId = newLineId()
        lineOfItem.set(item.guid, lines.length)
        const minimum = startingQty(item)
        if (wanted.qty === undefined && minimum > 1) startedAtMinimum.push(lineId)
        lines.push({ ...seen(item, wanted.qty ?? minimum), lineId, note: wanted.note ?? '' })
        lineIds.push(lineId)
      }
    }
    return { lines, unknown, ambiguous, lineIds, startedAtMinimum, families, notOffered }
  }

  updateLine(id: number, lineId: string, changes: { qty?: number; note?: string }): DraftCheck {
    const draft = this.drafts.get(id)
    const index = draft.lines.findIndex((line) => line.lineId === lineId)
    if (index < 0) throw new CoreError('NOT_FOUND', 'That line is no longer on the draft.')
    if (changes.qty !== undefined) storableQty(changes.qty, 'qty')
    const line = draft.lines[index]!
    let next: DraftLine = { ...line, note: changes.note ?? line.note }
    if (changes.qty !== undefined && changes.qty !== line.qty) {
      const item = draft.catalogGuid ? this.lookup.catalogItem(draft.catalogGuid, line.catalogItemGuid) : null
      // A new quantity may cross a qty break: the rep now sees that price.
      next = item
        ? { ...this.seenFor(draft)(item, changes.qty), lineId, note: next.note }
        : { ...next, qty: changes.qty }
    }
    const lines = draft.lines.map((l, i) => (i === index ? next : l))
    return checkDraft(this.drafts.save(id, fieldsOf({ ...draft, lines })), this.lookup, this.locale)
  }

  removeLine(id: number, lineId: string): DraftCheck {
    const draft = this.drafts.get(id)
    const index = draft.lines.findIndex((line) => line.lineId === lineId)
    if (index < 0) throw new CoreError('NOT_FOUND', 'That line is no longer on the draft.')
    const lines = draft.lines.filter((_, at) => at !== index)
    const check = checkDraft(this.drafts.save(id, fieldsOf({ ...draft, lines })), this.lookup, this.locale)
    this.removed.set(id, { line: draft.lines[index]!, index })
    return check
  }

  /**
   * The rep's Undo of the draft's last removal: the line back in its place as it was (quantity, note,
   * the price seen), unless its item has been put on the draft again since.
   */
  restoreLine(id: number, lineId: string): DraftCheck {
    const removed = this.removed.get(id)
    if (removed?.line.lineId !== lineId) throw new CoreError('NOT_FOUND', 'That line can no longer be put back.')
    const draft = this.drafts.get(id)
    if (draft.lines.some((line) => line.catalogItemGuid === removed.line.catalogItemGuid))
      throw new CoreError('CONFLICT', `${removed.line.sku} is on the draft again: change its quantity there.`)
    const lines = [...draft.lines]
    lines.splice(Math.min(removed.index, lines.length), 0, removed.line)
    const check = checkDraft(this.drafts.save(id, fieldsOf({ ...draft, lines })), this.lookup, this.locale)
    this.removed.delete(id)
    return check
  }

  /**
   * A new draft with a previous order's lines, for the same customer and catalog. Lines that can no
   * longer be ordered (gone from the catalog, inactive, not offered to the customer's price group)
   * are left out and named, so the draft can be sent as it stands.
   */
  reorder(source: {
    customerGuid: string
    catalogGuid: string | null
    lines: { sku: string; name: string; qty: number; catalogItemGuid?: string | null }[]
  }): {
    check: DraftCheck
    notOffered: { sku: string; name: string; reason: string }[]
  } {
    const draft = this.createDraft({
      customerGuid: source.customerGuid,
      ...(source.catalogGuid ? { catalogGuid: source.catalogGuid } : {}),
    })
    const notOffered: { sku: string; name: string; reason: string }[] = []
    const wanted = source.lines.filter((line) => line.qty > 0)
    if (draft.catalogGuid) {
      // Every line goes in first: the ones that cannot be ordered leave below, each with its check's reason.
      const { unknown, ambiguous } = this.addLines(
        draft.id,
        wanted.map((line) =>
          line.catalogItemGuid
            ? { catalogItemGuid: line.catalogItemGuid, qty: line.qty }
            : { sku: line.sku, qty: line.qty },
        ),
        { refuseNotOffered: false },
      )
      for (const missing of unknown) {
        const line = wanted.find((l) => l.sku === missing || l.catalogItemGuid === missing)
        notOffered.push({ sku: line?.sku ?? missing, name: line?.name ?? '', reason: 'no longer in the catalog' })
      }
      for (const found of ambiguous)
        notOffered.push({
          sku: found.code,
          name: wanted.find((l) => l.sku === found.code)?.name ?? '',
          reason: ambiguousCodeText(found),
        })
      const check = this.check(draft.id)
      const blocked = new Map(
        check.issues
          .filter((issue) => issue.lineId && issue.severity === 'error')
          .map((issue) => [issue.lineId!, issue.message]),
      )
      for (const line of check.draft.lines) {
        const reason = blocked.get(line.lineId)
        if (reason === undefined) continue
        notOffered.push({ sku: line.sku, name: line.name, reason })
        this.removeLine(draft.id, line.lineId)
      }
    } else {
      for (const line of wanted)
        notOffered.push({ sku: line.sku, name: line.name, reason: 'the order’s catalog is not on this laptop' })
    }
    return { check: this.check(draft.id), notOffered }
  }

  /** The rep has seen the changed prices and stock: the current ones become the ones "seen". */
  acceptCurrentPrices(id: number): DraftCheck {
    const draft = this.drafts.get(id)
    const seen = this.seenFor(draft)
    const lines = draft.lines.map((line) => {
      const item = draft.catalogGuid ? this.lookup.catalogItem(draft.catalogGuid, line.catalogItemGuid) : null
      return item ? { ...seen(item, line.qty), lineId: line.lineId, note: line.note } : line
    })
    return checkDraft(this.drafts.save(id, fieldsOf({ ...draft, lines })), this.lookup, this.locale)
  }

  /**
   * Queues the draft. Refused while the check has errors, and while a line's price changed since the
   * rep saw it: a changed price is shown to the rep, never sent silently.
   */
  send(id: number): OutboxEntry {
    return this.prepareSend(id).commit()
  }

  /**
   * Everything "Send" checks and computes, with nothing written: the request, the totals and the
   * entry the caller will report. Only `commit()` writes, in one transaction, and nothing after that
   * transaction can fail the send: an order on disk is reported queued, never as an error.
   */
  prepareSend(id: number): PreparedSend {
    return this.sendingOf(this.check(id))
  }

  private sendingOf(check: DraftCheck): PreparedSend {
    const changed = check.lines.filter((line) => line.priceChanged)
    if (changed.length > 0) {
      throw new CoreError(
        'CONFLICT',
        `Prices changed since drafting on ${changed.length} line(s). Review them and accept the new prices before sending.`,
        changed.map((line) => ({ path: `lines.${line.lineId}`, message: 'price changed' })),
      )
    }
    if (check.draft.lines.length === 0) {
      throw new CoreError('INVALID_ARGUMENT', emptyOrderMessage, [{ path: 'lines', message: emptyOrderMessage }])
    }
    if (!check.sendable) {
      const errors = check.issues.filter((issue) => issue.severity === 'error')
      throw new CoreError(
        'INVALID_ARGUMENT',
        `Fix ${errors.length} problem(s) before sending: ${errors.map((e) => e.message).join(' ')}`,
        errors.map((e) => ({ path: issuePath(e), message: e.message })),
      )
    }
    const { request, totals } = buildOrderRequest(check, this.lookup)
    const draft = check.draft
    const customerName = draft.customerGuid
      ? (this.lookup.customer(draft.customerGuid)?.name ?? '')
      : (draft.newCustomer?.name ?? '')
    // Parsed against the contract, so a total that is not a number fails here, before the commit.
    const entry = outboxEntrySchema.parse({
      apiGuid: draft.apiGuid,
      state: 'queued',
      customerGuid: draft.customerGuid,
      customerName,
      orderGuid: null,
      orderName: null,
      orderStateId: null,
      attempts: 0,
      lastError: null,
      errors: [],
      nextAttemptAt: null,
      queuedAt: new Date(this.clock.now()).toISOString(),
      sentAt: null,
      mayBeWithSupplier: false,
      lineCount: totals.lineCount,
      subTotal: totals.subTotal,
      totalsDiffer: null,
    } satisfies OutboxEntry)
    return {
      entry,
      // A draft for a customer made on this laptop waits for that customer's entry.
      commit: (dependsOn = this.outbox.writes.newCustomer(draft.customerLocalId ?? '')?.id ?? null) => {
        this.outbox.enqueue(draft, request, totals, customerName, entry.queuedAt, dependsOn)
        return entry
      },
    }
  }

  /** How a line of this draft is priced and recorded; the customer and price group are read once. */
  private seenFor(draft: Draft): (item: CatalogItemFacts, qty: number) => SeenLine {
    return this.pricingOf(draft).seen
  }

  private pricingOf(draft: Draft): {
    seen: (item: CatalogItemFacts, qty: number) => SeenLine
    group: { name: string } | null
  } {
    const customer = draft.customerGuid ? this.lookup.customer(draft.customerGuid) : null
    const group = draft.catalogGuid
      ? resolvePriceGroup(this.lookup, draft.catalogGuid, draft.priceGroupGuid, customer)
      : null
    return { seen: (item, qty) => seenLine(item, qty, group?.name ?? null), group }
  }
}

/** Where an issue points: a draft field, a line, or a line's field (`lines.<lineId>.qty`). */
function issuePath(issue: DraftIssue): string {
  if (issue.lineId === null) return issue.field ?? ''
  return issue.field ? `lines.${issue.lineId}.${issue.field}` : `lines.${issue.lineId}`
}

function fieldsOf(draft: Draft): DraftFields {
  const { id: _id, apiGuid: _a, createdAt: _c, updatedAt: _u, ...fields } = draft
  return fields
}
