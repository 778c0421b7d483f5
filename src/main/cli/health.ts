/**
 * The one story the CLI tells of a damaged database (db/health.ts): `status`, `outbox`, `flush`,
 * `sync` and `order queue` check the file when they open it, and any other command that meets a
 * damaged page checks it then, so each names the same damage and gives the same advice.
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Database } from '../db/database'
import { DatabaseFileError } from '../db/file-errors'
import { checkFileHealth, damagedAreas, isDamage, outboxReadable, type FileHealth } from '../db/health'
import { OutboxReader } from '../orders/outbox'

export interface Damage {
  health: FileHealth
  outboxReadable: boolean
}

/** The file's damage, or null when it is whole. */
export function damageOf(db: Database): Damage | null {
  const health = checkFileHealth(db)
  return health.damagedTables.length === 0 ? null : { health, outboxReadable: outboxReadable(health) }
}

function unsentIn(db: Database): number {
  const counts = OutboxReader.counts(db)
  return counts.queued + counts.sending + counts.retrying + counts.needsAttention
}

/** The error that tells the story; the unsent orders are counted now, as a flush may have sent some. */
export function damageError(db: Database, path: string, damage: Damage): DatabaseFileError {
  return new DatabaseFileError(path, { kind: 'damaged', areas: damagedAreas(damage.health), unsent: damage.outboxReadable ? unsentIn(db) : null }, 'cli')
}

/** For --json: the verdict beside what could still be read. */
export function healthJson(damage: Damage | null): { ok: boolean; damaged: string[]; outboxReadable: boolean } {
  return damage ? { ok: false, damaged: damagedAreas(damage.health), outboxReadable: damage.outboxReadable } : { ok: true, damaged: [], outboxReadable: true }
}

/** Commands that write refuse a damaged file before writing: a write may spread the damage. */
export function refuseDamaged(db: Database, path: string): void {
  const damage = damageOf(db)
  if (damage) throw damageError(db, path, damage)
}

/** A read of a damaged file that may meet the damage: null then, and the verdict says why. */
export function readOrNull<T>(damage: Damage | null, read: () => T): T | null {
  if (!damage) return read()
  try {
    return read()
  } catch (error) {
    if (isDamage(error)) return null
    throw error
  }
}

/**
 * For a command that met a damaged page without checking first: the verdict of a fresh look at the
 * file, or null when it cannot be had (the file cannot even be opened), leaving SQLite's word.
 */
export async function explainDamage(error: unknown, path: string): Promise<DatabaseFileError | null> {
  if (!isDamage(error)) return null
  const { closeDatabase, openDatabase } = await import('../db/database')
  try {
    const db = openDatabase(path, { readOnly: true, create: false, audience: 'cli' })
    try {
      const damage = damageOf(db)
      return damage ? damageError(db, path, damage) : null
    } finally {
      closeDatabase(db)
    }
  } catch {
    return null
  }
}

/**
 * Writes each unsent order as a draft file `order queue --file` takes back, under its api_guid: queued
 * again in a new database, it is the same order, and the service makes it at most once.
 */
export function exportUnsent(db: Database, folder: string): { apiGuid: string; state: string; file: string }[] {
  const reader = new OutboxReader(db)
  const unsent = reader.states().filter((entry) => entry.state !== 'sent')
  mkdirSync(folder, { recursive: true })
  return unsent.map(({ apiGuid, state }) => {
    const draft = reader.printable(apiGuid)!.draft
    const file = join(folder, `${apiGuid}.json`)
    const draftFile = {
      ...(draft.customerGuid ? { customerGuid: draft.customerGuid } : {}),
      ...(draft.newCustomer ? { newCustomer: draft.newCustomer } : {}),
      catalogGuid: draft.catalogGuid,
      ...(draft.priceGroupGuid ? { priceGroupGuid: draft.priceGroupGuid } : {}),
      apiGuid: draft.apiGuid,
      ...(draft.poNo ? { poNo: draft.poNo } : {}),
      ...(draft.note ? { note: draft.note } : {}),
      ...(draft.shippingInstructions ? { shippingInstructions: draft.shippingInstructions } : {}),
      remainInPreliminary: draft.remainInPreliminary,
      ...(draft.shipTo ? { shipTo: draft.shipTo } : {}),
      lines: draft.lines.map((line) => ({ catalogItemGuid: line.catalogItemGuid, qty: line.qty, ...(line.note ? { note: line.note } : {}) })),
    }
    writeFileSync(file, `${JSON.stringify(draftFile, null, 2)}\n`)
    return { apiGuid, state, file }
  })
}
