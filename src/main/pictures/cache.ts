/**
 * The picture cache of one profile, in a folder beside its database (`<profile>.images/`): the
 * downscaled pictures as files named by their content's hash (an item that shares its picture with
 * another shares the file), and an index of its own, a small SQLite file there. The index is not in
 * the profile's database: the pictures are a copy that can always be made again, so the database
 * needs no migration for them, the support bundle never carries them, and deleting the folder is a
 * whole, safe reset.
 */
import BetterSqlite3, { type Database, type Statement } from 'better-sqlite3'
import { createHash } from 'node:crypto'
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import type { PictureSize } from '../../shared/pictures'
import type { Downscaled } from './codec'

/** The default byte budget: a thumbnail and a panel picture are ~40 KB, so about 25,000 items. */
export const defaultBudgetMB = 1024

/** Where a profile's pictures go: `main.db` keeps them in `main.images/`. */
export function picturesFolder(databasePath: string): string {
  return databasePath.replace(/\.(db|sqlite3?)$/i, '') + '.images'
}

export interface PictureEntry {
  itemGuid: string
  catalogGuid: string
  sourceUrl: string | null
  /** The item's version when its picture was last checked (or its source read). */
  itemVersion: number | null
  etag: string | null
  lastModified: string | null
  thumb: string | null
  panel: string | null
  bytes: number
  usedAt: number
  failures: number
  retryAt: number
  lastError: string | null
}

interface CacheTotals {
  /** Items the index knows (with a picture, without one, or failed). */
  entries: number
  cached: number
  bytes: number
  failed: number
  /** The most one item's pictures (thumbnail and panel) take. */
  largest: number
}

const schema = `
  CREATE TABLE IF NOT EXISTS image_entries (
    item_guid TEXT PRIMARY KEY,
    catalog_guid TEXT NOT NULL,
    source_url TEXT,
    item_version INTEGER,
    etag TEXT,
    last_modified TEXT,
    thumb TEXT,
    panel TEXT,
    bytes INTEGER NOT NULL DEFAULT 0,
    used_at INTEGER NOT NULL DEFAULT 0,
    failures INTEGER NOT NULL DEFAULT 0,
    retry_at INTEGER NOT NULL DEFAULT 0,
    last_error TEXT
  );
  CREATE INDEX IF NOT EXISTS image_entries_by_use ON image_entries (used_at) WHERE thumb IS NOT NULL;
  -- Whether another item still shows a file, asked each time an item lets one go.
  CREATE INDEX IF NOT EXISTS image_entries_by_thumb ON image_entries (thumb) WHERE thumb IS NOT NULL;
  CREATE INDEX IF NOT EXISTS image_entries_by_panel ON image_entries (panel) WHERE panel IS NOT NULL;
  -- The panel's gallery: the addresses of an item's pictures as its single read gave them at a
  -- version (the primary first), and the pictures after the primary, fetched when the panel opened.
  CREATE TABLE IF NOT EXISTS galleries (
    item_guid TEXT PRIMARY KEY,
    item_version INTEGER,
    addresses TEXT NOT NULL
  );
  CREATE TABLE IF NOT EXISTS gallery_pictures (
    item_guid TEXT NOT NULL,
    position INTEGER NOT NULL,
    source_url TEXT NOT NULL,
    thumb TEXT NOT NULL,
    panel TEXT NOT NULL,
    bytes INTEGER NOT NULL,
    etag TEXT,
    last_modified TEXT,
    item_version INTEGER,
    PRIMARY KEY (item_guid, position)
  );
  CREATE INDEX IF NOT EXISTS gallery_pictures_by_thumb ON gallery_pictures (thumb);
  CREATE INDEX IF NOT EXISTS gallery_pictures_by_panel ON gallery_pictures (panel);
`

/** One of the gallery's pictures after the primary (positions 2 to 12). */
interface GalleryPicture extends PictureValidators {
  position: number
  sourceUrl: string
  thumb: string
  panel: string
  bytes: number
}

/** What asks the picture's host again without its bytes, and the item's version it was last checked at. */
interface PictureValidators {
  etag: string | null
  lastModified: string | null
  itemVersion: number | null
}

/** Columns a cache made by an earlier version lacks: added, empty, so its pictures are checked once more. */
const addedColumns: [table: string, column: string, type: string][] = [
  ['gallery_pictures', 'etag', 'TEXT'],
  ['gallery_pictures', 'last_modified', 'TEXT'],
  ['gallery_pictures', 'item_version', 'INTEGER'],
]

const columns = `item_guid AS itemGuid, catalog_guid AS catalogGuid, source_url AS sourceUrl, item_version AS itemVersion,
  etag, last_modified AS lastModified, thumb, panel, bytes, used_at AS usedAt, failures, retry_at AS retryAt, last_error AS lastError`

/** The index, opened and with its tables: what a damaged file fails at first. */
function openIndex(path: string, nativeBinding: string | undefined): Database {
  const db = new BetterSqlite3(path, nativeBinding ? { nativeBinding } : {})
  try {
    db.pragma('journal_mode = WAL')
    db.pragma('busy_timeout = 5000')
    db.exec(schema)
    return db
  } catch (error) {
    db.close()
    throw error
  }
}

/** SQLite's word that the file is not a database, or is one with damaged pages. */
function isDamage(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code
  return typeof code === 'string' && (code === 'SQLITE_NOTADB' || code.startsWith('SQLITE_CORRUPT'))
}

export class PictureCache {
  readonly folder: string
  private readonly db: Database
  private readonly statements: {
    get: Statement<[string], PictureEntry>
    upsert: Statement<Record<string, unknown>>
    touch: Statement<[number, string]>
    totals: Statement<[], CacheTotals & { galleryBytes: number }>
    oldest: Statement<[number, string, number], PictureEntry>
    hashUsers: Statement<{ hash: string }, number>
    remove: Statement<[string]>
    guidsAfter: Statement<[string, number], string>
    gallery: Statement<[string], { itemVersion: number | null; addresses: string }>
    saveGallery: Statement<[string, number, string]>
    galleryPictures: Statement<[string], GalleryPicture>
    saveGalleryPicture: Statement<Record<string, unknown>>
    galleryPictureChecked: Statement<[number | null, string, number]>
    dropGallery: Statement<[string]>
    dropGalleryPictures: Statement<[string]>
  }

  /**
   * Where a damaged index was set aside when this cache was opened, or null: the cache started again
   * empty, and whoever opened it says so (it is the cache, never the profile's database).
   */
  readonly damagedIndexAside: string | null = null

  constructor(folder: string, options: { nativeBinding?: string } = {}) {
    this.folder = folder
    mkdirSync(join(folder, 'files'), { recursive: true, mode: 0o700 })
    const index = join(folder, 'index.db')
    let db: Database
    try {
      db = openIndex(index, options.nativeBinding)
    } catch (error) {
      if (!isDamage(error)) throw error
      // A copy that can always be made again: set aside (support may want it) and started afresh.
      // Its files go with it, since nothing would ever evict what no index lists.
      this.damagedIndexAside = `${index}.damaged-${new Date().toISOString().replace(/[:.]/g, '-')}`
      renameSync(index, this.damagedIndexAside)
      for (const extra of ['-wal', '-shm']) rmSync(`${index}${extra}`, { force: true })
      rmSync(join(folder, 'files'), { recursive: true, force: true })
      mkdirSync(join(folder, 'files'), { recursive: true, mode: 0o700 })
      db = openIndex(index, options.nativeBinding)
    }
    this.db = db
    const columnsOf = new Map<string, Set<string>>()
    for (const [table, column, type] of addedColumns) {
      if (!columnsOf.has(table))
        columnsOf.set(
          table,
          new Set(
            this.db
              .prepare<[], { name: string }>(`PRAGMA table_info(${table})`)
              .all()
              .map((each) => each.name),
          ),
        )
      if (!columnsOf.get(table)!.has(column)) this.db.exec(`ALTER TABLE ${table} ADD COLUMN ${column} ${type}`)
    }
    this.statements = {
      get: this.db.prepare<[string], PictureEntry>(`SELECT ${columns} FROM image_entries WHERE item_guid = ?`),
      upsert: this.db.prepare<
        Record<string, unknown>
      >(`INSERT INTO image_entries (item_guid, catalog_guid, source_url, item_version, etag,
          last_modified, thumb, panel, bytes, used_at, failures, retry_at, last_error)
        VALUES (@itemGuid, @catalogGuid, @sourceUrl, @itemVersion, @etag, @lastModified, @thumb, @panel, @bytes, @usedAt,
          @failures, @retryAt, @lastError)
        ON CONFLICT (item_guid) DO UPDATE SET catalog_guid = excluded.catalog_guid, source_url = excluded.source_url,
          item_version = excluded.item_version, etag = excluded.etag, last_modified = excluded.last_modified,
          thumb = excluded.thumb, panel = excluded.panel, bytes = excluded.bytes, used_at = excluded.used_at,
          failures = excluded.failures, retry_at = excluded.retry_at, last_error = excluded.last_error`),
      touch: this.db.prepare<[number, string]>(
        'UPDATE image_entries SET used_at = ? WHERE item_guid = ? AND thumb IS NOT NULL',
      ),
      totals: this.db.prepare<
        [],
        CacheTotals & { galleryBytes: number }
      >(`SELECT count(*) AS entries, count(thumb) AS cached, coalesce(sum(bytes), 0) AS bytes,
          count(CASE WHEN thumb IS NULL AND failures > 0 THEN 1 END) AS failed, coalesce(max(bytes), 0) AS largest,
          (SELECT coalesce(sum(bytes), 0) FROM gallery_pictures) AS galleryBytes FROM image_entries`),
      oldest: this.db.prepare<[number, string, number], PictureEntry>(
        `SELECT ${columns} FROM image_entries WHERE thumb IS NOT NULL AND (used_at, item_guid) > (?, ?) ORDER BY used_at, item_guid LIMIT ?`,
      ),
      hashUsers: this.db
        .prepare<{ hash: string }, number>(
          `SELECT (SELECT count(*) FROM image_entries WHERE thumb = @hash OR panel = @hash)
            + (SELECT count(*) FROM gallery_pictures WHERE thumb = @hash OR panel = @hash)`,
        )
        .pluck(),
      remove: this.db.prepare<[string]>('DELETE FROM image_entries WHERE item_guid = ?'),
      guidsAfter: this.db
        .prepare<[string, number], string>(
          'SELECT item_guid FROM image_entries WHERE item_guid > ? ORDER BY item_guid LIMIT ?',
        )
        .pluck(),
      gallery: this.db.prepare(`SELECT item_version AS itemVersion, addresses FROM galleries WHERE item_guid = ?`),
      saveGallery: this.db.prepare(
        `INSERT INTO galleries (item_guid, item_version, addresses) VALUES (?, ?, ?)
          ON CONFLICT (item_guid) DO UPDATE SET item_version = excluded.item_version, addresses = excluded.addresses`,
      ),
      galleryPictures: this.db.prepare(
        `SELECT position, source_url AS sourceUrl, thumb, panel, bytes, etag, last_modified AS lastModified,
          item_version AS itemVersion FROM gallery_pictures WHERE item_guid = ? ORDER BY position`,
      ),
      saveGalleryPicture: this.db.prepare(
        `INSERT INTO gallery_pictures (item_guid, position, source_url, thumb, panel, bytes, etag, last_modified, item_version)
          VALUES (@itemGuid, @position, @sourceUrl, @thumb, @panel, @bytes, @etag, @lastModified, @itemVersion)
          ON CONFLICT (item_guid, position) DO UPDATE SET source_url = excluded.source_url, thumb = excluded.thumb,
            panel = excluded.panel, bytes = excluded.bytes, etag = excluded.etag, last_modified = excluded.last_modified,
            item_version = excluded.item_version`,
      ),
      galleryPictureChecked: this.db.prepare(
        'UPDATE gallery_pictures SET item_version = ? WHERE item_guid = ? AND position = ?',
      ),
      dropGallery: this.db.prepare('DELETE FROM galleries WHERE item_guid = ?'),
      dropGalleryPictures: this.db.prepare('DELETE FROM gallery_pictures WHERE item_guid = ?'),
    }
  }

  get(itemGuid: string): PictureEntry | undefined {
    return this.statements.get.get(itemGuid)
  }

  /** Writes the entry as given (a failure, a source read, a 304's new version). */
  save(entry: PictureEntry): void {
    this.statements.upsert.run({ ...entry })
  }

  /**
   * Stores both sizes of a new picture and points the item at them; the files the item showed before
   * go when no other item shows them. Files are written (under a temporary name, then renamed) before
   * the index names them, so a crash leaves at worst an unnamed file, never a name without a file.
   */
  store(entry: Omit<PictureEntry, 'thumb' | 'panel' | 'bytes'>, pictures: Downscaled): PictureEntry {
    const thumb = this.writeFile(pictures.thumb)
    const panel = this.writeFile(pictures.panel)
    const before = this.get(entry.itemGuid)
    const stored: PictureEntry = { ...entry, thumb, panel, bytes: pictures.thumb.length + pictures.panel.length }
    this.save(stored)
    if (before) this.dropFilesOf(before)
    return stored
  }

  /** The picture's bytes for the protocol, or null when it is not in the cache; a read counts as a use. */
  read(itemGuid: string, size: PictureSize, now: number, position = 1): Buffer | null {
    const entry =
      position === 1 ? this.get(itemGuid) : this.galleryPictures(itemGuid).find((each) => each.position === position)
    const hash = entry ? (size === 'thumb' ? entry.thumb : entry.panel) : null
    if (!hash) return null
    try {
      const bytes = readFileSync(this.pathOf(hash))
      this.statements.touch.run(now, itemGuid)
      return bytes
    } catch {
      return null
    }
  }

  /** The item's pictures are deleted with its entry (a deleted item, a picture evicted). */
  forget(itemGuid: string): void {
    this.dropGallery(itemGuid)
    this.statements.dropGallery.run(itemGuid)
    const entry = this.get(itemGuid)
    if (!entry) return
    this.statements.remove.run(itemGuid)
    this.dropFilesOf(entry)
  }

  /** Keeps the entry (its source, failures) but lets its pictures go, its gallery's with them: eviction. Returns the bytes freed. */
  evictPictures(entry: PictureEntry): number {
    this.save({ ...entry, thumb: null, panel: null, bytes: 0, etag: null, lastModified: null })
    this.dropFilesOf(entry)
    return entry.bytes + this.dropGallery(entry.itemGuid)
  }

  /** The addresses of the item's pictures as its single read gave them, and at which version. */
  gallery(itemGuid: string): { itemVersion: number | null; addresses: string[] } | undefined {
    const row = this.statements.gallery.get(itemGuid)
    return row ? { itemVersion: row.itemVersion, addresses: JSON.parse(row.addresses) as string[] } : undefined
  }

  saveGallery(itemGuid: string, itemVersion: number, addresses: string[]): void {
    this.statements.saveGallery.run(itemGuid, itemVersion, JSON.stringify(addresses))
  }

  galleryPictures(itemGuid: string): GalleryPicture[] {
    return this.statements.galleryPictures.all(itemGuid)
  }

  /** Stores a gallery picture after the primary; the files it replaces go when nothing else shows them. */
  storeGalleryPicture(
    itemGuid: string,
    position: number,
    sourceUrl: string,
    pictures: Downscaled,
    validators: PictureValidators,
  ): void {
    const before = this.galleryPictures(itemGuid).find((each) => each.position === position)
    const thumb = this.writeFile(pictures.thumb)
    const panel = this.writeFile(pictures.panel)
    const bytes = pictures.thumb.length + pictures.panel.length
    this.statements.saveGalleryPicture.run({ itemGuid, position, sourceUrl, thumb, panel, bytes, ...validators })
    if (before) this.dropFiles([before.thumb, before.panel])
  }

  /** The host said the gallery picture is unchanged (a 304) at this version of the item. */
  galleryPictureChecked(itemGuid: string, position: number, itemVersion: number | null): void {
    this.statements.galleryPictureChecked.run(itemVersion, itemGuid, position)
  }

  totals(): CacheTotals {
    const { galleryBytes, ...totals } = this.statements.totals.get()!
    return { ...totals, bytes: totals.bytes + galleryBytes }
  }

  /**
   * Lets the least recently used pictures go until the cache is within `budgetBytes`, never one of an
   * item `isProtected` says the rep needs (a draft's, a quote's, the day's customers', a family on
   * screen). Returns how many went; the protected may leave the cache over budget, and that is told.
   */
  evict(budgetBytes: number, isProtected: (itemGuid: string) => boolean): { evicted: number; overBudget: boolean } {
    let { bytes } = this.totals()
    let evicted = 0
    let cursor = { usedAt: -1, guid: '' }
    while (bytes > budgetBytes) {
      const batch = this.statements.oldest.all(cursor.usedAt, cursor.guid, 200)
      if (batch.length === 0) break
      for (const entry of batch) {
        if (bytes <= budgetBytes) break
        cursor = { usedAt: entry.usedAt, guid: entry.itemGuid }
        if (isProtected(entry.itemGuid)) continue
        bytes -= this.evictPictures(entry)
        evicted++
      }
    }
    return { evicted, overBudget: bytes > budgetBytes }
  }

  /** Every entry's guid after `after`, in order: the idle pass frees those of deleted items. */
  guidsAfter(after: string, limit: number): string[] {
    return this.statements.guidsAfter.all(after, limit)
  }

  /** What the folder holds on disk (files and index), for the status and the bench. */
  diskBytes(): number {
    let total = 0
    const walk = (dir: string) => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        const path = join(dir, entry.name)
        if (entry.isDirectory()) walk(path)
        else total += statSync(path).size
      }
    }
    walk(this.folder)
    return total
  }

  close(): void {
    this.db.close()
  }

  private pathOf(hash: string): string {
    return join(this.folder, 'files', hash.slice(0, 2), `${hash}.webp`)
  }

  private writeFile(bytes: Buffer): string {
    const hash = createHash('sha256').update(bytes).digest('hex')
    const path = this.pathOf(hash)
    try {
      if (statSync(path).size === bytes.length) return hash
    } catch {
      // Not there yet.
    }
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 })
    const temporary = `${path}.${process.pid}.tmp`
    writeFileSync(temporary, bytes, { mode: 0o600 })
    renameSync(temporary, path)
    return hash
  }

  /** Lets the item's gallery pictures go (the addresses stay); returns their bytes. */
  private dropGallery(itemGuid: string): number {
    const pictures = this.galleryPictures(itemGuid)
    if (pictures.length === 0) return 0
    this.statements.dropGalleryPictures.run(itemGuid)
    this.dropFiles(pictures.flatMap((each) => [each.thumb, each.panel]))
    return pictures.reduce((sum, each) => sum + each.bytes, 0)
  }

  private dropFilesOf(entry: PictureEntry): void {
    this.dropFiles([entry.thumb, entry.panel])
  }

  private dropFiles(hashes: (string | null)[]): void {
    for (const hash of hashes) {
      if (!hash) continue
      if (this.statements.hashUsers.get({ hash })! > 0) continue
      rmSync(this.pathOf(hash), { force: true })
    }
  }
}
