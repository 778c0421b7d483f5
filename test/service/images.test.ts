import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startService } from './index'
import { imagePath, itemPng } from './images'
import type { RunningService } from './types'
import { until } from '../support/until'

let service: RunningService
let items: { guid: string; sku: string; image_url: string; updated_at: string }[]

beforeAll(async () => {
  service = await startService({ size: 'tiny', seed: 31, httpControl: true })
  const catalog = String(service.control.catalogs()[0]!.guid)
  items = service.control.catalogItems(catalog) as typeof items
})
afterAll(async () => {
  await service.close()
})

const picture = (path: string, headers: Record<string, string> = {}) => fetch(new URL(path, service.url), { headers })

describe('the image host', () => {
  it('serves each item a picture of its own at the relative address it lists, the same on every run', async () => {
    const [a, b] = items
    expect(a!.image_url).toBe(imagePath(a!.sku))
    const answer = await picture(a!.image_url)
    expect(answer.status).toBe(200)
    expect(answer.headers.get('content-type')).toBe('image/png')
    const bytes = Buffer.from(await answer.arrayBuffer())
    expect(bytes).toEqual(itemPng(a!.sku, 0))
    expect(bytes).not.toEqual(itemPng(b!.sku, 0))
    expect(service.control.requestLog().some((entry) => entry.url.startsWith('/images/'))).toBe(false)
  })

  it('answers 304 to its own ETag or Last-Modified, and a new picture after changeImage', async () => {
    const item = items[2]!
    const first = await picture(item.image_url)
    const etag = first.headers.get('etag')!
    const lastModified = first.headers.get('last-modified')!
    service.control.clearImageFigures()
    expect((await picture(item.image_url, { 'if-none-match': etag })).status).toBe(304)
    expect((await picture(item.image_url, { 'if-modified-since': lastModified })).status).toBe(304)
    expect(service.control.imageFigures()).toEqual({ requests: 2, bytesSent: 0, notModified: 2 })

    service.control.changeImage(item.guid)
    const after = (service.control.catalogItems(String(service.control.catalogs()[0]!.guid)) as typeof items).find(
      (each) => each.guid === item.guid,
    )!
    expect(after.updated_at > item.updated_at).toBe(true)
    const changed = await picture(item.image_url, { 'if-none-match': etag })
    expect(changed.status).toBe(200)
    expect(Buffer.from(await changed.arrayBuffer())).toEqual(itemPng(item.sku, 1))

    service.control.changeImage(item.guid, true)
    const moved = service.control.update('catalogItem', item.guid, {})
    expect(moved.image_url).toBe(imagePath(item.sku, 2))
  })

  it('answers 404, a captive portal’s page, text called a PNG, or 50 MB, as told; and slowly', async () => {
    const [, , , missing, html, text, huge] = items
    service.control.imageFault(missing!.guid, 'missing')
    service.control.imageFault(html!.guid, 'html')
    service.control.imageFault(text!.guid, 'not-an-image')
    service.control.imageFault(huge!.guid, 'huge')
    expect((await picture(missing!.image_url)).status).toBe(404)
    const portal = await picture(html!.image_url)
    expect(portal.headers.get('content-type')).toMatch(/^text\/html/)
    expect(await portal.text()).toContain('<html')
    const notPng = await picture(text!.image_url)
    expect(notPng.headers.get('content-type')).toBe('image/png')
    expect((await notPng.text()).startsWith('this is a text file')).toBe(true)
    const big = await picture(huge!.image_url)
    expect(big.headers.get('content-length')).toBeNull()
    expect((await big.arrayBuffer()).byteLength).toBe(50 * 1024 * 1024 + 33)
    service.control.imageFault(missing!.guid, null)
    expect((await picture(missing!.image_url)).status).toBe(200)

    // Slowed: a picture asked first is answered after one asked once the host is quick again.
    service.control.slowImages(30_000)
    const asked = service.control.imageFigures().requests
    const held = new AbortController()
    const order: string[] = []
    const slow = fetch(new URL(items[8]!.image_url, service.url), { signal: held.signal }).then(
      () => order.push('slow'),
      () => order.push('slow, given up'),
    )
    await until(() => service.control.imageFigures().requests > asked, 'the slowed request to arrive')
    service.control.slowImages(0)
    await picture(items[9]!.image_url).then(() => order.push('quick'))
    held.abort()
    await slow
    expect(order).toEqual(['quick', 'slow, given up'])
    expect(() => service.control.slowImages(-1)).toThrow()
  })

  it('is controlled over HTTP too', async () => {
    const response = await fetch(`${service.url}/__control/imageFigures`)
    expect(((await response.json()) as { result: Record<string, number> }).result).toHaveProperty('requests')
  })
})
