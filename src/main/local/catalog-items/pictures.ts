/**
 * What the item pictures need of the catalog items: each item's version, its listing's image URL
 * where the listing sent one, and whether it is still live. Read from catalog_item_rows itself: the
 * catalog_items view would build every item's whole record to hand back one field of it.
 */
import type { Database, Statement } from 'better-sqlite3'

export interface PictureSourceRow {
  localId: number
  guid: string
  catalogGuid: string
  name: string
  /** The item's version (its updated_at in ms): a picture taken at another version is checked again. */
  version: number
  /** The listing's image URL, as sent (a field the lean row keeps in `extra`); null where there was none. */
  listingUrl: string | null
  live: boolean
}

type RawRow = Omit<PictureSourceRow, 'live' | 'listingUrl'> & { listingUrl: unknown; live: number }

// The listing's field, or the shapes the interface leaves open beside it (test/service/README.md).
const listingUrl = `coalesce(json_extract(extra, '$.image_url'), json_extract(extra, '$.imageUrl'), json_extract(extra, '$.image'))`
const columns = `local_id AS localId, guid, catalog_guid AS catalogGuid, name, version, ${listingUrl} AS listingUrl,
  (deleted_at IS NULL AND unlisted_at IS NULL) AS live`

function row(raw: RawRow): PictureSourceRow {
  return {
    ...raw,
    listingUrl: typeof raw.listingUrl === 'string' && raw.listingUrl.trim() !== '' ? raw.listingUrl.trim() : null,
    live: raw.live === 1,
  }
}

export class ItemPictureSources {
  private readonly byGuidStatement: Statement<[string], RawRow>
  private readonly pageStatement: Statement<[number, number], RawRow>
  private readonly liveStatement: Statement<[], number>

  constructor(db: Database) {
    this.byGuidStatement = db.prepare<[string], RawRow>(`SELECT ${columns} FROM catalog_item_rows WHERE guid = ?`)
    this.pageStatement = db.prepare<[number, number], RawRow>(
      `SELECT ${columns} FROM catalog_item_rows WHERE local_id > ? AND deleted_at IS NULL AND unlisted_at IS NULL
       ORDER BY local_id LIMIT ?`,
    )
    this.liveStatement = db
      .prepare<[], number>('SELECT count(*) FROM catalog_item_rows WHERE deleted_at IS NULL AND unlisted_at IS NULL')
      .pluck()
  }

  countLive(): number {
    return this.liveStatement.get() ?? 0
  }

  /** The item by its guid, live or not; undefined when the local copy has no such item at all. */
  byGuid(guid: string): PictureSourceRow | undefined {
    const raw = this.byGuidStatement.get(guid)
    return raw ? row(raw) : undefined
  }

  /** Live items after `afterLocalId`, in local_id order: the idle pass walks the catalog with it. */
  livePage(afterLocalId: number, limit: number): PictureSourceRow[] {
    return this.pageStatement.all(afterLocalId, limit).map(row)
  }
}
