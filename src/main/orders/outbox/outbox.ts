import {
  draftSchema,
  type Draft,
  type OutboxEntry,
  type OutboxKind,
  type OutboxLineError,
  type OutboxState,
  type OutboxSummary,
} from '../../../shared/orders'
import type { Database } from '../../db/database'
import { SettingsTable } from '../../db/settings'
import { defaultLeaseTtlMs } from '../../db/lease'
import { CoreError } from '../../errors'
import type { Clock } from '../../ports'
import type { DraftRepository } from '../drafts'
import { needingAttention } from './attention'
import { describeState, mayAlreadyHave, mayHaveReached } from './messages'
import { createsCustomer, type OrderRequest, type RepTotals } from '../request'
import { OutboxReader, outboxPauseKey as pauseKey, type OutboxPause } from './reader'
import { rejectionOf, toEntry, type OutboxRow, type SentResult } from './rows'
import { OutboxWrites } from './after-send'
import type { WriteWork } from './write-kinds'

/** The key of the entry a row waits for while that one is not sent, read with every listed row. */
const waitsFor = `(SELECT d.api_guid FROM outbox d WHERE d.id = outbox.depends_on AND d.state <> 'sent') AS waits_for,
  (SELECT json_object('kind', d.kind, 'state', d.state, 'name', d.customer_name, 'error', d.last_error,
     'choosing', json_extract(d.detail, '$.candidates') IS NOT NULL)
   FROM outbox d WHERE d.id = outbox.depends_on AND d.state <> 'sent') AS waiting_on`

/** A claimed entry, ready to send. */
export interface OutboxWork {
  id: number
  kind: OutboxKind
  /** Anything but an order: the write and its rule's inputs (writes.ts). */
  write: WriteWork | null
  /**
   * An order for a customer made offline: the guid the service gave that customer, once its entry was
   * sent. The order then goes for that customer instead of creating one with it.
   */
  customerFromDependency: string | null
  apiGuid: string
  attempts: number
  request: OrderRequest
  repTotals: RepTotals
  lines: Draft['lines']
  /** Set once an attempt ended without the service's answer: the order may be on the service already. */
  deliveryUnknownSince: string | null
}

/** A refused entry that may be on the service all the same, to be looked for there. */
export interface OutboxCheck {
  id: number
  apiGuid: string
  vendorGuid: string | null
  deliveryUnknownSince: string
  /** Whether the order creates its customer (the service then names the new customer in its reply). */
  createsCustomer: boolean
}

/**
 * The outbox table and every state change of an entry: queued → sending → sent | retrying |
 * needsAttention. Each change is one statement or one transaction, so a crash leaves every entry in
 * a state it can be recovered from.
 */
export class Outbox {
  private readonly statements
  readonly read: OutboxReader
  /** The writes after Send: their queueing and the states only they reach (conflict, refused). */
  readonly writes: OutboxWrites
  private readonly settings: SettingsTable

  constructor(
    private readonly db: Database,
    private readonly drafts: DraftRepository,
    private readonly clock: Clock,
  ) {
    this.read = new OutboxReader(db)
    this.writes = new OutboxWrites(db, clock)
    this.settings = new SettingsTable(db)
    this.statements = {
      insert: db.prepare(
        `INSERT INTO outbox (api_guid, state, customer_guid, customer_name, catalog_guid, rep_totals, depends_on, queued_at, updated_at)
         VALUES (@apiGuid, 'queued', @customerGuid, @customerName, @catalogGuid, @repTotals, @dependsOn, @now, @now)`,
      ),
      insertPayload: db.prepare<[number | bigint, string, string]>(
        'INSERT INTO outbox_payloads (entry_id, draft, request) VALUES (?, ?, ?)',
      ),
      payload: db.prepare<[number], { draft: string; request: string }>(
        'SELECT draft, request FROM outbox_payloads WHERE entry_id = ?',
      ),
      // An api_guid is a UUID, compared without regard to case (rows stored before keys were lower-cased
      // on the way in may hold capitals); lower(api_guid) is what outbox_api_guid_nocase indexes.
      byApiGuid: db.prepare<[string], OutboxRow>(`SELECT *, ${waitsFor} FROM outbox WHERE lower(api_guid) = lower(?)`),
      all: db.prepare<[], OutboxRow>(`SELECT *, ${waitsFor} FROM outbox ORDER BY id`),
      counts: db.prepare<[], { state: OutboxState; n: number }>(
        'SELECT state, COUNT(*) AS n FROM outbox GROUP BY state',
      ),
      // An entry waits for the one it depends on (its order, its new customer) until that is sent.
      nextDue: db.prepare<[number], OutboxRow>(
        `SELECT * FROM outbox INDEXED BY outbox_waiting
         WHERE state IN ('queued', 'retrying') AND (state = 'queued' OR next_attempt_at IS NULL OR next_attempt_at <= ?)
           AND (depends_on IS NULL OR NOT EXISTS (SELECT 1 FROM outbox d WHERE d.id = outbox.depends_on AND d.state <> 'sent'))
         ORDER BY id LIMIT 1`,
      ),
      // A refused entry the service may hold after all is looked for again when its check falls due.
      earliestRetry: db.prepare<[], { at: number | null }>(
        `SELECT MIN(next_attempt_at) AS at FROM outbox
         WHERE state IN ('retrying', 'sending') OR (state = 'needsAttention' AND delivery_unknown_since IS NOT NULL)`,
      ),
      toCheck: db.prepare<[number, number], OutboxRow>(
        `SELECT * FROM outbox INDEXED BY outbox_by_state
         WHERE state = 'needsAttention' AND delivery_unknown_since IS NOT NULL AND (next_attempt_at IS NULL OR next_attempt_at <= ?)
         ORDER BY id LIMIT ?`,
      ),
      // An entry a dead sender left `sending` carries the time it may be sent again in next_attempt_at
      // (recoverInterrupted); the live sender's own entries in `sending` never do.
      interruptedDue: db.prepare<[number], OutboxRow>(
        `SELECT * FROM outbox INDEXED BY outbox_by_state WHERE state = 'sending' AND next_attempt_at IS NOT NULL AND next_attempt_at <= ? ORDER BY id LIMIT 1`,
      ),
      claim: db.prepare<[string, number]>(
        `UPDATE outbox SET state = 'sending', attempts = attempts + 1, next_attempt_at = NULL, updated_at = ?
         WHERE id = ? AND (state IN ('queued', 'retrying') OR (state = 'sending' AND next_attempt_at IS NOT NULL))`,
      ),
      // A send cut off by a dying process may have been committed: the entry's delivery is unknown.
      recover: db.prepare<{ now: string; nowMs: number }>(
        `UPDATE outbox SET state = 'queued', next_attempt_at = NULL, updated_at = @now, delivery_unknown_since = COALESCE(delivery_unknown_since, @now)
         WHERE state = 'sending' AND (next_attempt_at IS NULL OR next_attempt_at <= @nowMs)`,
      ),
      holdInterrupted: db.prepare<{ at: number; now: string }>(
        `UPDATE outbox SET next_attempt_at = @at, updated_at = @now, delivery_unknown_since = COALESCE(delivery_unknown_since, @now)
         WHERE state = 'sending' AND next_attempt_at IS NULL`,
      ),
      earliestInterrupted: db.prepare<[], { at: number | null }>(
        `SELECT MIN(next_attempt_at) AS at FROM outbox WHERE state = 'sending'`,
      ),
      // Any state's time: a retry's, a held resend's (`sending`), a refusal's next check.
      // A dead sender's held resend (`sending`) waits one lease TTL more: its last request may still be
      // with the service, and a resend now would race it (the overlap the lease exists to prevent).
      dueFarAhead: db.prepare<{ nowMs: number; limitMs: number; heldUntilMs: number; now: string }>(
        `UPDATE outbox SET next_attempt_at = CASE WHEN state = 'sending' THEN @heldUntilMs ELSE @nowMs END, updated_at = @now
         WHERE next_attempt_at > @limitMs AND state <> 'sent'`,
      ),
      // From `sending` when the service answers; from a refusal still being checked when the
      // service's order list shows that an earlier attempt was committed after all.
      sent: db.prepare<[string, string, string | null, string, string | null, number]>(
        `UPDATE outbox SET state = 'sent', result = ?, sent_at = ?, customer_guid = COALESCE(?, customer_guid), updated_at = ?, last_error = NULL, errors = '[]', next_attempt_at = NULL, sent_by = ?,
           delivery_unknown_since = NULL
         WHERE id = ? AND (state = 'sending' OR (state = 'needsAttention' AND delivery_unknown_since IS NOT NULL))`,
      ),
      retrying: db.prepare<{ at: number; message: string; now: string; unknown: number; id: number }>(
        `UPDATE outbox SET state = 'retrying', next_attempt_at = @at, last_error = @message, updated_at = @now,
           delivery_unknown_since = CASE WHEN @unknown THEN COALESCE(delivery_unknown_since, @now) ELSE delivery_unknown_since END
         WHERE id = @id AND state = 'sending'`,
      ),
      postponeWaiting: db.prepare<[number, string, string]>(
        `UPDATE outbox SET state = 'retrying', next_attempt_at = MAX(COALESCE(next_attempt_at, 0), ?), last_error = COALESCE(last_error, ?), updated_at = ?
         WHERE state IN ('queued', 'retrying')`,
      ),
      // A refusal the service's order list confirmed (or one with no uncertain attempt before it)
      // clears the uncertainty; one still to be checked keeps it, with the time of its next check.
      needsAttention: db.prepare<{ message: string; errors: string; now: string; checkAt: number | null; id: number }>(
        `UPDATE outbox SET state = 'needsAttention', last_error = @message, errors = @errors, updated_at = @now, next_attempt_at = @checkAt,
           delivery_unknown_since = CASE WHEN @checkAt IS NULL THEN NULL ELSE delivery_unknown_since END
         WHERE id = @id AND state = 'sending'`,
      ),
      checkAgainAt: db.prepare<{ at: number; now: string; id: number }>(
        `UPDATE outbox SET next_attempt_at = @at, updated_at = @now WHERE id = @id AND state = 'needsAttention' AND delivery_unknown_since IS NOT NULL`,
      ),
      confirmedAbsent: db.prepare<{ now: string; id: number }>(
        `UPDATE outbox SET delivery_unknown_since = NULL, next_attempt_at = NULL, updated_at = @now WHERE id = @id AND state = 'needsAttention'`,
      ),
      release: db.prepare<{ message: string | null; now: string; unknown: number; id: number }>(
        `UPDATE outbox SET state = 'queued', attempts = MAX(attempts - 1, 0), last_error = COALESCE(@message, last_error), updated_at = @now,
           delivery_unknown_since = CASE WHEN @unknown THEN COALESCE(delivery_unknown_since, @now) ELSE delivery_unknown_since END
         WHERE id = @id AND state = 'sending'`,
      ),
      retryNow: db.prepare<[string, string]>(
        `UPDATE outbox SET next_attempt_at = NULL, updated_at = ? WHERE lower(api_guid) = lower(?) AND state = 'retrying'`,
      ),
      requeueRejected: db.prepare<[string, string]>(
        `UPDATE outbox SET state = 'queued', errors = '[]', last_error = NULL, updated_at = ? WHERE lower(api_guid) = lower(?) AND state IN ('needsAttention', 'refused')`,
      ),
      retryAllNow: db.prepare<[string]>(
        `UPDATE outbox SET next_attempt_at = NULL, updated_at = ? WHERE state = 'retrying'`,
      ),
      delete: db.prepare<[number]>('DELETE FROM outbox WHERE id = ?'),
      // A purge looks at a window of sent entries at a time, by id, whatever it finds in it: a
      // window's cost stays bounded however many entries before it are kept. The payload goes with
      // its entry (ON DELETE CASCADE).
      sentWindowEnd: db
        .prepare<[number, number], number | null>(
          `SELECT max(id) FROM (SELECT id FROM outbox INDEXED BY outbox_by_state WHERE state = 'sent' AND id > ? ORDER BY id LIMIT ?)`,
        )
        .pluck(),
      purgeSent: db.prepare<[number, number, string, string]>(
        `DELETE FROM outbox WHERE id IN (
           SELECT o.id FROM outbox o INDEXED BY outbox_by_state JOIN outbox_payloads p ON p.entry_id = o.id
           WHERE o.state = 'sent' AND o.id > ? AND o.id <= ? AND coalesce(o.sent_at, o.queued_at) < ?
             AND coalesce(json_extract(p.draft, '$.id'), 0) NOT IN (SELECT value FROM json_each(?)))`,
      ),
    }
  }

  private now(): string {
    return new Date(this.clock.now()).toISOString()
  }

  /**
   * "Send": the draft leaves the drafts table and enters the outbox in one transaction, with
   * synchronous=FULL so the entry survives a power cut the moment the rep is told it is queued.
   * Nothing is read back afterwards: the caller computed its reply before (OrderDesk.prepareSend),
   * so nothing after the commit can turn a queued order into a reported failure.
   */
  enqueue(
    draft: Draft,
    request: OrderRequest,
    totals: RepTotals,
    customerName: string,
    queuedAt: string = this.now(),
    dependsOn: number | null = null,
  ): void {
    const now = queuedAt
    this.db.pragma('synchronous = FULL')
    try {
      this.db
        .transaction(() => {
          if (this.statements.byApiGuid.get(draft.apiGuid))
            throw new CoreError('CONFLICT', 'This order is already in the outbox.')
          const { lastInsertRowid } = this.statements.insert.run({
            apiGuid: draft.apiGuid,
            customerGuid: draft.customerGuid,
            customerName,
            catalogGuid: draft.catalogGuid,
            repTotals: JSON.stringify(totals),
            dependsOn,
            now,
          })
          this.statements.insertPayload.run(lastInsertRowid, JSON.stringify(draft), JSON.stringify(request))
          this.drafts.delete(draft.id)
        })
        .immediate()
    } finally {
      this.db.pragma('synchronous = NORMAL')
    }
  }

  /**
   * An entry left in `sending` by a sender that died may or may not have reached the service; its
   * api_guid makes resending safe. Only the process taking over the outbox lease calls this
   * (flusher.ts): while the holder lives, its `sending` entry may be on the wire.
   *
   * A holder that was killed a moment ago may still have its last request with the service: sending
   * the same order again now would be harmless (the api_guid) but is a second request racing the
   * first. So with `notBeforeMs` (when the dead holder's lease would have run out) its entries stay
   * `sending` and are resent from then; the other orders in the outbox go at once. Returns how many
   * entries were recovered or held.
   */
  recoverInterrupted(notBeforeMs: number | null = null): number {
    // Entries an earlier take-over is already holding keep their own time: a lease released since
    // says nothing about when that earlier holder's last request ended.
    if (notBeforeMs === null || notBeforeMs <= this.clock.now())
      return this.statements.recover.run({ now: this.now(), nowMs: this.clock.now() }).changes
    return this.statements.holdInterrupted.run({ at: notBeforeMs, now: this.now() }).changes
  }

  /** When the earliest entry a dead sender left `sending` may be resent (epoch ms), or null when there is none. */
  interruptedResendAt(): number | null {
    return this.statements.earliestInterrupted.get()?.at ?? null
  }

  find(apiGuid: string): OutboxEntry | null {
    const row = this.statements.byApiGuid.get(apiGuid)
    return row ? toEntry(row) : null
  }

  get(apiGuid: string): OutboxEntry {
    const entry = this.find(apiGuid)
    if (!entry) throw new CoreError('NOT_FOUND', 'That order is not in the outbox.')
    return entry
  }

  list(): OutboxEntry[] {
    return this.statements.all.all().map(toEntry)
  }

  summary(): OutboxSummary {
    const summary: OutboxSummary = {
      queued: 0,
      sending: 0,
      retrying: 0,
      needsAttention: 0,
      sent: 0,
      conflict: 0,
      refused: 0,
      pausedReason: this.pausedReason(),
      ...(this.paused()?.signInAgain ? { signInAgain: true } : {}),
    }
    for (const { state, n } of this.statements.counts.all()) summary[state] = n
    return { ...summary, attention: needingAttention(summary) }
  }

  /** The oldest entry that may be sent now, claimed (state `sending`) so no other flusher takes it. */
  claimNext(nowMs: number): OutboxWork | null {
    for (;;) {
      const waiting = this.statements.nextDue.get(nowMs)
      const interrupted = this.statements.interruptedDue.get(nowMs)
      // Oldest first, whichever way it waits: the outbox keeps the order the rep sent them in.
      const row =
        waiting && interrupted ? (interrupted.id < waiting.id ? interrupted : waiting) : (waiting ?? interrupted)
      if (!row) return null
      if (this.statements.claim.run(this.now(), row.id).changes === 1) {
        const { draft, request } = this.statements.payload.get(row.id)!
        return {
          id: row.id,
          kind: row.kind,
          write: row.kind === 'order' ? null : this.writes.work(row, request),
          customerFromDependency:
            row.kind === 'order' && row.depends_on !== null ? this.writes.customerOf(row.depends_on) : null,
          apiGuid: row.api_guid,
          attempts: row.attempts + 1,
          request: JSON.parse(request) as OrderRequest,
          repTotals: JSON.parse(row.rep_totals) as RepTotals,
          deliveryUnknownSince: row.delivery_unknown_since,
          // Read only when the service rejects the order and its lines must be named.
          get lines() {
            return draftSchema.parse(JSON.parse(draft)).lines
          },
        }
      }
      // Another flusher (the CLI beside the app) claimed it between the read and the claim.
    }
  }

  /** Runs `work` in one transaction: the flusher's bookkeeping of one order and the claim of the next commit together. */
  atomically<T>(work: () => T): T {
    return this.db.transaction(work).immediate()
  }

  /**
   * Every entry whose next attempt is stored beyond `limitMs` is due now, whatever its state: no wait
   * the outbox sets lasts that long, so a clock that was wrong stamped it. A dead sender's held
   * resend is due `inFlightMs` from now instead (a lease's TTL: how long its last request may still
   * be on the wire). How many there were.
   */
  dueFarAhead(limitMs: number, inFlightMs = defaultLeaseTtlMs): number {
    const nowMs = this.clock.now()
    return this.statements.dueFarAhead.run({ nowMs, limitMs, heldUntilMs: nowMs + inFlightMs, now: this.now() }).changes
  }

  /** When the next retry falls due (epoch ms), or null when nothing is waiting. */
  nextRetryAt(): number | null {
    return this.statements.earliestRetry.get()?.at ?? null
  }

  /** `sentBy` is the outbox lease's owner (host/pid/…) that recorded it, for support and the drills. */
  markSent(work: OutboxWork, result: SentResult, sentBy: string | null = null): void {
    this.statements.sent.run(
      JSON.stringify(result),
      this.now(),
      result.createdCustomer?.guid ?? null,
      this.now(),
      sentBy,
      work.id,
    )
  }

  /** `deliveryUnknown`: the attempt may have reached the service (its answer was lost, cut or failed). */
  markRetrying(work: OutboxWork, atMs: number, message: string, deliveryUnknown: boolean): void {
    this.statements.retrying.run({ at: atMs, message, now: this.now(), unknown: deliveryUnknown ? 1 : 0, id: work.id })
  }

  /** The service cannot be reached: every waiting entry is retrying, none sooner than `atMs`. */
  postponeWaiting(atMs: number, message: string): void {
    this.statements.postponeWaiting.run(atMs, message, this.now())
  }

  /**
   * The service refused the order. With `checkAtMs`, an earlier attempt may have been committed all
   * the same and the service's order list could not be read yet: the entry stays uncertain (it can be
   * neither edited nor discarded) and is looked for again from then on.
   */
  markNeedsAttention(
    work: OutboxWork,
    message: string,
    errors: OutboxLineError[],
    checkAtMs: number | null = null,
  ): void {
    this.statements.needsAttention.run({
      message,
      errors: JSON.stringify(errors),
      now: this.now(),
      checkAt: checkAtMs,
      id: work.id,
    })
  }

  /**
   * Back to `queued` without counting the attempt (cancelled, or credentials refused before anything was
   * written). A request cancelled after it left may have been committed: `deliveryUnknown` says so.
   */
  release(work: OutboxWork, message: string | null = null, deliveryUnknown = false): void {
    this.statements.release.run({ message, now: this.now(), unknown: deliveryUnknown ? 1 : 0, id: work.id })
  }

  /** Refused entries that may be on the service after all, whose check is due. */
  dueChecks(nowMs: number, limit: number): OutboxCheck[] {
    return this.statements.toCheck.all(nowMs, limit).map((row) => {
      const request = JSON.parse(this.statements.payload.get(row.id)!.request) as OrderRequest
      return {
        id: row.id,
        apiGuid: row.api_guid,
        vendorGuid: request.vendorGuid ?? null,
        deliveryUnknownSince: row.delivery_unknown_since!,
        createsCustomer: createsCustomer(request),
      }
    })
  }

  /** The service's order list showed that an earlier attempt of this refused entry was committed. */
  markFoundOnService(check: Pick<OutboxCheck, 'id'>, result: SentResult, sentBy: string | null = null): void {
    this.statements.sent.run(
      JSON.stringify(result),
      this.now(),
      result.createdCustomer?.guid ?? null,
      this.now(),
      sentBy,
      check.id,
    )
  }

  /** The service's order list does not hold this refused entry: the refusal stands, and the rep may edit or discard it. */
  markConfirmedAbsent(check: Pick<OutboxCheck, 'id'>): void {
    this.statements.confirmedAbsent.run({ now: this.now(), id: check.id })
  }

  /** The service's order list could not be read: look again from `atMs`. */
  checkAgainAt(check: Pick<OutboxCheck, 'id'>, atMs: number): void {
    this.statements.checkAgainAt.run({ at: atMs, now: this.now(), id: check.id })
  }

  /**
   * "Retry now": a waiting entry is due at once. A rejected one is sent again as it stands, on the
   * rep's word only (the supplier may have fixed what it objected to); the service wrote nothing for
   * it, so the same api_guid is safe.
   */
  retryNow(apiGuid?: string): void {
    if (apiGuid === undefined) this.statements.retryAllNow.run(this.now())
    else if (
      this.statements.retryNow.run(this.now(), apiGuid).changes === 0 &&
      this.statements.requeueRejected.run(this.now(), apiGuid).changes === 0
    ) {
      const entry = this.get(apiGuid)
      if (entry.state !== 'queued')
        throw new CoreError('CONFLICT', `This order is ${describeState(entry.state)}; there is nothing to retry.`)
    }
  }

  /**
   * Takes a rejected entry, or one waiting whose every attempt provably never reached the service,
   * back into the drafts with the same api_guid: the service wrote nothing for it, so the changed
   * order may reuse the key. One that may have reached it stays: a resend with its key would be
   * answered with the order as first sent, and the change lost.
   */
  reopenAsDraft(apiGuid: string): Draft {
    return this.db
      .transaction(() => {
        const row = this.statements.byApiGuid.get(apiGuid)
        if (!row) throw new CoreError('NOT_FOUND', 'That order is not in the outbox.')
        if (row.kind !== 'order') throw new CoreError('CONFLICT', 'Only an order goes back into a draft.')
        // Its draft would make the customer again with the order: it is discarded and queued anew instead.
        if (row.depends_on !== null)
          throw new CoreError(
            'CONFLICT',
            'This order is for a customer made on this laptop; discard it and order again.',
          )
        if (row.state === 'sending' || row.state === 'sent')
          throw new CoreError('CONFLICT', `This order is ${describeState(row.state)}, so it cannot be edited.`)
        if (row.state !== 'needsAttention' && row.delivery_unknown_since !== null)
          throw new CoreError('CONFLICT', mayHaveReached(row.state))
        if (row.delivery_unknown_since !== null) throw new CoreError('CONFLICT', mayAlreadyHave)
        const draft = draftSchema.parse(JSON.parse(this.statements.payload.get(row.id)!.draft))
        this.statements.delete.run(row.id)
        const { id, apiGuid: key, createdAt: _c, updatedAt: _u, ...fields } = draft
        // The same order under the same number, with the supplier's reasons kept on it while it is fixed.
        return this.drafts.create(
          { ...fields, rejection: row.state === 'needsAttention' ? rejectionOf(row, draft) : null },
          key,
          id,
        )
      })
      .immediate()
  }

  /**
   * Removes an entry the service never accepted. A waiting entry one of whose attempts may have
   * reached the service (the reply can be lost after the commit) stays; one whose attempts all
   * provably never left, or were answered without a commit, goes. So does a rejected one, unless an
   * earlier attempt lost its answer, until the service's order list has shown it was not committed.
   */
  discard(apiGuid: string): void {
    this.db
      .transaction(() => {
        const row = this.statements.byApiGuid.get(apiGuid)
        if (!row) throw new CoreError('NOT_FOUND', 'That order is not in the outbox.')
        const waiting = row.state === 'queued' || row.state === 'retrying'
        const settled = row.state === 'needsAttention' || row.state === 'conflict' || row.state === 'refused'
        if (!settled && !(waiting && row.delivery_unknown_since === null))
          throw new CoreError('CONFLICT', mayHaveReached(row.state))
        if (row.delivery_unknown_since !== null && row.state !== 'conflict' && row.state !== 'refused')
          throw new CoreError('CONFLICT', mayAlreadyHave)
        this.writes.refuseWhileAwaited(row.id)
        this.statements.delete.run(row.id)
      })
      .immediate()
  }

  private paused(): OutboxPause | null {
    return (this.settings.get(pauseKey) as OutboxPause | undefined) ?? null
  }

  pausedReason(): string | null {
    return this.paused()?.reason ?? null
  }

  /** `signInAgain`: the user session expired, and only a new token ends the pause. */
  pause(reason: string, signInAgain = false): void {
    this.settings.set(pauseKey, { reason, at: this.now(), ...(signInAgain ? { signInAgain } : {}) })
  }

  resume(): void {
    this.settings.delete(pauseKey)
  }

  /**
   * Looks at the next `window` sent entries after id `afterId` and removes those sent before
   * `beforeIso`; answers how many went and the last id looked at (null once there are none left).
   * Only `sent` entries go: one waiting, being sent, retrying or refused is the rep's order still.
   * An entry sent from a draft in `keepDraftIds` stays (a quote kept on this laptop was converted
   * into it).
   */
  purgeSent(
    beforeIso: string,
    keepDraftIds: readonly number[],
    afterId: number,
    window: number,
  ): { removed: number; lastId: number | null } {
    const lastId = this.statements.sentWindowEnd.get(afterId, window) ?? null
    if (lastId === null) return { removed: 0, lastId }
    return {
      removed: this.statements.purgeSent.run(afterId, lastId, beforeIso, JSON.stringify(keepDraftIds)).changes,
      lastId,
    }
  }
}
