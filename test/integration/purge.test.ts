import { randomUUID } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it, onTestFinished } from 'vitest'
import { closeDatabase, openDatabase, type Database } from '../../src/main/db/database'
import { DraftRepository } from '../../src/main/orders/drafts'
import { Outbox } from '../../src/main/orders/outbox/outbox'
import type { Clock } from '../../src/main/ports'
import { localDay } from '../../src/main/quotes/desk'
import { QuoteRepository } from '../../src/main/quotes/repository'
import type { Draft } from '../../src/shared/orders'
import { startOrdersHarness, type OrdersHarness } from './orders-support'
import { emptyQuote } from '../support/quotes'
import { silentLogger, systemClock } from '../../src/main/ports'
import { Purge } from '../../src/main/housekeeping/purge'
import { sourcePurgeWorker, startPurgeThread } from '../../src/main/housekeeping/purge-slices'

let harness: OrdersHarness | undefined
afterEach(async () => {
  await harness?.close()
  harness = undefined
})

const day = 86_400_000
const month = 31 * day

/**
 * Writes rows as they would have been written at an earlier time: the repositories take the time
 * from their clock, so each fixture is made "then".
 */
class Then implements Clock {
  ms = Date.now()
  now() {
    return this.ms
  }
}

function fixtures(db: Database) {
  const then = new Then()
  const drafts = new DraftRepository(db, then)
  const outbox = new Outbox(db, drafts, then)
  const quotes = new QuoteRepository(db)
  const customerGuid = randomUUID()
  const catalogGuid = randomUUID()

  const draft = (agoMs: number): Draft => {
    then.ms = Date.now() - agoMs
    return drafts.create({
      customerGuid,
      catalogGuid,
      newCustomer: null,
      priceGroupGuid: null,
      poNo: '',
      note: '',
      shippingInstructions: '',
      shipTo: null,
      remainInPreliminary: false,
      lines: [],
      rejection: null,
    })
  }

  /** An outbox entry queued `agoMs` ago and left in `state`; returns its api_guid. */
  const entry = (
    agoMs: number,
    state: 'queued' | 'retrying' | 'needsAttention' | 'sent',
    from: Draft = draft(agoMs),
  ): string => {
    then.ms = Date.now() - agoMs
    outbox.enqueue(
      from,
      { vendorGuid: customerGuid, body: { order: { api_guid: from.apiGuid } } },
      { subTotal: 10, lineCount: 1 },
      'Harbor Hardware',
    )
    if (state === 'queued') return from.apiGuid
    const work = outbox.claimNext(then.ms)!
    expect(work.apiGuid).toBe(from.apiGuid)
    if (state === 'sent') {
      outbox.markSent(work, {
        orderGuid: randomUUID(),
        orderName: 'SO-1',
        orderStateId: 2,
        subTotal: 10,
        grandTotal: 10,
        createdCustomer: null,
      })
    } else if (state === 'retrying') {
      outbox.markRetrying(work, Date.now() + 365 * day, 'The ordering service could not be reached.', false)
    } else {
      outbox.markNeedsAttention(work, 'The supplier refused the order.', [])
    }
    return from.apiGuid
  }

  /** A quote whose validity ended `expiredDaysAgo` days ago (negative: still valid), converted into `draftId` or not. */
  const quote = (expiredDaysAgo: number, draftId: number | null = null): string => {
    const fields = emptyQuote({
      customerGuid,
      catalogGuid,
      validUntil: localDay(Date.now(), -expiredDaysAgo),
      convertedAt: draftId === null ? null : new Date().toISOString(),
      convertedDraftId: draftId,
    })
    return quotes.create(fields, new Date().toISOString()).number
  }

  return { draft, entry, quote }
}

const outboxGuids = (db: Database) => db.prepare<[], string>('SELECT api_guid FROM outbox ORDER BY id').pluck().all()
const payloadCount = (db: Database) => db.prepare<[], number>('SELECT count(*) FROM outbox_payloads').pluck().get()
const quoteNumbers = (db: Database) => db.prepare<[], string>('SELECT number FROM quotes ORDER BY id').pluck().all()
const draftIds = (db: Database) => db.prepare<[], number>('SELECT id FROM drafts ORDER BY id').pluck().all()
const syncedOrders = (db: Database) => db.prepare<[], number>('SELECT count(*) FROM orders').pluck().get()

/** The purge runs after a sync finishes; its record says it is done. */
async function syncAndPurge(h: OrdersHarness) {
  const report = await h.api('syncNow', {})
  expect(report.ok).toBe(true)
  for (let i = 0; i < 500; i++) {
    const info = await h.api('getAppInfo')
    if (info.database.lastPurge) return info.database
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  throw new Error('no purge was recorded after the sync')
}

describe('after a sync, what the retention settings no longer keep is purged, and nothing else', () => {
  it('with the defaults: sent orders past 24 months and quotes 90 days past their validity go; drafts, unsent orders and what a draft or kept quote needs stay', async () => {
    harness = await startOrdersHarness()
    const db = harness.core.db
    // The outbox would send the queued fixtures to the double: it is held, as after refused credentials.
    harness.core.orders.desk.outbox.pause('held by the test')
    const make = fixtures(db)

    const sentOld = make.entry(25 * month, 'sent')
    const sentNew = make.entry(23 * month, 'sent')
    const retryingOld = make.entry(30 * month, 'retrying')
    const refusedOld = make.entry(30 * month, 'needsAttention')

    const oldDraft = make.draft(30 * month)
    const expiredOld = make.quote(91)
    const expiredNew = make.quote(89)
    const stillValid = make.quote(-10)
    // Converted into a draft the rep has not sent: the draft links back to it.
    const convertedDraft = make.draft(100 * day)
    const expiredOldWithDraft = make.quote(120, convertedDraft.id)
    // Converted, and its draft sent long ago: nothing open needs the quote, and it takes its order with it.
    const sentFromOldQuote = make.draft(25 * month)
    const expiredOldSent = make.quote(200, sentFromOldQuote.id)
    const sentOldFromOldQuote = make.entry(25 * month, 'sent', sentFromOldQuote)
    // Converted, its draft sent long ago, and the quote still kept: its order stays with it.
    const sentFromKeptQuote = make.draft(25 * month)
    const expiredNewSent = make.quote(30, sentFromKeptQuote.id)
    const sentOldFromKeptQuote = make.entry(25 * month, 'sent', sentFromKeptQuote)
    // Last: the fixtures claim the oldest waiting entry to move it on.
    const queuedOld = make.entry(30 * month, 'queued')

    const synced = syncedOrders(db)
    const database = await syncAndPurge(harness)

    expect(outboxGuids(db)).toEqual([sentNew, retryingOld, refusedOld, sentOldFromKeptQuote, queuedOld])
    expect(outboxGuids(db)).not.toContain(sentOld)
    expect(outboxGuids(db)).not.toContain(sentOldFromOldQuote)
    expect(payloadCount(db)).toBe(5)
    expect(quoteNumbers(db)).toEqual([expiredNew, stillValid, expiredOldWithDraft, expiredNewSent])
    expect(quoteNumbers(db)).not.toContain(expiredOld)
    expect(quoteNumbers(db)).not.toContain(expiredOldSent)
    expect(draftIds(db)).toEqual([oldDraft.id, convertedDraft.id])
    // Synced history is the service's to keep: the purge leaves it as the sync left it.
    expect(syncedOrders(db)).toBe(synced)
    expect(database.lastPurge).toMatchObject({ sentOrders: 2, quotes: 2, bytesFreed: expect.any(Number) })
    expect(database.sizeBytes).toBeGreaterThan(0)

    // The outbox's own list says the same once the purge is done.
    const listed = await harness.api('listOutbox')
    expect(listed.map((entry) => entry.apiGuid).sort()).toEqual(
      [sentNew, retryingOld, refusedOld, sentOldFromKeptQuote, queuedOld].sort(),
    )
  })

  it('follows the settings: shorter retention purges more', async () => {
    harness = await startOrdersHarness()
    const db = harness.core.db
    harness.core.orders.desk.outbox.pause('held by the test')
    const make = fixtures(db)
    const sentThreeMonths = make.entry(3 * month, 'sent')
    const sentLastWeek = make.entry(7 * day, 'sent')
    const expiredTenDays = make.quote(10)
    const expiredYesterday = make.quote(1)

    await harness.api('updateSettings', { keepSentOrdersMonths: 2, keepExpiredQuotesDays: 5 })
    const first = await syncAndPurge(harness)
    expect(outboxGuids(db)).toEqual([sentLastWeek])
    expect(outboxGuids(db)).not.toContain(sentThreeMonths)
    expect(quoteNumbers(db)).toEqual([expiredYesterday])
    expect(quoteNumbers(db)).not.toContain(expiredTenDays)
    expect(first.lastPurge).toMatchObject({ sentOrders: 1, quotes: 1 })
  })
})

describe('the purge’s slices leave the main thread', () => {
  it('after the first slice that removes rows, the rest run on the purge’s own thread and remove the same rows; the main connection checkpoints again after', async () => {
    // A database of its own: a core's purge after its first sync would race this one.
    const directory = mkdtempSync(join(tmpdir(), 'satchel-purge-thread-'))
    const db = openDatabase(join(directory, 'satchel.db'))
    onTestFinished(() => {
      closeDatabase(db)
      rmSync(directory, { recursive: true, force: true })
    })
    const make = fixtures(db)
    const old = Array.from({ length: 60 }, () => make.entry(25 * month, 'sent'))
    const kept = Array.from({ length: 5 }, () => make.entry(23 * month, 'sent'))
    const checkpointPages = db.pragma('wal_autocheckpoint', { simple: true })
    const drafts = new DraftRepository(db, systemClock)
    const purgeWorker = sourcePurgeWorker()!
    const purge = new Purge({
      db,
      outbox: new Outbox(db, drafts, systemClock),
      drafts,
      quotes: new QuoteRepository(db),
      settings: () => ({ keepSentOrdersMonths: 24, keepExpiredQuotesDays: 90 }),
      clock: systemClock,
      logger: silentLogger,
      slice: { start: 10, min: 10, max: 10 },
      purgeThread: () => startPurgeThread(purgeWorker, { databasePath: db.name }),
    })
    const record = await purge.run()
    expect(record.sentOrders).toBe(60)
    expect(outboxGuids(db).sort()).toEqual([...kept].sort())
    expect(outboxGuids(db).some((guid) => old.includes(guid))).toBe(false)
    // On this thread: the two slices that found no quotes, and the first that removed orders; every
    // later one ran on the purge's.
    expect(purge.mainThreadSliceMs).toHaveLength(3)
    expect(purge.slicesOnThread).toBeGreaterThanOrEqual(6)
    expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(checkpointPages)
  })
})
