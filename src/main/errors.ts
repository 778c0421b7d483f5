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

/** What a credential's value becomes in any text Satchel keeps or shows; the log writes the same. */
const redactedMark = '[redacted]'

/** A credential to keep out of text: its value, and the header that carries it on the wire. */
export interface Credential {
  value: string
  /** `x-apiKey`, `x-apiSecret`, `userToken`: their `name: value` spellings are redacted whatever the value's length. */
  headers?: readonly string[]
}

/**
 * Values this long are masked wherever they appear, in any case: a key or secret the service issues
 * is far longer, and a string that long is no word of an error message. A shorter value is masked
 * after its header's name, and elsewhere only where it stands as a token of its own, exactly (no
 * letter or digit touching it), since as a bare substring it would mask part of every word holding
 * it; a secret that short may then cost an error text a word or a number, never the secret itself.
 */
const maskedAnywhereFrom = 8

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

/** How a value can be spelled in a reply: as is, URL- and form-encoded, inside JSON (`\/` too), in HTML. */
function spellings(value: string): string[] {
  const json = JSON.stringify(value).slice(1, -1)
  const url = encodeURIComponent(value)
  const html = value
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;')
  return [...new Set([value, url, url.replace(/%20/g, '+'), json, json.replace(/\//g, '\\/'), html])].sort(
    (a, b) => b.length - a.length,
  )
}

/**
 * A function that masks the given credentials' values in a text, in every spelling a reply may use:
 * after the header's name (`x-apiSecret: S`, `x-apisecret=S`, `x-apiSecret S`, `"x-apiSecret":"S"`,
 * the name in any case) and bare, by the length rule above. Longest values first, so one that holds
 * another is masked whole.
 */
export function credentialRedactor(credentials: readonly Credential[]): (text: string) => string {
  const known = credentials
    .filter((credential) => credential.value !== '')
    .sort((a, b) => b.value.length - a.value.length)
  const steps: [RegExp, string][] = []
  for (const { value, headers = [] } of known) {
    const forms = spellings(value).map(escapeRegExp).join('|')
    const names = headers.map(escapeRegExp).join('|')
    if (names)
      steps.push([
        new RegExp(`(["']?\\b(?:${names})["']?(?:\\s*[:=]\\s*|\\s+)["']?)(?:${forms})(?![A-Za-z0-9])`, 'gi'),
        `$1${redactedMark}`,
      ])
    steps.push(
      value.length >= maskedAnywhereFrom
        ? [new RegExp(`(?:${forms})`, 'gi'), redactedMark]
        : [new RegExp(`(?<![A-Za-z0-9])(?:${forms})(?![A-Za-z0-9])`, 'g'), redactedMark],
    )
  }
  return (text) => steps.reduce((result, [pattern, mark]) => result.replace(pattern, mark), text)
}
