/**
 * What a rep does to an order after Send, in the home for life after Send: submit an order sent for
 * review, and change a sent order's header (hold, release, cancel, PO, note, dates, ship-to). Each is
 * queued in the one outbox (orders/outbox/after-send.ts) and sent by its rule here, which decides what is
 * safe to send:
 *
 * - a submit is not idempotent (each call moves the order one step on), so the order is read first
 *   and submitted only while it is still where the rep saw it: after an attempt whose answer was
 *   lost, the read shows whether that attempt went through;
 * - a change sends only the fields changed, and only while each still holds the value the rep changed
 *   it from; a field the supplier changed meanwhile makes the change a conflict showing both values,
 *   until the rep says "apply mine" or "drop mine".
 */
import type { OutboxEntry } from '../../shared/orders'
import { addressFieldNames } from '../../shared/orders'
import { allowPartialFulfillment, fulfilmentWords, type Fulfilment, type OrderChanges } from '../../shared/writes'
import { CoreError } from '../errors'
import type { Outbox } from '../orders/outbox/outbox'
import type { WaitingChange } from '../orders/outbox/after-send'
import {
  needs,
  serviceSkewMs,
  writeInFlightMs,
  type WriteOutcome,
  type WriteRule,
  type WriteRules,
  type WriteWork,
} from '../orders/outbox/write-kinds'
import { arrayOf, numberOrNull, objectOf, stateOf, textOrNull, type Json } from './status'

/** PRELIMINARY: an order sent for review waits there until it is submitted. */
const inReviewStateId = 1

/** The header fields a change may touch, at the wire, in the rep's words. */
const fieldLabels: Record<string, string> = {
  is_on_hold: 'On hold',
  is_cancelled: 'Cancel requested',
  po_no: 'PO number',
  note: 'Note',
  do_not_ship_before_date: 'Do not ship before',
  cancel_date: 'Cancel date',
  Ship_To: 'Ship to',
}

/** A field's value as compared: empty text is none, a missing flag is false, a date is its day. */
function normal(field: string, value: unknown, like?: unknown): unknown {
  if (field === 'is_on_hold' || field === 'is_cancelled') return value === true
  if (field === 'do_not_ship_before_date' || field === 'cancel_date')
    return typeof value === 'string' && value.length >= 10 ? value.slice(0, 10) : null
  if (field === 'Ship_To') {
    const address = objectOf(value)
    const keys = like && typeof like === 'object' ? Object.keys(like) : addressFieldNames
    return Object.fromEntries(keys.map((key) => [key, textOrNull(address[key])?.trim() ?? null]))
  }
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : null
}

function same(field: string, a: unknown, b: unknown, like?: unknown): boolean {
  return JSON.stringify(normal(field, a, like)) === JSON.stringify(normal(field, b, like))
}

/** The order a write is for, as this laptop knows it. */
export interface OrderTarget {
  orderGuid: string | null
  orderName: string | null
  customerGuid: string | null
  customerName: string
  stateId: number | null
  /** The header as last known: the full copy, the history's row, or the draft as sent. */
  header: Json
  /** The outbox entry of the order, while it is not sent yet: the write waits for it. */
  dependsOn: number | null
}

interface OrderWriteRequest {
  orderGuid: string | null
  orderName: string | null
  vendorGuid: string | null
}

interface SubmitRequest extends OrderWriteRequest {
  fulfilment: Fulfilment
  /** The state the rep submitted it from: a read showing another means it moved on already. */
  fromStateId: number
}

interface ChangeRequest extends OrderWriteRequest {
  changes: Record<string, { from: unknown; to: unknown }>
}

function orderGuidOf(work: WriteWork): string | null {
  return (work.request as unknown as OrderWriteRequest).orderGuid ?? work.dependency?.orderGuid ?? null
}

const notSent: WriteOutcome = {
  kind: 'refused',
  message: 'The order this was for never reached the supplier, so there is nothing to change.',
}

function resultOf(order: Json, extra: Json = {}): Json {
  return { orderGuid: textOrNull(order.guid), orderName: textOrNull(order.name), ...extra }
}

/**
 * What a change's answer keeps: the fields a change may touch as the supplier's copy gave them, and
 * the copy's updated_at. Until a sync brings the order again, the next change starts from it.
 */
function answerOf(order: Json): Json {
  const fields = Object.keys(fieldLabels).filter((field) => field in order)
  return {
    answer: {
      header: Object.fromEntries(fields.map((field) => [field, order[field]])),
      updatedAt: textOrNull(order.updated_at),
    },
  }
}

/**
 * The header as last known, with the supplier's answer to the last change sent over it where the
 * answer is newer: a change sent but not yet synced back is what the Change dialog shows and the
 * next change is made against (else changing a field twice between syncs was a conflict with the
 * rep's own change). An answer without updated_at cannot say it is newer, so it is not used.
 */
export function withLastAnswer(header: Json, result: Json | null): Json {
  const answer = objectOf(result?.answer)
  const answeredAt = Date.parse(textOrNull(answer.updatedAt) ?? '')
  if (Number.isNaN(answeredAt)) return header
  const copyAt = Date.parse(textOrNull(header.updated_at) ?? '')
  if (!Number.isNaN(copyAt) && copyAt >= answeredAt) return header
  return { ...header, ...objectOf(answer.header), updated_at: answer.updatedAt }
}

/**
 * Whether the service's record settles a submit that left the laptop at `sentAt` and was never
 * answered: the order moved out of the state it was submitted from, or its state log shows a
 * transition since (service time, read with room for the two clocks' difference).
 */
function movedSince(order: Json, fromStateId: number | null, sentAt: number): boolean {
  if (stateOf(order).id !== fromStateId) return true
  return arrayOf(order.Order_State_Logs).some((log) => {
    const at = Date.parse(textOrNull(log.created_at) ?? '')
    return (
      Number.isFinite(at) && at >= sentAt - serviceSkewMs && numberOrNull(objectOf(log.Order_State).id) !== fromStateId
    )
  })
}

/** "Checking with the supplier": what the rep reads while an unanswered submit may still be at the service. */
function stillChecking(what: string, sentAt: number): WriteOutcome {
  const checkAt = sentAt + writeInFlightMs
  const time = new Date(checkAt).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' })
  return {
    kind: 'checking',
    checkAt,
    message: `Checking with the supplier: the last ${what} got no answer and may still be with them. It is not sent again before ${time}, and only if they do not have it by then.`,
  }
}

const submitRule: WriteRule = {
  async send(work, sender, signal) {
    const request = work.request as unknown as SubmitRequest
    const orderGuid = orderGuidOf(work)
    if (!orderGuid) return notSent
    const vendorGuid = request.vendorGuid ?? undefined
    const options = { ...(vendorGuid ? { vendorGuid } : {}), signal }
    const { order } = await needs(sender, 'getOrder')(orderGuid, { ...options, once: true })
    const state = stateOf(order)
    if (state.id !== request.fromStateId) {
      // Not submitted again: either an earlier attempt whose answer was lost went through, or the
      // supplier moved it on. Either way a second submit would move it one step too far.
      const outcome =
        work.deliveryUnknownSince !== null
          ? `Submitted; the order is now ${state.name}.`
          : `The order had already moved on to ${state.name}; it was not submitted again.`
      return { kind: 'done', outcome, result: resultOf(order) }
    }
    // "Still in review" cannot see a submit the service has not finished: an unanswered one is given
    // the time it may take before another goes, unless the state log shows it went through.
    const sentAt = Date.parse(work.detail.sentAt ?? '')
    if (work.deliveryUnknownSince !== null && Number.isFinite(sentAt)) {
      if (movedSince(order, request.fromStateId, sentAt))
        return { kind: 'done', outcome: `Submitted; the order is now ${state.name}.`, result: resultOf(order) }
      if (work.now < sentAt + writeInFlightMs) return stillChecking('submit', sentAt)
    }
    const allow = allowPartialFulfillment(request.fulfilment)
    work.sending()
    const answer = await needs(sender, 'submitOrder')(
      { orderGuid, ...(allow === undefined ? {} : { allowPartialFulfillment: allow }) },
      options,
    )
    const filled = answer.autoFulfilledItems.length
    const after = stateOf(answer.order)
    return {
      kind: 'done',
      outcome: `Submitted; the order is now ${after.name}.${filled > 0 ? ` ${filled} ${filled === 1 ? 'line was' : 'lines were'} filled from stock.` : ''}`,
      result: resultOf(answer.order, { autoFulfilledItems: answer.autoFulfilledItems }),
    }
  },
}

const changeRule: WriteRule = {
  async send(work, sender, signal) {
    const request = work.request as unknown as ChangeRequest
    const orderGuid = orderGuidOf(work)
    if (!orderGuid) return notSent
    const vendorGuid = request.vendorGuid ?? undefined
    const options = { ...(vendorGuid ? { vendorGuid } : {}), signal }
    const { order } = await needs(sender, 'getOrder')(orderGuid, { ...options, once: true })
    const body: Json = {}
    const conflict = []
    const applied = new Set(work.detail.applied ?? [])
    for (const [field, { from, to }] of Object.entries(request.changes)) {
      if (applied.has(field)) continue
      const now = order[field]
      // Already as the rep wants it: an earlier attempt whose answer was lost, or the supplier did it too.
      if (same(field, now, to, to)) continue
      if (work.detail.applyMine || same(field, now, from, to)) body[field] = to
      else
        conflict.push({
          field,
          label: fieldLabels[field] ?? field,
          was: normal(field, from, to),
          theirs: normal(field, now, to),
          mine: normal(field, to, to),
        })
    }
    if (conflict.length > 0) {
      if (Object.keys(body).length === 0) return { kind: 'conflict', conflict }
      // What does not conflict goes now: a hold must not wait while the rep decides about a PO.
      const updated = objectOf(await needs(sender, 'updateOrder')(orderGuid, body, options))
      const sent = Object.keys(body).map((field) => fieldLabels[field] ?? field)
      return {
        kind: 'conflict',
        conflict,
        applied: Object.keys(body),
        outcome: `Sent meanwhile: ${sent.join(', ')}. The rest waits for your choice.`,
        result: resultOf(updated, answerOf(updated)),
      }
    }
    if (Object.keys(body).length === 0)
      return { kind: 'done', outcome: 'The supplier’s copy already says so.', result: resultOf(order, answerOf(order)) }
    const updated = objectOf(await needs(sender, 'updateOrder')(orderGuid, body, options))
    return { kind: 'done', outcome: null, result: resultOf(updated, answerOf(updated)) }
  },
}

/** The rules the outbox sends these writes by. */
export const orderWriteRules: WriteRules = { submit: submitRule, orderChange: changeRule }

/** The fields of a change at the wire, each with the value the rep changed it from. */
function wireChanges(changes: OrderChanges, header: Json): ChangeRequest['changes'] {
  const wire: Json = {}
  if (changes.onHold !== undefined) wire.is_on_hold = changes.onHold
  if (changes.cancel) wire.is_cancelled = true
  if (changes.poNo !== undefined) wire.po_no = changes.poNo
  if (changes.note !== undefined) wire.note = changes.note
  if (changes.shipAfter !== undefined) wire.do_not_ship_before_date = changes.shipAfter
  if (changes.cancelAfter !== undefined) wire.cancel_date = changes.cancelAfter
  if (changes.shipTo) {
    if (changes.shipTo.kind !== 'new') throw new CoreError('INVALID_ARGUMENT', 'Give the new ship-to address in full.')
    wire.Ship_To = changes.shipTo.address
  }
  const result: ChangeRequest['changes'] = {}
  for (const [field, to] of Object.entries(wire)) {
    if (same(field, header[field], to, to)) continue
    result[field] = { from: normal(field, header[field], to), to }
  }
  return result
}

/** A change's fields in the rep's words: a hold or a cancel is "requested", the rest a "PO change" or "PO changed". */
const fieldNames: Record<string, string> = {
  po_no: 'PO',
  note: 'Note',
  do_not_ship_before_date: 'Ship-after date',
  cancel_date: 'Cancel date',
  Ship_To: 'Ship-to',
}

/**
 * One phrase per field the change still makes, not what was already so or already waiting: "PO
 * changed" in the entry's title, "PO change" where the order page says what waits for it.
 */
function changePhrases(wire: ChangeRequest['changes'], ending: 'change' | 'changed'): string[] {
  return Object.entries(wire).map(([field, { to }]) => {
    if (field === 'is_on_hold') return to === true ? 'Hold requested' : 'Release requested'
    if (field === 'is_cancelled') return 'Cancel requested'
    return `${fieldNames[field] ?? field} ${ending}`
  })
}

function changesOf(waiting: WaitingChange): ChangeRequest['changes'] {
  return (waiting.request as unknown as ChangeRequest).changes
}

/** The header with each waiting change's values over it, in the order the changes go. */
function withChanges(header: Json, waiting: WaitingChange[]): Json {
  const result = { ...header }
  for (const each of waiting) for (const [field, { to }] of Object.entries(changesOf(each))) result[field] = to
  return result
}

/** Queues the rep's submits and changes; the order is found by the caller (CLI, the app's methods). */
export class SentOrderWrites {
  constructor(
    private readonly outbox: Outbox,
    private readonly find: (given: string) => OrderTarget | null,
  ) {}

  private target(given: string): OrderTarget {
    const target = this.find(given)
    if (!target) throw new CoreError('NOT_FOUND', `No order ${given} on this laptop.`)
    return target
  }

  submit(given: string, fulfilment: Fulfilment): OutboxEntry {
    const target = this.target(given)
    if (target.stateId !== inReviewStateId)
      throw new CoreError('CONFLICT', `${target.orderName ?? given} is not in review, so there is nothing to submit.`)
    const name = target.orderName ?? 'the order'
    const request: SubmitRequest = { ...this.requestOf(target), fulfilment, fromStateId: inReviewStateId }
    return this.queue('submit', target, request, `Submit ${name}: ${fulfilmentWords[fulfilment].toLowerCase()}`, [
      'Submit',
    ])
  }

  /**
   * The fields a change may touch (at the wire) as they will be once the changes still waiting for
   * the order have gone, in the order they go: what the Change dialog starts from, as a new change
   * is made against them.
   */
  headerAsAsked(given: string): Json {
    const target = this.target(given)
    const header = withChanges(target.header, this.waitingFor(target))
    return Object.fromEntries(Object.keys(fieldLabels).map((field) => [field, header[field] ?? null]))
  }

  change(given: string, changes: OrderChanges): OutboxEntry {
    const target = this.target(given)
    const waiting = this.waitingFor(target)
    const wire = wireChanges(changes, withChanges(target.header, waiting))
    if (Object.keys(wire).length === 0) {
      // Asked already and still waiting: a second entry would ask the supplier twice (a second hold).
      const asked = Object.keys(wireChanges(changes, target.header))
      const carrying = [...waiting].reverse().find((each) => asked.some((field) => field in changesOf(each)))
      if (carrying) return this.outbox.get(carrying.key)
      throw new CoreError('INVALID_ARGUMENT', 'The order already says so; there is nothing to change.')
    }
    const request: ChangeRequest = { ...this.requestOf(target), changes: wire }
    return this.queue(
      'orderChange',
      target,
      request,
      `${changePhrases(wire, 'changed').join(', ')} for ${target.orderName ?? 'the order'}`,
      changePhrases(wire, 'change'),
    )
  }

  /** The changes still to be sent for this order, oldest first: by the order they wait for while it is unsent. */
  private waitingFor(target: OrderTarget): WaitingChange[] {
    return this.outbox.writes.waitingChanges().filter((each) => {
      if (target.dependsOn !== null) return each.dependsOn === target.dependsOn
      const request = each.request as unknown as OrderWriteRequest
      const guid = request.orderGuid ?? each.dependencyOrderGuid
      return guid !== null
        ? guid === target.orderGuid
        : request.orderName !== null && request.orderName === target.orderName
    })
  }

  private requestOf(target: OrderTarget): OrderWriteRequest {
    return { orderGuid: target.orderGuid, orderName: target.orderName, vendorGuid: target.customerGuid }
  }

  private queue(
    kind: 'submit' | 'orderChange',
    target: OrderTarget,
    request: object,
    title: string,
    asks: string[],
  ): OutboxEntry {
    const key = this.outbox.writes.enqueue({
      kind,
      customerGuid: target.customerGuid,
      customerName: target.customerName,
      request: request as Record<string, unknown>,
      title,
      asks,
      order: { guid: target.orderGuid, name: target.orderName },
      dependsOn: target.dependsOn,
    })
    return this.outbox.get(key)
  }
}
