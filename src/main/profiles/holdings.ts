import { existsSync, rmSync } from 'node:fs'
import type { Database } from '../db/database'
import { CoreError } from '../errors'
import { OutboxReader } from '../orders/outbox'
import { localDay } from '../quotes/desk'
import { QuoteRepository } from '../quotes/repository'

export interface ProfileHoldings {
  /** Outbox entries not yet sent: queued, sending, retrying or needing attention. */
  unsent: number
  needsAttention: number
  openQuotes: number
}

/** What a profile holds that only this laptop has: removing it would lose these. */
export function profileHoldings(db: Database, nowMs: number): ProfileHoldings {
  const outbox = OutboxReader.counts(db)
  const hasQuotes = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'quotes'").get() !== undefined
  return {
    unsent: outbox.queued + outbox.sending + outbox.retrying + outbox.needsAttention,
    needsAttention: outbox.needsAttention,
    openQuotes: hasQuotes ? new QuoteRepository(db).openCount(localDay(nowMs)) : 0,
  }
}

/** The refusal to remove a profile that still holds orders or quotes, with how many. */
export function refuseRemoval(name: string, holdings: ProfileHoldings): void {
  if (holdings.unsent === 0 && holdings.openQuotes === 0) return
  const parts = [
    holdings.unsent > 0 ? `${holdings.unsent} unsent order${holdings.unsent === 1 ? '' : 's'}` : null,
    holdings.openQuotes > 0 ? `${holdings.openQuotes} open quote${holdings.openQuotes === 1 ? '' : 's'}` : null,
  ].filter((part) => part !== null)
  const one = holdings.unsent + holdings.openQuotes === 1
  throw new CoreError('CONFLICT', `The profile '${name}' still has ${parts.join(' and ')}; ${one ? 'send or discard it' : 'send or discard them'} first, then remove the profile.`)
}

/** The database and SQLite's companions of it. */
export function deleteDatabaseFiles(path: string): void {
  for (const file of [path, `${path}-wal`, `${path}-shm`, `${path}-journal`]) if (existsSync(file)) rmSync(file)
}
