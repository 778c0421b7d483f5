/**
 * What the flusher makes of an answer, or of a failure: whether an order may be on the service, a
 * refusal tied back to the order's lines, the confirmation kept with a sent entry; and how a write
 * after Send ends (done, conflict, refused). Kept apart from flusher.ts, which is the sending itself:
 * the lease, the order of the queue, one request at a time.
 */
import type { OutboxLineError } from '../../../shared/orders'
import { ServiceError, ServiceRejectedError, type ReconcileLineError } from '../../ordering-client/errors'
import type { OrderWithItemsResult } from '../../ordering-client/client'
import type { OrderRecord } from '../../ordering-client/schemas'
import type { OutboxWork } from './outbox'
import type { OutboxWrites } from './after-send'
import type { SentResult } from './rows'
import type { WriteOutcome, WriteRules, WriteSender, WriteWork } from './write-kinds'

/**
 * Failures after which the service may hold the order: the request may have been committed before its
 * answer was lost, cut or failed. A 429 and refused credentials are answers from the service's door,
 * a reply from a login page or proxy never reached the service at all, and neither did a request
 * that found no connection (refused, no such host, TLS refused): the entry stays the rep's to edit.
 */
export function mayHaveBeenCommitted(error: unknown): boolean {
  if (!(error instanceof ServiceError)) return true
  if (error.intercepted || error.neverLeft) return false
  return error.kind !== 'rateLimited' && error.kind !== 'credentials'
}

/** The service said no to the order itself. */
export function isRefusal(error: unknown): error is ServiceError {
  return (
    error instanceof ServiceRejectedError ||
    (error instanceof ServiceError && (error.kind === 'badRequest' || error.kind === 'notFound'))
  )
}

/** Failures that say the service as a whole cannot take orders now, so the rest of the queue waits too. */
export function serviceUnavailable(error: ServiceError): boolean {
  return (
    error.kind === 'unreachable' || error.kind === 'timeout' || error.kind === 'rateLimited' || error.status === 503
  )
}

/**
 * Maps the service's complaints to the order's lines: by catalog item guid first, then SKU, and only
 * then by the position the service gave (a 0-based index into orderItems; the spec does not show the
 * structure, so the item's identity is trusted over a number whose base is a guess).
 */
export function mapRejectionToLines(errors: ReconcileLineError[], work: Pick<OutboxWork, 'lines'>): OutboxLineError[] {
  return errors.map((error) => {
    let index = -1
    if (error.catalogItemGuid) index = work.lines.findIndex((line) => line.catalogItemGuid === error.catalogItemGuid)
    if (index < 0 && error.sku)
      index = work.lines.findIndex((line) => line.sku.toLowerCase() === error.sku!.toLowerCase())
    if (index < 0 && error.line !== null && error.line >= 0 && error.line < work.lines.length) index = error.line
    const line = index >= 0 ? work.lines[index] : undefined
    return {
      lineIndex: line ? index : null,
      catalogItemGuid: line?.catalogItemGuid ?? error.catalogItemGuid,
      sku: line?.sku ?? error.sku,
      message: error.message,
    }
  })
}

/** An order found in the service's order list: its list entry stands in for the confirmation that was lost. */
export function foundOnService(order: OrderRecord): OrderWithItemsResult {
  return { order, vendor: null, billTo: null, shipTo: null, contact: null, note: null, raw: { order } }
}

export function sentResult(result: OrderWithItemsResult, createdCustomerGuid: string | null = null): SentResult {
  const order = result.order as Record<string, unknown>
  const number = (value: unknown) =>
    typeof value === 'number' && Number.isFinite(value)
      ? value
      : typeof value === 'string' && value !== '' && Number.isFinite(Number(value))
        ? Number(value)
        : null
  const guidOf = (ref: { guid?: string | null } | null) => ref?.guid ?? null
  return {
    orderGuid: String(order.guid),
    orderName: typeof order.name === 'string' ? order.name : null,
    orderStateId: number(order.order_state_id),
    subTotal: number(order.sub_total),
    grandTotal: number(order.grand_total),
    createdCustomer: result.vendor
      ? {
          guid: typeof result.vendor.guid === 'string' ? result.vendor.guid : null,
          billTo: guidOf(result.billTo),
          shipTo: guidOf(result.shipTo),
          contact: guidOf(result.contact),
          note: guidOf(result.note),
        }
      : createdCustomerGuid
        ? { guid: createdCustomerGuid, billTo: null, shipTo: null, contact: null, note: null }
        : null,
  }
}

/**
 * The supplier's no to a write after Send, in its own words, or null when the failure is not one: a
 * 403 (the order's step is read-only for the user, or the key lacks the grant), a ReconcileErrors or
 * other 400, a 404. Tried once: sending it again would be refused again. A 401 is not a refusal of the
 * write but of the session (the outbox pauses).
 */
export function writeRefusal(error: unknown): string | null {
  if (!(error instanceof ServiceError)) return null
  const refused =
    error instanceof ServiceRejectedError ||
    error.kind === 'badRequest' ||
    error.kind === 'notFound' ||
    (error.kind === 'credentials' && error.status === 403)
  if (!refused) return null
  const body = error.body as { message?: unknown } | null | undefined
  const said = typeof body?.message === 'string' && body.message.trim() !== '' ? body.message.trim() : null
  // The reasons are the part the rep can act on ("email domain is blocked"); the headline alone
  // ("Customer could not be reconciled") says only that it was refused.
  const reasons =
    error instanceof ServiceRejectedError
      ? [...new Set(error.errors.map((each) => each.message.trim()).filter((each) => each !== ''))]
      : []
  const headline = said ?? error.message
  return reasons.length > 0 ? `${headline.replace(/[.:]\s*$/, '')}: ${reasons.join('; ')}` : headline
}

/** Sends a claimed write by its kind's rule; a kind without one is a bug, said as a refusal it cannot send. */
export async function sendWrite(
  rules: WriteRules,
  work: WriteWork,
  sender: Partial<WriteSender>,
  signal: AbortSignal,
): Promise<WriteOutcome> {
  const rule = rules[work.kind]
  if (!rule) return { kind: 'refused', message: `Satchel cannot send a ${work.kind} from here.` }
  return rule.send(work, sender, signal)
}

/** Records how a write ended; counted in the flush's report like an order (done as sent, checking as retrying, the rest as needing attention). */
export function settleWrite(
  writes: OutboxWrites,
  work: WriteWork,
  outcome: WriteOutcome,
  report: { sent: number; needsAttention: number; retrying: number },
  sentBy: string | null,
): void {
  if (outcome.kind === 'checking') {
    writes.markChecking(work, outcome.checkAt, outcome.message)
    report.retrying++
  } else if (outcome.kind === 'done') {
    writes.markDone(work, outcome.outcome, outcome.result, sentBy)
    report.sent++
  } else if (outcome.kind === 'choose') {
    writes.markChoice(work, outcome.candidates, outcome.entered, outcome.message)
    report.needsAttention++
  } else if (outcome.kind === 'conflict') {
    writes.markConflict(work, outcome.conflict, outcome.applied, outcome.result, outcome.outcome)
    report.needsAttention++
  } else {
    writes.markRefused(work, outcome.message)
    report.needsAttention++
  }
}
