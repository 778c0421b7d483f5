import { randomUUID } from 'node:crypto'
import type { Database } from './database'

/**
 * The settings table: one JSON value per key, so a new setting needs no migration. Every module that
 * keeps a setting (the app's settings, the connection, the outbox's pause, the CLI's http allowance)
 * reads and writes it here, the table's only SQL.
 */
export class SettingsTable {
  private readonly statements

  constructor(db: Database) {
    this.statements = {
      one: db.prepare<[string], string>('SELECT value FROM settings WHERE key = ?').pluck(),
      all: db.prepare<[], { key: string; value: string }>('SELECT key, value FROM settings'),
      upsert: db.prepare<[string, string]>(
        'INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value',
      ),
      delete: db.prepare<[string]>('DELETE FROM settings WHERE key = ?'),
    }
  }

  /** The value kept under `key`, or undefined when there is none. */
  get(key: string): unknown {
    const value = this.statements.one.get(key)
    return value === undefined ? undefined : (JSON.parse(value) as unknown)
  }

  /** Every key's value. */
  all(): Record<string, unknown> {
    return Object.fromEntries(this.statements.all.all().map((row) => [row.key, JSON.parse(row.value) as unknown]))
  }

  set(key: string, value: unknown): void {
    this.statements.upsert.run(key, JSON.stringify(value))
  }

  delete(key: string): void {
    this.statements.delete.run(key)
  }
}

/**
 * A random string drawn once per install and kept: what spreads this laptop's background work
 * across a fleet's (the same every day for one laptop, different between laptops).
 */
export function installSeed(table: SettingsTable): string {
  const kept = table.get('installSeed')
  if (typeof kept === 'string' && kept.length > 0) return kept
  const seed = randomUUID()
  table.set('installSeed', seed)
  return seed
}
