import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import { describe, expect, it } from 'vitest'

/**
 * Each table's SQL lives in one module, which the rest of the core calls: a change to a table is made
 * in one file. Migrations are the exception by nature (they are the table's history, not its use).
 */
const root = join(__dirname, '../../..')
const main = join(root, 'src/main')

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) return name === 'migrations' ? [] : sources(path)
    return name.endsWith('.ts') ? [path] : []
  })
}

/** SQL in this text names the table (after FROM, INTO, UPDATE, JOIN, TABLE, ON or DELETE FROM). */
const namesTable = (text: string, table: string) =>
  new RegExp(`\\b(FROM|INTO|UPDATE|JOIN|TABLE|ON)\\s+${table}\\b`).test(text)

function modulesWithSql(table: string): string[] {
  return sources(main)
    .filter((path) => namesTable(readFileSync(path, 'utf8'), table))
    .map((path) => relative(root, path))
    .sort()
}

const homes: Record<string, string | string[]> = {
  // The outbox's writes, and its reader (the CLI, the profiles and the bundle read it alone).
  outbox: [
    'src/main/orders/outbox/outbox.ts',
    'src/main/orders/outbox/reader.ts',
    'src/main/orders/outbox/after-send.ts',
  ],
  outbox_payloads: [
    'src/main/orders/outbox/outbox.ts',
    'src/main/orders/outbox/reader.ts',
    'src/main/orders/outbox/after-send.ts',
  ],
  drafts: 'src/main/orders/drafts.ts',
  quotes: 'src/main/quotes/repository.ts',
  quote_numbering: 'src/main/quotes/repository.ts',
  settings: 'src/main/db/settings.ts',
  sync_scopes: 'src/main/local/sync-state.ts',
  sync_runs: 'src/main/local/sync-state.ts',
  sync_pages: 'src/main/local/sync-state.ts',
  leases: 'src/main/db/lease.ts',
  // The synced tables: sync writes them and everyone reads them through their homes in local/.
  catalog_item_rows: 'src/main/local/catalog-items/',
  catalog_items: 'src/main/local/catalog-items/',
  catalog_item_search: 'src/main/local/catalog-items/',
  catalog_item_counts: 'src/main/local/catalog-items/',
  catalog_item_filters: 'src/main/local/catalog-items/',
  catalog_item_filters_fill: 'src/main/local/catalog-items/',
  catalog_keys: 'src/main/local/catalog-items/',
  customers: 'src/main/local/customers.ts',
  orders: 'src/main/local/order-history.ts',
  catalogs: 'src/main/local/catalogs.ts',
  categories: 'src/main/local/catalogs.ts',
  price_groups: 'src/main/local/price-groups.ts',
  deferred_indexes: 'src/main/local/deferred-indexes.ts',
  order_details: 'src/main/local/order-details.ts',
  customer_histories: 'src/main/local/customer-histories.ts',
  order_detail_sightings: 'src/main/local/order-details.ts',
  // The item pictures' index: a SQLite file of its own beside the profile's database.
  image_entries: 'src/main/pictures/cache.ts',
}

describe('one home per table', () => {
  for (const [table, home] of Object.entries(homes)) {
    it(`${table}: its SQL is in ${[home].flat().join(' and ')} only`, () => {
      const modules = modulesWithSql(table)
      // A home that ends in '/' is a folder: the table's SQL is in its modules, and nowhere else.
      if (Array.isArray(home)) {
        expect(modules.length).toBeGreaterThan(0)
        expect(modules.filter((module) => !home.includes(module))).toEqual([])
      } else if (home.endsWith('/')) {
        expect(modules.length).toBeGreaterThan(0)
        expect(modules.filter((module) => !module.startsWith(home))).toEqual([])
      } else {
        expect(modules).toEqual([home])
      }
    })
  }

  it('sees a table in any statement that names it, and only that table', () => {
    expect(
      namesTable('SELECT o.state FROM outbox o JOIN outbox_payloads p ON p.entry_id = o.id', 'outbox_payloads'),
    ).toBe(true)
    expect(namesTable('UPDATE outbox SET state = ?', 'outbox')).toBe(true)
    expect(namesTable('DELETE FROM drafts WHERE id = ?', 'drafts')).toBe(true)
    expect(namesTable('INSERT INTO outbox_payloads (entry_id) VALUES (?)', 'outbox')).toBe(false)
    expect(namesTable('the outbox keeps its entries', 'outbox')).toBe(false)
    // "orders" is a word of many SQL texts and comments; only a statement on the table counts.
    expect(namesTable('SELECT o.guid FROM orders o LEFT JOIN customers c ON c.guid = o.customer_guid', 'orders')).toBe(
      true,
    )
    expect(
      namesTable('SELECT o.guid FROM orders o LEFT JOIN customers c ON c.guid = o.customer_guid', 'customers'),
    ).toBe(true)
    expect(namesTable("SELECT count(*) FROM outbox WHERE kind = 'orders'", 'orders')).toBe(false)
    expect(namesTable('orders waiting to be sent are the outbox’s', 'orders')).toBe(false)
    expect(namesTable('SELECT * FROM catalog_items WHERE guid = ?', 'catalog_item_rows')).toBe(false)
    expect(namesTable('SELECT 1 FROM catalog_item_rows LIMIT 1', 'catalog_items')).toBe(false)
  })
})
