import type { z } from 'zod'
import { methodNames, writingMethodNames, type MethodName } from '../../shared/channels'
import { contract, type Implementations, type MethodInput, type MethodOutput } from '../../shared/contract'
import { fail, ok, type Result } from '../../shared/result'
import { CoreError, describeIssues } from '../errors'
import type { Logger } from '../ports'

/** What each transport calls: takes whatever arrived on the wire, answers an envelope, never throws. */
export type HandlerTable = { readonly [M in MethodName]: (argument: unknown) => Promise<Result<MethodOutput<M>>> }

/**
 * The methods that write the database from the window's connection (shared/channels.ts lists them).
 * Each first waits out the sync writer's long requests in flight (beforeWrite, sync/long-writes.ts),
 * asynchronously, rather than in SQLite's busy handler, which would hold the whole main process.
 * Reads go at once: WAL lets them read beside the writer.
 */
export const writingMethods: ReadonlySet<MethodName> = new Set<MethodName>(writingMethodNames)

/**
 * Wraps each implementation with the contract's argument check and error mapping. This is the one
 * door into the core for every transport, so a malformed call is refused the same way everywhere.
 */
export function createHandlerTable(
  implementations: Implementations,
  logger: Logger,
  /** Turns a known failure that is not a CoreError (SQLite finding the database damaged or read-only) into one the rep can act on. */
  explain: (error: unknown) => CoreError | null = () => null,
  /** Awaited before each of writingMethods runs (sync/long-writes.ts). */
  beforeWrite?: () => Promise<void>,
): HandlerTable {
  const table: Partial<Record<MethodName, (argument: unknown) => Promise<Result<unknown>>>> = {}
  for (const method of methodNames) {
    const schema = contract[method].input as z.ZodType
    const implementation = implementations[method] as (argument: unknown) => unknown
    table[method] = async (argument) => {
      const parsed = schema.safeParse(argument)
      if (!parsed.success) {
        const issues = describeIssues(parsed.error)
        return fail(
          'INVALID_ARGUMENT',
          `Invalid argument for ${method}: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`,
          issues,
        )
      }
      try {
        if (beforeWrite && writingMethods.has(method)) await beforeWrite()
        return ok(await implementation(parsed.data))
      } catch (error) {
        if (error instanceof CoreError) return fail(error.code, error.message, error.issues)
        logger.error('handler failed', {
          method,
          error: error instanceof Error ? (error.stack ?? error.message) : String(error),
        })
        const explained = explain(error)
        if (explained) return fail(explained.code, explained.message)
        return fail('INTERNAL', `Satchel hit an unexpected error in ${method}. Details are in the log.`)
      }
    }
  }
  return table as HandlerTable
}

/** Narrow helper for tests and transports that know the method at compile time. */
export function call<M extends MethodName>(
  table: HandlerTable,
  method: M,
  argument?: MethodInput<M>,
): Promise<Result<MethodOutput<M>>> {
  return table[method](argument) as Promise<Result<MethodOutput<M>>>
}
