import { describe, expect, it } from 'vitest'
import {
  checkContentType,
  checkDeclaredLength,
  ImageRefused,
  kindOf,
  pictureAddress,
  readPicture,
} from '../../../../src/main/pictures/safety'
import { itemPng } from '../../../service/images'

const refusal = (run: () => unknown) => {
  try {
    run()
  } catch (error) {
    return error instanceof ImageRefused ? error.reason : `not a refusal: ${String(error)}`
  }
  return 'accepted'
}

async function* chunks(...parts: Buffer[]): AsyncIterable<Uint8Array> {
  for (const part of parts) yield part
}

describe('picture addresses', () => {
  it('takes https anywhere, plain http on loopback only, and resolves relative ones against the service', () => {
    expect(pictureAddress('https://cdn.example/a.png', 'https://api.example').href).toBe('https://cdn.example/a.png')
    expect(pictureAddress('/images/items/A.png', 'http://127.0.0.1:4010').href).toBe(
      'http://127.0.0.1:4010/images/items/A.png',
    )
    expect(pictureAddress('items/A.png', 'https://api.example/v1/').href).toBe('https://api.example/v1/items/A.png')
    expect(pictureAddress('http://localhost:9/a.png', 'https://api.example').href).toBe('http://localhost:9/a.png')
    expect(refusal(() => pictureAddress('http://cdn.example/a.png', 'https://api.example'))).toBe('address')
    expect(refusal(() => pictureAddress('data:image/png;base64,AAAA', 'https://api.example'))).toBe('address')
    expect(refusal(() => pictureAddress('file:///etc/passwd', 'https://api.example'))).toBe('address')
    expect(refusal(() => pictureAddress('javascript:alert(1)', 'https://api.example'))).toBe('address')
  })
})

describe('what an answer is', () => {
  it('knows JPEG, PNG, WebP and GIF by their first bytes, and nothing else', () => {
    expect(kindOf(Buffer.from([0xff, 0xd8, 0xff, 0xe0]))).toBe('jpeg')
    expect(kindOf(itemPng('A', 0))).toBe('png')
    expect(kindOf(Buffer.from('GIF89a....'))).toBe('gif')
    expect(kindOf(Buffer.from('RIFF\x10\x00\x00\x00WEBPVP8 ', 'latin1'))).toBe('webp')
    expect(kindOf(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'))).toBeNull()
    expect(kindOf(Buffer.from('<!DOCTYPE html>'))).toBeNull()
  })

  it('refuses HTML and SVG by content type before the body is read, and lets a missing type through to the bytes', () => {
    expect(refusal(() => checkContentType('text/html; charset=utf-8'))).toBe('html')
    expect(refusal(() => checkContentType('image/svg+xml'))).toBe('not-an-image')
    expect(refusal(() => checkContentType('application/json'))).toBe('not-an-image')
    expect(refusal(() => checkContentType('image/png'))).toBe('accepted')
    expect(refusal(() => checkContentType(undefined))).toBe('accepted')
    expect(refusal(() => checkContentType('application/octet-stream'))).toBe('accepted')
    expect(refusal(() => checkDeclaredLength(String(50 * 1024 * 1024)))).toBe('too-large')
    expect(refusal(() => checkDeclaredLength('1000'))).toBe('accepted')
  })

  it('stops reading a body at the ceiling, without reading the rest', async () => {
    let pulled = 0
    async function* endless(): AsyncIterable<Uint8Array> {
      yield itemPng('A', 0).subarray(0, 16)
      for (;;) {
        pulled++
        yield Buffer.alloc(1024)
      }
    }
    await expect(readPicture(endless(), 10 * 1024)).rejects.toMatchObject({ reason: 'too-large' })
    expect(pulled).toBe(10)
  })

  it('calls a page a page, and other bytes not a picture', async () => {
    await expect(readPicture(chunks(Buffer.from('<!DOCTYPE html><html>sign in</html>')))).rejects.toMatchObject({
      reason: 'html',
    })
    await expect(readPicture(chunks(Buffer.from('plain words')))).rejects.toMatchObject({ reason: 'not-an-image' })
    const png = itemPng('A', 0)
    await expect(readPicture(chunks(png.subarray(0, 5), png.subarray(5)))).resolves.toMatchObject({ kind: 'png' })
  })
})
