import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { Purge } from '../../../../src/main/housekeeping/purge'
import { closeDatabase, openDatabase, type Database } from '../../../../src/main/db/database'
import { DraftRepository } from '../../../../src/main/orders/drafts'
import { Outbox } from '../../../../src/main/orders/outbox/outbox'
import { silentLogger, type Clock } from '../../../../src/main/ports'
import { QuoteRepository } from '../../../../src/main/quotes/repository'
import { countTurns } from '../../../support/turn-counter'
import { emptyQuote } from '../../../support/quotes'

const clock: Clock = { now: () => Date.parse('2026-11-20T12:00:00Z') }
let db: Database
let quotes: QuoteRepository
let drafts: DraftRepository

beforeEach(() => {
  db = openDatabase(':memory:')
  drafts = new DraftRepository(db, clock)
  quotes = new QuoteRepository(db)
  for (let i = 0; i < 9; i++) {
    quotes.create(emptyQuote({ validUntil: '2025-01-01' }), '2024-12-01T00:00:00.000Z')
  }
})
afterEach(() => closeDatabase(db))

function purgeWith(slice: { start: number; min: number; max: number }, syncing: () => boolean = () => false) {
  const calls: { limit: number; turn: number }[] = []
  const counter = countTurns()
  const watched = Object.create(quotes) as QuoteRepository
  watched.purgeExpired = (before, open, afterId, limit) => {
    calls.push({ limit, turn: counter.now() })
    return quotes.purgeExpired(before, open, afterId, limit)
  }
  const purge = new Purge({
    db,
    outbox: new Outbox(db, drafts, clock),
    drafts,
    quotes: watched,
    settings: () => ({ keepSentOrdersMonths: 24, keepExpiredQuotesDays: 90 }),
    clock,
    logger: silentLogger,
    slice,
    syncing,
  })
  return { purge, calls, counter }
}

const quoteCount = () => db.prepare<[], number>('SELECT count(*) FROM quotes').pluck().get()

describe('the purge takes its rows a bounded slice at a time', () => {
  it('removes at most a slice of rows per transaction, each slice in a turn of the event loop of its own', async () => {
    const { purge, calls, counter } = purgeWith({ start: 2, min: 2, max: 2 })
    const record = await purge.run()
    counter.stop()
    expect(record.quotes).toBe(9)
    expect(quoteCount()).toBe(0)
    // 2+2+2+2+1, then one that finds nothing left.
    expect(calls.map((call) => call.limit)).toEqual([2, 2, 2, 2, 2, 2])
    expect(new Set(calls.map((call) => call.turn)).size).toBe(calls.length)
  })

  it('stops after the slice in hand when the core closes, leaving the rest for the next purge', async () => {
    const { purge, calls, counter } = purgeWith({ start: 2, min: 2, max: 2 })
    const running = purge.run()
    await new Promise((resolve) => setImmediate(resolve))
    await new Promise((resolve) => setImmediate(resolve))
    await purge.stop()
    counter.stop()
    const record = await running
    expect(calls.length).toBeGreaterThan(0)
    expect(calls.length).toBeLessThan(5)
    expect(quoteCount()).toBe(9 - record.quotes)
    expect(record.quotes).toBe(calls.length * 2)
  })

  it('a call while one runs is answered by one more run after it', async () => {
    const { purge, calls, counter } = purgeWith({ start: 100, min: 100, max: 100 })
    const first = purge.run()
    const second = purge.run()
    expect(purge.run()).toBe(second)
    expect((await first).quotes).toBe(9)
    expect((await second).quotes).toBe(0)
    counter.stop()
    // The first run's slice and the one that found nothing more; then the second run's.
    expect(calls.map((call) => call.limit)).toEqual([100, 100, 100])
    expect(calls[2]!.turn).toBeGreaterThan(calls[1]!.turn)
    expect(quoteCount()).toBe(0)
  })

  it('leaves off while a sync writes, and takes up the rest on the next run', async () => {
    let syncing = false
    const { purge, calls, counter } = purgeWith({ start: 2, min: 2, max: 2 }, () => syncing)
    const running = purge.run()
    await new Promise((resolve) => setImmediate(resolve))
    await new Promise((resolve) => setImmediate(resolve))
    syncing = true
    const first = await running
    const before = calls.length
    expect(first.quotes).toBe(before * 2)
    expect(quoteCount()).toBe(9 - first.quotes)
    syncing = false
    const second = await purge.run()
    counter.stop()
    expect(first.quotes).toBeLessThan(9)
    expect(second.quotes).toBe(9 - first.quotes)
    expect(quoteCount()).toBe(0)
  })
})
