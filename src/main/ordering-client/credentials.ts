/**
 * What the client does with a connection's credentials: the headers they become, the values that
 * cannot be sent as one, and the redaction of their values from every error the client raises. A
 * reply may quote them (a proxy's error page that prints the request's headers, a 400 whose message
 * names the secret); the error is the door through which a reply's text reaches the outbox, the sync
 * reports, the logs, the CLI and the window, so redacting here means none of them ever holds it.
 */
import { credentialRedactor, type Credential } from '../errors'
import type { ServiceAuth } from './connection'
import { ServiceError, ServiceRejectedError } from './errors'

export function authHeaders(auth: ServiceAuth): Record<string, string> {
  if (auth.kind === 'apiKey') {
    return {
      'x-apiKey': auth.apiKey,
      'x-apiSecret': auth.apiSecret,
      ...(auth.userGuid ? { userGuid: auth.userGuid } : {}),
    }
  }
  return { userGuid: auth.userGuid, userToken: auth.userToken, supplierGuid: auth.supplierGuid }
}

/** What undici refuses in a header value (anything but tab, printable ASCII and Latin-1): checked first. */
const unsendableInHeader = /[^\t\x20-\x7e\x80-\xff]/

/**
 * Why a credential cannot be sent as a header, or null. undici refuses such a value before any
 * request, and that read as "the service cannot be reached": a pasted key with a line break in it.
 * The message names the field, never its value.
 */
export function credentialProblem(auth: ServiceAuth): string | null {
  const fields: [string, string | undefined][] =
    auth.kind === 'apiKey'
      ? [
          ['API key', auth.apiKey],
          ['API secret', auth.apiSecret],
          ['user GUID', auth.userGuid],
        ]
      : [
          ['user GUID', auth.userGuid],
          ['user token', auth.userToken],
          ['supplier GUID', auth.supplierGuid],
        ]
  for (const [name, value] of fields) {
    if (value === undefined || !unsendableInHeader.test(value)) continue
    const what = /[\r\n]/.test(value) ? 'a line break' : 'a character a request header cannot carry'
    return `The ${name} contains ${what}, so it cannot be sent to the ordering service; enter it again.`
  }
  return null
}

/**
 * The key, the secret and the session token are redacted; the GUIDs are not secrets (the service
 * prints them in its own replies) and a support engineer needs them.
 */
function credentialsOf(auth: ServiceAuth): Credential[] {
  return auth.kind === 'apiKey'
    ? [
        { value: auth.apiKey, headers: ['x-apiKey'] },
        { value: auth.apiSecret, headers: ['x-apiSecret'] },
      ]
    : [{ value: auth.userToken, headers: ['userToken'] }]
}

export interface ErrorRedactor {
  /** A reply's text, before anything is cut from it: a cut could leave half a secret behind. */
  text(text: string): string
  /** The same error with its message, body and per-line errors redacted; anything else as it is. */
  error(error: unknown): unknown
}

/** A deep copy with every string redacted, for the parsed body of a reply (JSON escapes undone by then). */
function deep(value: unknown, text: (text: string) => string): unknown {
  if (typeof value === 'string') return text(value)
  if (Array.isArray(value)) return value.map((item) => deep(item, text))
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [text(key), deep(item, text)]))
  return value
}

export function errorRedactor(auth: ServiceAuth): ErrorRedactor {
  const text = credentialRedactor(credentialsOf(auth))
  const orNull = (value: string | null) => (value === null ? null : text(value))
  return {
    text,
    error(error) {
      if (!(error instanceof ServiceError)) return error
      const { status, code, body, retryAfterMs, intercepted, cause } = error
      const detail = {
        status,
        code: code === undefined ? undefined : text(code),
        body: deep(body, text),
        retryAfterMs,
        intercepted,
        cause,
      }
      if (!(error instanceof ServiceRejectedError)) return new ServiceError(error.kind, text(error.message), detail)
      const lines = error.errors.map((line) => ({
        ...line,
        type: orNull(line.type),
        message: text(line.message),
        catalogItemGuid: orNull(line.catalogItemGuid),
        sku: orNull(line.sku),
        raw: deep(line.raw, text) as Record<string, unknown>,
      }))
      return new ServiceRejectedError(text(error.message), lines, detail)
    },
  }
}
