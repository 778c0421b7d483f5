/**
 * Display formatting for every screen: money, dates and relative times through Intl in the rep's
 * own locale. Formatting only: nothing here computes a price, a total or a state.
 */
import { formatMoney as formatSharedMoney } from '../../shared/money'

const locale = typeof navigator !== 'undefined' && navigator.language ? navigator.language : 'en-US'

/** An amount as money in the rep's locale (src/shared/money.ts); '—' for no amount. A currency the record names (ISO code), else USD. */
export function formatMoney(amount: number | null | undefined, currency?: string | null): string {
  return formatSharedMoney(amount, locale, currency && /^[A-Z]{3}$/.test(currency) ? currency : undefined)
}

/** Money on a chart's axis, where a tick has room for "$12K" and not "$12,000.00". */
export function formatMoneyShort(amount: number, currency?: string | null): string {
  return new Intl.NumberFormat(locale, {
    style: 'currency',
    currency: currency && /^[A-Z]{3}$/.test(currency) ? currency : 'USD',
    notation: 'compact',
    maximumFractionDigits: 1,
  }).format(amount)
}

/** A count with its noun, singular for one: "1 line", "2 lines", "0 lines". */
export function countOf(count: number, singular: string, plural = `${singular}s`): string {
  return `${formatNumber(count)} ${count === 1 ? singular : plural}`
}

/** Quantities and counts, to two decimals at most, as the core's own messages write them. */
const numberFormat = new Intl.NumberFormat(locale, { maximumFractionDigits: 2 })
export function formatNumber(value: number | null | undefined): string {
  return value === null || value === undefined ? '—' : numberFormat.format(value)
}

/** A size on disk in the units a file manager shows: "812 KB", "1.4 GB" (powers of 1,000). */
export function formatBytes(bytes: number): string {
  const units = ['bytes', 'KB', 'MB', 'GB', 'TB']
  let value = bytes
  let unit = 0
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000
    unit++
  }
  return `${new Intl.NumberFormat(locale, { maximumFractionDigits: unit === 0 || value >= 100 ? 0 : 1 }).format(value)} ${units[unit]}`
}

const dateTimeFormat = new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short' })
const dateFormat = new Intl.DateTimeFormat(locale, { dateStyle: 'medium' })

function toDate(value: string | number | Date | null | undefined): Date | null {
  if (value === null || value === undefined || value === '') return null
  const date = value instanceof Date ? value : new Date(value)
  return Number.isNaN(date.getTime()) ? null : date
}

export function formatDateTime(value: string | number | Date | null | undefined): string {
  const date = toDate(value)
  return date ? dateTimeFormat.format(date) : '—'
}

export function formatDate(value: string | number | Date | null | undefined): string {
  const date = toDate(value)
  return date ? dateFormat.format(date) : '—'
}

const relativeFormat = new Intl.RelativeTimeFormat(locale, { numeric: 'auto' })
const units: [Intl.RelativeTimeFormatUnit, number][] = [
  ['day', 86_400_000],
  ['hour', 3_600_000],
  ['minute', 60_000],
]

/** "3 min ago", "in 2 minutes", "just now": for the status bar's data age and retry times. */
export function formatRelative(value: string | number | Date | null | undefined, now: number = Date.now()): string {
  const date = toDate(value)
  if (!date) return 'never'
  const delta = date.getTime() - now
  if (Math.abs(delta) < 45_000) return delta <= 0 ? 'just now' : 'in a few seconds'
  for (const [unit, ms] of units) {
    if (Math.abs(delta) >= ms || unit === 'minute') return relativeFormat.format(Math.round(delta / ms), unit)
  }
  return relativeFormat.format(Math.round(delta / 60_000), 'minute')
}

/** Whether shortcuts take ⌘ rather than Ctrl. */
export const isMac = typeof navigator !== 'undefined' && /Mac|iPhone|iPad/.test(navigator.platform)

/**
 * For moments already past (queued, sent, synced): never "in a few seconds", even when the clock a
 * screen ticks with is a little behind the core's.
 */
export function formatAgo(value: string | number | Date | null | undefined, now: number = Date.now()): string {
  const date = toDate(value)
  if (!date) return 'never'
  return formatRelative(Math.min(date.getTime(), now), now)
}

/** How fresh a synced figure (stock, a catalog) is: "3 hours ago", or "never synced". */
export function formatAge(value: string | number | Date | null | undefined, now: number = Date.now()): string {
  return value === null || value === undefined ? 'never synced' : formatAgo(value, now)
}

/** A calendar day the service gave as YYYY-MM-DD (a ship date): that day wherever the rep is, not UTC midnight moved into their zone. */
export function formatDay(value: string | null | undefined): string {
  const match = value ? /^(\d{4})-(\d{2})-(\d{2})$/.exec(value) : null
  if (!match) return formatDate(value)
  return dateFormat.format(new Date(Number(match[1]), Number(match[2]) - 1, Number(match[3])))
}

/**
 * Text with its order numbers kept whole where it wraps: a hyphen between letters or digits
 * (SO-1042, HP-100022) becomes a non-breaking one, so a line never ends at "SO-".
 */
export function wholeNumbers(text: string): string {
  return text.replace(/([A-Za-z0-9])-(?=[A-Za-z0-9])/g, '$1\u2011')
}
