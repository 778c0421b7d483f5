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
