/**
 * The service's timestamps, as milliseconds for comparing versions of a record. Both forms the spec
 * allows are read: ISO 8601, and `YYYY-MM-DD HH:mm:ss`, which it defines as UTC. An ISO string without
 * a zone is read as UTC too: JavaScript would read it in the laptop's zone, and the laptop's clock and
 * zone must play no part.
 */
export function parseServerTime(value: string | null | undefined): number | null {
  if (!value) return null
  // The form the service sends on every row (2026-11-20T12:34:56.789Z) needs no rewriting.
  if (value.length === 24 && value.charCodeAt(23) === 90 && value.charCodeAt(10) === 84) {
    const ms = Date.parse(value)
    if (!Number.isNaN(ms)) return ms
  }
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
