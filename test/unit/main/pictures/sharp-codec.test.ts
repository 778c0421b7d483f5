import sharp from 'sharp'
import { describe, expect, it } from 'vitest'
import { panelBox, thumbnailBox } from '../../../../src/main/pictures/codec'
import { createSharpCodec } from '../../../../src/main/pictures/sharp-codec'
import { itemPng } from '../../../service/images'

const codec = createSharpCodec()

describe('the codec on sharp', () => {
  it('downscales once into a thumbnail and a panel picture, both WebP, neither enlarged', async () => {
    const large = await sharp({ create: { width: 1600, height: 1200, channels: 3, background: '#3366aa' } })
      .jpeg()
      .toBuffer()
    const sizes = await codec.downscale(large, 'jpeg')
    const thumb = await sharp(sizes.thumb).metadata()
    const panel = await sharp(sizes.panel).metadata()
    expect([thumb.format, thumb.width, thumb.height]).toEqual(['webp', thumbnailBox, 72])
    expect([panel.format, panel.width, panel.height]).toEqual(['webp', panelBox, 480])

    const small = await codec.downscale(itemPng('A', 0), 'png')
    expect((await sharp(small.panel).metadata()).width).toBe(64)
  })

  it('refuses bytes that decode as another format than their first bytes said, and bytes that do not decode', async () => {
    await expect(codec.downscale(itemPng('A', 0), 'gif')).rejects.toMatchObject({ reason: 'not-an-image' })
    const cut = itemPng('A', 0).subarray(0, 40)
    await expect(codec.downscale(cut, 'png')).rejects.toMatchObject({ name: 'ImageRefused' })
    const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>')
    await expect(codec.downscale(svg, 'png')).rejects.toMatchObject({ reason: 'not-an-image' })
  })
})
