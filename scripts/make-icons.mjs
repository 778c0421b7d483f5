#!/usr/bin/env node
/**
 * Draws Satchel's icon (a leather satchel on a teal tile) and writes it as PNG files into resources/.
 * Drawn in code rather than kept only as binary so the artwork can be regenerated and reviewed:
 *
 *   node scripts/make-icons.mjs
 *
 * resources/icon.png (1024 px) is what electron-builder turns into the Windows .ico and the macOS
 * .icns; resources/icons/<n>x<n>.png are the Linux icon set (AppImage, deb) and the window icon.
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { deflateSync } from 'node:zlib'

const root = resolve(dirname(new URL(import.meta.url).pathname), '..')

const crcTable = new Uint32Array(256).map((_, n) => {
  let c = n
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1
  return c >>> 0
})

function crc32(bytes) {
  let c = 0xffffffff
  for (const byte of bytes) c = crcTable[(c ^ byte) & 0xff] ^ (c >>> 8)
  return (c ^ 0xffffffff) >>> 0
}

function chunk(type, data) {
  const length = Buffer.alloc(4)
  length.writeUInt32BE(data.length)
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data])
  const crc = Buffer.alloc(4)
  crc.writeUInt32BE(crc32(body))
  return Buffer.concat([length, body, crc])
}

/** RGBA pixels (width*height*4) to a PNG file: 8-bit RGBA, no interlace, filter 0 on every row. */
function encodePng(width, height, rgba) {
  const header = Buffer.alloc(13)
  header.writeUInt32BE(width, 0)
  header.writeUInt32BE(height, 4)
  header[8] = 8
  header[9] = 6
  const raw = Buffer.alloc((width * 4 + 1) * height)
  for (let y = 0; y < height; y++) {
    raw[y * (width * 4 + 1)] = 0
    rgba.copy(raw, y * (width * 4 + 1) + 1, y * width * 4, (y + 1) * width * 4)
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(raw, { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ])
}

const hex = (value) => [
  parseInt(value.slice(1, 3), 16),
  parseInt(value.slice(3, 5), 16),
  parseInt(value.slice(5, 7), 16),
]

function inRoundedRect(x, y, left, top, right, bottom, radius) {
  if (x < left || x > right || y < top || y > bottom) return false
  const cx = Math.min(Math.max(x, left + radius), right - radius)
  const cy = Math.min(Math.max(y, top + radius), bottom - radius)
  return (x - cx) ** 2 + (y - cy) ** 2 <= radius ** 2
}

/**
 * The artwork in unit coordinates (0..1), painted back to front. Returns the colour at one point,
 * or null where the tile is transparent.
 */
function paint(x, y) {
  if (!inRoundedRect(x, y, 0.04, 0.04, 0.96, 0.96, 0.2)) return null
  const tileTop = hex('#14877d')
  const tileBottom = hex('#0b5a54')
  let colour = tileTop.map((c, i) => c + (tileBottom[i] - c) * y)
  // Handle: the upper half of a ring above the bag.
  const ring = Math.hypot(x - 0.5, y - 0.4)
  if (y <= 0.4 && ring <= 0.19 && ring >= 0.135) colour = hex('#f4e6cc')
  // Body of the bag, a shade darker towards the bottom.
  if (inRoundedRect(x, y, 0.17, 0.36, 0.83, 0.82, 0.07)) {
    const top = hex('#d8924c')
    const bottom = hex('#b8723a')
    colour = top.map((c, i) => c + (bottom[i] - c) * ((y - 0.36) / 0.46))
  }
  // Stitched seam along the bottom of the bag.
  if (y > 0.755 && y < 0.765 && x > 0.22 && x < 0.78 && Math.floor(x * 60) % 2 === 0) colour = hex('#f4e6cc')
  // Flap over the top of the body.
  if (inRoundedRect(x, y, 0.17, 0.36, 0.83, 0.6, 0.07)) colour = hex('#a8652f')
  // Buckle strap and buckle.
  if (x > 0.46 && x < 0.54 && y > 0.52 && y < 0.7) colour = hex('#8c5226')
  if (inRoundedRect(x, y, 0.42, 0.56, 0.58, 0.68, 0.025)) {
    colour = inRoundedRect(x, y, 0.45, 0.59, 0.55, 0.65, 0.012) ? hex('#8c5226') : hex('#f4e6cc')
  }
  return colour
}

/** Renders at `size` pixels with 4x4 supersampling, so edges stay smooth at every size. */
function render(size) {
  const samples = 4
  const rgba = Buffer.alloc(size * size * 4)
  for (let py = 0; py < size; py++) {
    for (let px = 0; px < size; px++) {
      let r = 0
      let g = 0
      let b = 0
      let covered = 0
      for (let sy = 0; sy < samples; sy++) {
        for (let sx = 0; sx < samples; sx++) {
          const colour = paint((px + (sx + 0.5) / samples) / size, (py + (sy + 0.5) / samples) / size)
          if (!colour) continue
          r += colour[0]
          g += colour[1]
          b += colour[2]
          covered++
        }
      }
      const offset = (py * size + px) * 4
      if (covered > 0) {
        rgba[offset] = Math.round(r / covered)
        rgba[offset + 1] = Math.round(g / covered)
        rgba[offset + 2] = Math.round(b / covered)
        rgba[offset + 3] = Math.round((255 * covered) / (samples * samples))
      }
    }
  }
  return encodePng(size, size, rgba)
}

const outputs = [
  ['resources/icon.png', 1024],
  ...[512, 256, 128, 64, 48, 32, 16].map((size) => [`resources/icons/${size}x${size}.png`, size]),
]
for (const [path, size] of outputs) {
  const file = join(root, path)
  mkdirSync(dirname(file), { recursive: true })
  writeFileSync(file, render(size))
  process.stdout.write(`icons: ${path} (${size}x${size})\n`)
}
