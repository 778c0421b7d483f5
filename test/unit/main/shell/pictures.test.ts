import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { answerPicture, registerPictureScheme } from '../../../../src/main/shell/pictures'
import { contentSecurityPolicy } from '../../../../src/main/shell/security'
import { pictureUrl } from '../../../../src/shared/pictures'
import { startBridge, type Bridge } from '../../../bridge/server'

const picture = Buffer.from('RIFF....WEBPVP8 ')
const read = (itemGuid: string, size: string) => (itemGuid === 'item-1' && size === 'thumb' ? picture : null)

let bridge: Bridge | undefined
afterEach(async () => {
  await bridge?.close()
  bridge = undefined
})

describe('item pictures reach the renderer from the cache only', () => {
  it('registers satchel-picture as a standard, secure scheme', () => {
    const registered: unknown[] = []
    registerPictureScheme({ registerSchemesAsPrivileged: (schemes) => void registered.push(...schemes) })
    expect(registered).toEqual([
      { scheme: 'satchel-picture', privileges: expect.objectContaining({ standard: true, secure: true }) },
    ])
  })

  it('answers the cache’s bytes, an empty 204 for a picture not fetched, a 400 for anything else', async () => {
    const found = answerPicture(pictureUrl('satchel-picture://', 'thumb', 'item-1'), read)
    expect(found.status).toBe(200)
    expect(found.headers.get('content-type')).toBe('image/webp')
    expect(Buffer.from(await found.arrayBuffer())).toEqual(picture)
    expect(answerPicture('satchel-picture://panel/item-1', read).status).toBe(204)
    expect(answerPicture('satchel-picture://thumb/item-2', read).status).toBe(204)
    expect(answerPicture('satchel-picture://original/item-1', read).status).toBe(400)
    expect(answerPicture('satchel-picture://thumb/../../etc/passwd', read).status).toBe(400)
    expect(answerPicture('https://cdn.example/thumb/item-1', read).status).toBe(400)
  })

  it('the bridge serves the same route on its own origin', async () => {
    bridge = await startBridge({
      handlers: {} as never,
      events: { subscribe: () => () => undefined },
      pictures: read,
    })
    const at = (path: string) => fetch(new URL(path, bridge!.url))
    const found = await at(pictureUrl('/satchel-picture/', 'thumb', 'item-1'))
    expect(found.status).toBe(200)
    expect(Buffer.from(await found.arrayBuffer())).toEqual(picture)
    expect((await at('/satchel-picture/thumb/item-2')).status).toBe(204)
    expect((await at('/satchel-picture/whole/item-1')).status).toBe(400)
  })

  it('the CSP lets images come from the app, data: and satchel-picture: only, in the header and the meta tag alike', () => {
    const imgSrc = (policy: string) =>
      policy
        .split(';')
        .map((directive) => directive.trim().split(/\s+/))
        .find(([name]) => name === 'img-src')
        ?.slice(1)
    const html = readFileSync(join(__dirname, '../../../../src/renderer/index.html'), 'utf8')
    const meta = /http-equiv="Content-Security-Policy"\s+content="([^"]+)"/.exec(html)![1]!
    expect(imgSrc(contentSecurityPolicy())).toEqual(["'self'", 'data:', 'satchel-picture:'])
    expect(imgSrc(meta)).toEqual(["'self'", 'data:', 'satchel-picture:'])
  })
})
