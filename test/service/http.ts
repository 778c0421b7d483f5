/**
 * Request-level rules shared by every route: error bodies, the two credential sets, the customer
 * context, paging and the delta cursor.
 */
import type { z } from 'zod'
import type { UserRec } from './model'
import type { Store, VendorEntry } from './store'

/** A JSON error: `{ message, error?, code? }` (plus `errors` for ReconcileErrors). */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly code?: string,
    readonly detail?: string,
    readonly extra?: Record<string, unknown>,
  ) {
    super(message)
  }

  body(): Record<string, unknown> {
    return {
      message: this.message,
      ...(this.detail !== undefined ? { error: this.detail } : {}),
      ...(this.code !== undefined ? { code: this.code } : {}),
      ...this.extra,
    }
  }
}

/** The legacy plain-text 400 of POST /v2/order and POST /v1/order. */
export class PlainTextError extends Error {}

type ReconcileType =
  | 'VENDOR_INACTIVE'
  | 'VENDOR_NOT_ACCESSIBLE'
  | 'ITEM_INACTIVE'
  | 'ITEM_NOT_FOUND'
  | 'INSUFFICIENT_INVENTORY'
  | 'ITEM_NOT_OFFERED'
  | 'INVALID_REQUEST'

export interface ReconcileIssue {
  type: ReconcileType
  message: string
  line?: number
  field?: string
  catalog_item_guid?: string
  catalog_item_id?: number
  sku?: string
  qty_requested?: number
  qty_available?: number
}

export function reconcileErrors(errors: ReconcileIssue[], subject = 'Order'): HttpError {
  return new HttpError(400, `${subject} could not be reconciled`, 'RECONCILE_ERRORS', undefined, { errors })
}

export function zodIssues(error: z.ZodError): ReconcileIssue[] {
  return error.issues.map((issue) => ({
    type: 'INVALID_REQUEST' as const,
    message: `${issue.path.join('.') || 'body'}: ${issue.message}`,
    field: issue.path.join('.'),
  }))
}

function validationError(error: z.ZodError): HttpError {
  const first = error.issues[0]
  const where = first?.path.join('.') || 'body'
  return new HttpError(
    400,
    `Invalid request: ${where}: ${first?.message ?? 'invalid'}`,
    'VALIDATION_ERROR',
    error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; '),
  )
}

export function parseBody<T>(schema: z.ZodType<T>, body: unknown): T {
  const result = schema.safeParse(body ?? {})
  if (!result.success) throw validationError(result.error)
  return result.data
}

// ---- query parameters -------------------------------------------------------------------------

export type Query = Record<string, unknown>

/** Repeated parameters: the last one wins. */
export function queryString(query: Query, name: string): string | undefined {
  const value = query[name]
  if (Array.isArray(value)) {
    const last: unknown = value[value.length - 1]
    return typeof last === 'string' ? last : undefined
  }
  return typeof value === 'string' ? value : undefined
}

export function queryBool(query: Query, name: string): boolean | undefined {
  const value = queryString(query, name)
  if (value === undefined) return undefined
  if (value === 'true') return true
  if (value === 'false') return false
  throw new HttpError(400, `${name} must be true or false`, 'INVALID_PARAMETER')
}

const MAX_LIMIT = 100
const DEFAULT_LIMIT = 25

export interface Paging {
  limit: number
  offset: number
}

/** limit defaults to 25 and is clamped to 100; offset is a page number. */
export function parsePaging(query: Query): Paging {
  return { limit: parseLimit(queryString(query, 'limit')), offset: parseOffset(queryString(query, 'offset')) }
}

export function parseLimit(value: string | number | undefined): number {
  if (value === undefined || value === '') return DEFAULT_LIMIT
  const limit = typeof value === 'number' ? value : /^\d+$/.test(value) ? Number(value) : NaN
  if (!Number.isInteger(limit) || limit < 1)
    throw new HttpError(400, 'limit must be a positive integer', 'INVALID_PARAMETER')
  return Math.min(limit, MAX_LIMIT)
}

export function parseOffset(value: string | number | undefined): number {
  if (value === undefined || value === '') return 0
  const offset = typeof value === 'number' ? value : /^\d+$/.test(value) ? Number(value) : NaN
  if (!Number.isInteger(offset) || offset < 0)
    throw new HttpError(400, 'offset must be a non-negative integer (a page number)', 'INVALID_PARAMETER')
  return offset
}

export function page<T>(rows: readonly T[], paging: Paging): { rows: T[]; hasMore: boolean } {
  const start = paging.offset * paging.limit
  return { rows: rows.slice(start, start + paging.limit), hasMore: start + paging.limit < rows.length }
}

const ISO = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}(?::?\d{2})?)?$/i
const SQL = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?$/

/**
 * The delta cursor: ISO 8601 date-time (no zone = UTC) or `YYYY-MM-DD HH:mm:ss` (UTC). An ISO
 * offset whose '+' arrived unencoded (and so was decoded as a space) is read as '+'.
 */
export function parseCursor(raw: string | undefined): number | undefined {
  if (raw === undefined || raw === '') return undefined
  const value = raw.trim().replace(/^(\d{4}-\d{2}-\d{2}T[\d:.]+) (\d{2}(?::?\d{2})?)$/, '$1+$2')
  const match = ISO.exec(value) ?? SQL.exec(value)
  const invalid = (): never => {
    throw new HttpError(400, `lastUpdatedAt could not be parsed: '${raw}'`, 'INVALID_DELTA_CURSOR')
  }
  if (!match) return invalid()
  const [, y, mo, d, h, mi, s, fraction, zone] = match
  const parts = [y, mo, d, h, mi, s ?? '0'].map(Number) as [number, number, number, number, number, number]
  const [year, month, day, hour, minute, second] = parts
  const ms = fraction ? Number(fraction.slice(0, 3).padEnd(3, '0')) : 0
  const utc = Date.UTC(year, month - 1, day, hour, minute, second, ms)
  const check = new Date(utc)
  if (
    check.getUTCFullYear() !== year ||
    check.getUTCMonth() !== month - 1 ||
    check.getUTCDate() !== day ||
    hour > 23 ||
    minute > 59 ||
    second > 59
  ) {
    return invalid()
  }
  if (!zone || zone.toUpperCase() === 'Z') return utc
  const sign = zone.startsWith('-') ? -1 : 1
  const digits = zone.slice(1).replace(':', '')
  const offsetMinutes = Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2, 4) || '0')
  return utc - sign * offsetMinutes * 60_000
}

/** Rows with updated_at >= cursor − 60 s are returned (the spec's clock-skew overlap). */
export const DELTA_OVERLAP_MS = 60_000

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
export function isUuid(value: unknown): value is string {
  return typeof value === 'string' && UUID.test(value)
}

// ---- authentication ---------------------------------------------------------------------------

export type Accepts = 'either' | 'apiKey' | 'session'

export interface AuthContext {
  mode: 'apiKey' | 'session'
  /** The caller: the master user for API keys, the session's user otherwise. */
  user: UserRec
  /** Who the call is attributed to (API key + userGuid header), else `user`. */
  actingUser: UserRec
  vendorGuidHeader: string | undefined
}

export type Headers = Record<string, string | string[] | undefined>

function header(headers: Headers, name: string): string | undefined {
  const value = headers[name.toLowerCase()]
  const single = Array.isArray(value) ? value[0] : value
  return single === undefined || single === '' ? undefined : single
}

/**
 * Missing or invalid credentials → 401; a valid set the endpoint does not take → 403. When both
 * sets are sent, the one the endpoint accepts is used (API key for "either").
 * `plainText` names the set whose absence the legacy create endpoints answer with a plain-text 400.
 */
export function authenticate(
  store: Store,
  headers: Headers,
  accepts: Accepts,
  plainText?: 'apiKey' | 'session',
): AuthContext {
  const key = header(headers, 'x-apiKey')
  const secret = header(headers, 'x-apiSecret')
  const userGuid = header(headers, 'userGuid')
  const token = header(headers, 'userToken')
  const supplierGuid = header(headers, 'supplierGuid')
  if (plainText === 'apiKey' && (!key || !secret))
    throw new PlainTextError('Missing required headers: x-apiKey and x-apiSecret')
  if (plainText === 'session' && (!userGuid || !token || !supplierGuid)) {
    throw new PlainTextError('Missing required headers: userGuid, userToken and supplierGuid')
  }
  const hasKey = key !== undefined || secret !== undefined
  const hasSession = token !== undefined || supplierGuid !== undefined || (userGuid !== undefined && !hasKey)
  const mode: AuthContext['mode'] | undefined =
    hasKey && hasSession
      ? accepts === 'session'
        ? 'session'
        : 'apiKey'
      : hasKey
        ? 'apiKey'
        : hasSession
          ? 'session'
          : undefined
  if (!mode)
    throw new HttpError(
      401,
      'Missing credentials: send x-apiKey/x-apiSecret or userGuid/userToken/supplierGuid',
      'UNAUTHORIZED',
    )
  let context: AuthContext
  const vendorGuidHeader = header(headers, 'vendorGuid')
  if (mode === 'apiKey') {
    if (!key || !secret)
      throw new HttpError(
        401,
        'Incomplete API key credentials: both x-apiKey and x-apiSecret are required',
        'UNAUTHORIZED',
      )
    if (key !== store.apiKey || secret !== store.apiSecret)
      throw new HttpError(401, 'Invalid API key or secret', 'UNAUTHORIZED')
    let actingUser = store.masterUser
    if (userGuid !== undefined) {
      const attributed = store.usersByGuid.get(userGuid)
      if (!attributed || attributed.type !== 'supplier')
        throw new HttpError(400, `Unknown userGuid '${userGuid}'`, 'UNKNOWN_USER')
      actingUser = attributed
    }
    context = { mode, user: store.masterUser, actingUser, vendorGuidHeader }
  } else {
    if (!userGuid || !token || !supplierGuid) {
      throw new HttpError(
        401,
        'Incomplete session credentials: userGuid, userToken and supplierGuid are required',
        'UNAUTHORIZED',
      )
    }
    const user = store.usersByGuid.get(userGuid)
    if (store.expiredTokens.has(token)) throw new HttpError(401, 'Session expired: sign in again', 'SESSION_EXPIRED')
    if (!user || user.token !== token || supplierGuid !== store.supplier.guid)
      throw new HttpError(401, 'Invalid or expired session', 'UNAUTHORIZED')
    context = { mode, user, actingUser: user, vendorGuidHeader }
  }
  if (accepts !== 'either' && accepts !== mode) {
    const wanted =
      accepts === 'apiKey' ? 'API key (x-apiKey/x-apiSecret)' : 'user session (userGuid/userToken/supplierGuid)'
    throw new HttpError(403, `This endpoint requires ${wanted} credentials`, 'FORBIDDEN')
  }
  return context
}

/**
 * The customer the call acts for: a customer-level user's own customer, or the vendorGuid header
 * (or the given override, e.g. a query parameter). Unknown or deleted customers are not accessible.
 */
export function contextVendor(store: Store, auth: AuthContext, override?: string): VendorEntry | undefined {
  const wanted = override ?? auth.vendorGuidHeader
  if (auth.user.type === 'customer') {
    const own = store.vendorsById.get(auth.user.vendor_id)
    if (!own || own.rec.deleted_at !== null) throw new HttpError(403, 'This user has no customer account', 'FORBIDDEN')
    if (wanted !== undefined && wanted !== own.rec.guid)
      throw new HttpError(403, 'Customer users may act only for their own customer', 'VENDOR_NOT_ACCESSIBLE')
    return own
  }
  if (wanted === undefined) return undefined
  if (!isUuid(wanted)) throw new HttpError(400, `vendorGuid is not a UUID: '${wanted}'`, 'INVALID_PARAMETER')
  const vendor = store.liveVendor(wanted)
  if (!vendor) throw new HttpError(403, `Customer ${wanted} is not accessible`, 'VENDOR_NOT_ACCESSIBLE')
  return vendor
}

export function requireSupplierLevel(auth: AuthContext): void {
  if (auth.user.type !== 'supplier') throw new HttpError(403, 'Supplier-level access is required', 'FORBIDDEN')
}
