/**
 * What an outbox row holds and how it reads as an entry: the row's columns, the service's
 * confirmation kept with it, and the supplier's refusal tied back to the draft's lines. Its own
 * room because both sides of the outbox read rows this way, the writer (outbox.ts) and the reads
 * the rest of the core makes (outbox-reader.ts).
 */
import { z } from 'zod'
import {
  outboxLineErrorSchema,
  type Draft,
  type DraftRejection,
  type OutboxEntry,
  type OutboxKind,
  type OutboxState,
} from '../../../shared/orders'
import type { WriteDetail } from './write-kinds'
import type { RepTotals } from '../request'

/** What the service confirmed for a sent order, kept with the entry. */
export const sentResultSchema = z.object({
  orderGuid: z.string(),
  orderName: z.string().nullable(),
  orderStateId: z.number().nullable(),
  subTotal: z.number().nullable(),
  grandTotal: z.number().nullable(),
  /** A customer created with the order: its guid and the references the service returned. */
  createdCustomer: z
    .object({
      guid: z.string().nullable(),
      billTo: z.string().nullable(),
      shipTo: z.string().nullable(),
      contact: z.string().nullable(),
      note: z.string().nullable(),
    })
    .nullable(),
})
export type SentResult = z.infer<typeof sentResultSchema>

export interface OutboxRow {
  id: number
  api_guid: string
  state: OutboxState
  customer_guid: string | null
  customer_name: string
  catalog_guid: string
  rep_totals: string
  attempts: number
  next_attempt_at: number | null
  last_error: string | null
  errors: string
  result: string | null
  queued_at: string
  updated_at: string
  sent_at: string | null
  delivery_unknown_since: string | null
  kind: OutboxKind
  depends_on: number | null
  /** JSON of WriteDetail (writes.ts); null for an order. */
  detail: string | null
  /** The key of the entry it waits for, while that one is not sent (read with the row). */
  waits_for?: string | null
  /** That entry as JSON (kind, state, name, error, choosing), for what the waiting one says. */
  waiting_on?: string | null
}

interface WaitingOn {
  kind: OutboxKind
  state: OutboxState
  name: string
  error: string | null
  /** A new customer waiting for the rep to say which supplier customer it is. */
  choosing: number | boolean
}

/**
 * What an entry that waits for another says, in the rep's words: the other's state and reason, never
 * the last failure of its own (a flush that stopped at the other's lost answer is not this one's).
 */
function waitingWords(row: OutboxRow): string | null {
  if (!row.waiting_on) return null
  const on = JSON.parse(row.waiting_on) as WaitingOn
  const what =
    on.kind === 'newCustomer'
      ? `the new customer “${on.name}”`
      : on.kind === 'order'
        ? 'its order'
        : 'the entry before it'
  const goes = on.kind === 'newCustomer' ? 'is made' : 'is sent'
  if (on.state === 'conflict' && on.choosing)
    return `Waits for ${what}: say in the Outbox which of the supplier’s customers it is, or that none is.`
  if (on.state === 'conflict') return `Waits for ${what}, which waits for your choice in the Outbox.`
  if (on.state === 'refused' || on.state === 'needsAttention')
    return `Waits for ${what}, which the supplier refused${on.error ? `: ${on.error.replace(/[.!]?\s*$/, '.')}` : '.'} Fix or discard it in the Outbox.`
  if (on.state === 'retrying' && on.error) return `Waits for ${what}: ${on.error}`
  return `Waits for ${what}; it goes once that ${goes}.`
}

/** The supplier's refusal of an entry, each message tied to the draft line it names, as that line was sent. */
export function rejectionOf(row: OutboxRow, draft: Draft): DraftRejection {
  const errors = z.array(outboxLineErrorSchema).parse(JSON.parse(row.errors))
  return {
    at: row.updated_at,
    message: row.last_error,
    lines: errors.map((error) => {
      const line = error.lineIndex !== null ? draft.lines[error.lineIndex] : undefined
      return {
        lineId: line?.lineId ?? null,
        sku: line?.sku ?? error.sku,
        sentQty: line?.qty ?? null,
        sentNote: line?.note ?? null,
        message: error.message,
      }
    }),
  }
}

export function toEntry(row: OutboxRow): OutboxEntry {
  if (row.kind !== 'order') return writeEntry(row)
  const result = row.result ? sentResultSchema.parse(JSON.parse(row.result)) : null
  const totals = JSON.parse(row.rep_totals) as RepTotals
  const serverSubTotal = result?.subTotal ?? null
  return {
    apiGuid: row.api_guid,
    state: row.state,
    customerGuid: row.customer_guid,
    customerName: row.customer_name,
    orderGuid: result?.orderGuid ?? null,
    orderName: result?.orderName ?? null,
    orderStateId: result?.orderStateId ?? null,
    attempts: row.attempts,
    lastError: waitingWords(row) ?? row.last_error,
    errors: z.array(outboxLineErrorSchema).parse(JSON.parse(row.errors)),
    nextAttemptAt:
      row.state === 'retrying' && row.next_attempt_at !== null ? new Date(row.next_attempt_at).toISOString() : null,
    queuedAt: row.queued_at,
    sentAt: row.sent_at,
    mayBeWithSupplier: row.delivery_unknown_since !== null && row.state !== 'sent',
    lineCount: totals.lineCount,
    subTotal: totals.subTotal,
    totalsDiffer:
      serverSubTotal !== null && Math.abs(serverSubTotal - totals.subTotal) >= 0.01
        ? { repSubTotal: totals.subTotal, serverSubTotal }
        : null,
    ...(row.waits_for ? { waitsFor: row.waits_for } : {}),
  }
}

/** A write after Send as an entry: its title, what it waits for, a conflict's values, how it ended. */
function writeEntry(row: OutboxRow): OutboxEntry {
  const detail = (row.detail ? JSON.parse(row.detail) : {}) as WriteDetail
  // Before it is done, the order as known when it was queued: the order page finds its waiting changes by it.
  const orderGuid =
    typeof detail.result?.orderGuid === 'string' ? detail.result.orderGuid : (detail.order?.guid ?? null)
  const orderName =
    typeof detail.result?.orderName === 'string' ? detail.result.orderName : (detail.order?.name ?? null)
  // A new customer's guid is the service's answer: the customers list matches it to the synced one.
  const madeGuid = typeof detail.result?.customerGuid === 'string' ? detail.result.customerGuid : null
  return {
    apiGuid: row.api_guid,
    state: row.state,
    customerGuid: row.customer_guid ?? madeGuid,
    customerName: row.customer_name,
    orderGuid,
    orderName,
    orderStateId: null,
    attempts: row.attempts,
    lastError: waitingWords(row) ?? row.last_error,
    errors: [],
    nextAttemptAt:
      row.state === 'retrying' && row.next_attempt_at !== null ? new Date(row.next_attempt_at).toISOString() : null,
    queuedAt: row.queued_at,
    sentAt: row.sent_at,
    mayBeWithSupplier: row.delivery_unknown_since !== null && row.state !== 'sent',
    lineCount: 0,
    subTotal: 0,
    totalsDiffer: null,
    kind: row.kind,
    title: detail.title ?? row.kind,
    ...(detail.asks ? { asks: detail.asks } : {}),
    waitsFor: row.waits_for ?? null,
    ...(row.state === 'conflict' && detail.conflict ? { conflict: detail.conflict } : {}),
    ...(row.state === 'conflict' && detail.candidates
      ? { candidates: detail.candidates, ...(detail.entered ? { entered: detail.entered } : {}) }
      : {}),
    outcome: detail.outcome ?? null,
  }
}
