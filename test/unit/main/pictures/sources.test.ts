import { describe, expect, it } from 'vitest'
import { pictureAddresses } from '../../../../src/main/pictures/sources'

describe('an item’s picture addresses, in the shapes the interface leaves open', () => {
  it('puts the primary attachment first, whatever its place', () => {
    const item = {
      attachments: [
        { id: 1, name: 'back.jpg', url: 'https://cdn.example/back.jpg', type: 'image', is_primary: false },
        { id: 2, name: 'front.jpg', url: 'https://cdn.example/front.jpg', type: 'image', is_primary: true },
      ],
    }
    expect(pictureAddresses(item)).toEqual(['https://cdn.example/front.jpg', 'https://cdn.example/back.jpg'])
  })

  it('reads `path` where there is no `url`, bare addresses, and skips documents and SVG', () => {
    const item = {
      attachments: [
        { name: 'spec.pdf', url: 'https://cdn.example/spec.pdf', type: 'document' },
        { name: 'logo.svg', url: 'https://cdn.example/logo.svg', type: 'image/svg+xml' },
        { name: 'side.png', path: '/files/side.png' },
        'https://cdn.example/bare.webp',
      ],
    }
    expect(pictureAddresses(item)).toEqual(['/files/side.png', 'https://cdn.example/bare.webp'])
  })

  it('falls back to the item’s own image field, and finds none in anything else', () => {
    expect(pictureAddresses({ attachments: [], image_url: '/images/items/A.png' })).toEqual(['/images/items/A.png'])
    expect(pictureAddresses({ imageUrl: 'https://cdn.example/a.gif' })).toEqual(['https://cdn.example/a.gif'])
    expect(pictureAddresses({ attachments: 'none' })).toEqual([])
    expect(pictureAddresses(null)).toEqual([])
  })
})
