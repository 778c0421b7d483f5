/**
 * Schema 25: the picture budget's setting takes the pictures' name. A rep's budget set before it is
 * the budget after it; a laptop that never set one keeps the default.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { closeDatabase, openDatabase } from '../../../../src/main/db/database'
import { migrations } from '../../../../src/main/db/migrations'
import { AppSettings } from '../../../../src/main/settings/app-settings'

const directories: string[] = []
afterEach(() => {
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true })
})

function databaseAt24(budget?: number): string {
  const directory = mkdtempSync(join(tmpdir(), 'satchel-m25-'))
  directories.push(directory)
  const path = join(directory, 'satchel.db')
  const before = openDatabase(path, { migrations: migrations.slice(0, 24) })
  if (budget !== undefined)
    before.prepare("INSERT INTO settings (key, value) VALUES ('imageBudgetMB', ?)").run(JSON.stringify(budget))
  closeDatabase(before)
  return path
}

describe('migration 25, the picture budget setting', () => {
  it('keeps the budget the rep set under its old name', () => {
    const db = openDatabase(databaseAt24(300))
    expect(new AppSettings(db).get().pictureBudgetMB).toBe(300)
    expect(db.prepare("SELECT count(*) FROM settings WHERE key = 'imageBudgetMB'").pluck().get()).toBe(0)
    closeDatabase(db)
  })

  it('leaves the default where none was set', () => {
    const db = openDatabase(databaseAt24())
    expect(new AppSettings(db).get().pictureBudgetMB).toBe(1024)
    closeDatabase(db)
  })
})
