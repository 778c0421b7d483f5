/**
 * Rotating log files for the main process, written through electron-log, with every entry passed
 * through a redaction step first. A log file is what a rep emails to support; it must be useful (one
 * line per event, request ids) and must never carry the API secret or the session token.
 *
 * We drive electron-log's Node logger (electron-log/node), not electron-log/main: the main flavour
 * registers its own ipcMain channel for renderer logging at import, an IPC door that would bypass the
 * sender check in ipc.ts. Its file transport, rotation hook and hooks are the same.
 */
import { randomUUID } from 'node:crypto'
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs'
import { join, parse } from 'node:path'
import type { NodeLogger } from 'electron-log'
import { credentialRedactor } from '../errors'
import type { LogFields, Logger } from '../ports'

const redacted = '[redacted]'
/** The service's headers that carry a credential. */
const credentialHeaders = ['x-apiKey', 'x-apiSecret', 'userToken']

/**
 * Keys whose string values are secrets wherever they appear: the service's header names
 * (x-apiSecret, userToken), our own field names, and the usual token, password and cookie fields.
 * `hasSecret`/`hasToken` booleans pass: only strings are replaced.
 */
const secretKey = /secret|token|passw(or)?d|authorization|cookie|credential|private.?key|signature/i

/**
 * `name: value`, `name=value` and `"name":"value"` forms of secret-looking names in free text. A bare
 * true/false/null is left alone: `"hasSecret":true` says a secret exists, not what it is.
 */
const secretAssignment =
  /(["']?\b(?:x-api-?secret|api-?secret|user-?token|[a-z_-]*token|[a-z_-]*secret|password|authorization)\b["']?\s*[:=]\s*["']?)(?:Bearer\s+)?(?!(?:true|false|null)\b)([^\s"',;&}]+)/gi
const bearer = /\bBearer\s+[A-Za-z0-9._~+/=-]+/g
/** Three base64url segments starting with a JSON header: a JWT such as the session's userToken. */
const jwt = /\beyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}\b/g

export interface Redactor {
  /** Registers a secret's actual value, so it is masked even where no key or pattern gives it away. */
  addSecret(value: string): void
  redactText(text: string): string
  /** A redacted deep copy; Errors become their redacted stack. */
  redact(value: unknown): unknown
}

export function createRedactor(): Redactor {
  const known = new Set<string>()
  // The client's rule for its credentials (errors.ts), so the log masks what an error text would.
  let maskKnown = credentialRedactor([])

  function redactText(text: string): string {
    return maskKnown(text)
      .replace(jwt, redacted)
      .replace(bearer, `Bearer ${redacted}`)
      .replace(secretAssignment, `$1${redacted}`)
  }

  function redact(value: unknown, seen = new WeakSet<object>(), depth = 0): unknown {
    if (typeof value === 'string') return redactText(value)
    if (value instanceof Error) return redactText(value.stack ?? `${value.name}: ${value.message}`)
    if (Buffer.isBuffer(value)) return `<${value.length} bytes>`
    if (value === null || typeof value !== 'object') return value
    if (seen.has(value) || depth > 8) return '[…]'
    seen.add(value)
    if (Array.isArray(value)) return value.map((item) => redact(item, seen, depth + 1))
    const copy: Record<string, unknown> = {}
    for (const [key, item] of Object.entries(value)) {
      copy[key] = typeof item === 'string' && secretKey.test(key) ? redacted : redact(item, seen, depth + 1)
    }
    return copy
  }

  return {
    addSecret(value) {
      if (value === '' || known.has(value)) return
      known.add(value)
      maskKnown = credentialRedactor([...known].map((secret) => ({ value: secret, headers: credentialHeaders })))
    },
    redactText,
    redact: (value) => redact(value),
  }
}

/** A short id to follow one request through the log (IPC call, service request, outbox send). */
export function newRequestId(): string {
  return randomUUID().slice(0, 8)
}

/** One log line's text: `[req:<id>] message {"field":…}`, redacted. */
export function formatEntry(redactor: Redactor, message: string, fields: LogFields = {}): string {
  const { requestId, ...rest } = fields
  const prefix = typeof requestId === 'string' && requestId ? `[req:${requestId}] ` : ''
  const body = Object.keys(rest).length > 0 ? ` ${JSON.stringify(redactor.redact(rest))}` : ''
  return redactor.redactText(`${prefix}${message}`) + body
}

/** electron-log's logger; the Node flavour in the app and in tests (see the header comment). */
export type LogWriter = NodeLogger

type LogLevel = 'debug' | 'info' | 'warn' | 'error'

export interface FileLoggingOptions {
  directory: string
  fileName?: string
  level?: LogLevel
  /** Rotate when the file passes this size. */
  maxBytes?: number
  /** How many rotated files to keep beside the current one. */
  keep?: number
  /** Echo to stderr too (development). */
  console?: boolean
  redactor?: Redactor
}

export interface FileLogging {
  logger: Logger
  redactor: Redactor
  /** The folder "Open logs folder" shows. */
  directory: string
  file: string
}

/** main.log → main.1.log → … → main.<keep>.log, the oldest dropped. */
function rotateLogFile(path: string, keep: number): void {
  const { dir, name, ext } = parse(path)
  const numbered = (n: number) => join(dir, `${name}.${n}${ext}`)
  rmSync(numbered(keep), { force: true })
  for (let n = keep - 1; n >= 1; n--) if (existsSync(numbered(n))) renameSync(numbered(n), numbered(n + 1))
  renameSync(path, numbered(1))
}

/**
 * Points electron-log's file transport at `directory`, with rotation, owner-only file permissions
 * and redaction as a hook, which runs before any transport writes, so anything logged through
 * electron-log (ours, electron-updater's) is redacted, not just what goes through the Logger port.
 */
export function configureFileLogging(writer: LogWriter, options: FileLoggingOptions): FileLogging {
  const redactor = options.redactor ?? createRedactor()
  const file = join(options.directory, options.fileName ?? 'main.log')
  const keep = options.keep ?? 5
  mkdirSync(options.directory, { recursive: true })

  writer.transports.file.resolvePathFn = () => file
  writer.transports.file.level = options.level ?? 'info'
  writer.transports.file.maxSize = options.maxBytes ?? 1024 * 1024
  writer.transports.file.format = '[{y}-{m}-{d} {h}:{i}:{s}.{ms}] [{level}] {text}'
  // Logs name customers and orders: readable by the rep's account only.
  writer.transports.file.writeOptions = { flag: 'a', mode: 0o600, encoding: 'utf8' }
  writer.transports.file.archiveLogFn = (current) => rotateLogFile(current.toString(), keep)
  writer.transports.console.level = options.console ? (options.level ?? 'info') : false
  // Renderer IPC and remote HTTP transports do nothing in the Node flavour; make sure they stay off.
  for (const transport of [writer.transports.ipc, writer.transports.remote] as (
    { level: unknown } | null | undefined
  )[]) {
    if (transport) transport.level = false
  }
  writer.hooks.push((message) => ({ ...message, data: message.data.map((item: unknown) => redactor.redact(item)) }))

  return { logger: createLogPort(writer, redactor), redactor, directory: options.directory, file }
}

/** The core's Logger port over electron-log. */
function createLogPort(writer: Pick<LogWriter, LogLevel>, redactor: Redactor, bindings: LogFields = {}): Logger {
  const write = (level: LogLevel) => (message: string, fields?: LogFields) =>
    writer[level](formatEntry(redactor, message, { ...bindings, ...fields }))
  return {
    debug: write('debug'),
    info: write('info'),
    warn: write('warn'),
    error: write('error'),
    child: (more) => createLogPort(writer, redactor, { ...bindings, ...more }),
  }
}
