/**
 * The one story the CLI tells of a damaged database (db/health.ts). The whole file is checked only
 * once damage is suspected: by the first command that meets a damaged page (status as it reads, any
 * other on its error path). The verdict is remembered beside the file, and every later command tells
 * it: status and outbox print what can still be read, flush sends while the outbox can be read, sync
 * and order queue write nothing, the others refuse with the same story. An intact file is never checked.
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Database } from '../db/database'
import { DatabaseFileError } from '../db/file-errors'
import { damagedAreas, isDamage, judgeFile, outboxReadable, rememberedHealth, type FileHealth } from '../db/health'
import { OutboxReader } from '../orders/outbox/reader'

export interface Damage {
  health: FileHealth
  outboxReadable: boolean
}

function damageOf(health: FileHealth | null): Damage | null {
  return health && health.damagedTables.length > 0 ? { health, outboxReadable: outboxReadable(health) } : null
}

/** The damage an earlier command found in this file, or null: a stat and a small read, no page is looked at. */
export function knownDamage(path: string): Damage | null {
  return damageOf(rememberedHealth(path))
}

/** SQLite errors whose file was checked and found whole, so the error path does not check it again. */
const foundWhole = new WeakSet<object>()

/** Damage met now: the whole file checked once, its verdict remembered for every later command. */
function judgeDamage(db: Database, path: string, met: unknown): Damage | null {
  const damage = damageOf(judgeFile(db, path))
  if (!damage && typeof met === 'object' && met !== null) foundWhole.add(met)
  return damage
}

function unsentIn(db: Database): number {
  const counts = OutboxReader.counts(db)
  return counts.queued + counts.sending + counts.retrying + counts.needsAttention
}

/** The error that tells the story; the unsent orders are counted now, as a flush may have sent some. */
export function damageError(db: Database, path: string, damage: Damage): DatabaseFileError {
  return new DatabaseFileError(
    path,
    { kind: 'damaged', areas: damagedAreas(damage.health), unsent: damage.outboxReadable ? unsentIn(db) : null },
    'cli',
  )
}

/** For --json: the verdict beside what could still be read. */
export function healthJson(damage: Damage | null): { ok: boolean; damaged: string[]; outboxReadable: boolean } {
  return damage
    ? { ok: false, damaged: damagedAreas(damage.health), outboxReadable: damage.outboxReadable }
    : { ok: true, damaged: [], outboxReadable: true }
}

/** Commands that write refuse a file known to be damaged before writing: a write may spread the damage. */
export function refuseDamaged(db: Database, path: string): void {
  const damage = knownDamage(path)
  if (damage) throw damageError(db, path, damage)
}

/**
 * The reads of a command that shows what it can (status): each read that meets a damaged page gives
 * null, once the file's verdict (remembered, or reached now) says it is damaged.
 */
export class DamageWatch {
  damage: Damage | null

  constructor(
    private readonly db: Database,
    private readonly path: string,
  ) {
    this.damage = knownDamage(path)
  }

  read<T>(read: () => T): T | null {
    try {
      return read()
    } catch (error) {
      if (!isDamage(error)) throw error
      this.damage ??= judgeDamage(this.db, this.path, error)
      // Found whole, the file leaves SQLite's word to the error path.
      if (!this.damage) throw error
      return null
    }
  }
}

/**
 * For a command that met a damaged page (or SQLITE_NOTADB) on its way: the remembered verdict, or
 * the verdict of one look at the whole file now; null when the file cannot even be opened to look
 * (SQLite's word stands then) or was found whole.
 */
export async function explainDamage(error: unknown, path: string): Promise<DatabaseFileError | null> {
  if (!isDamage(error) || (typeof error === 'object' && error !== null && foundWhole.has(error))) return null
  const { closeDatabase, openDatabase } = await import('../db/database')
  try {
    const db = openDatabase(path, { readOnly: true, create: false, audience: 'cli' })
    try {
      const damage = knownDamage(path) ?? judgeDamage(db, path, error)
      return damage ? damageError(db, path, damage) : null
    } finally {
      closeDatabase(db)
    }
  } catch {
    return null
  }
}

/** An unsent entry that is not an order (a submit, a change, a new customer…): listed, not exported. */
export interface UnsentWrite {
  apiGuid: string
  kind: string
  state: string
  /** What it would have done, in the rep's words ("New customer Harbourside Deli"). */
  title: string | null
  lastError: string | null
}

/**
 * Writes each unsent order as a draft file `order queue --file` takes back, under its api_guid: queued
 * again in a new database, it is the same order, and the service makes it at most once. The other
 * unsent entries (writes after Send, which have no draft) are listed with what each would have done,
 * so support can make them again by hand.
 */
export function exportUnsent(
  db: Database,
  folder: string,
): { exported: { apiGuid: string; state: string; file: string }[]; notExported: UnsentWrite[] } {
  const reader = new OutboxReader(db)
  const unsent = reader.unsentEntries()
  mkdirSync(folder, { recursive: true })
  const exported = unsent
    .filter((entry) => entry.kind === 'order')
    .map(({ apiGuid, state }) => {
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
        lines: draft.lines.map((line) => ({
          catalogItemGuid: line.catalogItemGuid,
          qty: line.qty,
          ...(line.note ? { note: line.note } : {}),
        })),
      }
      writeFileSync(file, `${JSON.stringify(draftFile, null, 2)}\n`)
      return { apiGuid, state, file }
    })
  const notExported = unsent.filter((entry) => entry.kind !== 'order')
  return { exported, notExported }
}
