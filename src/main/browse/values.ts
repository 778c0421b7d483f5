/** How browse reads the values of a stored row or record: the same rule on every screen. */
export function clampLimit(limit: number | undefined, fallback: number, max = 500): number {
  if (limit === undefined || !Number.isFinite(limit)) return fallback
  return Math.max(1, Math.min(max, Math.floor(limit)))
}

export function clampOffset(offset: number | undefined): number {
  return offset === undefined || !Number.isFinite(offset) ? 0 : Math.max(0, Math.floor(offset))
}

export function parseObject(json: string | null): Record<string, unknown> {
  if (!json) return {}
  const value: unknown = JSON.parse(json)
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {}
}

export function flag(value: number | null): boolean | null {
  return value === null ? null : value === 1
}

export function text(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value : null
}

export function numberOrNull(value: unknown): number | null {
  if (typeof value === 'number' && Number.isFinite(value)) return value
  if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value))) return Number(value)
  return null
}
