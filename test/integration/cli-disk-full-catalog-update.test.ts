/**
 * A full disk during the catalog update an upgrade left (local/catalog-update-jobs.ts), which `sync` runs
 * first: DISK_FULL with the advice a full disk gets during a sync, saying what the update kept, not
 * INTERNAL. Needs a tmpfs sized to the database and a little room (mounting one needs root); skipped,
 * saying why, where it cannot mount.
 */
import { execFileSync } from 'node:child_process'
import { copyFileSync, mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { closeDatabase, openDatabase } from '../../src/main/db/database'
import { CatalogItemUpdate } from '../../src/main/local/catalog-items/catalog-update'
import { cli, json } from '../support/cli'
import { schema9Laptop, type Schema9Laptop } from '../support/upgraded-laptop'

const mountPoint = mkdtempSync(join(tmpdir(), 'satchel-full-update-'))
let mounted = false
let cannotMount: string | null = process.platform === 'linux' ? null : 'a tmpfs to fill needs Linux'
let laptop: Schema9Laptop | undefined
const db = join(mountPoint, 'satchel.db')

beforeAll(async () => {
  if (cannotMount) return
  laptop = await schema9Laptop({ size: 1500 })
  // Upgraded as a large catalog is: the items set aside for the catalog update, which has not run.
  closeDatabase(openDatabase(laptop.path, { largeCatalogItems: 500 }))
  // Room for the sync lease and a few of the update's slices, not for the whole copy.
  const size = Math.ceil(statSync(laptop.path).size / 4096) * 4096 + 1024 * 1024
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', mountPoint], { stdio: 'pipe' })
    mounted = true
  } catch (error) {
    const said = (error as { stderr?: Buffer }).stderr?.toString().trim().split('\n')[0]
    cannotMount = `cannot mount a tmpfs here (${said || (error instanceof Error ? error.message : String(error))}); mounting needs root`
    return
  }
  copyFileSync(laptop.path, db)
}, 120_000)

afterAll(async () => {
  if (mounted) execFileSync('umount', [mountPoint])
  rmSync(mountPoint, { recursive: true, force: true })
  await laptop?.close()
})

describe('a full disk during the catalog update', () => {
  it('sync says DISK_FULL, what to do and what the update kept; the rows copied before stay', async (context) => {
    if (cannotMount) context.skip(cannotMount)
    const run = await cli([
      'sync',
      '--db',
      db,
      '--base-url',
      'http://127.0.0.1:9',
      '--api-key',
      'k',
      '--api-secret',
      's',
      '--json',
    ])
    expect(run.code).toBe(1)
    const { error } = json(run) as { error: { code: string; message: string } }
    expect(error.code).toBe('DISK_FULL')
    expect(error.message).toContain('disk full')
    expect(error.message).toContain('Free some space')
    expect(error.message).not.toContain('nothing was written')
    expect(error.message).toMatch(/catalog update.* \d+ of \d+ items/)
    const handle = openDatabase(db, { readOnly: true, create: false })
    try {
      const { waiting, stored } = new CatalogItemUpdate(handle).rowsCounts()
      expect(stored).toBeGreaterThan(0)
      expect(waiting).toBeGreaterThan(0)
      expect(error.message).toContain(`${stored} of ${stored + waiting} items`)
    } finally {
      closeDatabase(handle)
    }
  })
})
