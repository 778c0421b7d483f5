/**
 * A successful reply's bytes as the value they hold: inflated, parsed and checked. Pure and free of
 * the connection, so the same code runs wherever a reply is decoded: on the thread that fetched it
 * (transport.ts) or on sync's page reader thread, which decodes the listing pages a sync fetches so the
 * window's thread does not (sync/page-reader.ts). Its errors are not yet redacted: the transport
 * redacts them on the thread that holds the credentials.
 */
import type { z } from 'zod'
import { ServiceError } from './errors'
import { inflateWhole, type InflateErrors } from './encoding'
import { parseJsonBytes } from './json-bytes'
import { catalogItemsIssues, type CatalogItemRecord, type ReplyIssue } from './schemas'

const MB = 1024 * 1024

/** A 2xx reply as it came off the wire, with what it takes to name its faults. */
export interface WireReply {
  /** The body's bytes, still in the codings named. */
  bytes: Buffer
  codings: readonly string[]
  /** The most the reply may inflate to (the transport's ceiling for its kind). */
  maxBytes: number
  method: string
  path: string
  status: number
}

function megabytes(bytes: number): string {
  const value = bytes / MB
  return `${value >= 10 || Number.isInteger(value) ? Math.round(value) : value.toFixed(1)} MB`
}

/** A reply past the ceiling: on the wire (as announced, or as counted) or once inflated. */
export function tooLargeError(
  request: { method: string; path: string },
  maxBytes: number,
  declared?: number,
  inflated = false,
): ServiceError {
  const size = declared !== undefined ? ` (it announced ${megabytes(declared)})` : inflated ? ' once inflated' : ''
  return new ServiceError(
    'tooLarge',
    `The ordering service sent more than ${megabytes(maxBytes)} in answer to ${request.method} ${request.path}${size}, more than Satchel accepts for that request; the reply was dropped.`,
  )
}

export function inflateErrors(request: { method: string; path: string }, maxBytes: number): InflateErrors {
  return {
    tooLarge: (inflated) => tooLargeError(request, maxBytes, undefined, inflated),
    undecodable: (named, detail) =>
      new ServiceError(
        'truncated',
        `The ordering service's reply to ${request.method} ${request.path} claims to be ${named.join(', ')}-encoded and does not inflate (${detail}); it was dropped.`,
      ),
  }
}

/**
 * The reply's JSON value: inflated in one call per coding, up to the ceiling (encoding.ts), then
 * parsed (json-bytes.ts's quick path, else as UTF-8 text, which names what it is when it is not JSON).
 * An empty body is null. `redact`: the credentials' redaction, where this thread has them; the text
 * of a body that is not JSON is kept for the log redacted and cut to 500 characters, or whole
 * without it, for the thread that has them to redact before it cuts (a cut could leave half a secret).
 */
export function replyValue(wire: WireReply, redact?: (text: string) => string): unknown {
  const bytes =
    wire.codings.length > 0
      ? inflateWhole(wire.bytes, wire.codings, wire.maxBytes, inflateErrors(wire, wire.maxBytes))
      : wire.bytes
  const parsed = parseJsonBytes(bytes)
  if (parsed !== undefined) return parsed
  // Not JSON on the quick path: the text as it reads, which says what it is.
  const text = bytes.toString('utf8')
  if (text.trim() === '') return null
  try {
    return JSON.parse(text)
  } catch {
    throw new ServiceError(
      'invalidResponse',
      `${wire.method} ${wire.path} answered ${wire.status} with a body that is not JSON`,
      { status: wire.status, body: redact ? cutBody(redact(text)) : text },
    )
  }
}

/** What of a body that is not JSON the log keeps. */
export function cutBody(text: string): string {
  return text.slice(0, 500)
}

/** A reply its checks refused: the first three issues, each at its path, and the body for the log. */
function unreadable(what: string, issues: readonly ReplyIssue[], body: unknown): ServiceError {
  const described = issues
    .slice(0, 3)
    .map((issue) => `${issue.path.map(String).filter(Boolean).join('.')}: ${issue.message}`)
    .join('; ')
  return new ServiceError(
    'invalidResponse',
    `The ordering service sent ${what} that Satchel cannot read: ${described}`,
    { body },
  )
}

export function checked<S extends z.ZodType>(schema: S, body: unknown, what: string): z.output<S> {
  const parsed = schema.safeParse(body)
  if (!parsed.success) throw unreadable(what, parsed.error.issues, body)
  // The schemas check and never transform, so the body as parsed from JSON is the checked value;
  // returning it rather than zod's copy halves what a 100-item page allocates.
  return body as z.output<S>
}

/**
 * A reply that carries `catalog_items` (a page, a batch): the items by catalogItemsIssues, the rest
 * by `schema`, which never sees the items (schemas.ts says why). Its issues come first, as the
 * items' key does in the reply.
 */
export function checkedItems<S extends z.ZodType>(
  schema: S,
  body: unknown,
  what: string,
): z.output<S> & { catalog_items: CatalogItemRecord[] } {
  const isRecord = typeof body === 'object' && body !== null && !Array.isArray(body)
  const items = isRecord ? (body as { catalog_items?: unknown }).catalog_items : undefined
  const parsed = schema.safeParse(isRecord ? { ...body, catalog_items: undefined } : body)
  const issues = [
    ...(isRecord
      ? catalogItemsIssues(items).map((issue) => ({ ...issue, path: ['catalog_items', ...issue.path] }))
      : []),
    ...(parsed.success ? [] : parsed.error.issues),
  ]
  if (issues.length > 0) throw unreadable(what, issues, body)
  return body as z.output<S> & { catalog_items: CatalogItemRecord[] }
}
