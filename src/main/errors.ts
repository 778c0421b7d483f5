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
  const pieces = pieceIndex(known.map(({ value }) => value))
  return (text) =>
    maskPieces(
      steps.reduce((result, [pattern, mark]) => result.replace(pattern, mark), text),
      pieces,
    )
}

/**
 * How long a run of a secret's characters must be to be masked wherever it appears, however it is
 * spelled. Eight characters of a key, a secret or a token's signature are 40 bits or more of it:
 * enough to matter, and no word of an error message matches eight characters of one by chance.
 */
const pieceLength = 8

interface PieceIndex {
  /** Every run of pieceLength characters of a secret, lower-cased (a reply may change its case). */
  plain: Set<string>
  /** Every run of pieceLength characters of a secret in base64 and base64url, at each byte offset. */
  encoded: Set<string>
}

/**
 * The pieces to look for. A session token (header.payload.signature) is looked for by its
 * signature: its header is the same for every token, and its payload names the user, which is no
 * secret. The token spelled whole is masked by the steps above.
 */
function pieceIndex(values: readonly string[]): PieceIndex {
  const plain = new Set<string>()
  const encoded = new Set<string>()
  const windows = (text: string, into: Set<string>) => {
    for (let at = 0; at + pieceLength <= text.length; at++) into.add(text.slice(at, at + pieceLength))
  }
  for (const value of values) {
    const parts = value.split('.')
    const secret = parts.length === 3 && parts.every((part) => part.length > 0) ? parts[2]! : value
    if (secret.length < pieceLength) continue
    windows(secret.toLowerCase(), plain)
    const bytes = Buffer.from(secret, 'utf8')
    for (let offset = 0; offset < 3; offset++) {
      const whole = Math.floor((bytes.length - offset) / 3) * 3
      const base64 = bytes.subarray(offset, offset + whole).toString('base64')
      windows(base64, encoded)
      windows(base64.replace(/\+/g, '-').replace(/\//g, '_'), encoded)
    }
  }
  return { plain, encoded }
}

const namedEntities: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" }

/**
 * The text as its characters, with each one's span in the text: whitespace (and `\n`, `\r`, `\t`
 * escapes) left out, and HTML entities, JSON's `\uXXXX` and `\/`, and percent-encoding undone, so a
 * secret spaced out, split over lines or encoded character by character reads whole again.
 */
function readable(text: string): { chars: string[]; from: number[]; to: number[] } {
  const chars: string[] = []
  const from: number[] = []
  const to: number[] = []
  let at = 0
  // One UTF-16 unit per character, so a window of the joined text is a window of characters: a
  // character outside the basic plane (never one of a secret's) is kept as U+FFFD.
  const put = (char: string, length: number) => {
    chars.push(char.length === 1 ? char : '\uFFFD')
    from.push(at)
    to.push(at + length)
    at += length
  }
  while (at < text.length) {
    const char = text[at]!
    const code = char.charCodeAt(0)
    if (code <= 32 || (code > 127 && /\s/.test(char))) {
      at += 1
      continue
    }
    if (char !== '\\' && char !== '&' && char !== '%') {
      put(char, 1)
      continue
    }
    const rest = text.slice(at, at + 12)
    let match: RegExpMatchArray | null
    if (/^\\[nrt]/.test(rest)) at += 2
    else if ((match = /^\\u([0-9a-fA-F]{4})/.exec(rest))) put(String.fromCharCode(parseInt(match[1]!, 16)), 6)
    else if (/^\\\//.test(rest)) put('/', 2)
    else if ((match = /^&#[xX]([0-9a-fA-F]{1,6});/.exec(rest)))
      put(String.fromCodePoint(parseInt(match[1]!, 16) % 0x110000), match[0].length)
    else if ((match = /^&#(\d{1,7});/.exec(rest)))
      put(String.fromCodePoint(Number(match[1]) % 0x110000), match[0].length)
    else if ((match = /^&(amp|lt|gt|quot|apos);/.exec(rest))) put(namedEntities[match[1]!]!, match[0].length)
    else if ((match = /^%([0-9a-fA-F]{2})/.exec(rest))) put(String.fromCharCode(parseInt(match[1]!, 16)), 3)
    else put(char, 1)
  }
  return { chars, from, to }
}

/**
 * Masks every run of pieceLength or more characters of a secret (pieceIndex), however the text
 * spells it (readable): each stretch of the text that spells such a run becomes `[redacted]`.
 * docs/security.md states the rule.
 */
function maskPieces(text: string, pieces: PieceIndex): string {
  if ((pieces.plain.size === 0 && pieces.encoded.size === 0) || text.length < pieceLength) return text
  const { chars, from, to } = readable(text)
  const marked = new Uint8Array(chars.length)
  const joined = chars.join('')
  const lower = chars.map((char) => (char.toLowerCase().length === 1 ? char.toLowerCase() : char)).join('')
  for (let at = 0; at + pieceLength <= chars.length; at++) {
    if (pieces.plain.has(lower.slice(at, at + pieceLength)) || pieces.encoded.has(joined.slice(at, at + pieceLength)))
      marked.fill(1, at, at + pieceLength)
  }
  let result = ''
  let kept = 0
  for (let at = 0; at < chars.length; at++) {
    if (!marked[at]) continue
    let end = at
    while (end + 1 < chars.length && marked[end + 1]) end++
    result += `${text.slice(kept, from[at])}${redactedMark}`
    kept = to[end]!
    at = end
  }
  return kept === 0 ? text : result + text.slice(kept)
}
