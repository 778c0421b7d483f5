/**
 * A 2xx reply's bytes as JSON, without V8's slow path for UTF-8.
 *
 * `bytes.toString('utf8')` of a page that holds a single character past ASCII (an é, a dash, a
 * trademark sign: 58 bytes of a 200 KB page at the double) gives a two-byte string the length of the
 * page, decoded byte by byte: 1.3 ms of CPU a page, and JSON.parse of a two-byte string is slower too
 * (docs/perf/2026-11-29-wire.md). Read as latin1 instead, the bytes become a one-byte string in a
 * copy (0.15 ms); each run of bytes past ASCII is then decoded as UTF-8 on its own and written as
 * JSON escapes (`\u00e9`), which JSON.parse reads back to the same characters. The value is the one
 * `JSON.parse(bytes.toString('utf8'))` gives, for every input:
 * - in JSON, characters past ASCII can stand only inside strings, where one and its `\uXXXX` escape
 *   are the same character; anywhere else both are a syntax error;
 * - a UTF-8 sequence is made of bytes past ASCII only, so a run of them ends where a sequence ends or
 *   breaks, and decodes alone as it does in the page (a broken one to U+FFFD, as before);
 * - after a backslash an escape would change what it escapes (`\é` is an error, `\\u00e9` is not):
 *   such a reply, and any this path cannot parse, is decoded the usual way by the caller.
 */
import { isAscii } from 'node:buffer'

const BACKSLASH = 0x5c

/** The bytes as JSON text of one-byte characters, or null when a run past ASCII follows a backslash. */
function asciiJsonText(bytes: Buffer): string | null {
  const latin = bytes.toString('latin1')
  if (isAscii(bytes)) return latin
  let afterBackslash = false
  const text = latin.replace(/[\x80-\xff]+/g, (run: string, at: number) => {
    if (at > 0 && latin.charCodeAt(at - 1) === BACKSLASH) afterBackslash = true
    const decoded = bytes.toString('utf8', at, at + run.length)
    let escaped = ''
    for (let index = 0; index < decoded.length; index++) {
      escaped += `\\u${decoded.charCodeAt(index).toString(16).padStart(4, '0')}`
    }
    return escaped
  })
  return afterBackslash ? null : text
}

/**
 * The reply's value, or undefined when this path cannot read it (not JSON, or a run past ASCII after
 * a backslash): the caller then decodes the text as UTF-8 and says why it is not JSON.
 */
export function parseJsonBytes(bytes: Buffer): unknown {
  const text = asciiJsonText(bytes)
  if (text === null) return undefined
  try {
    return JSON.parse(text) as unknown
  } catch {
    return undefined
  }
}
