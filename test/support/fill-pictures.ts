/**
 * A picture cache filled for every live item at once, as a rep's laptop has it after days of passes:
 * a few real pictures (the double's, downscaled by the app's codec) shared among all items, so 100,000
 * items cost seconds here instead of the hours of fetching that filled them. The index rows are
 * written in one transaction, beside the cache's own (pictures/cache.ts) schema and files.
 */
import BetterSqlite3 from 'better-sqlite3'
import { join } from 'node:path'
import { PictureCache, picturesFolder } from '../../src/main/pictures'
import { createSharpCodec } from '../../src/main/pictures/sharp-codec'
import type { Database } from '../../src/main/db/database'
import { itemPng } from '../service/images'

export async function fillPictureCache(db: Database, databasePath: string, distinct = 16): Promise<number> {
  const folder = picturesFolder(databasePath)
  const cache = new PictureCache(folder)
  const codec = createSharpCodec()
  const pictures: { thumb: string; panel: string; bytes: number }[] = []
  for (let n = 0; n < distinct; n++) {
    const stored = cache.store(
      {
        itemGuid: `fill-${n}`,
        catalogGuid: 'fill',
        sourceUrl: null,
        itemVersion: null,
        etag: null,
        lastModified: null,
        usedAt: 0,
        failures: 0,
        retryAt: 0,
        lastError: null,
      },
      await codec.downscale(itemPng(`FILL-${n}`, 0), 'png'),
    )
    pictures.push({ thumb: stored.thumb!, panel: stored.panel!, bytes: stored.bytes })
  }
  cache.close()
  const items = db
    .prepare<[], { guid: string; catalogGuid: string; version: number }>(
      `SELECT guid, catalog_guid AS catalogGuid, version FROM catalog_item_rows
        WHERE deleted_at IS NULL AND unlisted_at IS NULL`,
    )
    .all()
  const index = new BetterSqlite3(join(folder, 'index.db'))
  const insert = index.prepare(
    `INSERT OR REPLACE INTO image_entries (item_guid, catalog_guid, source_url, item_version, thumb, panel, bytes, used_at)
      VALUES (?, ?, ?, ?, ?, ?, ?, 1)`,
  )
  index
    .transaction(() => {
      for (const [n, item] of items.entries()) {
        const picture = pictures[n % distinct]!
        insert.run(
          item.guid,
          item.catalogGuid,
          `https://pictures.example/${n}.png`,
          item.version,
          picture.thumb,
          picture.panel,
          picture.bytes,
        )
      }
      index.prepare(`DELETE FROM image_entries WHERE catalog_guid = 'fill'`).run()
    })
    .immediate()
  index.close()
  return items.length
}
