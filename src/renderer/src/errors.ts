import type { AppError } from '../../shared/result'

/**
 * Thrown by api.ts's `unwrap` so a store can show the core's message and code as they were sent.
 * It lives here, not beside `unwrap`, so a screen can tell a refusal from a crash without importing
 * the door to the core.
 */
export class ApiError extends Error {
  constructor(readonly error: AppError) {
    super(error.message)
    this.name = 'ApiError'
  }
}

/** Any caught error as the core's AppError, so screens can show its message and per-field issues. */
export function toAppError(error: unknown): AppError {
  if (error instanceof ApiError) return error.error
  return { code: 'INTERNAL', message: error instanceof Error ? error.message : String(error) }
}

/** The issues of an INVALID_ARGUMENT error keyed by path ("baseUrl", "auth.apiKey", "newCustomer.billTo.city"). */
export function issuesByPath(error: AppError | null): Record<string, string> {
  const byPath: Record<string, string> = {}
  for (const issue of error?.issues ?? []) byPath[issue.path] ??= issue.message
  return byPath
}
