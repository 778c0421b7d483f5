/**
 * Result envelopes for everything that crosses the IPC boundary.
 *
 * Thrown errors lose everything but their message when Electron serializes them, so handlers never
 * throw across the boundary: they answer `{ ok: true, value }` or `{ ok: false, error }`.
 */
import { z } from 'zod'

const errorCodes = [
  /** The renderer sent an argument that does not fit the contract. */
  'INVALID_ARGUMENT',
  /** The record asked for does not exist locally. */
  'NOT_FOUND',
  /** The request conflicts with the current state (for example editing an order already sent). */
  'CONFLICT',
  /** No connection has been configured yet. */
  'NOT_CONFIGURED',
  /** The service could not be reached or timed out; worth retrying later. */
  'UNAVAILABLE',
  /** The service refused the credentials (401/403). */
  'UNAUTHORIZED',
  /** The service rejected the request as invalid and retrying will not help. */
  'REJECTED',
  /** The operating system cannot keep secrets safely on this machine. */
  'SECRET_STORE_UNAVAILABLE',
  /** The call did not come from the app's own window. */
  'FORBIDDEN_SENDER',
  /** The operation was cancelled. */
  'CANCELLED',
  /** The local database file (or its folder) cannot be written, and the operation must write. */
  'DATABASE_READ_ONLY',
  /** The local database file is not a Satchel database, or is damaged. */
  'NOT_A_DATABASE',
  /** The disk holding the local database is full: nothing could be written until space is freed. */
  'DISK_FULL',
  /** A bug: logged in full in main, summarised here. */
  'INTERNAL',
] as const

export type ErrorCode = (typeof errorCodes)[number]

export const appErrorSchema = z.object({
  code: z.enum(errorCodes),
  message: z.string(),
  /** Field-level detail, for example which argument path failed validation. */
  issues: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
})
export type AppError = z.infer<typeof appErrorSchema>

export type Result<T> = { ok: true; value: T } | { ok: false; error: AppError }

export function ok<T>(value: T): Result<T> {
  return { ok: true, value }
}

export function fail(code: ErrorCode, message: string, issues?: AppError['issues']): { ok: false; error: AppError } {
  return issues ? { ok: false, error: { code, message, issues } } : { ok: false, error: { code, message } }
}
