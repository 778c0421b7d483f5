/**
 * `profiles remove` racing the processes that write the profile's database: an order queued in the
 * instant between remove's look at the outbox and its delete was committed into an unlinked file
 * and lost (3 of 16 runs), and a sync that ran through the delete reported ok for rows written
 * nowhere. Every test here runs `profiles remove` as a real process beside another writer.
 */
import { spawn } from 'node:child_process'
import {
  copyFileSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import BetterSqlite3 from 'better-sqlite3'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { closeDatabase, openDatabase, type Database } from '../../src/main/db/database'
import { createOrders } from '../../src/main/orders'
import { silentLogger, systemClock } from '../../src/main/ports'
import { cli, cliEntry, json, root, type Run } from '../support/cli'
import type { Orderable } from '../support/orderable'
import { unzipAll } from '../support/unzip'
import { folderWithProfileB } from '../support/profile-folder'
import { startOrdersHarness, type OrdersHarness } from './orders-support'
import { until } from '../support/until'
import { openLocalData } from '../../src/main/local/data'

let harness: OrdersHarness
let template: string
let orderable: Orderable
let scratch: string

beforeAll(async () => {
  harness = await startOrdersHarness()
  orderable = harness.orderable(2)
  await harness.core.close()
  template = join(harness.directory, 'synced-template.db')
  copyFileSync(harness.databasePath, template)
  scratch = mkdtempSync(join(tmpdir(), 'satchel-removal-'))
}, 120_000)

afterAll(async () => {
  await harness.service.close().catch(() => undefined)
  rmSync(harness.directory, { recursive: true, force: true })
  rmSync(scratch, { recursive: true, force: true })
})

/** A data folder with Main and B, B holding a synced copy with nothing unsent. */
const folderWithB = () => folderWithProfileB(template, scratch)

/** Queues an order the way `order queue` does (the same desk, compose and commit), on `db`. */
function queueOn(db: Database): string {
  const { desk } = createOrders({
    db,
    local: openLocalData(db),
    clock: systemClock,
    logger: silentLogger,
    sender: async () => null,
    label: 'test writer',
    defaults: () => ({ remainInPreliminary: false }),
  })
  const order = desk.composeOrder(
    { customerGuid: orderable.customerGuid, catalogGuid: orderable.catalogGuid },
    orderable.skus.map((sku) => ({ sku, qty: 1 })),
  )
  const sending = order.prepareSend()
  sending.commit()
  return sending.entry.apiGuid
}

function outboxGuids(path: string): string[] {
  const db = new BetterSqlite3(path, { readonly: true })
  try {
    return db.prepare<[], string>('SELECT api_guid FROM outbox').pluck().all()
  } finally {
    db.close()
  }
}

/** Starts the CLI as its own process; `done` settles with how it ended. */
function startCli(args: string[], env: Record<string, string>): { pid: number; done: Promise<Run> } {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('SATCHEL_')))
  const child = spawn(process.execPath, [cliEntry, ...args], {
    cwd: root,
    env: { ...clean, ...env },
  })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  const done = new Promise<Run>((resolve) => child.on('close', (code) => resolve({ code: code ?? 1, stdout, stderr })))
  return { pid: child.pid!, done }
}

/** Whether process `pid` has `path` open: it has reached the database. */
function hasOpen(pid: number, path: string): boolean {
  try {
    return readdirSync(`/proc/${pid}/fd`).some((fd) => {
      try {
        return readlinkSync(`/proc/${pid}/fd/${fd}`) === path
      } catch {
        return false
      }
    })
  } catch {
    return false
  }
}

describe('profiles remove against a process writing the profile', () => {
  it('a queue committing while remove looks: the order is counted and remove refused, or the queue is refused; never queued into a deleted file', async () => {
    const { bDb, env } = folderWithB()
    const writer = openDatabase(bDb)
    // Another process holds SQLite's write lock (a commit of its own under way) when remove reaches the database.
    const other = new BetterSqlite3(bDb)
    let exited = false
    try {
      const { desk } = createOrders({
        db: writer,
        local: openLocalData(writer),
        clock: systemClock,
        logger: silentLogger,
        sender: async () => null,
        label: 'test writer',
        defaults: () => ({ remainInPreliminary: false }),
      })
      const sending = desk
        .composeOrder(
          { customerGuid: orderable.customerGuid, catalogGuid: orderable.catalogGuid },
          orderable.skus.map((sku) => ({ sku, qty: 1 })),
        )
        .prepareSend()
      other.exec('BEGIN IMMEDIATE')
      const remove = startCli(['profiles', 'remove', 'B', '--yes', '--json'], env)
      void remove.done.then(() => (exited = true))
      await until(() => hasOpen(remove.pid, bDb) || exited, 'remove to open the database, or exit', {
        timeoutMs: 30_000,
        everyMs: 10,
      })
      await new Promise((resolve) => setTimeout(resolve, 300))
      other.exec('COMMIT')
      // The order's commit, the instant the lock is free: before remove's look or after its fence.
      let refusal: unknown = null
      try {
        sending.commit()
      } catch (error) {
        refusal = error
      }
      const removed = await remove.done
      if (refusal === null) {
        expect(removed.code).toBe(1)
        expect(json(removed)).toMatchObject({
          error: { code: 'CONFLICT', message: expect.stringContaining('1 unsent order') },
          unsent: 1,
        })
        expect(existsSync(bDb)).toBe(true)
        expect(outboxGuids(bDb)).toContain(sending.entry.apiGuid)
      } else {
        expect(String(refusal)).toMatch(/profile was removed/)
        expect(removed.code).toBe(0)
        expect(existsSync(bDb)).toBe(false)
      }
    } finally {
      other.close()
      closeDatabase(writer)
    }
  }, 60_000)

  it('a process that had the database open before the remove writes nothing after it: its queue is refused, not reported queued', async () => {
    const { bDb, env } = folderWithB()
    const writer = openDatabase(bDb)
    try {
      const removed = await cli(['profiles', 'remove', 'B', '--yes', '--json'], env)
      expect(removed.code).toBe(0)
      expect(existsSync(bDb)).toBe(false)
      expect(() => queueOn(writer)).toThrow(/profile .*removed/i)
    } finally {
      closeDatabase(writer)
    }
  }, 60_000)

  it('is refused while a sync of the profile runs, and the sync goes on to write a file that is still there', async () => {
    const { bDb, env } = folderWithB()
    // One page held long while the sync holds its lease: remove comes in the middle of the run.
    harness.service.control.addFault({
      route: 'GET /v1/catalog/:catalogGuid/catalog_items',
      type: 'latency',
      ms: 6000,
      times: 1,
    })
    try {
      const sync = startCli(['sync', '--profile', 'B', '--full', '--json'], {
        ...env,
        SATCHEL_BASE_URL: harness.service.url,
        SATCHEL_API_KEY: harness.service.credentials.apiKey,
        SATCHEL_API_SECRET: harness.service.credentials.apiSecret,
      })
      await until(
        () => {
          if (!existsSync(bDb)) return false
          const db = new BetterSqlite3(bDb, { readonly: true })
          try {
            return db.prepare("SELECT 1 FROM leases WHERE name = 'sync'").get() !== undefined
          } catch {
            return false
          } finally {
            db.close()
          }
        },
        'the sync to hold its lease',
        { timeoutMs: 30_000, everyMs: 10 },
      )
      const removed = await cli(['profiles', 'remove', 'B', '--yes', '--json'], env)
      const synced = await sync.done
      expect(synced.code).toBe(0)
      expect(removed.code).toBe(1)
      expect(json(removed)).toMatchObject({ error: { code: 'CONFLICT', message: expect.stringMatching(/sync/) } })
      expect(existsSync(bDb)).toBe(true)
    } finally {
      harness.service.control.clearFaults()
    }
  }, 90_000)
})

describe('profiles remove racing order queue, both real processes', () => {
  it('never lets both succeed: either the order is in a file still listed, or the queue was refused', async () => {
    const file = join(scratch, 'order.json')
    writeFileSync(
      file,
      JSON.stringify({
        customerGuid: orderable.customerGuid,
        catalogGuid: orderable.catalogGuid,
        lines: orderable.skus.map((sku) => ({ sku, qty: 1 })),
      }),
    )
    const outcomes: string[] = []
    for (const delayMs of [0, 150, 300, 450, 600, 900]) {
      const { bDb, env } = folderWithB()
      const queue = startCli(['order', 'queue', '--file', file, '--profile', 'B', '--json'], env)
      await new Promise((resolve) => setTimeout(resolve, delayMs))
      const removed = await cli(['profiles', 'remove', 'B', '--yes', '--json'], env)
      const queued = await queue.done
      outcomes.push(`${delayMs} ms: queue ${queued.code}, remove ${removed.code}`)
      expect(queued.code === 0 && removed.code === 0, outcomes.join('; ')).toBe(false)
      if (queued.code === 0) {
        expect(existsSync(bDb)).toBe(true)
        expect(outboxGuids(bDb)).toContain((json(queued) as { apiGuid: string }).apiGuid)
      } else {
        expect(existsSync(bDb)).toBe(false)
        expect(queued.stderr).toMatch(/removed|No profile named 'B'|No Satchel database/)
      }
    }
  }, 180_000)
})

describe('a profiles list edited or cut short', () => {
  it('with two entries of one id, remove acts on neither and says which clash; the other profile keeps its unsent orders', async () => {
    const { dataDir, env } = folderWithB()
    const cDb = join(dataDir, 'profile-c.db')
    copyFileSync(template, cDb)
    const writer = openDatabase(cDb)
    const apiGuid = queueOn(writer)
    closeDatabase(writer)
    const profiles = [
      {
        id: 'main',
        name: 'Main',
        supplier: null,
        databaseFile: 'satchel.db',
        secretsNamespace: '',
        lastUsedAt: '2026-11-01T00:00:00.000Z',
      },
      {
        id: 'b',
        name: 'B',
        supplier: null,
        databaseFile: 'profile-b.db',
        secretsNamespace: 'profile-b:',
        lastUsedAt: null,
      },
      {
        id: 'b',
        name: 'C',
        supplier: null,
        databaseFile: 'profile-c.db',
        secretsNamespace: 'profile-b:',
        lastUsedAt: null,
      },
    ]
    writeFileSync(join(dataDir, 'profiles.json'), JSON.stringify({ version: 1, profiles }))
    const removed = await cli(['profiles', 'remove', 'B', '--yes', '--json'], env)
    expect(removed.code).toBe(1)
    expect(json(removed)).toMatchObject({
      error: { code: 'CONFLICT', message: expect.stringContaining("'B' and 'C' have the same id 'b'") },
    })
    expect(JSON.parse(readFileSync(join(dataDir, 'profiles.json'), 'utf8'))).toEqual({ version: 1, profiles })
    expect(outboxGuids(cDb)).toContain(apiGuid)
  }, 60_000)

  it('cut short, it still lets support-bundle describe every database in the folder, and says why', async () => {
    const { dataDir, env } = folderWithB()
    writeFileSync(join(dataDir, 'profiles.json'), '{"version":1,"profiles":[{"id":"main","name":"Ma')
    const status = await cli(['status', '--json'], env)
    expect(status.code).toBe(1)
    expect(json(status)).toMatchObject({ error: { message: expect.stringContaining('satchel.db, profile-b.db') } })
    const out = join(dataDir, 'bundle.zip')
    const run = await cli(['support-bundle', '--out', out, '--logs', join(dataDir, 'no-logs'), '--json'], env)
    expect(run.code, run.stderr).toBe(0)
    const files = unzipAll(readFileSync(out))
    expect(files.get('profiles-list-problem.txt')).toMatch(/cannot be read: it is not valid JSON/)
    const listed = JSON.parse(files.get('profiles.json')!) as { name: string }[]
    expect(listed.map((profile) => profile.name)).toEqual(['Main', 'Recovered b'])
  }, 60_000)
})
