import type { ErrorCode } from '../../shared/result'
import { failedToConnect } from './connect-failures'

/**
 * How a call to the ordering service failed, in the terms Satchel acts on:
 * - transient (unreachable, timeout, truncated, 5xx, 429): try again later, nothing is wrong with the request;
 * - credentials (401/403): stop and ask for new credentials, retrying cannot help;
 * - rejected (400 with a ReconcileErrors body): the request itself is wrong, with per-line detail;
 * - invalidCursor (400 INVALID_DELTA_CURSOR): the delta cursor was refused, a full listing is needed;
 * - notFound, badRequest: other permanent refusals;
 * - invalidResponse: the service answered with something that does not fit the contract;
 * - tooLarge: the reply passed the ceiling Satchel reads for that kind of reply, and was dropped unread;
 * - cancelled: Satchel itself aborted the call.
 */
export type ServiceFailureKind =
  | 'unreachable'
  | 'timeout'
  /** The reply started, then stopped before its end: the socket closed mid-body. */
  | 'truncated'
  | 'server'
  | 'rateLimited'
  | 'credentials'
  | 'rejected'
  | 'invalidCursor'
  | 'notFound'
  | 'badRequest'
  | 'invalidResponse'
  /** The reply was bigger than Satchel reads for that kind of reply. */
  | 'tooLarge'
  | 'cancelled'

/**
 * A reply cut mid-body (truncated) or one that did not finish in time (timeout) says nothing about
 * the request: the same request may well succeed a moment later, so both are retried, by withRetry
 * within a call and by the outbox's schedule. An oversized reply (tooLarge) is not: it is most likely
 * a service bug (a page that ignored its limit), which answers the same way seconds later, and each
 * immediate retry could pull another ceiling's worth of bytes over a metered link. A proxy or captive
 * portal can also cause it; that heals by itself, and the next scheduled sync (and, for an order, the
 * outbox's schedule, which resends everything it cannot prove was refused) tries again anyway.
 */
const transientKinds: ReadonlySet<ServiceFailureKind> = new Set([
  'unreachable',
  'timeout',
  'truncated',
  'server',
  'rateLimited',
])

export interface ServiceErrorDetail {
  status?: number
  /** The service's machine-readable `code`, when it sent one. */
  code?: string
  /** The parsed JSON body, or the text of a plain-text body. */
  body?: unknown
  /** How long the service asked us to wait (Retry-After), in milliseconds. */
  retryAfterMs?: number
  /**
   * The reply came from something between Satchel and the service (a hotel's login page, a proxy):
   * the request never reached the service, whatever the status said.
   */
  intercepted?: boolean
  cause?: unknown
}

export class ServiceError extends Error {
  readonly status?: number
  readonly code?: string
  readonly body?: unknown
  readonly retryAfterMs?: number
  readonly intercepted: boolean
  /**
   * The request provably never left this laptop (no connection could be made: connect-failures.ts),
   * so the service cannot hold what it carried. Every other transport failure may follow a commit.
   */
  readonly neverLeft: boolean

  constructor(
    readonly kind: ServiceFailureKind,
    message: string,
    detail: ServiceErrorDetail = {},
  ) {
    super(message, detail.cause === undefined ? undefined : { cause: detail.cause })
    this.name = 'ServiceError'
    this.status = detail.status
    this.code = detail.code
    this.body = detail.body
    this.retryAfterMs = detail.retryAfterMs
    this.intercepted = detail.intercepted ?? false
    this.neverLeft = failedToConnect(detail.cause)
  }

  /** Worth trying again later without changing anything. */
  get transient(): boolean {
    return transientKinds.has(this.kind)
  }
}

/** One problem the service found in an order, tied to a line where it said which. */
export interface ReconcileLineError {
  type: string | null
  message: string
  /** The line's position in orderItems as the service reports it: a 0-based index in the double (the spec does not show it). */
  line: number | null
  catalogItemGuid: string | null
  sku: string | null
  /** The error object as received, including fields Satchel does not know. */
  raw: Record<string, unknown>
}

/** 400 with a ReconcileErrors body: nothing was written; the request must change before it is sent again. */
export class ServiceRejectedError extends ServiceError {
  constructor(
    message: string,
    readonly errors: ReconcileLineError[],
    detail: ServiceErrorDetail,
  ) {
    super('rejected', message, detail)
    this.name = 'ServiceRejectedError'
  }
}

export function isServiceError(error: unknown): error is ServiceError {
  return error instanceof ServiceError
}

/** The code the renderer and the CLI see for a service failure. */
export function errorCodeOf(kind: ServiceFailureKind): ErrorCode {
  switch (kind) {
    case 'unreachable':
    case 'timeout':
    case 'truncated':
    case 'server':
    case 'rateLimited':
      return 'UNAVAILABLE'
    case 'credentials':
      return 'UNAUTHORIZED'
    case 'notFound':
      return 'NOT_FOUND'
    case 'cancelled':
      return 'CANCELLED'
    case 'rejected':
    case 'invalidCursor':
    case 'badRequest':
    case 'invalidResponse':
    case 'tooLarge':
      // An oversized reply is treated like an unreadable one: the service answered, unusably.
      return 'REJECTED'
  }
}
