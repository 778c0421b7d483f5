import { DatabaseFileError } from '../db/file-errors'
import { CoreError } from '../errors'

export interface StartFailure {
  title: string
  message: string
}

/**
 * What the rep is told when Satchel cannot start. A database it cannot use (damaged, another
 * program's, read-only: src/main/db/file-errors.ts) is named with what to do, in the same words the
 * core gives the CLI, never as SQLite's own text; anything else is shown as it is, a bug for the log.
 */
export function describeStartFailure(error: unknown): StartFailure {
  if (error instanceof DatabaseFileError) return { title: 'Satchel cannot open its database', message: error.message }
  if (error instanceof CoreError) return { title: 'Satchel could not start', message: error.message }
  return { title: 'Satchel could not start', message: error instanceof Error ? error.message : String(error) }
}

export interface StartFailurePorts {
  showErrorBox(title: string, message: string): void
  logError(message: string): void
  exit(code: number): void
}

/** SQLite's code behind a database error ("SQLITE_NOTADB"), for the log: support needs it, the rep does not. */
function sqliteCodeOf(error: unknown): string | null {
  const cause = error instanceof Error ? error.cause : undefined
  const code = typeof cause === 'object' && cause !== null ? (cause as { code?: unknown }).code : undefined
  return typeof code === 'string' ? code : null
}

/** The one way start-up ends in failure: logged, shown in a blocking box (no window exists yet), exit 1. */
export function reportStartFailure(error: unknown, ports: StartFailurePorts): void {
  const { title, message } = describeStartFailure(error)
  const code = sqliteCodeOf(error)
  ports.logError(`Satchel could not start: ${message}${code ? ` [${code}]` : ''}`)
  ports.showErrorBox(title, message)
  ports.exit(1)
}
