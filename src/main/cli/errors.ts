/** Wrong input: exit 2. */
export class UsageError extends Error {
  constructor(
    message: string,
    /** For --json: the object to print instead of `{ error }`. */
    readonly json?: Record<string, unknown>,
  ) {
    super(message)
  }
}

/** A failure to report on one line: exit 1. */
export class CliFailure extends Error {
  constructor(
    message: string,
    readonly code: string = 'FAILED',
    /** For --json: the object to print instead of `{ error }`. */
    readonly json?: Record<string, unknown>,
  ) {
    super(message)
  }
}

export interface GlobalOptions {
  db: string
  baseUrl?: string
  apiKey?: string
  apiSecret?: string
  /** Why the profile's stored secret was not found, for the error of a command that needed it. */
  noStoredSecret?: string
  userGuid?: string
  /** A user session (`--user-token` with `--user-guid` and `--supplier-guid`): used instead of the API key. */
  userToken?: string
  supplierGuid?: string
  /** Plain http to a host other than this computer is allowed (a lab), with a warning on every run. */
  allowInsecureHttp?: boolean
  json: boolean
  /** For a database found through a profile: whether the profiles list still has it (a remove may have run meanwhile). */
  stillListed?: () => boolean
}

export interface Output {
  json: boolean
  /** The command's result: JSON on stdout with --json, else the human text. */
  result(value: Record<string, unknown>, human: string): void
  /** Draws a progress line on stderr when it is a terminal and --json is off; null otherwise. */
  progress: ((line: string) => void) | null
  endProgress(): void
}
