import { existsSync, rmSync } from 'node:fs'
import { closeDatabase, openDatabase, type Database } from '../db/database'
import { fenceForRemoval } from '../db/fence'
import type { Audience } from '../db/file-errors'
import { verdictFile } from '../db/health'
import { picturesFolder } from '../pictures/cache'
import { describeHolder, Lease, type LeaseName } from '../db/lease'
import { CoreError } from '../errors'
import type { Clock } from '../ports'
import { needingAttention, unsentOf } from '../orders/outbox/attention'
import { OutboxReader } from '../orders/outbox/reader'
import { latestSupplierName } from '../local/order-history'
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
  const hasQuotes =
    db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'quotes'").get() !== undefined
  return {
    // A conflict or refusal after Send is the rep's write still, as a rejected order is.
    unsent: unsentOf(outbox),
    needsAttention: needingAttention(outbox),
    openQuotes: hasQuotes ? new QuoteRepository(db).openCount(localDay(nowMs)) : 0,
  }
}

/**
 * The supplier's name as its service gives it on the orders synced into this profile, or null before
 * one has come. Read where the switcher lists profiles: a name, not the service's address.
 */
export function supplierNameIn(db: Database): string | null {
  try {
    return latestSupplierName(db)
  } catch {
    // A database from before orders were kept (or not yet made) has no name to give.
    return null
  }
}

/** A refusal to remove a profile, with what it holds (the CLI prints the counts). */
export class RemovalRefused extends CoreError {
  constructor(
    message: string,
    readonly holdings: ProfileHoldings,
  ) {
    super('CONFLICT', message)
    this.name = 'RemovalRefused'
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
  throw new RemovalRefused(
    `The profile '${name}' still has ${parts.join(' and ')}; ${one ? 'send or discard it' : 'send or discard them'} first, then remove the profile.`,
    holdings,
  )
}

const leaseWork: Record<LeaseName, string> = { outbox: 'is sending the orders of', sync: 'is syncing' }

/**
 * Makes the profile's database refuse every write from here on, if it holds nothing only it has and
 * no process is sending its orders or syncing it; throws RemovalRefused otherwise. The look and the
 * fence are one write transaction (db/fence.ts), so an order committed by another process either
 * comes before it, and is counted, or after it, and is refused: never into a deleted file. Call
 * before deleting the files; a profile never opened (no file) holds nothing.
 */
export function fenceProfileDatabase(path: string, name: string, clock: Clock, audience: Audience): void {
  if (!existsSync(path)) return
  const db = openDatabase(path, { create: false, audience })
  try {
    fenceForRemoval(db, () => {
      for (const lease of ['outbox', 'sync'] as const) {
        const holder = new Lease(db, lease, { label: 'profiles remove', clock }).holder()
        if (holder)
          throw new RemovalRefused(
            `${describeHolder(holder)} ${leaseWork[lease]} '${name}' now; wait for it to finish, then remove the profile.`,
            profileHoldings(db, clock.now()),
          )
      }
      refuseRemoval(name, profileHoldings(db, clock.now()))
    })
  } finally {
    closeDatabase(db)
  }
}

/**
 * The database and its companions: SQLite's, and the verdict on its health (db/health.ts), which a
 * new database made at this path must not inherit.
 */
export function deleteDatabaseFiles(path: string): void {
  for (const file of [path, `${path}-wal`, `${path}-shm`, `${path}-journal`, verdictFile(path)])
    if (existsSync(file)) rmSync(file)
  // The item pictures beside it are the profile's too, and can always be fetched again.
  rmSync(picturesFolder(path), { recursive: true, force: true })
}
