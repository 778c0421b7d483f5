/**
 * The remembered verdict on a damaged file (db/health.ts): kept beside the file for the file it
 * judged, forgotten when another file takes its place, deleted with the database. The CLI's story
 * around it is test/integration/cli-damaged-pages.test.ts.
 */
import {
  closeSync,
  copyFileSync,
  existsSync,
  mkdtempSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
  writeSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { closeDatabase, openDatabase } from '../../../../src/main/db/database'
import { isDamage, judgeFile, rememberedHealth, verdictFile } from '../../../../src/main/db/health'
import { DatabaseFileError } from '../../../../src/main/db/file-errors'
import { deleteDatabaseFiles } from '../../../../src/main/profiles/holdings'

const directory = mkdtempSync(join(tmpdir(), 'satchel-health-'))
afterAll(() => rmSync(directory, { recursive: true, force: true }))
let files = 0

/** A closed database whose drafts table's root page is overwritten, and a whole copy made before. */
function damagedAndWhole(): { damaged: string; whole: string } {
  const damaged = join(directory, `f${++files}.db`)
  const db = openDatabase(damaged)
  const pageSize = db.pragma('page_size', { simple: true }) as number
  const root = db.prepare<[], number>("SELECT rootpage FROM sqlite_master WHERE name = 'drafts'").pluck().get()!
  closeDatabase(db)
  const whole = `${damaged}.whole`
  copyFileSync(damaged, whole)
  const fd = openSync(damaged, 'r+')
  writeSync(fd, Buffer.alloc(pageSize, 0x5a), 0, pageSize, (root - 1) * pageSize)
  closeSync(fd)
  return { damaged, whole }
}

function judge(path: string) {
  const db = openDatabase(path, { readOnly: true })
  try {
    return judgeFile(db, path)
  } finally {
    closeDatabase(db)
  }
}

describe('the remembered verdict', () => {
  it('is kept beside a damaged file, and read back without looking at the pages', () => {
    const { damaged } = damagedAndWhole()
    expect(rememberedHealth(damaged)).toBeNull()
    expect(judge(damaged).damagedTables).toEqual(['drafts'])
    expect(existsSync(verdictFile(damaged))).toBe(true)
    expect(rememberedHealth(damaged)).toEqual({ damagedTables: ['drafts'] })
  })

  it('is not kept for a file found whole', () => {
    const { whole } = damagedAndWhole()
    expect(judge(whole).damagedTables).toEqual([])
    expect(existsSync(verdictFile(whole))).toBe(false)
  })

  it('is ignored and removed once another file takes the path (a new one synced in place of one moved aside)', () => {
    const { damaged, whole } = damagedAndWhole()
    judge(damaged)
    renameSync(damaged, `${damaged}.aside`)
    renameSync(whole, damaged)
    expect(rememberedHealth(damaged)).toBeNull()
    expect(existsSync(verdictFile(damaged))).toBe(false)
  })

  it('is ignored and removed when it cannot be read', () => {
    const { whole } = damagedAndWhole()
    writeFileSync(verdictFile(whole), '{"dev": 1')
    expect(rememberedHealth(whole)).toBeNull()
    expect(existsSync(verdictFile(whole))).toBe(false)
  })

  it('goes with the database when its files are deleted', () => {
    const { damaged } = damagedAndWhole()
    judge(damaged)
    expect(readFileSync(verdictFile(damaged), 'utf8')).toContain('drafts')
    deleteDatabaseFiles(damaged)
    expect(existsSync(damaged)).toBe(false)
    expect(existsSync(verdictFile(damaged))).toBe(false)
  })
})

describe('isDamage', () => {
  it("knows a damaged page under any of SQLite's names for it, and under the error openDatabase made of it", () => {
    const sqlite = (code: string) => Object.assign(new Error(code), { code })
    expect(isDamage(sqlite('SQLITE_CORRUPT'))).toBe(true)
    expect(isDamage(sqlite('SQLITE_CORRUPT_INDEX'))).toBe(true)
    expect(isDamage(sqlite('SQLITE_NOTADB'))).toBe(true)
    expect(isDamage(sqlite('SQLITE_FULL'))).toBe(false)
    const explained = new DatabaseFileError(
      '/x.db',
      { kind: 'notADatabase', reason: 'parts of it are damaged or missing' },
      'cli',
    )
    explained.cause = sqlite('SQLITE_CORRUPT')
    expect(isDamage(explained)).toBe(true)
  })
})
