import { ServiceError, ServiceRejectedError, type ReconcileLineError } from './errors'

type Headers = Record<string, string | string[] | undefined>

function header(headers: Headers, name: string): string | undefined {
  const value = headers[name.toLowerCase()]
  return Array.isArray(value) ? value[0] : value
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/**
 * Retry-After in milliseconds. The HTTP-date form is measured against the response's own Date
 * header when there is one, so a laptop clock that is off does not stretch or cut the wait.
 */
export function parseRetryAfter(headers: Headers, localNow: number): number | undefined {
  const value = header(headers, 'retry-after')?.trim()
  if (!value) return undefined
  if (/^\d+(\.\d+)?$/.test(value)) return Math.round(Number(value) * 1000)
  const at = Date.parse(value)
  if (Number.isNaN(at)) return undefined
  const serverDate = header(headers, 'date')
  const now = serverDate && !Number.isNaN(Date.parse(serverDate)) ? Date.parse(serverDate) : localNow
  return Math.max(0, at - now)
}

function stringOrNull(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value : null
}

function lineNumber(value: unknown): number | null {
  if (typeof value === 'number' && Number.isInteger(value)) return value
  if (typeof value === 'string' && /^\d+$/.test(value)) return Number(value)
  return null
}

function toLineError(raw: Record<string, unknown>): ReconcileLineError {
  const message =
    stringOrNull(raw.message) ??
    stringOrNull(raw.error) ??
    stringOrNull(raw.msg) ??
    stringOrNull(raw.type) ??
    JSON.stringify(raw)
  return {
    type: stringOrNull(raw.type) ?? stringOrNull(raw.code),
    message,
    line: lineNumber(raw.line ?? raw.lineNumber ?? raw.line_no ?? raw.index),
    catalogItemGuid: stringOrNull(raw.catalog_item_guid ?? raw.catalogItemGuid),
    sku: stringOrNull(raw.sku),
    raw,
  }
}

/**
 * The per-line errors of a ReconcileErrors body. The spec does not show its structure, so any array
 * of objects in the body (`errors` first) is taken as the list, and strings become plain messages.
 */
function reconcileErrorsOf(body: Record<string, unknown>): ReconcileLineError[] | null {
  const candidates = ['errors', 'reconcileErrors', 'ReconcileErrors', 'details', ...Object.keys(body)]
  for (const key of candidates) {
    const value = body[key]
    if (!Array.isArray(value) || value.length === 0) continue
    if (value.every(isRecord)) return value.map(toLineError)
    if (value.every((entry) => typeof entry === 'string')) {
      return value.map((message: string) => toLineError({ message }))
    }
  }
  return null
}

/**
 * A reply the ordering service did not write: a redirect (the service answers its API with JSON, never
 * by sending the client elsewhere; a hotel or airport network's login page starts with one) or a web
 * page (the service's errors are JSON, or plain text on a few legacy endpoints). Such a reply says
 * nothing about the request, which never reached the service.
 */
function interceptedBy(status: number, headers: Headers, text: string): string | null {
  if (status >= 300 && status < 400) {
    const location = header(headers, 'location')
    return location ? `a redirect to ${describeLocation(location)}` : 'a redirect'
  }
  const contentType = header(headers, 'content-type') ?? ''
  if (/text\/html|application\/xhtml/i.test(contentType) || /^\s*<(!doctype|html)/i.test(text)) return 'a web page'
  return null
}

function describeLocation(location: string): string {
  try {
    return new URL(location).host || location.slice(0, 100)
  } catch {
    return location.slice(0, 100)
  }
}

/** Turns a non-2xx response into the error class Satchel acts on. */
export function errorFromResponse(status: number, headers: Headers, text: string, localNow: number): ServiceError {
  const intercepted = interceptedBy(status, headers, text)
  // A 5xx page from a gateway in front of the service is the service's side failing, and is
  // already retried as one; a portal or proxy answers with a redirect or a 2xx/4xx page.
  if (intercepted && status < 500) {
    return new ServiceError(
      'unreachable',
      `The ordering service cannot be reached: ${intercepted} answered instead (${status}). A network login page or proxy is in the way; sign in to the network, and Satchel tries again.`,
      { status, intercepted: true, body: text.slice(0, 500) },
    )
  }
  let body: unknown = text
  const contentType = header(headers, 'content-type') ?? ''
  if (text.trim() !== '' && (contentType.includes('json') || /^\s*[{[]/.test(text))) {
    try {
      body = JSON.parse(text)
    } catch {
      body = text
    }
  }
  const json = isRecord(body) ? body : null
  const code = json ? (stringOrNull(json.code) ?? undefined) : undefined
  const serverMessage = json
    ? (stringOrNull(json.message) ?? stringOrNull(json.error))
    : stringOrNull(text.trim().slice(0, 500))
  const detail = { status, code, body }
  const said = serverMessage ? `: ${serverMessage}` : ''

  if (status === 429) {
    const retryAfterMs = parseRetryAfter(headers, localNow)
    return new ServiceError('rateLimited', `The ordering service is busy (429)${said}`, { ...detail, retryAfterMs })
  }
  if (status >= 500) {
    const retryAfterMs = parseRetryAfter(headers, localNow)
    return new ServiceError('server', `The ordering service failed (${status})${said}`, { ...detail, retryAfterMs })
  }
  if (status === 401 || status === 403) {
    return new ServiceError('credentials', `The ordering service refused the credentials (${status})${said}`, detail)
  }
  if (status === 400 && code === 'INVALID_DELTA_CURSOR') {
    return new ServiceError('invalidCursor', `The ordering service refused the sync cursor${said}`, detail)
  }
  if (status === 404) return new ServiceError('notFound', `Not found on the ordering service${said}`, detail)
  if (status === 400 && json) {
    const errors = reconcileErrorsOf(json)
    if (errors || code === 'RECONCILE_ERRORS') {
      const lines = errors ?? [toLineError({ message: serverMessage ?? 'The ordering service rejected the request.' })]
      return new ServiceRejectedError(`The ordering service rejected the request${said}`, lines, detail)
    }
  }
  return new ServiceError('badRequest', `The ordering service refused the request (${status})${said}`, detail)
}

/**
 * Finds the array of records in an envelope whose key the spec does not name. Looks at the body
 * itself, its top-level values and one level below, and takes the arrays whose entries have the
 * expected shape; an empty array counts only when nothing better is there.
 */
export function findRecordArray(
  body: unknown,
  isRow: (value: Record<string, unknown>) => boolean,
  preferredKeys: readonly string[] = [],
): Record<string, unknown>[] | null {
  if (Array.isArray(body)) return body.every(isRecord) && body.every(isRow) ? body : null
  if (!isRecord(body)) return null
  const matches: { key: string; rows: Record<string, unknown>[] }[] = []
  const empties: string[] = []
  const visit = (container: Record<string, unknown>, depth: number) => {
    for (const [key, value] of Object.entries(container)) {
      if (Array.isArray(value)) {
        if (value.length === 0) empties.push(key)
        else if (value.every(isRecord) && value.every(isRow)) matches.push({ key, rows: value })
      } else if (depth === 0 && isRecord(value)) {
        visit(value, 1)
      }
    }
  }
  visit(body, 0)
  if (matches.length > 0) {
    const rank = (key: string) => {
      const index = preferredKeys.indexOf(key)
      return index === -1 ? preferredKeys.length : index
    }
    matches.sort((a, b) => rank(a.key) - rank(b.key) || b.rows.length - a.rows.length)
    return matches[0]?.rows ?? null
  }
  return empties.length > 0 ? [] : null
}

/** A numeric count in an envelope, by the usual names, when the service sends one. */
export function findTotal(body: unknown, names: readonly string[]): number | null {
  if (!isRecord(body)) return null
  for (const name of names) {
    const value = body[name]
    if (typeof value === 'number' && Number.isFinite(value)) return value
  }
  return null
}

export function findString(body: unknown, name: string): string | null {
  if (!isRecord(body)) return null
  const direct = body[name]
  if (typeof direct === 'string') return direct
  for (const value of Object.values(body)) {
    if (isRecord(value) && typeof value[name] === 'string') return value[name]
  }
  return null
}

/** Each list names its more-pages flag its own way; null when the reply has none. */
export function hasMoreOf(body: unknown): boolean | null {
  if (!body || typeof body !== 'object') return null
  for (const key of ['hasMore', 'hasMoreItems', 'hasMoreVendors', 'hasMoreOrders', 'has_more']) {
    const value = (body as Record<string, unknown>)[key]
    if (typeof value === 'boolean') return value
  }
  return null
}
