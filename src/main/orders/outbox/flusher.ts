import type { OutboxSummary } from '../../../shared/orders'
import type { Logger } from '../../ports'
import type { Clock } from '../../ports'
import { ServiceError, ServiceRejectedError } from '../../ordering-client/errors'
import type { OrderWithItemsResult } from '../../ordering-client/client'
import type { CustomerRecord, OrderRecord } from '../../ordering-client/schemas'
import { backoffDelay, type RetryPolicy } from '../../ordering-client/retry'
import { LeaseLostError, type Lease, type LeaseHolder } from '../../db/lease'
import type { Outbox, OutboxCheck, OutboxWork } from './outbox'
import {
  foundOnService,
  isRefusal,
  mapRejectionToLines,
  mayHaveBeenCommitted,
  sendWrite,
  sentResult,
  serviceUnavailable,
  settleWrite,
  writeRefusal,
} from './flush-outcomes'
import { createsCustomer, forCustomer } from '../request'
import { findOrderOnService, type OrderListReader, type ServiceCheck } from './service-check'
import type { WriteOutcome, WriteRules, WriteSender } from './write-kinds'

/**
 * The calls the flusher makes; the service client implements them. The order list is read only to
 * settle whether an order whose earlier answer was lost is on the service after all.
 */
export interface OrderSender extends OrderListReader, Partial<WriteSender> {
  /** Which credentials it sends: a user session's expiry is the rep's to end by signing in again. */
  readonly authKind?: 'apiKey' | 'session'
  createOrderWithItems(
    body: Record<string, unknown>,
    options: { vendorGuid?: string; signal?: AbortSignal },
  ): Promise<OrderWithItemsResult>
}

/** Points in a send where tests kill the process for real, to prove nothing is lost or doubled. */
export type FlushProbePoint = 'claimed' | 'responded'

export interface FlusherOptions {
  outbox: Outbox
  /** The sender for the current credentials, or null when no connection is configured. */
  sender: () => Promise<OrderSender | null>
  /** Which secret a saved connection lacks on this laptop, if any (settings/connection.ts). */
  missingCredential?: () => Promise<'apiKey' | 'session' | null>
  clock: Clock
  logger: Logger
  random?: () => number
  /** Retries wait longer each time, up to maxDelayMs, and never stop while the failure is transient. */
  backoff?: Pick<RetryPolicy, 'baseDelayMs' | 'maxDelayMs'>
  /** The service holds the order: what it confirmed (or, for an order found after its answer was lost, its list entry). */
  onSent?: (result: OrderWithItemsResult) => void
  /** A new customer the service made (or had): its entry's key, and its record for the local copy. */
  onCustomerMade?: (key: string, customer: CustomerRecord) => void
  /** After each flush, for work that can wait until the sending is done (recording history). */
  onSettled?: () => Promise<void> | void
  onChange?: () => void
  probe?: (point: FlushProbePoint, work: OutboxWork) => void
  /** How each kind of write after Send is sent (tracking/ for orders after Send); orders need none. */
  writeRules?: WriteRules
  /**
   * The outbox lease: only its holder sends, across every process on this database, and only the
   * process that takes over an expired lease recovers the entries its dead holder left `sending`.
   */
  lease?: Lease
}

export interface FlushReport {
  /** Sent in this flush. */
  sent: number
  /** Rejected in this flush. */
  needsAttention: number
  /** Entries waiting to retry after this flush, whenever they failed. */
  retrying: number
  summary: OutboxSummary
  /** Set when another process holds the outbox lease: nothing was sent, try again after it frees. */
  heldBy?: LeaseHolder
  /** Another process took the lease over while this flush sent: what it had not finished is that one's. */
  leaseLost?: boolean
}

/** The pause of an expired user session: said the same in the status bar, the outbox screen and the CLI. */
const signInAgainReason =
  'Sign in again: the supplier says your session has ended. Everything waiting stays on this laptop and is sent once you sign in again.'

/** The pause of a saved connection whose secret this laptop no longer has (a keyring that lost it, or cannot be read). */
const missingSecretReason = {
  session:
    'Sign in again: the session saved on this laptop can no longer be read. Everything waiting stays on this laptop and is sent once you sign in again.',
  apiKey:
    'Connect again in Settings: the API secret saved on this laptop can no longer be read. Everything waiting stays on this laptop and is sent once it is entered again.',
} as const

const defaultBackoff = { baseDelayMs: 2_000, maxDelayMs: 5 * 60_000 }

/**
 * The longest the outbox ever puts an entry off is a back-off step (5 minutes), a Retry-After it
 * honours (at most an hour), or a dead sender's last request (a lease's TTL, seconds). A time stored
 * well beyond that was stamped by a clock that was wrong then or is wrong now (fast when it was
 * stored and put right since, or another process's): it means nothing, and waiting for it could
 * mean days, in any state, so the entry is due now. Its api_guid makes the resend safe.
 */
export const farAheadMs = 2 * 60 * 60_000

/**
 * Sends the outbox, oldest first, one entry at a time and one flusher at a time. Every attempt sends
 * the entry's frozen request with its api_guid, so a reply lost after the service committed is
 * answered on the next attempt with the order it already holds — never a second order.
 */
export class OutboxFlusher {
  private running: Promise<FlushReport> | null = null
  private again = false
  private readonly random: () => number
  private readonly backoff: Pick<RetryPolicy, 'baseDelayMs' | 'maxDelayMs'>
  private abort: AbortController | null = null
  private stopping = false
  private leaseLost = false
  private checkedSinceStart = false

  constructor(private readonly options: FlusherOptions) {
    this.random = options.random ?? Math.random
    this.backoff = options.backoff ?? defaultBackoff
  }

  isSending(): boolean {
    return this.running !== null
  }

  /** Resolves when no flush is running, or false after `timeoutMs`. */
  async waitUntilIdle(timeoutMs: number): Promise<boolean> {
    if (!this.running) return true
    let timer: NodeJS.Timeout | undefined
    const timeout = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), timeoutMs)
    })
    const idle = (async () => {
      while (this.running) await this.running.catch(() => undefined)
      return true as const
    })()
    try {
      return await Promise.race([idle, timeout])
    } finally {
      clearTimeout(timer)
    }
  }

  /** No new entry is started from now on; the one in flight finishes. For quitting. */
  stop(): void {
    this.stopping = true
    this.again = false
  }

  /** Cuts off the request in flight; its entry goes back to `queued` and is resent (same api_guid) next time. */
  cancel(): void {
    this.abort?.abort(new Error('flush cancelled'))
  }

  /**
   * Sends whatever is due. A call while a flush runs joins it, and the running flush makes one more
   * pass, so an order queued mid-flush is not left waiting for the next trigger.
   */
  flush(): Promise<FlushReport> {
    const { outbox, lease, logger } = this.options
    if (this.stopping) return Promise.resolve({ sent: 0, needsAttention: 0, retrying: 0, summary: outbox.summary() })
    if (this.running) {
      this.again = true
      return this.running
    }
    if (lease) {
      const attempt = lease.tryAcquire(({ unexpiredUntil }) => {
        // The previous holder died (or predates leases): its `sending` entries may or may not have
        // reached the service, and their api_guid makes resending them safe; one that died a moment
        // ago gets until its lease would have run out to have its last request answered.
        const recovered = outbox.recoverInterrupted(unexpiredUntil)
        if (recovered > 0) {
          logger.warn('orders interrupted while sending will be sent again with their api_guid', {
            count: recovered,
            ...(unexpiredUntil ? { from: new Date(unexpiredUntil).toISOString() } : {}),
          })
        }
      })
      if (!attempt.acquired) {
        const summary = outbox.summary()
        return Promise.resolve({
          sent: 0,
          needsAttention: 0,
          retrying: summary.retrying,
          summary,
          heldBy: attempt.holder,
        })
      }
    }
    this.leaseLost = false
    this.running = (async () => {
      const report = { sent: 0, needsAttention: 0, retrying: 0 }
      // A long request must not let the lease run out under it; a lease lost anyway (this process
      // was stalled past its expiry) stops the request at once, since its entry is the new holder's.
      const keepAlive = lease
        ? setInterval(
            () => {
              if (!lease.stillHeld()) this.loseLease()
            },
            Math.max(250, lease.ttlMs / 3),
          )
        : undefined
      try {
        do {
          this.again = false
          await this.pass(report)
        } while (this.again && !this.leaseLost)
      } catch (error) {
        if (!(error instanceof LeaseLostError)) throw error
        this.loseLease()
      } finally {
        clearInterval(keepAlive)
        try {
          await this.options.onSettled?.()
        } finally {
          if (lease && !this.leaseLost) lease.release()
          this.running = null
          this.abort = null
        }
      }
      const summary = outbox.summary()
      return {
        sent: report.sent,
        needsAttention: report.needsAttention,
        retrying: summary.retrying,
        summary,
        ...(this.leaseLost ? { leaseLost: true } : {}),
      }
    })()
    return this.running
  }

  private loseLease(): void {
    if (this.leaseLost) return
    this.leaseLost = true
    this.options.logger.warn('another Satchel process took over the outbox; this one stops sending')
    this.abort?.abort(new Error('outbox lease lost'))
  }

  /** The flusher's writes commit only while it holds the lease, renewed in the same transaction. */
  private guarded<T>(work: () => T): T {
    const { outbox, lease } = this.options
    return outbox.atomically(() => {
      if (this.leaseLost) throw new LeaseLostError('outbox')
      lease?.renew()
      return work()
    })
  }

  /** Claims the next due entry, after `before` (the previous order's bookkeeping) in the same commit. */
  private claim(before?: (() => void) | null): OutboxWork | null {
    const { outbox, clock } = this.options
    const work = this.guarded(() => {
      before?.()
      return this.stopping ? null : outbox.claimNext(clock.now())
    })
    if (before || work) this.options.onChange?.()
    if (work) this.options.probe?.('claimed', work)
    return work
  }

  /**
   * One pass over what is due. Requests go strictly one after another, each started only once the
   * previous reply is in; the bookkeeping of an order the service accepted (recording it, claiming the
   * next entry) is done while the next request is on the wire, where it costs the rep nothing. An
   * order accepted but not yet recorded when the process dies is still `sending`, and is resent with
   * its api_guid at the next start.
   */
  private async pass(report: { sent: number; needsAttention: number; retrying: number }): Promise<void> {
    const { outbox, logger } = this.options
    // Under the lease: a dead sender's held `sending` entries are the holder's to reschedule.
    const hurried = this.guarded(() =>
      outbox.dueFarAhead(this.options.clock.now() + farAheadMs, this.options.lease?.ttlMs),
    )
    if (hurried > 0) logger.warn('entries stored far ahead (the clock was wrong) are due now', { count: hurried })
    if (outbox.pausedReason()) return
    const sender = await this.options.sender().catch(() => null)
    if (!sender) {
      // Nothing saved: first run, the window asks to connect. Saved but its secret gone: that is said
      // where a 401 is said, rather than orders waiting with no attempt under an "Online" light.
      const missing = await this.options.missingCredential?.().catch(() => null)
      if (missing) {
        this.guarded(() => outbox.pause(missingSecretReason[missing], missing === 'session'))
        logger.warn('outbox paused: the saved connection has no secret on this laptop', { kind: missing })
        this.options.onChange?.()
      }
      return
    }
    const abort = (this.abort = new AbortController())
    await this.checkRefusals(sender, abort.signal, report)
    if (this.leaseLost || abort.signal.aborted) return
    let acknowledge: (() => void) | null = null
    let work = this.stopping ? null : this.claim()
    try {
      while (work) {
        if (this.stopping || abort.signal.aborted) {
          const unsent = work
          // Claimed but never sent: nothing left this laptop for it.
          if (!this.leaseLost) this.guarded(() => outbox.release(unsent))
          return
        }
        const current = work
        const log = logger.child({ apiGuid: current.apiGuid, attempt: current.attempts })
        // A last look before the request goes out: after a stall, the entry may be the new holder's.
        if (this.options.lease?.holdsNow() === false) return this.loseLease()
        if (current.write) {
          // A write is not overlapped with the next entry: its rule may read before it writes, and
          // the entry after it may depend on it. The order answered before it is recorded first.
          if (acknowledge) this.guarded(acknowledge)
          acknowledge = null
          const settle = await this.write(current, sender, abort.signal, report, log)
          if (settle === 'stop') return
          if (this.stopping) {
            this.guarded(settle)
            this.options.onChange?.()
            return
          }
          work = this.claim(settle)
          continue
        }
        const vendorGuid = current.request.vendorGuid ?? current.customerFromDependency ?? undefined
        const sending = sender.createOrderWithItems(forCustomer(current.request.body, current.customerFromDependency), {
          ...(vendorGuid ? { vendorGuid } : {}),
          signal: abort.signal,
        })
        const next = this.claim(acknowledge)
        acknowledge = null
        let result: OrderWithItemsResult
        try {
          result = await sending
        } catch (error) {
          // The lease went to another process while this request was out: the entries are its now.
          if (this.leaseLost) return
          // A refusal after an attempt whose answer was lost proves nothing: that attempt may have been
          // committed (and, say, have taken the stock this one lacks). The service's list says which.
          const check =
            isRefusal(error) && current.deliveryUnknownSince !== null
              ? await this.lookFor(sender, current, abort.signal)
              : null
          if (this.leaseLost) return
          // The next entry goes back first, so a failure that holds the queue holds it too.
          const stop = this.guarded(() => {
            if (next) outbox.release(next)
            if (check?.kind === 'found') {
              this.recordFound(current, check.order, createsCustomer(current.request), report, log)
              return false
            }
            return this.settleFailure(current, error, report, log, check, sender.authKind === 'session')
          })
          this.options.onChange?.()
          if (stop) return
          work = this.stopping ? null : this.claim()
          continue
        }
        this.options.probe?.('responded', current)
        acknowledge = () => {
          outbox.markSent(current, sentResult(result), this.options.lease?.owner ?? null)
          this.options.onSent?.(result)
          report.sent++
          log.info('order sent', { orderGuid: String((result.order as Record<string, unknown>).guid) })
        }
        work = next
        // Nothing else was due while it was on the wire: what waited for this order (a submit, a
        // change) is due once it is recorded, so it is recorded now and the queue looked at again.
        if (!work && !this.stopping && !abort.signal.aborted) {
          work = this.claim(acknowledge)
          acknowledge = null
        }
      }
    } finally {
      if (acknowledge && !this.leaseLost) {
        this.guarded(acknowledge)
        this.options.onChange?.()
      }
    }
  }

  /**
   * Sends one write after Send by its kind's rule. Answers the bookkeeping to commit with the next
   * claim, or 'stop' when the queue should wait (the service is away, the session expired, the lease
   * went to another process).
   */
  private async write(
    current: OutboxWork,
    sender: OrderSender,
    signal: AbortSignal,
    report: { sent: number; needsAttention: number; retrying: number },
    log: Logger,
  ): Promise<(() => void) | 'stop'> {
    const { outbox, writeRules } = this.options
    const write = current.write!
    let outcome: WriteOutcome
    try {
      outcome = await sendWrite(writeRules ?? {}, write, sender, signal)
    } catch (error) {
      if (this.leaseLost) return 'stop'
      const refusal = writeRefusal(error)
      const stop = this.guarded(() => {
        if (refusal === null)
          return this.settleFailure(current, error, report, log, null, sender.authKind === 'session')
        outbox.writes.markRefused(write, refusal)
        report.needsAttention++
        log.warn('write refused by the service', { kind: write.kind })
        return false
      })
      this.options.onChange?.()
      return stop ? 'stop' : () => undefined
    }
    if (this.leaseLost) return 'stop'
    this.options.probe?.('responded', current)
    log.info('write settled', { kind: write.kind, outcome: outcome.kind })
    return () => {
      settleWrite(outbox.writes, write, outcome, report, this.options.lease?.owner ?? null)
      if (outcome.kind === 'done' && outcome.made) this.options.onCustomerMade?.(write.key, outcome.made)
    }
  }

  /**
   * Records a failed attempt; true when the rest of the queue should wait. `check` is what the
   * service's order list said of a refused order that an earlier attempt may have placed: a refusal
   * it could not confirm keeps the entry uncertain, to be looked for again.
   */
  private settleFailure(
    work: OutboxWork,
    error: unknown,
    report: { needsAttention: number; retrying: number },
    log: Logger,
    check: ServiceCheck | null = null,
    session = false,
  ): boolean {
    const { outbox, clock } = this.options
    const unconfirmed = check?.kind === 'unknown' ? check : null
    const checkAt = unconfirmed
      ? clock.now() +
        backoffDelay(work.attempts, { ...this.backoff, maxAttempts: Infinity, maxRetryAfterMs: Infinity }, this.random)
      : null
    if (error instanceof ServiceRejectedError) {
      outbox.markNeedsAttention(work, error.message, mapRejectionToLines(error.errors, work), checkAt)
      report.needsAttention++
      log.warn('order rejected by the service', {
        errors: error.errors.length,
        ...(unconfirmed ? { unconfirmed: unconfirmed.why } : {}),
      })
      return false
    }
    if (error instanceof ServiceError && error.kind === 'cancelled') {
      // Cut off by Satchel itself after the request left: the service may have committed it.
      outbox.release(work, null, true)
      return true
    }
    if (error instanceof ServiceError && error.kind === 'credentials') {
      // Refused at the door: nothing was written, and every other entry would be refused too.
      outbox.release(work, error.message)
      if (error.status === 401 && session) outbox.pause(signInAgainReason, true)
      else
        outbox.pause(
          `The supplier refused Satchel’s credentials (${error.status ?? 'auth'}). Orders wait on this laptop until the connection is updated in Settings.`,
        )
      log.warn('outbox paused: credentials refused', { status: error.status, session })
      return true
    }
    if (error instanceof ServiceError && (error.kind === 'badRequest' || error.kind === 'notFound')) {
      outbox.markNeedsAttention(work, error.message, [], checkAt)
      report.needsAttention++
      log.warn('order refused by the service', {
        status: error.status,
        ...(unconfirmed ? { unconfirmed: unconfirmed.why } : {}),
      })
      return false
    }
    // Everything else may have reached the service (an unreadable reply can follow a commit), so the
    // same request goes again later; its api_guid keeps that from creating a second order.
    const serviceError = error instanceof ServiceError ? error : null
    const step = backoffDelay(
      work.attempts,
      { ...this.backoff, maxAttempts: Infinity, maxRetryAfterMs: Infinity },
      this.random,
    )
    // A Retry-After is honoured up to an hour: the driver takes a retry stored further ahead for a wrong clock's.
    const delay = Math.max(step, Math.min(serviceError?.retryAfterMs ?? 0, 60 * 60_000))
    const at = clock.now() + delay
    const message = serviceError?.message ?? (error instanceof Error ? error.message : String(error))
    outbox.markRetrying(work, at, message, mayHaveBeenCommitted(error))
    report.retrying++
    if (!serviceError)
      log.error('unexpected failure while sending; will retry', {
        error: error instanceof Error ? error.stack : String(error),
      })
    else log.info('order will be retried', { kind: serviceError.kind, status: serviceError.status, delayMs: delay })
    if (serviceError && serviceUnavailable(serviceError)) {
      outbox.postponeWaiting(at, message)
      return true
    }
    return false
  }

  private lookFor(
    sender: OrderSender,
    entry: Pick<OutboxWork, 'apiGuid' | 'deliveryUnknownSince' | 'request'> | OutboxCheck,
    signal: AbortSignal,
  ): Promise<ServiceCheck> {
    const vendorGuid = 'request' in entry ? entry.request.vendorGuid : entry.vendorGuid
    const since = Date.parse(entry.deliveryUnknownSince ?? '')
    return findOrderOnService(sender, {
      apiGuid: entry.apiGuid,
      ...(vendorGuid ? { vendorGuid } : {}),
      since: Number.isFinite(since) ? since : 0,
      now: this.options.clock.now(),
      signal,
    })
  }

  private recordFound(
    entry: Pick<OutboxCheck, 'id' | 'apiGuid'>,
    order: OrderRecord,
    createsCustomer: boolean,
    report: { sent: number },
    log: Logger,
  ): void {
    const result = foundOnService(order)
    // An order that created its customer names it: the entry then points at that customer.
    const customerGuid = createsCustomer && typeof order.Vendor?.guid === 'string' ? order.Vendor.guid : null
    this.options.outbox.markFoundOnService(entry, sentResult(result, customerGuid), this.options.lease?.owner ?? null)
    this.options.onSent?.(result)
    report.sent++
    log.warn('order found on the service after its answer was lost; recorded as sent', { orderGuid: order.guid })
  }

  /**
   * Refused entries that an earlier, unanswered attempt may have placed are looked for in the
   * service's order list before anything else is sent: found, they are sent; not there, the refusal
   * stands and the rep may edit or discard them; the list unreadable, they wait for the next check.
   */
  private async checkRefusals(sender: OrderSender, signal: AbortSignal, report: { sent: number }): Promise<void> {
    const { outbox, clock, logger } = this.options
    // A process's first pass looks at every one, whatever its schedule: restarting is often how a
    // rep asks again.
    const dueBy = this.checkedSinceStart ? clock.now() : Number.MAX_SAFE_INTEGER
    this.checkedSinceStart = true
    for (const entry of outbox.dueChecks(dueBy, 5)) {
      if (this.stopping || signal.aborted || this.leaseLost) return
      const log = logger.child({ apiGuid: entry.apiGuid })
      const check = await this.lookFor(sender, entry, signal)
      if (this.leaseLost || signal.aborted) return
      this.guarded(() => {
        if (check.kind === 'found') this.recordFound(entry, check.order, entry.createsCustomer, report, log)
        else if (check.kind === 'absent') {
          outbox.markConfirmedAbsent(entry)
          log.info('a refused order is not on the service; the refusal stands')
        } else {
          outbox.checkAgainAt(entry, clock.now() + this.backoff.maxDelayMs)
          log.info('could not tell whether a refused order is on the service; will look again', { why: check.why })
        }
      })
      this.options.onChange?.()
    }
  }
}
