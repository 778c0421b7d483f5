/**
 * Faults that act on a reply after the handler wrote it: its text (bad pricing, a clock that runs
 * ahead), its size (padded to N bytes) and its pace (a trickle, a cut mid-body). The text faults
 * rewrite the serialized JSON, so they can write what JSON.stringify never would (`1e400`, a
 * `__proto__` key); the size and pace faults stream the body, so a padded reply of hundreds of MB
 * costs the double no memory, and a client that hangs up stops it.
 */
import { Readable } from 'node:stream'
import type { BadPriceKey, BadPriceValue, FaultRule } from './types'

type TrickleRule = Extract<FaultRule, { type: 'trickle' }>
export type OversizedRule = Extract<FaultRule, { type: 'oversized' }>
type TruncateRule = Extract<FaultRule, { type: 'truncate' }>
type FutureClockRule = Extract<FaultRule, { type: 'futureClock' }>
export type BadPricingRule = Extract<FaultRule, { type: 'badPricing' }>
export type FalseTotalRule = Extract<FaultRule, { type: 'falseTotal' }>
type BadEncodingRule = Extract<FaultRule, { type: 'badEncoding' }>
type InflatesRule = Extract<FaultRule, { type: 'inflates' }>

/** The reply faults one request carries: the first rule of each type that matched it. */
export interface ReplyFaults {
  trickle?: TrickleRule
  oversized?: OversizedRule
  truncate?: TruncateRule
  futureClock?: FutureClockRule
  badPricing?: BadPricingRule
  falseTotal?: FalseTotalRule
  badEncoding?: BadEncodingRule
  inflates?: InflatesRule
}

export const replyFaultTypes = new Set<FaultRule['type']>([
  'trickle',
  'oversized',
  'truncate',
  'futureClock',
  'badPricing',
  'falseTotal',
  'badEncoding',
  'inflates',
])

export const DEFAULT_TRICKLE_INTERVAL_MS = 100
export const DEFAULT_CLOCK_OFFSET_MS = 24 * 60 * 60 * 1000

/** The raw JSON text written for each bad value. */
const badPriceValueText: Readonly<Record<BadPriceValue, string>> = {
  negative: '-5',
  numericString: '"12.50"',
  nonFinite: '1e400',
}

export const LONG_PRICE_KEY_LENGTH = 5_000

/** The key written for each bad key (a Map: `__proto__` in an object literal would set the prototype). */
const badPriceKeyName: ReadonlyMap<BadPriceKey, string> = new Map<BadPriceKey, string>([
  ['__proto__', '__proto__'],
  ['constructor', 'constructor'],
  ['empty', ''],
  ['long', 'k'.repeat(LONG_PRICE_KEY_LENGTH)],
])

export const allBadPriceValues = Object.keys(badPriceValueText) as BadPriceValue[]
export const allBadPriceKeys = [...badPriceKeyName.keys()]

/**
 * A listing envelope's count: the first field after the rows' array, followed by `hasMoreItems`
 * (every list route writes them in that order). A record's own `total` (an order's) is never
 * right after a `]` and before `hasMoreItems`.
 */
const ENVELOPE_TOTAL = /\],"(totalCatalogItems|total)":\d+,"hasMoreItems":/g

/** Replaces the listing's count, leaving its rows and `hasMoreItems` as they are. */
export function falsifyTotal(text: string, rule: FalseTotalRule): string {
  return text.replace(ENVELOPE_TOTAL, (_match, field: string) => `],"${field}":${rule.total},"hasMoreItems":`)
}

/** `"pricing":{…}`: a flat object whose keys are strings (which may hold braces) and values numbers or strings. */
const PRICING = /"pricing":(\{(?:[^{}"]|"(?:[^"\\]|\\.)*")*\})/g

/**
 * Rewrites every `pricing` object. Values: row i's j-th rewritten entry gets values[(i + j) mod n],
 * so a page shows every chosen value; with `priceGroup` only that group's entry is rewritten. Keys:
 * each chosen bad key is added with `keyValue` (default 1, a valid price, so only the key is wrong).
 */
export function corruptPricing(text: string, rule: BadPricingRule): string {
  const values = rule.values ?? (rule.keys === undefined ? allBadPriceValues : [])
  const keys = rule.keys ?? (rule.values === undefined ? allBadPriceKeys : [])
  const keyValue = JSON.stringify(rule.keyValue === undefined ? 1 : rule.keyValue)
  let row = 0
  return text.replace(PRICING, (match, object: string) => {
    let pricing: Record<string, unknown>
    try {
      pricing = JSON.parse(object) as Record<string, unknown>
    } catch {
      return match
    }
    const parts: string[] = []
    let rewritten = 0
    for (const [name, price] of Object.entries(pricing)) {
      const bad = values.length > 0 && (rule.priceGroup === undefined || rule.priceGroup === name)
      const text = bad ? badPriceValueText[values[(row + rewritten++) % values.length]!] : JSON.stringify(price)
      parts.push(`${JSON.stringify(name)}:${text}`)
    }
    for (const key of keys) parts.push(`${JSON.stringify(badPriceKeyName.get(key))}:${keyValue}`)
    row++
    return `"pricing":{${parts.join(',')}}`
  })
}

const TIMESTAMP = /"serverTimestamp":"([^"\\]*)"/g

/** Moves every `serverTimestamp` in the body by `offsetMs`; a value that is not a date stays. */
export function shiftTimestamps(text: string, offsetMs: number): string {
  return text.replace(TIMESTAMP, (match, value: string) => {
    const at = Date.parse(value)
    return Number.isNaN(at) ? match : `"serverTimestamp":"${new Date(at + offsetMs).toISOString()}"`
  })
}

/** A body as segments: bytes, or a run of one filler byte (never allocated whole). */
export type Segment = Buffer | { fill: number; length: number }

export function segmentsLength(segments: readonly Segment[]): number {
  return segments.reduce((total, segment) => total + segment.length, 0)
}

/**
 * The body padded to `bytes`. Valid: a JSON object gets `"__padding":"xx…"` before its closing brace
 * (any other body gets trailing whitespace, which JSON allows); invalid: 'x' filler after the body.
 * A body already that large is left alone.
 */
export function padBody(body: Buffer, rule: OversizedRule): Segment[] {
  const missing = rule.bytes - body.length
  if (missing <= 0) return [body]
  const X = 0x78
  if (rule.valid === false) return [body, { fill: X, length: missing }]
  const text = body.toString('utf8').trimEnd()
  if (text.startsWith('{') && text.endsWith('}')) {
    const inner = text.slice(0, -1)
    const open = Buffer.from(`${/^\{\s*$/.test(inner) ? '' : ','}"__padding":"`)
    const head = Buffer.concat([Buffer.from(inner), open])
    const fill = rule.bytes - head.length - 2
    if (fill >= 0) return [head, { fill: X, length: fill }, Buffer.from('"}')]
  }
  return [body, { fill: 0x20, length: missing }]
}

const CHUNK = 64 * 1024

export interface FaultBodyOptions {
  /** Send this many bytes per tick, one tick every intervalMs (the first at once). */
  pace?: { bytesPerTick: number; intervalMs: number }
  /** Stop after this many bytes and call onCut (which closes the connection). */
  cutAfter?: number
  onCut?: () => void
}

/** Streams segments, paced or as fast as the socket takes them, optionally cut short. */
export class FaultBody extends Readable {
  private index = 0
  private offset = 0
  private sent = 0
  private timer: NodeJS.Timeout | undefined
  private started = false
  private finished = false
  private readonly fillers = new Map<number, Buffer>()

  constructor(
    private readonly segments: readonly Segment[],
    private readonly options: FaultBodyOptions = {},
  ) {
    super()
  }

  override _read(): void {
    if (this.finished || this.timer) return
    const pace = this.options.pace
    if (!pace) {
      this.pushBytes(CHUNK)
      return
    }
    const delay = this.started ? pace.intervalMs : 0
    this.started = true
    this.timer = setTimeout(() => {
      this.timer = undefined
      this.pushBytes(pace.bytesPerTick)
    }, delay)
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    clearTimeout(this.timer)
    this.finished = true
    callback(error)
  }

  /** Pushes up to `size` bytes (less at the cut); ends or cuts when there is nothing more to send. */
  private pushBytes(size: number): void {
    const cutAfter = this.options.cutAfter
    const budget = cutAfter === undefined ? size : Math.min(size, cutAfter - this.sent)
    const chunk = budget > 0 ? this.nextBytes(budget) : null
    if (chunk) this.sent += chunk.length
    const cut = cutAfter !== undefined && this.sent >= cutAfter
    if (!chunk || cut) {
      this.finished = true
      if (chunk) this.push(chunk)
      if (cut && this.index < this.segments.length) {
        // Let the last bytes reach the socket, then close it: the client sees a reply cut mid-body.
        setImmediate(() => this.options.onCut?.())
      } else {
        this.push(null)
      }
      return
    }
    this.push(chunk)
  }

  private nextBytes(size: number): Buffer | null {
    const parts: Buffer[] = []
    let wanted = size
    while (wanted > 0 && this.index < this.segments.length) {
      const segment = this.segments[this.index]!
      const available = segment.length - this.offset
      const n = Math.min(available, wanted)
      if (Buffer.isBuffer(segment)) parts.push(segment.subarray(this.offset, this.offset + n))
      else parts.push(this.filler(segment.fill, n).subarray(0, n))
      wanted -= n
      this.offset += n
      if (this.offset >= segment.length) {
        this.index++
        this.offset = 0
      }
    }
    if (parts.length === 0) return null
    return parts.length === 1 ? parts[0]! : Buffer.concat(parts)
  }

  private filler(byte: number, length: number): Buffer {
    let buffer = this.fillers.get(byte)
    if (!buffer || buffer.length < length) {
      buffer = Buffer.alloc(Math.max(CHUNK, length), byte)
      this.fillers.set(byte, buffer)
    }
    return buffer
  }
}
