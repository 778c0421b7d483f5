import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { closeDatabase, openDatabase, type Database } from '../../../../src/main/db/database'
import { Lease } from '../../../../src/main/db/lease'
import { CoreError } from '../../../../src/main/errors'
import { systemClock } from '../../../../src/main/ports'
import { withSyncLease } from '../../../../src/main/sync/exclusive'

/** The app's sync and a CLI sync of one database are two connections here; the lease lives in SQLite. */
let directory: string
const open: Database[] = []
const connection = () => {
  const db = openDatabase(join(directory, 'satchel.db'))
  open.push(db)
  return db
}

beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), 'satchel-sync-lease-'))
})
afterEach(() => {
  for (const db of open.splice(0)) closeDatabase(db)
  rmSync(directory, { recursive: true, force: true })
})

describe('the sync lease', () => {
  it('leaves the renewal to the writer thread while it renews the lease, instead of waiting for its lock', async () => {
    // The renewal is a write on the window's connection: while the writer thread commits page after
    // page it waited for the write lock with the event loop blocked.
    const db = connection()
    const lease = new Lease(db, 'sync', { label: 'the Satchel app', clock: systemClock, ttlMs: 600 })
    let renewedHere = 0
    const stillHeld = lease.stillHeld.bind(lease)
    lease.stillHeld = () => (renewedHere++, stillHeld())
    const writerRenews = () =>
      db
        .prepare('UPDATE leases SET expires_at = ? WHERE name = ? AND owner = ?')
        .run(Date.now() + 600, 'sync', lease.owner)
    await withSyncLease(
      lease,
      async () => {
        for (let i = 0; i < 14; i++) {
          writerRenews()
          await new Promise((resolve) => setTimeout(resolve, 50))
        }
      },
      { waitMs: 0 },
    )
    expect(renewedHere).toBe(0)
    // Without the writer renewing it, the timer does.
    await withSyncLease(lease, () => new Promise((resolve) => setTimeout(resolve, 700)), { waitMs: 0 })
    expect(renewedHere).toBeGreaterThan(0)
  })

  it('refuses a second sync at once when told not to wait, naming who syncs', async () => {
    const app = new Lease(connection(), 'sync', { label: 'the Satchel app', clock: systemClock })
    const cli = new Lease(connection(), 'sync', { label: 'satchel (CLI)', clock: systemClock })
    let release!: () => void
    const running = withSyncLease(app, () => new Promise<string>((resolve) => (release = () => resolve('app done'))), {
      waitMs: 0,
    })
    const refused = withSyncLease(cli, async () => 'cli ran', { waitMs: 0 })
    await expect(refused).rejects.toThrow(CoreError)
    await expect(refused).rejects.toThrow(/the Satchel app \(pid \d+\) is syncing this database/)
    release()
    expect(await running).toBe('app done')
  })

  it('lets a waiting sync run once the other finishes, never both at once', async () => {
    const app = new Lease(connection(), 'sync', { label: 'the Satchel app', clock: systemClock })
    const cli = new Lease(connection(), 'sync', { label: 'satchel (CLI)', clock: systemClock })
    const events: string[] = []
    let release!: () => void
    const running = withSyncLease(
      app,
      async () => {
        events.push('app start')
        await new Promise<void>((resolve) => (release = resolve))
        events.push('app end')
      },
      { waitMs: 0 },
    )
    const waited: string[] = []
    const second = withSyncLease(
      cli,
      async () => {
        events.push('cli start')
      },
      { waitMs: 10_000, onWait: (holder) => waited.push(holder.label) },
    )
    await new Promise((resolve) => setTimeout(resolve, 300))
    expect(events).toEqual(['app start'])
    expect(waited).toEqual(['the Satchel app'])
    release()
    await Promise.all([running, second])
    expect(events).toEqual(['app start', 'app end', 'cli start'])
  })

  it('gives the lease back when the run fails, so the next sync need not wait for it to expire', async () => {
    const db = connection()
    const app = new Lease(db, 'sync', { label: 'the Satchel app', clock: systemClock })
    await expect(withSyncLease(app, async () => Promise.reject(new Error('offline')), { waitMs: 0 })).rejects.toThrow(
      'offline',
    )
    expect(new Lease(connection(), 'sync', { label: 'satchel (CLI)', clock: systemClock }).holder()).toBeNull()
  })
})
