/**
 * A sync's failure in the contract's words, for its report: the service's errors by their kind, a
 * CoreError (a full disk the writer met, say) with its own code, anything else as INTERNAL.
 */
import { CoreError } from '../errors'
import { ServiceError, errorCodeOf } from '../ordering-client/errors'
import type { ErrorCode } from '../../shared/result'

export function describe(error: unknown): { code: ErrorCode; message: string } {
  if (error instanceof ServiceError) return { code: errorCodeOf(error.kind), message: error.message }
  if (error instanceof CoreError) return { code: error.code, message: error.message }
  return { code: 'INTERNAL', message: error instanceof Error ? error.message : String(error) }
}
