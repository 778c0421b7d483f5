/**
 * Display helpers for catalog and order screens. Formatting only: every figure shown comes from the
 * core (prices, totals, validity); nothing here computes one.
 */
import type { AppError } from '../../../../shared/result'
import { ApiError } from '../../api'

const money = new Intl.NumberFormat(undefined, { style: 'currency', currency: 'USD' })
const number = new Intl.NumberFormat(undefined, { maximumFractionDigits: 2 })
const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' })
const relative = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' })

export function formatMoney(value: number | null | undefined): string {
  return value === null || value === undefined ? '—' : money.format(value)
}

export function formatNumber(value: number | null | undefined): string {
  return value === null || value === undefined ? '—' : number.format(value)
}

export function formatDateTime(value: string | number | null | undefined): string {
  if (value === null || value === undefined) return '—'
  const date = new Date(value)
  return Number.isNaN(date.getTime()) ? '—' : dateTime.format(date)
}

/** "3 hours ago", for how fresh a stock figure is. */
export function formatAge(value: string | number | null | undefined, now = Date.now()): string {
  if (value === null || value === undefined) return 'never synced'
  const at = new Date(value).getTime()
  if (Number.isNaN(at)) return 'unknown'
  const seconds = Math.round((at - now) / 1000)
  const abs = Math.abs(seconds)
  if (abs < 60) return relative.format(seconds, 'second')
  if (abs < 3600) return relative.format(Math.round(seconds / 60), 'minute')
  if (abs < 86_400) return relative.format(Math.round(seconds / 3600), 'hour')
  return relative.format(Math.round(seconds / 86_400), 'day')
}

export function toAppError(error: unknown): AppError {
  return error instanceof ApiError ? error.error : { code: 'INTERNAL', message: error instanceof Error ? error.message : String(error) }
}
