/**
 * The outbox as the rest of the core reads it: documents, usual items, the desk's choice of
 * catalog, the CLI's status, the profiles' holdings. None of it touches the sending's claim and
 * retry bookkeeping, which outbox.ts keeps.
 */
import { draftSchema, type Draft, type OutboxState } from '../../../shared/orders'
import type { Database } from '../../db/database'
import { SettingsTable } from '../../db/settings'
import type { SentOrderSummary } from '../../../shared/synced'
import type { RepTotals } from '../request'
import { sentResultSchema, type SentResult } from './rows'

/** The settings key of the outbox's pause (outbox.ts sets and clears it). */
export const outboxPauseKey = 'outboxPause'

/** Why sending is paused, and whether signing in again is what ends it. */
export interface OutboxPause {
  reason: string
  at?: string
  /** The user session expired: a new token (signing in again) resumes sending. */
  signInAgain?: boolean
}

/** An entry as printed: what was sent (the draft as it left) and what the service confirmed. */
export interface PrintableEntry {
  state: OutboxState
  customerGuid: string | null
  customerName: string
  catalogGuid: string
  queuedAt: string
  sentAt: string | null
  result: SentResult | null
  draft: Draft
}

/** An order sent from this laptop, as the customer's history needs it before the next sync brings it back. */
export interface SentOrder {
  apiGuid: string
  catalogGuid: string
  /** When it was sent (or queued, for an entry from before sent times were kept). */
  at: string
  lines: Draft['lines']
}

/** A customer made on this laptop as its outbox entry keeps it, for the customers list and page. */
export interface MadeHereEntry {
  /** The entry's key: the customer's local id (customerLocalId). */
  key: string
  state: OutboxState
  lastError: string | null
  /** The guid of the customer the service made (or the rep chose), once the entry is sent. */
  customerGuid: string | null
  /** The frozen POST /vendors body: newVendor, newVendorBillTo, newVendorShipTo. */
  request: Record<string, unknown>
  /** Made with an order (New customer with an order) still to be sent: the entry is that order's. */
  withOrder?: boolean
}

/**
 * Reads of the outbox for the rest of the core (documents, usual items, the desk's choice of
 * catalog, the CLI's status), so the outbox table is read and written in the outbox's modules only.
 */
export class OutboxReader {
  private readonly statements

  constructor(db: Database) {
    this.statements = {
      printable: db.prepare<
        [string],
        {
          state: OutboxState
          customer_guid: string | null
          customer_name: string
          catalog_guid: string
          queued_at: string
          sent_at: string | null
          result: string | null
          draft: string
        }
      >(
        `SELECT o.state, o.customer_guid, o.customer_name, o.catalog_guid, o.queued_at, o.sent_at, o.result, p.draft
         FROM outbox o JOIN outbox_payloads p ON p.entry_id = o.id WHERE lower(o.api_guid) = lower(?) AND o.kind = 'order'`,
      ),
      sentFor: db.prepare<
        [string, string],
        { api_guid: string; catalog_guid: string; sent_at: string | null; queued_at: string; draft: string }
      >(
        `SELECT o.api_guid, o.catalog_guid, o.sent_at, o.queued_at, p.draft FROM outbox o JOIN outbox_payloads p ON p.entry_id = o.id
         WHERE o.state = 'sent' AND o.kind = 'order' AND o.customer_guid = ? AND coalesce(o.sent_at, o.queued_at) >= ?`,
      ),
      sent: db.prepare<
        [],
        {
          api_guid: string
          customer_guid: string | null
          customer_name: string
          sent_at: string | null
          queued_at: string
          result: string | null
          rep_totals: string
          po_no: string | null
        }
      >(
        `SELECT o.api_guid, o.customer_guid, o.customer_name, o.sent_at, o.queued_at, o.result, o.rep_totals, json_extract(p.draft, '$.poNo') AS po_no
         FROM outbox o JOIN outbox_payloads p ON p.entry_id = o.id WHERE o.state = 'sent' AND o.kind = 'order' ORDER BY o.id DESC`,
      ),
      states: db.prepare<
        [],
        {
          api_guid: string
          state: OutboxState
          attempts: number
          last_error: string | null
          queued_at: string
          sent_at: string | null
        }
      >('SELECT api_guid, state, attempts, last_error, queued_at, sent_at FROM outbox ORDER BY id'),
      unsentEntries: db.prepare<
        [],
        { apiGuid: string; kind: string; state: OutboxState; title: string | null; lastError: string | null }
      >(
        `SELECT api_guid AS apiGuid, kind, state, json_extract(detail, '$.title') AS title, last_error AS lastError
         FROM outbox WHERE state <> 'sent' ORDER BY id`,
      ),
      // Orders only: a write after Send keeps the JSON null as its draft (it has no lines), and one the
      // supplier refused, as it does a change to an order whose copy is gone (404), stays unsent for good.
      unsent: db.prepare<[], { customer_guid: string | null; draft: string }>(
        `SELECT o.customer_guid, p.draft FROM outbox o JOIN outbox_payloads p ON p.entry_id = o.id
         WHERE o.state <> 'sent' AND o.kind = 'order' ORDER BY o.id`,
      ),
      madeHere: db.prepare<
        [],
        { key: string; state: OutboxState; lastError: string | null; customerGuid: string | null; request: string }
      >(
        `SELECT o.api_guid AS key, o.state, o.last_error AS lastError,
           json_extract(o.detail, '$.result.customerGuid') AS customerGuid, p.request
         FROM outbox o JOIN outbox_payloads p ON p.entry_id = o.id WHERE o.kind = 'newCustomer' ORDER BY o.id DESC`,
      ),
      // An order that makes its own customer (not one for a customer made on its own), until it is sent.
      madeWithOrder: db.prepare<[], { key: string; state: OutboxState; lastError: string | null; request: string }>(
        `SELECT o.api_guid AS key, o.state, o.last_error AS lastError, p.request
         FROM outbox o JOIN outbox_payloads p ON p.entry_id = o.id
         WHERE o.kind = 'order' AND o.state <> 'sent' AND json_extract(p.request, '$.body.newVendor') IS NOT NULL
           AND json_extract(p.draft, '$.customerLocalId') IS NULL
         ORDER BY o.id DESC`,
      ),
      recentCatalogs: db.prepare<[string | null, string | null], { catalogGuid: string; at: string }>(
        `SELECT catalog_guid AS catalogGuid, queued_at AS at FROM outbox WHERE kind = 'order' AND (? IS NULL OR customer_guid = ?) ORDER BY queued_at DESC LIMIT 20`,
      ),
    }
  }

  /** The entry as it would be printed, or null when there is none with that api_guid. */
  printable(apiGuid: string): PrintableEntry | null {
    const row = this.statements.printable.get(apiGuid)
    if (!row) return null
    return {
      state: row.state,
      customerGuid: row.customer_guid,
      customerName: row.customer_name,
      catalogGuid: row.catalog_guid,
      queuedAt: row.queued_at,
      sentAt: row.sent_at,
      result: row.result ? sentResultSchema.parse(JSON.parse(row.result)) : null,
      draft: draftSchema.parse(JSON.parse(row.draft)),
    }
  }

  /** A customer's orders sent from this laptop since `sinceIso`. */
  sentFor(customerGuid: string, sinceIso: string): SentOrder[] {
    return this.statements.sentFor.all(customerGuid, sinceIso).map((row) => ({
      apiGuid: row.api_guid,
      catalogGuid: row.catalog_guid,
      at: row.sent_at ?? row.queued_at,
      lines: (JSON.parse(row.draft) as { lines?: Draft['lines'] }).lines ?? [],
    }))
  }

  /**
   * The customers made on this laptop, newest first, whatever their entry's state; then those made
   * with an order still to be sent (a sent one is the local copy's from its answer on).
   */
  madeHereCustomers(): MadeHereEntry[] {
    const made = this.statements.madeHere
      .all()
      .map((row) => ({ ...row, request: JSON.parse(row.request) as Record<string, unknown> }))
    const withOrder = this.statements.madeWithOrder.all().map(({ request, ...row }) => {
      const body = ((JSON.parse(request) as { body?: Record<string, unknown> }).body ?? {}) as Record<string, unknown>
      const { newVendor, newVendorBillTo, newVendorShipTo } = body
      return { ...row, customerGuid: null, request: { newVendor, newVendorBillTo, newVendorShipTo }, withOrder: true }
    })
    return [...made, ...withOrder]
  }

  /** Every order sent from this laptop, newest first, as the orders list names it. */
  sentOrders(): SentOrderSummary[] {
    return this.statements.sent.all().map((row) => {
      const result = row.result ? sentResultSchema.parse(JSON.parse(row.result)) : null
      const totals = JSON.parse(row.rep_totals) as RepTotals
      return {
        apiGuid: row.api_guid,
        orderGuid: result?.orderGuid ?? null,
        orderName: result?.orderName ?? null,
        orderStateId: result?.orderStateId ?? null,
        customerGuid: row.customer_guid,
        customerName: row.customer_name,
        poNo: row.po_no || null,
        sentAt: row.sent_at ?? row.queued_at,
        lineCount: totals.lineCount,
        subTotal: totals.subTotal,
        grandTotal: result?.grandTotal ?? null,
      }
    })
  }

  /**
   * Every entry not yet sent, oldest first, by kind: an order (`order`) or a write after Send, with
   * the write's title in the rep's words ("New customer Harbourside Deli").
   */
  unsentEntries(): {
    apiGuid: string
    kind: string
    state: OutboxState
    title: string | null
    lastError: string | null
  }[] {
    return this.statements.unsentEntries.all()
  }

  /** Every entry's state and how its sending went, oldest first, without what the order holds (for support). */
  states(): {
    apiGuid: string
    state: OutboxState
    attempts: number
    lastError: string | null
    queuedAt: string
    sentAt: string | null
  }[] {
    return this.statements.states.all().map((row) => ({
      apiGuid: row.api_guid,
      state: row.state,
      attempts: row.attempts,
      lastError: row.last_error,
      queuedAt: row.queued_at,
      sentAt: row.sent_at,
    }))
  }

  /** The items of every order not yet sent, with its customer: their pictures are kept while they wait. */
  unsentItems(): { customerGuid: string | null; itemGuids: string[] }[] {
    return this.statements.unsent.all().map((row) => ({
      customerGuid: row.customer_guid,
      itemGuids: ((JSON.parse(row.draft) as { lines?: Draft['lines'] }).lines ?? []).map(
        (line) => line.catalogItemGuid,
      ),
    }))
  }

  /** Catalogs of the orders queued on this laptop, newest first: a customer's, or everyone's with null. */
  recentCatalogs(customerGuid: string | null): { catalogGuid: string; at: string }[] {
    return this.statements.recentCatalogs.all(customerGuid, customerGuid)
  }

  /**
   * Entries by state, for a database opened read-only at any schema: the table may not exist yet
   * (all zero), and only columns every schema had are read.
   */
  static counts(db: Database): Record<OutboxState, number> {
    const counts: Record<OutboxState, number> = {
      queued: 0,
      sending: 0,
      retrying: 0,
      needsAttention: 0,
      sent: 0,
      conflict: 0,
      refused: 0,
    }
    if (!db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'outbox'").get()) return counts
    for (const row of db
      .prepare<[], { state: string; n: number }>('SELECT state, count(*) AS n FROM outbox GROUP BY state')
      .all()) {
      if (row.state in counts) counts[row.state as OutboxState] = row.n
    }
    return counts
  }

  /** The outbox's pause, or null while it sends (the CLI's status reads it on a read-only database). */
  static pause(db: Database): OutboxPause | null {
    if (!db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'settings'").get()) return null
    return (new SettingsTable(db).get(outboxPauseKey) as OutboxPause | undefined) ?? null
  }
}
