import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import { describe, expect, it } from 'vitest'

/**
 * Each table's SQL lives in one module, which the rest of the core calls: a change to a table is made
 * in one file. Migrations are the exception by nature (they are the table's history, not its use).
 */
const root = join(__dirname, '../..')
const main = join(root, 'src/main')

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) return name === 'migrations' ? [] : sources(path)
    return name.endsWith('.ts') ? [path] : []
  })
}

/** SQL in this text names the table (after FROM, INTO, UPDATE, JOIN, TABLE, ON or DELETE FROM). */
const namesTable = (text: string, table: string) => new RegExp(`\\b(FROM|INTO|UPDATE|JOIN|TABLE|ON)\\s+${table}\\b`).test(text)

function modulesWithSql(table: string): string[] {
  return sources(main)
    .filter((path) => namesTable(readFileSync(path, 'utf8'), table))
    .map((path) => relative(root, path))
    .sort()
}

const homes: Record<string, string> = {
  outbox: 'src/main/orders/outbox.ts',
  outbox_payloads: 'src/main/orders/outbox.ts',
  drafts: 'src/main/orders/drafts.ts',
  quotes: 'src/main/quotes/repository.ts',
  quote_numbering: 'src/main/quotes/repository.ts',
  settings: 'src/main/db/settings.ts',
  sync_scopes: 'src/main/local/sync-state.ts',
  sync_runs: 'src/main/local/sync-state.ts',
  sync_pages: 'src/main/local/sync-state.ts',
  leases: 'src/main/db/lease.ts',
  order_details: 'src/main/local/order-details.ts',
  order_detail_sightings: 'src/main/local/order-details.ts',
}

describe('one home per table', () => {
  for (const [table, home] of Object.entries(homes)) {
    it(`${table}: its SQL is in ${home} only`, () => {
      expect(modulesWithSql(table)).toEqual([home])
    })
  }

  it('sees a table in any statement that names it, and only that table', () => {
    expect(namesTable('SELECT o.state FROM outbox o JOIN outbox_payloads p ON p.entry_id = o.id', 'outbox_payloads')).toBe(true)
    expect(namesTable('UPDATE outbox SET state = ?', 'outbox')).toBe(true)
    expect(namesTable('DELETE FROM drafts WHERE id = ?', 'drafts')).toBe(true)
    expect(namesTable('INSERT INTO outbox_payloads (entry_id) VALUES (?)', 'outbox')).toBe(false)
    expect(namesTable('the outbox keeps its entries', 'outbox')).toBe(false)
  })
})
