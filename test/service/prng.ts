/**
 * A small seeded PRNG (sfc32, seeded through splitmix32) so the same seed always yields the same
 * supplier: tests, the demo and the benchmarks can name records across runs. Math.random is never
 * used by the double.
 */
const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'))
const HEX_DIGITS = '0123456789abcdef'

export class Rng {
  private a: number
  private b: number
  private c: number
  private d: number

  constructor(seed: number) {
    let s = seed >>> 0
    const next = (): number => {
      s = (s + 0x9e3779b9) >>> 0
      let z = s
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0
      return (z ^ (z >>> 16)) >>> 0
    }
    this.a = next()
    this.b = next()
    this.c = next()
    this.d = next()
    // The first outputs of sfc32 are still correlated with the seed; discard them.
    for (let i = 0; i < 12; i++) this.u32()
  }

  /** A child stream, so adding draws to one part of the generator does not reshuffle the others. */
  fork(label: string): Rng {
    let h = this.u32()
    for (let i = 0; i < label.length; i++) h = Math.imul(h ^ label.charCodeAt(i), 0x01000193) >>> 0
    return new Rng(h)
  }

  u32(): number {
    const t = (((this.a + this.b) >>> 0) + this.d) >>> 0
    this.d = (this.d + 1) >>> 0
    this.a = this.b ^ (this.b >>> 9)
    this.b = (this.c + (this.c << 3)) >>> 0
    this.c = (this.c << 21) | (this.c >>> 11)
    this.c = (this.c + t) >>> 0
    return t
  }

  /** In [0, 1). */
  next(): number {
    return this.u32() / 4294967296
  }

  /** Integer in [min, max], both inclusive. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1))
  }

  chance(p: number): boolean {
    return this.next() < p
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('pick from an empty list')
    return items[Math.floor(this.next() * items.length)] as T
  }

  /** Money-like value in [min, max] with two decimals. */
  money(min: number, max: number): number {
    return round2(min + this.next() * (max - min))
  }

  digits(count: number): string {
    let out = ''
    for (let left = count; left > 0; left -= 6) {
      const width = Math.min(6, left)
      out += String(this.int(0, 10 ** width - 1)).padStart(width, '0')
    }
    return out
  }

  hex(bytes: number): string {
    let out = ''
    for (let i = 0; i < bytes; i += 4) {
      const word = this.u32()
      for (let j = 0; j < 4 && i + j < bytes; j++) out += HEX[(word >>> (j * 8)) & 0xff]
    }
    return out
  }

  /** An RFC 4122 version-4-shaped UUID drawn from this stream. */
  uuid(): string {
    const h = this.hex(16)
    const variant = HEX_DIGITS[8 | (this.u32() & 0x3)]
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`
  }
}

export function round2(value: number): number {
  return Math.round(value * 100) / 100
}
