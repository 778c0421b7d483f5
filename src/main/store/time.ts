/**
 * The service's timestamps, as milliseconds for comparing versions of a record. Both forms the spec
 * allows are read: ISO 8601, and `YYYY-MM-DD HH:mm:ss`, which it defines as UTC. An ISO string without
 * a zone is read as UTC too: JavaScript would read it in the laptop's zone, and the laptop's clock and
 * zone must play no part.
 */
export function parseServerTime(value: string | null | undefined): number | null {
  if (!value) return null
  const trimmed = value.trim()
  const plain = /^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)$/.exec(trimmed)
  const iso = plain ? `${plain[1]}T${plain[2]}Z` : trimmed
  const ms = Date.parse(iso)
  return Number.isNaN(ms) ? null : ms
}

/** The version of a record for "older never overwrites newer": its latest change, deletion included. */
export function versionOf(updatedAt: string | null | undefined, deletedAt: string | null | undefined): number {
  return Math.max(parseServerTime(updatedAt) ?? 0, parseServerTime(deletedAt) ?? 0)
}
