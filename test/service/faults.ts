/**
 * Fault rules per route. A rule counts the requests it matches: the first `skip` pass untouched,
 * the next `times` (or all, when unset) get the fault, then the rule retires. Drift rules match only
 * page requests with offset >= 1, because drift means "the set changed between the pages".
 */
import type { FaultRule, HeaderEcho, ReplyEncoding } from './types'
import { ControlError } from './store'
import { allBadPriceKeys, allBadPriceValues } from './reply-faults'

interface ActiveRule {
  id: string
  rule: FaultRule
  matched: number
  applied: number
}

export class FaultEngine {
  private rules: ActiveRule[] = []
  private counter = 0
  private knownRoutes = new Set<string>()

  setKnownRoutes(routes: Iterable<string>): void {
    this.knownRoutes = new Set(routes)
  }

  add(rule: FaultRule): string {
    if (typeof rule !== 'object' || rule === null || typeof rule.route !== 'string')
      throw new ControlError('a fault rule needs a route')
    if (rule.route !== '*' && this.knownRoutes.size > 0 && !this.knownRoutes.has(rule.route)) {
      throw new ControlError(
        `unknown route '${rule.route}'; use '*' or one of: ${[...this.knownRoutes].sort().join(', ')}`,
      )
    }
    switch (rule.type) {
      case 'latency':
        if (!(rule.ms >= 0)) throw new ControlError('latency needs ms >= 0')
        if (rule.phase !== undefined && rule.phase !== 'request' && rule.phase !== 'reply')
          throw new ControlError("latency's phase is 'request' or 'reply'")
        break
      case 'status':
        if (!Number.isInteger(rule.status) || rule.status < 100 || rule.status > 599)
          throw new ControlError('status needs an HTTP status code')
        if (rule.echoHeaders !== undefined && !headerEchoes.includes(rule.echoHeaders))
          throw new ControlError(`status's echoHeaders is one of: ${headerEchoes.join(', ')}`)
        if (rule.echoHeaders !== undefined && rule.body !== undefined && typeof rule.body !== 'string')
          throw new ControlError('status with echoHeaders takes a text body (the page before the headers)')
        break
      case 'rateLimit':
        if (!(rule.retryAfterSeconds >= 0)) throw new ControlError('rateLimit needs retryAfterSeconds >= 0')
        break
      case 'drift':
        if (!((rule.insert ?? 0) > 0 || (rule.remove ?? 0) > 0))
          throw new ControlError('drift needs insert or remove > 0')
        break
      case 'destroySocket':
      case 'commitThenDrop':
      case 'ignoreOffset':
      case 'ignoreVendorGuid':
        break
      case 'otherCatalog':
        if (typeof rule.catalogGuid !== 'string' || rule.catalogGuid === '')
          throw new ControlError('otherCatalog needs catalogGuid, the catalog whose page is served instead')
        break
      case 'falseTotal':
        if (!(Number.isInteger(rule.total) && rule.total >= 0))
          throw new ControlError('falseTotal needs total, an integer >= 0')
        break
      case 'trickle':
        if (rule.bytesPerTick !== undefined && !(Number.isInteger(rule.bytesPerTick) && rule.bytesPerTick >= 1))
          throw new ControlError('trickle needs bytesPerTick, an integer >= 1')
        if (rule.intervalMs !== undefined && !(Number.isFinite(rule.intervalMs) && rule.intervalMs >= 0))
          throw new ControlError('trickle needs intervalMs >= 0')
        break
      case 'oversized':
        if (!(Number.isInteger(rule.bytes) && rule.bytes >= 0))
          throw new ControlError('oversized needs bytes, an integer >= 0')
        if (rule.valid !== undefined && typeof rule.valid !== 'boolean')
          throw new ControlError("oversized's valid is true or false")
        if (rule.contentLength !== undefined && typeof rule.contentLength !== 'boolean')
          throw new ControlError("oversized's contentLength is true or false")
        break
      case 'truncate':
        if (!(Number.isInteger(rule.bytes) && rule.bytes >= 0))
          throw new ControlError('truncate needs bytes, an integer >= 0')
        break
      case 'futureClock':
        if (rule.offsetMs !== undefined && !Number.isFinite(rule.offsetMs))
          throw new ControlError('futureClock needs offsetMs, a number of milliseconds')
        break
      case 'badPricing': {
        const values = rule.values ?? []
        const keys = rule.keys ?? []
        if (!Array.isArray(values) || values.some((value) => !allBadPriceValues.includes(value))) {
          throw new ControlError(`badPricing's values are some of: ${allBadPriceValues.join(', ')}`)
        }
        if (!Array.isArray(keys) || keys.some((key) => !allBadPriceKeys.includes(key))) {
          throw new ControlError(`badPricing's keys are some of: ${allBadPriceKeys.join(', ')}`)
        }
        if (rule.values !== undefined && rule.keys !== undefined && values.length === 0 && keys.length === 0)
          throw new ControlError('badPricing needs a value or a key to inject')
        if (rule.priceGroup !== undefined && typeof rule.priceGroup !== 'string')
          throw new ControlError("badPricing's priceGroup is a price group name")
        break
      }
      case 'badEncoding':
        if (rule.encoding !== undefined && !replyEncodings.includes(rule.encoding))
          throw new ControlError(`badEncoding's encoding is one of: ${replyEncodings.join(', ')}`)
        break
      case 'inflates':
        if (!(Number.isInteger(rule.bytes) && rule.bytes >= 0 && rule.bytes <= 2 ** 31))
          throw new ControlError('inflates needs bytes, an integer from 0 to 2^31')
        if (rule.encoding !== undefined && !replyEncodings.includes(rule.encoding))
          throw new ControlError(`inflates's encoding is one of: ${replyEncodings.join(', ')}`)
        break
      default:
        throw new ControlError(`unknown fault type '${(rule as { type?: unknown }).type as string}'`)
    }
    const id = `fault-${++this.counter}`
    this.rules.push({ id, rule: { ...rule }, matched: 0, applied: 0 })
    return id
  }

  remove(id: string): void {
    this.rules = this.rules.filter((rule) => rule.id !== id)
  }

  clear(): void {
    this.rules = []
  }

  /** The rules that apply to this request, counting it against each rule that matches. */
  take(route: string, pageRequest: boolean): FaultRule[] {
    const applied: FaultRule[] = []
    for (const active of [...this.rules]) {
      const { rule } = active
      if (rule.route !== '*' && rule.route !== route) continue
      if (rule.type === 'drift' && !pageRequest) continue
      active.matched += 1
      if (active.matched <= (rule.skip ?? 0)) continue
      active.applied += 1
      applied.push(rule)
      if (rule.times !== undefined && active.applied >= rule.times) this.remove(active.id)
    }
    return applied
  }
}

const replyEncodings: readonly ReplyEncoding[] = ['gzip', 'br', 'deflate']

const headerEchoes: readonly HeaderEcho[] = ['colon', 'equals', 'space']

/**
 * A proxy's error page that quotes the request it could not forward: `page`, then every request
 * header as the client sent it (name in its case, value whole) in the chosen spelling, so a client
 * that keeps the page's text keeps the API secret with it.
 */
export function echoedHeaders(page: string, rawHeaders: readonly string[], style: HeaderEcho): string {
  const pairs: string[] = []
  for (let index = 0; index + 1 < rawHeaders.length; index += 2) {
    const name = rawHeaders[index]!
    const value = rawHeaders[index + 1]!
    pairs.push(style === 'colon' ? `${name}: ${value}` : style === 'equals' ? `${name}=${value}` : `${name} ${value}`)
  }
  return `${page}\nRequest headers:${style === 'colon' ? `\n${pairs.join('\n')}` : ` ${pairs.join(' ')}`}\n`
}
