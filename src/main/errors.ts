import type { z } from 'zod'
import type { AppError, ErrorCode } from '../shared/result'

/** An expected failure with a code the renderer can act on; anything else is reported as INTERNAL. */
export class CoreError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly issues?: AppError['issues'],
  ) {
    super(message)
    this.name = 'CoreError'
  }
}

/**
 * A failed zod check in the contract's issue shape, one entry per issue. The handler table answers a
 * malformed call with these and the CLI reports a malformed draft file with them, so both say a
 * problem the same way; an issue at the root has the path '(argument)'.
 */
export function describeIssues(error: z.ZodError): NonNullable<AppError['issues']> {
  return error.issues.map((issue) => ({ path: issue.path.join('.') || '(argument)', message: issue.message }))
}
