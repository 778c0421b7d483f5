/**
 * parseJsonBytes reads a reply's UTF-8 bytes as latin1 with each run past ASCII written as JSON
 * escapes; whatever it returns must be what JSON.parse of the UTF-8 text returns, and where it cannot
 * be sure (a run after a backslash) or the bytes are not JSON, it returns undefined for the caller's
 * usual path.
 */
import { describe, expect, it } from 'vitest'
import { parseJsonBytes } from '../../../../src/main/ordering-client/json-bytes'

function usual(bytes: Buffer): unknown {
  try {
    return JSON.parse(bytes.toString('utf8')) as unknown
  } catch {
    return undefined
  }
}

const texts: [string, string][] = [
  ['ASCII only', '{"catalogs":[{"guid":"k","name":"Main"}],"n":1.5,"ok":true,"none":null}'],
  ['accents and dashes', '{"name":"Crème brûlée — 12 oz, Café™","city":"Zürich"}'],
  ['CJK and Cyrillic', '{"name":"東京の店","note":"Привет, мир"}'],
  ['astral characters (surrogate pairs)', '{"name":"Box 📦 of 🍓","tag":"𝄞"}'],
  ['a key past ASCII', '{"größe":"XL","ñ":["á","é"]}'],
  ['escapes beside characters past ASCII', '{"a":"\\"é\\"","b":"\\\\ é","c":"\\u00e9é","d":"é\\n"}'],
  ['NBSP and BOM inside strings', '{"a":"\u00a0x\ufeff"}'],
  ['a top-level string', '"Ünïcödé"'],
]

describe('parseJsonBytes', () => {
  it.each(texts)('reads %s to the value JSON.parse gives the UTF-8 text', (_label, text) => {
    const bytes = Buffer.from(text, 'utf8')
    const value = parseJsonBytes(bytes)
    expect(value).not.toBeUndefined()
    expect(value).toEqual(JSON.parse(text))
  })

  it('keeps broken UTF-8 as the usual decoding does: U+FFFD where a sequence breaks', () => {
    const broken = [
      Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xc3, 0x22, 0x7d]), // a lead byte, then the quote
      Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0x80, 0x81, 0x78, 0x22, 0x7d]), // continuations alone
      Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xe2, 0x82, 0x78, 0xf0, 0x9f, 0x22, 0x7d]), // cut sequences
      Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xc0, 0xaf, 0xed, 0xa0, 0x80, 0xff, 0x22, 0x7d]), // overlong, surrogate, 0xff
    ]
    for (const bytes of broken) {
      const value = parseJsonBytes(bytes)
      expect(value).toEqual(usual(bytes))
      expect(JSON.stringify(value)).toContain('\ufffd')
    }
  })

  it('leaves to the usual path a run past ASCII right after a backslash', () => {
    // "\é" is not JSON; written as an escape after the backslash it would read as "\\u00e9".
    expect(parseJsonBytes(Buffer.from('{"a":"\\é"}', 'utf8'))).toBeUndefined()
    expect(usual(Buffer.from('{"a":"\\é"}', 'utf8'))).toBeUndefined()
    // "\\é" is JSON, and the usual path reads it.
    const escaped = Buffer.from('{"a":"x\\\\é"}', 'utf8')
    expect(parseJsonBytes(escaped)).toBeUndefined()
    expect(usual(escaped)).toEqual({ a: 'x\\é' })
  })

  it('gives undefined for what is not JSON, as the usual path fails on it', () => {
    const notJson = ['', '   ', '<html>Service Unavailable</html>', '{"a":1', '\ufeff{"a":1}', '{"a":1} é', 'é']
    for (const text of notJson) {
      const bytes = Buffer.from(text, 'utf8')
      expect(parseJsonBytes(bytes)).toBeUndefined()
      expect(usual(bytes)).toBeUndefined()
    }
  })

  it('agrees with the usual path on random text mixing ASCII, escapes and characters past it', () => {
    let seed = 7
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31
    const pieces = [
      'a',
      'Z',
      '0',
      ' ',
      '"',
      '\\',
      '\\\\',
      '\\"',
      '\\n',
      '\\u00e9',
      ',',
      ':',
      'é',
      '—',
      '東',
      '📦',
      '\u00a0',
    ]
    for (let round = 0; round < 2000; round++) {
      const inner = Array.from(
        { length: 1 + Math.floor(random() * 12) },
        () => pieces[Math.floor(random() * pieces.length)]!,
      ).join('')
      const bytes = Buffer.from(random() < 0.8 ? `{"k":"${inner}"}` : inner, 'utf8')
      // Now and then a byte broken, as a mangled reply would have it.
      if (random() < 0.2) bytes[Math.floor(random() * bytes.length)] = 0x80 + Math.floor(random() * 0x80)
      const value = parseJsonBytes(bytes)
      if (value !== undefined) expect(value).toEqual(usual(bytes))
      else if (!/\\[\x80-\xff]/.test(bytes.toString('latin1'))) expect(usual(bytes)).toBeUndefined()
    }
  })
})
