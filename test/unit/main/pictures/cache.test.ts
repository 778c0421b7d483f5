import BetterSqlite3 from 'better-sqlite3'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { PictureCache, picturesFolder, type PictureEntry } from '../../../../src/main/pictures/cache'

const folders: string[] = []
const caches: PictureCache[] = []
afterEach(() => {
  for (const cache of caches.splice(0)) cache.close()
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true })
})

function cache(): PictureCache {
  const folder = mkdtempSync(join(tmpdir(), 'satchel-pictures-'))
  folders.push(folder)
  const made = new PictureCache(join(folder, 'main.images'))
  caches.push(made)
  return made
}

const entry = (guid: string, usedAt: number): Omit<PictureEntry, 'thumb' | 'panel' | 'bytes'> => ({
  itemGuid: guid,
  catalogGuid: 'cat-a',
  sourceUrl: `https://cdn.example/${guid}.png`,
  itemVersion: 1,
  etag: '"v1"',
  lastModified: null,
  usedAt,
  failures: 0,
  retryAt: 0,
  lastError: null,
})

/** Two sizes of `kb` KB, different per `seed`. */
const sizes = (seed: string, kb = 10) => ({
  thumb: Buffer.alloc(kb * 512, `${seed}-thumb`),
  panel: Buffer.alloc(kb * 512, `${seed}-panel`),
  type: 'image/webp' as const,
})

const files = (made: PictureCache) =>
  readdirSync(join(made.folder, 'files'), { recursive: true, withFileTypes: true }).filter((each) => each.isFile())
    .length

describe('the picture cache', () => {
  it('lives beside the profile’s database', () => {
    expect(picturesFolder('/data/main.db')).toBe('/data/main.images')
  })

  it('names files by content: two items with one picture share its files, which go with the last of them', () => {
    const made = cache()
    made.store(entry('a', 1), sizes('same'))
    made.store(entry('b', 2), sizes('same'))
    expect(files(made)).toBe(2)
    expect(made.read('a', 'thumb', 3)).toEqual(sizes('same').thumb)
    made.forget('a')
    expect(made.read('b', 'panel', 4)).toEqual(sizes('same').panel)
    made.forget('b')
    expect(files(made)).toBe(0)
    expect(made.read('b', 'thumb', 5)).toBeNull()
  })

  it('replaces an item’s picture and lets the old files go', () => {
    const made = cache()
    made.store(entry('a', 1), sizes('old'))
    made.store({ ...entry('a', 2), etag: '"v2"' }, sizes('new'))
    expect(files(made)).toBe(2)
    expect(made.read('a', 'thumb', 3)).toEqual(sizes('new').thumb)
    expect(made.get('a')?.etag).toBe('"v2"')
  })

  it('evicts the least recently used first, never a protected one, and a read counts as a use', () => {
    const made = cache()
    for (const [guid, at] of [
      ['a', 1],
      ['b', 2],
      ['c', 3],
      ['d', 4],
    ] as const)
      made.store(entry(guid, at), sizes(guid))
    made.read('a', 'thumb', 10)
    expect(made.totals()).toMatchObject({ cached: 4, bytes: 4 * 10 * 1024 })
    const result = made.evict(2 * 10 * 1024, (guid) => guid === 'b')
    expect(result).toEqual({ evicted: 2, overBudget: false })
    expect(['a', 'b', 'c', 'd'].filter((guid) => made.get(guid)?.thumb)).toEqual(['a', 'b'])
    // Evicted entries keep their source but no validators: the next fetch must not ask for a 304.
    expect(made.get('c')).toMatchObject({ sourceUrl: 'https://cdn.example/c.png', etag: null, bytes: 0 })
  })

  it('keeps what is protected even over budget, and says so', () => {
    const made = cache()
    made.store(entry('a', 1), sizes('a'))
    made.store(entry('b', 2), sizes('b'))
    expect(made.evict(5 * 1024, () => true)).toEqual({ evicted: 0, overBudget: true })
    expect(made.totals().cached).toBe(2)
  })

  it('counts what its folder holds on disk', () => {
    const made = cache()
    made.store(entry('a', 1), sizes('a'))
    expect(made.diskBytes()).toBeGreaterThan(10 * 1024)
    expect(existsSync(join(made.folder, 'index.db'))).toBe(true)
  })

  it('opens a cache an earlier version made, its gallery pictures kept and checked once more', () => {
    const folder = mkdtempSync(join(tmpdir(), 'satchel-pictures-'))
    folders.push(folder)
    const cacheFolder = join(folder, 'main.images')
    mkdirSync(cacheFolder)
    const old = new BetterSqlite3(join(cacheFolder, 'index.db'))
    old.exec(`CREATE TABLE gallery_pictures (item_guid TEXT NOT NULL, position INTEGER NOT NULL, source_url TEXT NOT NULL,
      thumb TEXT NOT NULL, panel TEXT NOT NULL, bytes INTEGER NOT NULL, PRIMARY KEY (item_guid, position));
      INSERT INTO gallery_pictures VALUES ('a', 2, 'https://cdn.example/a.png?n=2', 'aa', 'bb', 10)`)
    old.close()
    const opened = new PictureCache(cacheFolder)
    caches.push(opened)
    expect(opened.galleryPictures('a')).toEqual([
      {
        position: 2,
        sourceUrl: 'https://cdn.example/a.png?n=2',
        thumb: 'aa',
        panel: 'bb',
        bytes: 10,
        etag: null,
        lastModified: null,
        itemVersion: null,
      },
    ])
    opened.storeGalleryPicture('a', 2, 'https://cdn.example/a.png?n=2', sizes('a2'), {
      etag: '"v2"',
      lastModified: null,
      itemVersion: 4,
    })
    opened.galleryPictureChecked('a', 2, 5)
    expect(opened.galleryPictures('a')[0]).toMatchObject({ etag: '"v2"', itemVersion: 5 })
  })
})
