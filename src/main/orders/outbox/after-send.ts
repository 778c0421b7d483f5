/**
 * The outbox's writes after Send: queueing one (with the entry it waits for), and the states only
 * they reach. Beside outbox.ts, which keeps the states every entry shares (claimed, retrying, sent…)
 * and the claim that takes them in dependency order; both are the outbox table's SQL.
 */
import { randomUUID } from 'node:crypto'
import type { CustomerCandidate } from '../../../shared/orders'
import type { Database } from '../../db/database'
import { CoreError } from '../../errors'
import type { Clock } from '../../ports'
import type { OutboxRow } from './rows'
import type { WriteDetail, WriteKind, WriteWork } from './write-kinds'

interface QueuedWrite {
  kind: WriteKind
  /** The entry's own key, kept in the api_guid column: a fresh UUID unless given. */
  key?: string
  customerGuid: string | null
  customerName: string
  /** The frozen request the rule sends from. */
  request: Record<string, unknown>
  title: string
  asks?: string[]
  order?: WriteDetail['order']
  /** The outbox entry it waits for (its order still waiting to be sent), by id. */
  dependsOn: number | null
}

export interface WaitingChange {
  key: string
  dependsOn: number | null
  dependencyOrderGuid: string | null
  request: Record<string, unknown>
}

export class OutboxWrites {
  private readonly statements

  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
  ) {
    this.statements = {
      // catalog_guid and rep_totals are an order's; a write keeps them empty.
      insert: db.prepare<{
        key: string
        kind: WriteKind
        customerGuid: string | null
        customerName: string
        dependsOn: number | null
        detail: string
        now: string
      }>(
        `INSERT INTO outbox (api_guid, kind, state, customer_guid, customer_name, catalog_guid, rep_totals, depends_on, detail, queued_at, updated_at)
         VALUES (@key, @kind, 'queued', @customerGuid, @customerName, '', '{"lineCount":0,"subTotal":0}', @dependsOn, @detail, @now, @now)`,
      ),
      insertPayload: db.prepare<[number | bigint, string]>(
        "INSERT INTO outbox_payloads (entry_id, draft, request) VALUES (?, 'null', ?)",
      ),
      idOf: db.prepare<[string], { id: number; state: string; kind: string }>(
        'SELECT id, state, kind FROM outbox WHERE lower(api_guid) = lower(?)',
      ),
      dependency: db.prepare<
        [number],
        { kind: WriteWork['kind'] | 'order'; result: string | null; detail: string | null }
      >("SELECT kind, result, detail FROM outbox WHERE id = ? AND state = 'sent'"),
      request: db.prepare<[number], string>('SELECT request FROM outbox_payloads WHERE entry_id = ?').pluck(),
      claimedCustomers: db
        .prepare<[number], string>(
          `SELECT json_extract(detail, '$.result.customerGuid') FROM outbox
           WHERE kind = 'newCustomer' AND id <> ? AND json_extract(detail, '$.result.customerGuid') IS NOT NULL`,
        )
        .pluck(),
      otherNewCustomers: db
        .prepare<[number], string>(
          `SELECT p.request FROM outbox o JOIN outbox_payloads p ON p.entry_id = o.id
           WHERE o.kind = 'newCustomer' AND o.id <> ? AND o.state <> 'sent'`,
        )
        .pluck(),
      setDetail: db.prepare<[string, string, number]>('UPDATE outbox SET detail = ?, updated_at = ? WHERE id = ?'),
      sending: db.prepare<{ now: string; id: number }>(
        `UPDATE outbox SET detail = json_set(COALESCE(detail, '{}'), '$.sentAt', @now), updated_at = @now
         WHERE id = @id AND state = 'sending'`,
      ),
      // Its earlier attempt may still be with the service: looked at again later, sent again only once settled.
      checking: db.prepare<{ at: number; message: string; now: string; id: number }>(
        `UPDATE outbox SET state = 'retrying', next_attempt_at = @at, last_error = @message, updated_at = @now,
           delivery_unknown_since = COALESCE(delivery_unknown_since, @now)
         WHERE id = @id AND state = 'sending'`,
      ),
      done: db.prepare<{ detail: string; now: string; sentBy: string | null; id: number }>(
        `UPDATE outbox SET state = 'sent', detail = @detail, sent_at = @now, updated_at = @now, last_error = NULL, errors = '[]',
           next_attempt_at = NULL, sent_by = @sentBy, delivery_unknown_since = NULL
         WHERE id = @id AND state = 'sending'`,
      ),
      conflict: db.prepare<{ detail: string; now: string; id: number }>(
        `UPDATE outbox SET state = 'conflict', detail = @detail, updated_at = @now, next_attempt_at = NULL, last_error = NULL,
           delivery_unknown_since = NULL
         WHERE id = @id AND state = 'sending'`,
      ),
      // Refused: the supplier said no, so nothing was applied; the earlier uncertainty is settled.
      refused: db.prepare<{ message: string; now: string; id: number }>(
        `UPDATE outbox SET state = 'refused', last_error = @message, updated_at = @now, next_attempt_at = NULL,
           delivery_unknown_since = NULL
         WHERE id = @id AND state = 'sending'`,
      ),
      // The rep is asked which supplier customer (if any) this is; what the earlier attempt left stays unknown.
      choice: db.prepare<{ detail: string; message: string; now: string; id: number }>(
        `UPDATE outbox SET state = 'conflict', detail = @detail, last_error = @message, updated_at = @now,
           next_attempt_at = NULL
         WHERE id = @id AND state = 'sending'`,
      ),
      applyMine: db.prepare<{ detail: string; now: string; id: number }>(
        `UPDATE outbox SET state = 'queued', detail = @detail, last_error = NULL, updated_at = @now
         WHERE id = @id AND state = 'conflict'`,
      ),
      row: db.prepare<[string], OutboxRow>('SELECT * FROM outbox WHERE lower(api_guid) = lower(?)'),
      awaited: db
        .prepare<[number], number>("SELECT count(*) FROM outbox WHERE depends_on = ? AND state <> 'sent'")
        .pluck(),
      delete: db.prepare<[number]>('DELETE FROM outbox WHERE id = ?'),
      lastChangeResult: db
        .prepare<[string], string>(
          `SELECT json_extract(detail, '$.result') FROM outbox
           WHERE kind = 'orderChange' AND state = 'sent' AND json_extract(detail, '$.result.orderGuid') = ?
           ORDER BY sent_at DESC, id DESC LIMIT 1`,
        )
        .pluck(),
      customerAnswer: db
        .prepare<[string], string>(
          `SELECT json_extract(detail, '$.result.answer') FROM outbox
           WHERE kind = 'customerChange' AND state = 'sent' AND customer_guid = ?
             AND json_extract(detail, '$.result.answer') IS NOT NULL
           ORDER BY sent_at DESC, id DESC LIMIT 1`,
        )
        .pluck(),
      waitingCustomerChanges: db
        .prepare<[string], string>(
          `SELECT p.request FROM outbox o JOIN outbox_payloads p ON p.entry_id = o.id
           WHERE o.kind = 'customerChange' AND o.state IN ('queued', 'sending', 'retrying') AND o.customer_guid = ?
           ORDER BY o.id`,
        )
        .pluck(),
      waitingChanges: db.prepare<
        [],
        { key: string; dependsOn: number | null; request: string; dependencyOrderGuid: string | null }
      >(
        `SELECT o.api_guid AS key, o.depends_on AS dependsOn, p.request,
           json_extract(d.result, '$.orderGuid') AS dependencyOrderGuid
         FROM outbox o JOIN outbox_payloads p ON p.entry_id = o.id LEFT JOIN outbox d ON d.id = o.depends_on
         WHERE o.kind = 'orderChange' AND o.state IN ('queued', 'sending', 'retrying')
         ORDER BY o.id`,
      ),
    }
  }

  private now(): string {
    return new Date(this.clock.now()).toISOString()
  }

  /** Queues a write in one durable transaction, as Send queues an order: on disk before the rep is told. Its key. */
  enqueue(write: QueuedWrite): string {
    const key = write.key ?? randomUUID()
    this.db.pragma('synchronous = FULL')
    try {
      this.db
        .transaction(() => {
          const { lastInsertRowid } = this.statements.insert.run({
            key,
            kind: write.kind,
            customerGuid: write.customerGuid,
            customerName: write.customerName,
            dependsOn: write.dependsOn,
            detail: JSON.stringify({
              title: write.title,
              ...(write.asks ? { asks: write.asks } : {}),
              ...(write.order ? { order: write.order } : {}),
            } satisfies WriteDetail),
            now: this.now(),
          })
          this.statements.insertPayload.run(lastInsertRowid, JSON.stringify(write.request))
        })
        .immediate()
    } finally {
      this.db.pragma('synchronous = NORMAL')
    }
    return key
  }

  /** The outbox entry with this key, if any (an order still to be sent, which a write then waits for). */
  entry(key: string): { id: number; state: string; kind: string } | null {
    return this.statements.idOf.get(key) ?? null
  }

  /** A new customer queued on this laptop, by its key (the customerLocalId of its orders): its entry and request. */
  newCustomer(key: string): { id: number; state: string; request: Record<string, unknown> } | null {
    const entry = this.entry(key)
    if (!entry || entry.kind !== 'newCustomer') return null
    const request = this.statements.request.get(entry.id)
    return {
      id: entry.id,
      state: entry.state,
      request: request ? (JSON.parse(request) as Record<string, unknown>) : {},
    }
  }

  /**
   * A customer's changes of this laptop the synced copy may not show yet: the service's answer to the
   * last one sent (its record and updated_at), and the requests of those still waiting, oldest first.
   */
  customerChanges(customerGuid: string): {
    lastAnswer: { updatedAt: string; record: Record<string, unknown> } | null
    waiting: Record<string, unknown>[]
  } {
    const answer = this.statements.customerAnswer.get(customerGuid)
    return {
      lastAnswer: answer ? (JSON.parse(answer) as { updatedAt: string; record: Record<string, unknown> }) : null,
      waiting: this.statements.waitingCustomerChanges
        .all(customerGuid)
        .map((request) => JSON.parse(request) as Record<string, unknown>),
    }
  }

  /**
   * The changes to sent orders still to be sent, oldest first as they go: each with its frozen
   * request, the order entry it waits for, and that order's guid once the order is sent.
   */
  waitingChanges(): WaitingChange[] {
    return this.statements.waitingChanges.all().map((row) => ({
      key: row.key,
      dependsOn: row.dependsOn,
      dependencyOrderGuid: row.dependencyOrderGuid,
      request: JSON.parse(row.request) as Record<string, unknown>,
    }))
  }

  /** What the service answered the last change sent for this order (its detail's result), if one was sent. */
  lastChangeResult(orderGuid: string): Record<string, unknown> | null {
    const result = this.statements.lastChangeResult.get(orderGuid)
    return result ? (JSON.parse(result) as Record<string, unknown>) : null
  }

  /** A claimed row as its rule's work: the frozen request, what it learnt, the entry it waited for. */
  work(row: OutboxRow, request: string): WriteWork {
    const dependency = row.depends_on === null ? undefined : this.statements.dependency.get(row.depends_on)
    const result = dependency?.result ? (JSON.parse(dependency.result) as { orderGuid?: unknown }) : null
    const dependencyDetail = (dependency?.detail ? JSON.parse(dependency.detail) : {}) as WriteDetail
    return {
      id: row.id,
      key: row.api_guid,
      kind: row.kind as WriteWork['kind'],
      attempts: row.attempts + 1,
      request: JSON.parse(request) as Record<string, unknown>,
      detail: (row.detail ? JSON.parse(row.detail) : {}) as WriteDetail,
      deliveryUnknownSince: row.delivery_unknown_since,
      now: this.clock.now(),
      claimedCustomers: row.kind === 'newCustomer' ? this.statements.claimedCustomers.all(row.id) : [],
      otherNewCustomers:
        row.kind === 'newCustomer'
          ? this.statements.otherNewCustomers
              .all(row.id)
              .map((request) => JSON.parse(request) as Record<string, unknown>)
          : [],
      sending: () => {
        this.statements.sending.run({ now: this.now(), id: row.id })
      },
      dependency: dependency
        ? {
            kind: dependency.kind,
            orderGuid:
              typeof result?.orderGuid === 'string'
                ? result.orderGuid
                : typeof dependencyDetail.result?.orderGuid === 'string'
                  ? dependencyDetail.result.orderGuid
                  : null,
            detail: dependencyDetail,
          }
        : null,
    }
  }

  /** The guid of the customer a sent new-customer entry made, for the orders that waited for it. */
  customerOf(id: number): string | null {
    const dependency = this.statements.dependency.get(id)
    const detail = (dependency?.detail ? JSON.parse(dependency.detail) : {}) as WriteDetail
    return typeof detail.result?.customerGuid === 'string' ? detail.result.customerGuid : null
  }

  /** The service applied it (or had already): done, with what dependents and the rep need of the answer. */
  markDone(
    work: WriteWork,
    outcome: string | null,
    result: Record<string, unknown> | undefined,
    sentBy: string | null,
  ) {
    const detail: WriteDetail = { ...work.detail, ...(outcome ? { outcome } : {}), ...(result ? { result } : {}) }
    delete detail.conflict
    // What a conflict said went meanwhile is no outcome of the whole change.
    if (!outcome) delete detail.outcome
    this.statements.done.run({ detail: JSON.stringify(detail), now: this.now(), sentBy, id: work.id })
  }

  markConflict(
    work: WriteWork,
    conflict: NonNullable<WriteDetail['conflict']>,
    applied: string[] = [],
    result?: Record<string, unknown>,
    outcome?: string,
  ): void {
    const detail: WriteDetail = {
      ...work.detail,
      conflict,
      ...(result ? { result } : {}),
      ...(outcome ? { outcome } : {}),
    }
    if (applied.length > 0) detail.applied = [...(work.detail.applied ?? []), ...applied]
    delete detail.applyMine
    this.statements.conflict.run({ detail: JSON.stringify(detail), now: this.now(), id: work.id })
  }

  markChecking(work: WriteWork, checkAt: number, message: string): void {
    this.statements.checking.run({ at: checkAt, message, now: this.now(), id: work.id })
  }

  markRefused(work: WriteWork, message: string): void {
    this.statements.refused.run({ message, now: this.now(), id: work.id })
  }

  markChoice(
    work: WriteWork,
    candidates: CustomerCandidate[],
    entered: NonNullable<WriteDetail['entered']>,
    message: string,
  ): void {
    const detail: WriteDetail = { ...work.detail, candidates, entered }
    delete detail.chosenCustomer
    this.statements.choice.run({ detail: JSON.stringify(detail), message, now: this.now(), id: work.id })
  }

  /**
   * The rep's answer to a new customer's candidates: this supplier customer is the one (adopted when
   * the entry goes next), or none of them is (never adopted; the entry goes its usual way). Queued
   * again at once; its orders keep waiting until it is sent.
   */
  chooseCustomer(key: string, customerGuid: string | null): void {
    this.db
      .transaction(() => {
        const row = this.settled(key, ['conflict'])
        const detail = (row.detail ? JSON.parse(row.detail) : {}) as WriteDetail
        const candidates = detail.candidates ?? []
        if (row.kind !== 'newCustomer' || candidates.length === 0)
          throw new CoreError('CONFLICT', 'This entry is not waiting for you to choose a customer.')
        if (customerGuid !== null && !candidates.some((candidate) => candidate.guid === customerGuid))
          throw new CoreError('INVALID_ARGUMENT', 'That customer is not one of the candidates for this entry.')
        const next: WriteDetail = { ...detail }
        delete next.candidates
        delete next.entered
        if (customerGuid !== null) next.chosenCustomer = customerGuid
        else
          next.notThisCustomer = [
            ...new Set([...(detail.notThisCustomer ?? []), ...candidates.map((candidate) => candidate.guid)]),
          ]
        this.statements.applyMine.run({ detail: JSON.stringify(next), now: this.now(), id: row.id })
      })
      .immediate()
  }

  /** "Apply mine": the conflicted change goes as the rep made it, over the supplier's value. */
  applyMine(key: string): void {
    this.db
      .transaction(() => {
        const row = this.settled(key, ['conflict'])
        const detail: WriteDetail = { ...((row.detail ? JSON.parse(row.detail) : {}) as WriteDetail), applyMine: true }
        delete detail.conflict
        this.statements.applyMine.run({ detail: JSON.stringify(detail), now: this.now(), id: row.id })
      })
      .immediate()
  }

  /** "Drop mine": the conflicted (or refused) change goes, and the supplier's value stands. */
  dropMine(key: string): void {
    this.db
      .transaction(() => {
        const row = this.settled(key, ['conflict', 'refused'])
        this.refuseWhileAwaited(row.id)
        this.statements.delete.run(row.id)
      })
      .immediate()
  }

  /** An entry others wait for (an order a submit waits for, a new customer its orders) stays while they do. */
  refuseWhileAwaited(id: number): void {
    const awaited = this.statements.awaited.get(id) ?? 0
    if (awaited > 0)
      throw new CoreError(
        'CONFLICT',
        `${awaited} other ${awaited === 1 ? 'entry waits' : 'entries wait'} for this one; discard ${awaited === 1 ? 'it' : 'them'} first.`,
      )
  }

  private settled(key: string, states: string[]): OutboxRow {
    const row = this.statements.row.get(key)
    if (!row) throw new CoreError('NOT_FOUND', 'That entry is not in the outbox.')
    if (!states.includes(row.state))
      throw new CoreError('CONFLICT', `This entry is not ${states.join(' or ')}; there is nothing to choose.`)
    return row
  }
}
