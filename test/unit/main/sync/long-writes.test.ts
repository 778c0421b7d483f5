/**
 * The rep's writes wait for the sync writer's long requests without holding the main process (issue
 * 28). At a million items the writer thread holds SQLite's write lock for seconds in one transaction
 * (an index built at a first sync's end, an index rebuilt by the catalog update); a draft saved
 * meanwhile waited in SQLite's busy handler, which sleeps on the main thread: the window stood still.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import BetterSqlite3 from 'better-sqlite3'
import { afterEach, describe, expect, it } from 'vitest'
import { call, createHandlerTable, writingMethods } from '../../../../src/main/core/handlers'
import { openDatabase, type Database } from '../../../../src/main/db/database'
import { silentLogger } from '../../../../src/main/ports'
import { LongWrites, trackingLongWrites } from '../../../../src/main/sync/long-writes'
import type { PageWriter } from '../../../../src/main/sync/page-writer'
import type { Implementations } from '../../../../src/shared/contract'

const directories: string[] = []
const open: Database[] = []
afterEach(() => {
  for (const db of open.splice(0)) if (db.open) db.close()
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true })
})

function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void; reject: (error: unknown) => void } {
  let resolve!: (value: T) => void
  let reject!: (error: unknown) => void
  const promise = new Promise<T>((yes, no) => {
    resolve = yes
    reject = no
  })
  return { promise, resolve, reject }
}

/** Whether `promise` has settled after the microtasks and immediates queued so far have run. */
async function settledYet(promise: Promise<unknown>): Promise<boolean> {
  let settled = false
  void promise.then(
    () => (settled = true),
    () => (settled = true),
  )
  await new Promise((resolve) => setImmediate(resolve))
  return settled
}

describe('the long requests in flight', () => {
  it('settles at once when none is, and after every one, those begun meanwhile and those that failed included', async () => {
    const longWrites = new LongWrites()
    expect(await settledYet(longWrites.settled())).toBe(true)
    const first = deferred()
    const second = deferred()
    void longWrites.track(first.promise)
    const waiting = longWrites.settled()
    first.resolve()
    void longWrites.track(second.promise).catch(() => undefined)
    expect(await settledYet(waiting)).toBe(false)
    second.reject(new Error('the writer thread ended'))
    expect(await settledYet(waiting)).toBe(true)
    expect(await settledYet(longWrites.settled())).toBe(true)
  })

  it("tracks the writer's index builds, recount and catalog update slices, not its pages, counts or checkpoints", async () => {
    const longWrites = new LongWrites()
    const pending = deferred()
    const calls: string[] = []
    const answer = (name: string) => () => {
      calls.push(name)
      return pending.promise as Promise<never>
    }
    const fake = {
      onThisThread: false,
      applyCatalogItems: answer('applyCatalogItems'),
      applyCustomers: answer('applyCustomers'),
      applyOrders: answer('applyOrders'),
      finishBulk: answer('finishBulk'),
      recountItems: answer('recountItems'),
      countRows: answer('countRows'),
      checkpoint: answer('checkpoint'),
      catalogUpdateSlice: answer('catalogUpdateSlice'),
      close: answer('close'),
      reader: null,
      applyHeld: answer('applyHeld'),
      discardHeld: () => {},
    } satisfies PageWriter
    const writer = trackingLongWrites(fake, longWrites)
    const context = { listingId: null, serverTime: null }
    void writer.applyCatalogItems('cat-a', [], context)
    void writer.applyCustomers([], context)
    void writer.applyOrders([], context)
    void writer.countRows('catalogItems', 'cat-a', null)
    void writer.checkpoint()
    expect(await settledYet(longWrites.settled())).toBe(true)
    // Each long request on a tracker of its own, so each is seen in flight by itself.
    const trackers: LongWrites[] = []
    for (const ask of [
      (w: PageWriter) => w.finishBulk(),
      (w: PageWriter) => w.recountItems(['cat-a']),
      (w: PageWriter) => w.catalogUpdateSlice(),
    ]) {
      const tracker = new LongWrites()
      trackers.push(tracker)
      void ask(trackingLongWrites(fake, tracker))
      expect(await settledYet(tracker.settled())).toBe(false)
    }
    expect(calls).toEqual([
      'applyCatalogItems',
      'applyCustomers',
      'applyOrders',
      'countRows',
      'checkpoint',
      'finishBulk',
      'recountItems',
      'catalogUpdateSlice',
    ])
    const waiting = Promise.all(trackers.map((tracker) => tracker.settled()))
    expect(await settledYet(waiting)).toBe(false)
    pending.resolve()
    expect(await settledYet(waiting)).toBe(true)
  })
})

describe("a rep's write while the writer holds the write lock", () => {
  /**
   * A database file the "writer thread" (a second connection) holds the write lock of, for as long
   * as its long request is in flight; and a handler table whose updateSettings and listCatalogs
   * write and read that file on the window's connection.
   */
  function setUp(gated: boolean) {
    const directory = mkdtempSync(join(tmpdir(), 'satchel-long-writes-'))
    directories.push(directory)
    const path = join(directory, 'satchel.db')
    const db = openDatabase(path)
    open.push(db)
    db.exec('CREATE TABLE notes (text TEXT NOT NULL) STRICT')
    const writerThread = new BetterSqlite3(path)
    open.push(writerThread)
    writerThread.pragma('busy_timeout = 5000')
    const longWrites = new LongWrites()
    const implementations = {
      updateSettings: () => {
        db.prepare("INSERT INTO notes (text) VALUES ('a setting')").run()
        return { saved: true }
      },
      listCatalogs: () => db.prepare('SELECT count(*) AS n FROM notes').get(),
    } as unknown as Implementations
    const table = createHandlerTable(
      implementations,
      silentLogger,
      undefined,
      gated ? () => longWrites.settled() : undefined,
    )
    /** The writer's long request: holds the lock `ms`, then commits and answers. */
    const longRequest = (ms: number): Promise<void> => {
      writerThread.exec('BEGIN IMMEDIATE')
      writerThread.exec("INSERT INTO notes (text) VALUES ('an index build')")
      return longWrites.track(
        new Promise<void>((resolve) =>
          setTimeout(() => {
            writerThread.exec('COMMIT')
            resolve()
          }, ms),
        ),
      )
    }
    return { db, table, longRequest }
  }

  /** How many 10 ms ticks of the event loop ran while `work` did. */
  async function ticksDuring(work: () => Promise<unknown>): Promise<{ ticks: number; result: unknown }> {
    let ticks = 0
    const ticker = setInterval(() => ticks++, 10)
    try {
      const result = await work()
      return { ticks, result }
    } finally {
      clearInterval(ticker)
    }
  }

  it('waits without holding the main thread, and lands once the request is answered', async () => {
    const { db, table, longRequest } = setUp(true)
    const request = longRequest(400)
    const { ticks, result } = await ticksDuring(async () => {
      // The timers of the event loop, answered meanwhile: the write is not running in the busy handler.
      const read = await call(table, 'listCatalogs')
      expect(read).toMatchObject({ ok: true, value: { n: 0 } })
      return call(table, 'updateSettings', { syncIntervalMinutes: 30 })
    })
    await request
    expect(result).toMatchObject({ ok: true })
    expect(ticks).toBeGreaterThan(10)
    expect(db.prepare<[], string>('SELECT text FROM notes ORDER BY rowid').pluck().all()).toEqual([
      'an index build',
      'a setting',
    ])
  })

  it('would otherwise wait in SQLite, the main thread held for the whole request', async () => {
    const { db, table, longRequest } = setUp(false)
    db.pragma('busy_timeout = 1000')
    const request = longRequest(400)
    // The write sleeps in SQLite's busy handler on this thread, so the timer that would commit the
    // writer's transaction cannot fire: it gives up after the busy timeout, no tick between.
    const { ticks, result } = await ticksDuring(() => call(table, 'updateSettings', { syncIntervalMinutes: 30 }))
    await request
    expect(result).toMatchObject({ ok: false, error: { code: 'INTERNAL' } })
    expect(ticks).toBeLessThanOrEqual(1)
  })

  it('lists only methods of the contract, the rep’s own writes among them', () => {
    for (const method of [
      'createDraft',
      'updateDraft',
      'addDraftLines',
      'sendDraft',
      'editOutboxEntry',
      'updateQuote',
      'updateSettings',
    ] as const) {
      expect(writingMethods.has(method), method).toBe(true)
    }
    for (const method of [
      'searchCatalogItems',
      'countCatalogItems',
      'listCatalogs',
      'getDraft',
      'listOutbox',
    ] as const) {
      expect(writingMethods.has(method), method).toBe(false)
    }
  })
})
