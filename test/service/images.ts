/**
 * The double's image host: it serves the pictures its items list, small PNGs made on the spot from
 * the SKU and the picture's version (distinct per item, the same on every run), with ETag and
 * Last-Modified so a client's conditional request gets a 304. Controls change an item's picture
 * (same address, new bytes; or a new address), make one answer 404, a captive portal's HTML page, a
 * non-image or a 50 MB body, and slow the host. Loopback, plain http, as the rest of the double.
 */
import { Readable } from 'node:stream'
import { deflateSync } from 'node:zlib'
import type { FastifyInstance } from 'fastify'
import { ControlError, type ItemEntry, type Store } from './store'

type ImageFault = 'missing' | 'html' | 'huge' | 'not-an-image'

/** The n-th picture (2 and on) of an item's gallery: its primary's address with `n` added. */
export function galleryPath(primary: string, n: number): string {
  return `${primary}${primary.includes('?') ? '&' : '?'}n=${n}`
}

/** An item's picture address as the double lists it: relative, so the client resolves it against the service. */
export function imagePath(sku: string, version = 0): string {
  return `/images/items/${encodeURIComponent(sku)}.png${version > 0 ? `?v=${version}` : ''}`
}

const crcTable = Array.from({ length: 256 }, (_, n) => {
  let c = n
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1
  return c >>> 0
})

function crc32(bytes: Buffer): number {
  let c = 0xffffffff
  for (const byte of bytes) c = crcTable[(c ^ byte) & 0xff]! ^ (c >>> 8)
  return (c ^ 0xffffffff) >>> 0
}

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4)
  length.writeUInt32BE(data.length)
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data])
  const crc = Buffer.alloc(4)
  crc.writeUInt32BE(crc32(body))
  return Buffer.concat([length, body, crc])
}

function hash(text: string): number {
  let h = 2166136261
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619)
  return h >>> 0
}

/** A 64×48 PNG: two colours and a stripe angle from the SKU and version, so no two items look alike. */
export function itemPng(sku: string, version: number): Buffer {
  const h = hash(`${sku}#${version}`)
  const width = 64
  const height = 48
  const a = [h & 0xff, (h >>> 8) & 0xff, (h >>> 16) & 0xff]
  const b = [255 - a[0]!, 255 - a[1]!, (h >>> 24) & 0xff]
  const step = 4 + (h % 9)
  const rows: Buffer[] = []
  for (let y = 0; y < height; y++) {
    const row = Buffer.alloc(1 + width * 3)
    for (let x = 0; x < width; x++) {
      const colour = Math.floor((x + y * ((h >>> 3) % 3)) / step) % 2 === 0 ? a : b
      row.set(colour, 1 + x * 3)
    }
    rows.push(row)
  }
  const header = Buffer.alloc(13)
  header.writeUInt32BE(width, 0)
  header.writeUInt32BE(height, 4)
  header.set([8, 2, 0, 0, 0], 8)
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(Buffer.concat(rows))),
    chunk('IEND', Buffer.alloc(0)),
  ])
}

interface ImageFigures {
  requests: number
  /** Picture bytes sent (a cut 50 MB body counts what was written before the client left). */
  bytesSent: number
  notModified: number
}

export interface ImageControl {
  /** A new picture for the item: new bytes at the same address, or (newAddress) at a new one; its updated_at moves. */
  changeImage(catalogItemGuid: string, newAddress?: boolean): void
  /** The item's picture answers this way from now on (null: as normal again). */
  imageFault(catalogItemGuid: string, fault: ImageFault | null): void
  /** The item's single read lists `count` pictures (its listing's first); those at `missing` positions answer 404. */
  imageGallery(catalogItemGuid: string, count: number, missing?: number[]): void
  /** Every picture waits this long before its answer. */
  slowImages(ms: number): void
  imageFigures(): ImageFigures
  clearImageFigures(): void
}

const hugeBytes = 50 * 1024 * 1024
const portalPage =
  '<!DOCTYPE html><html><head><title>Sign in to Hotel Wi-Fi</title></head><body>Accept the terms</body></html>'

export class ImageHost {
  private readonly versions = new Map<string, number>()
  private readonly faults = new Map<string, ImageFault>()
  private slowMs = 0
  private figures: ImageFigures = { requests: 0, bytesSent: 0, notModified: 0 }

  constructor(private readonly store: Store) {}

  /** Forgets every picture changed, faulted or slowed, and the figures (control.reset). */
  reset(): void {
    this.versions.clear()
    this.faults.clear()
    this.slowMs = 0
    this.figures = { requests: 0, bytesSent: 0, notModified: 0 }
  }

  control(update: (guid: string, patch: Record<string, unknown>) => void): ImageControl {
    const skuOf = (guid: string): string => {
      const item: ItemEntry | undefined = this.store.itemsByGuid.get(guid)
      if (!item) throw new ControlError(`unknown catalog item ${guid}`)
      return item.rec.sku
    }
    return {
      changeImage: (guid, newAddress = false) => {
        const sku = skuOf(guid)
        const version = (this.versions.get(sku) ?? 0) + 1
        this.versions.set(sku, version)
        update(guid, newAddress ? { image_url: imagePath(sku, version) } : {})
      },
      imageFault: (guid, fault) => {
        const sku = skuOf(guid)
        if (fault === null) this.faults.delete(sku)
        else if (['missing', 'html', 'huge', 'not-an-image'].includes(fault)) this.faults.set(sku, fault)
        else throw new ControlError(`unknown image fault ${String(fault)}`)
      },
      imageGallery: (guid, count, missing = []) => {
        if (!Number.isInteger(count) || count < 1 || count > 20) throw new ControlError('count must be 1 to 20')
        this.store.imageGalleries.set(skuOf(guid), { count, missing })
      },
      slowImages: (ms) => {
        if (!Number.isFinite(ms) || ms < 0) throw new ControlError('ms must be a number of milliseconds')
        this.slowMs = ms
      },
      imageFigures: () => ({ ...this.figures }),
      clearImageFigures: () => {
        this.figures = { requests: 0, bytesSent: 0, notModified: 0 }
      },
    }
  }

  register(app: FastifyInstance): void {
    app.get('/images/items/:file', async (request, reply) => {
      this.figures.requests++
      if (this.slowMs > 0) await new Promise((resolve) => setTimeout(resolve, this.slowMs))
      const file = (request.params as { file: string }).file
      if (!file.endsWith('.png')) return reply.code(404).type('text/plain').send('no such picture')
      const sku = decodeURIComponent(file.slice(0, -4))
      const fault = this.faults.get(sku)
      if (fault === 'missing') return reply.code(404).type('text/plain').send('no such picture')
      if (fault === 'html') {
        this.figures.bytesSent += portalPage.length
        return reply.code(200).type('text/html; charset=utf-8').send(portalPage)
      }
      if (fault === 'not-an-image') {
        const text = Buffer.from('this is a text file, not a picture\n'.repeat(10))
        this.figures.bytesSent += text.length
        return reply.code(200).type('image/png').send(text)
      }
      if (fault === 'huge') return reply.code(200).type('image/png').send(this.hugeBody())
      const position = Number((request.query as { n?: string }).n ?? 1)
      if (this.store.imageGalleries.get(sku)?.missing.includes(position))
        return reply.code(404).type('text/plain').send('no such picture')
      const version = this.versions.get(sku) ?? 0
      // A gallery's other pictures differ from the primary and from each other.
      const drawn = position > 1 ? `${sku}#${position}` : sku
      const etag = `"${drawn}-v${version}"`
      // A fixed instant per version, so If-Modified-Since compares as a real host's would.
      const lastModified = new Date(Date.UTC(2026, 0, 1) + version * 60_000).toUTCString()
      reply.header('etag', etag).header('last-modified', lastModified).header('cache-control', 'max-age=3600')
      const ifNoneMatch = request.headers['if-none-match']
      const ifModifiedSince = request.headers['if-modified-since']
      if (ifNoneMatch === etag || (ifNoneMatch === undefined && ifModifiedSince === lastModified)) {
        this.figures.notModified++
        return reply.code(304).send()
      }
      const png = itemPng(drawn, version)
      this.figures.bytesSent += png.length
      return reply.code(200).type('image/png').send(png)
    })
  }

  /** 50 MB that starts like a PNG, streamed without a length: the client must stop reading it itself. */
  private hugeBody(): Readable {
    const head = itemPng('huge', 0).subarray(0, 33)
    const piece = Buffer.alloc(64 * 1024)
    let sent = 0
    const figures = this.figures
    return new Readable({
      read() {
        if (sent >= hugeBytes) return void this.push(null)
        const next = sent === 0 ? head : piece
        sent += next.length
        figures.bytesSent += next.length
        this.push(next)
      },
    })
  }
}
