/** A 2xx reply's bytes as JSON. */

/** The reply's value, or undefined when its bytes are not JSON (the caller says why). */
export function parseJsonBytes(bytes: Buffer): unknown {
  try {
    return JSON.parse(bytes.toString('utf8'))
  } catch {
    return undefined
  }
}
