/**
 * The brief's calendar: 24 months in this laptop's time zone (a rep's "March" is their March), the
 * day and month keys the contract carries, and the words for a history that is not whole.
 */

/** The months a brief shows: this one and the 23 before, so months[i + 12] is months[i] a year on. */
const monthsShown = 24

/** The first moment of the month `back` months before the one `now` falls in, in this laptop's zone. */
export function monthStart(now: number, back: number): number {
  const date = new Date(now)
  return new Date(date.getFullYear(), date.getMonth() - back, 1).getTime()
}

/** Where a customer's history starts: the first of the oldest month shown. A read stops there. */
export function historyStart(now: number): number {
  return monthStart(now, monthsShown - 1)
}

const two = (value: number) => String(value).padStart(2, '0')

/** YYYY-MM in this laptop's zone. */
export function monthKey(ms: number): string {
  const date = new Date(ms)
  return `${date.getFullYear()}-${two(date.getMonth() + 1)}`
}

/** YYYY-MM-DD in this laptop's zone. */
export function dayText(ms: number): string {
  const date = new Date(ms)
  return `${date.getFullYear()}-${two(date.getMonth() + 1)}-${two(date.getDate())}`
}

/** The months shown, oldest first. */
export function monthKeys(now: number): string[] {
  return Array.from({ length: monthsShown }, (_, index) => monthKey(monthStart(now, monthsShown - 1 - index)))
}

const dayAndMonth = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'long' })
const dayMonthYear = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'long', year: 'numeric' })

/**
 * What the rep is told of a history that is not whole: from when it holds orders ("Orders since 3
 * March only", the year too when it is not this one), and that connecting reads the rest.
 */
export function shortHistoryNote(fromMs: number | null, now: number): string {
  if (fromMs === null) return 'No order history on this laptop yet; connect to read it'
  const sameYear = new Date(fromMs).getFullYear() === new Date(now).getFullYear()
  const day = (sameYear ? dayAndMonth : dayMonthYear).format(new Date(fromMs))
  return `Orders since ${day} only; connect to read the rest`
}
