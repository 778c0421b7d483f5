/**
 * The CLI on a full disk, as a user meets it: commands that only read still answer, and a command
 * that must write says the disk is full and what to do, never SQLite's "disk I/O error" as a bug.
 * Needs a small tmpfs to fill (mounting one needs root); skipped, saying why, where it cannot mount.
 */
import { execFileSync } from 'node:child_process'
import { closeSync, mkdtempSync, openSync, rmSync, statSync, unlinkSync, writeFileSync, writeSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { closeDatabase, openDatabase } from '../../src/main/db/database'
import { cli, json } from '../support/cli'

const mountPoint = mkdtempSync(join(tmpdir(), 'satchel-full-disk-'))
const scratch = mkdtempSync(join(tmpdir(), 'satchel-full-disk-files-'))

/** Mounts a 1 MB tmpfs, or says why it cannot. */
function mountSmallDisk(): string | null {
  if (process.platform !== 'linux') return 'a tmpfs to fill needs Linux'
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', mountPoint], { stdio: 'pipe' })
    return null
  } catch (error) {
    const said = (error as { stderr?: Buffer }).stderr?.toString().trim().split('\n')[0]
    return `cannot mount a tmpfs here (${said || (error instanceof Error ? error.message : String(error))}); mounting needs root`
  }
}
const cannotMount = mountSmallDisk()

/** Fills the disk to the last byte with one file. */
function fill(): void {
  const fd = openSync(join(mountPoint, 'filler'), 'w')
  try {
    for (const size of [65_536, 4096, 512, 1]) {
      const chunk = Buffer.alloc(size)
      for (;;) {
        try {
          writeSync(fd, chunk)
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code === 'ENOSPC') break
          throw error
        }
      }
    }
  } finally {
    closeSync(fd)
  }
}

const db = join(mountPoint, 'satchel.db')
const apiGuid = '3c9e8d7f-6a5b-4c4d-8e3f-2a1b0c9d8e7f'

beforeAll(() => {
  if (cannotMount) return
  const handle = openDatabase(db)
  try {
    const now = new Date().toISOString()
    handle
      .prepare(
        `INSERT INTO outbox (api_guid, state, customer_guid, customer_name, catalog_guid, rep_totals, queued_at, updated_at)
         VALUES (?, 'queued', NULL, 'Harbor Hardware', '11111111-1111-4111-8111-111111111111', '{"subTotal":1,"lineCount":1}', ?, ?)`,
      )
      .run(apiGuid, now, now)
  } finally {
    closeDatabase(handle)
  }
  fill()
})

afterAll(() => {
  if (!cannotMount) execFileSync('umount', [mountPoint])
  rmSync(mountPoint, { recursive: true, force: true })
  rmSync(scratch, { recursive: true, force: true })
})

describe.skipIf(cannotMount !== null)(
  cannotMount === null ? 'on a full disk' : `on a full disk (skipped: ${cannotMount})`,
  () => {
    it('status and outbox still read the database', async () => {
      const status = await cli(['status', '--db', db, '--json'])
      expect(status.stderr).toBe('')
      expect(status.code).toBe(0)
      expect(json(status)).toMatchObject({ counts: expect.any(Object), outbox: { queued: 1 } })
      const outbox = await cli(['outbox', '--db', db, '--json'])
      expect(outbox.code).toBe(0)
      expect(json(outbox)).toMatchObject({ entries: [{ apiGuid, state: 'queued' }] })
    })

    it('a command that writes says "disk full" and what to do (DISK_FULL), not SQLite’s words', async () => {
      const file = join(scratch, 'order.json')
      writeFileSync(
        file,
        JSON.stringify({
          customerGuid: '33333333-3333-4333-8333-333333333333',
          catalogGuid: '11111111-1111-4111-8111-111111111111',
          lines: [{ sku: 'X', qty: 1 }],
        }),
      )
      for (const args of [
        ['order', 'queue', '--file', file],
        ['sync', '--base-url', 'http://127.0.0.1:9', '--api-key', 'k', '--api-secret', 's'],
      ]) {
        const run = await cli([...args, '--db', db, '--json'])
        expect(run.code, args[0]).toBe(1)
        const { error } = json(run) as { error: { code: string; message: string } }
        expect(error.code, args[0]).toBe('DISK_FULL')
        expect(error.message).toContain('disk full')
        expect(error.message).toContain('Free some space')
        expect(error.message).not.toContain('disk I/O error')
        expect(run.stderr).toContain('disk full')
      }
    })

    it('with changes still in the -wal and no room for the -shm, a read says the disk is full and what to do', async () => {
      // A Satchel process killed mid-write leaves its -wal; without the -shm, SQLite must make one to read it.
      unlinkSync(join(mountPoint, 'filler'))
      const child = `const D = require('better-sqlite3'); const db = new D(${JSON.stringify(db)}); db.pragma('wal_autocheckpoint = 0');
      db.prepare("INSERT INTO settings (key, value) VALUES ('late', '1')").run(); process.kill(process.pid, 'SIGKILL')`
      try {
        execFileSync(process.execPath, ['-e', child], { cwd: join(__dirname, '../..'), stdio: 'pipe' })
      } catch {
        // Killed, as meant.
      }
      expect(statSync(`${db}-wal`).size).toBeGreaterThan(0)
      unlinkSync(`${db}-shm`)
      fill()
      const run = await cli(['status', '--db', db, '--json'])
      expect(run.code).toBe(1)
      const { error } = json(run) as { error: { code: string; message: string } }
      expect(error.code).toBe('DISK_FULL')
      expect(error.message).toMatch(/disk .*is full/)
      expect(error.message).toContain('Free some space')
      expect(error.message).not.toContain('disk I/O error')
    })
  },
)
