/**
 * The lean catalog items (migration 10) change nothing a rep sees. A database written the
 * old way at schema 9 (each item's whole record as JSON beside its columns, with drafts and an outbox
 * entry) is migrated, and compared with a first sync written the new way and with what the service's
 * own records say: the same search results, the same prices, every record whole, every draft and
 * outbox entry as it was.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { closeDatabase, latestSchemaVersion, openDatabase } from '../../src/main/db/database'
import type { CatalogItemRecord } from '../../src/main/ordering-client/schemas'
import { browseQueries, type BrowseQueries } from '../../src/main/browse'
import { startHarness, type Harness } from './sync-support'
import { schema9Database, serviceItems } from './schema9-support'
import { openLocalData } from '../../src/main/local/data'

let harness: Harness | undefined
const directories: string[] = []
afterEach(async () => {
  await harness?.close()
  harness = undefined
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true })
})

/** The price a rep sees for an item in a price group, by the service's own record. */
function expectedPrice(item: CatalogItemRecord, group: string | null): { price: number | null; offered: boolean } {
  const value = group === null ? undefined : (item.pricing as Record<string, unknown> | null | undefined)?.[group]
  return typeof value === 'number' ? { price: value, offered: true } : { price: null, offered: false }
}

describe('lean catalog items (migration 10)', () => {
  it('a schema 9 database keeps every draft and outbox entry, every record, search result and price', async () => {
    harness = await startHarness({ size: 1500, pageSize: 100 })
    expect((await harness.sync()).ok).toBe(true)
    const items = await serviceItems(harness)
    const fresh = harness.db
    const directory = mkdtempSync(join(tmpdir(), 'satchel-lean-'))
    directories.push(directory)
    const path = join(directory, 'schema9.db')
    const listingId = fresh.prepare<[], number>('SELECT max(id) FROM sync_listings').pluck().get()!

    const old = schema9Database(path, fresh, items, listingId)
    const [catalogGuid, catalogItems] = [...items.entries()][0]!
    const kept = catalogItems.filter((item) => item.active !== false)
    const customer = fresh
      .prepare<[], { guid: string; name: string }>(
        'SELECT guid, name FROM customers WHERE active = 1 ORDER BY id LIMIT 1',
      )
      .get()!
    const draftDocument = {
      poNo: 'PO-9',
      note: 'written at schema 9',
      lines: [{ lineId: 'l1', catalogItemGuid: kept[0]!.guid, sku: kept[0]!.sku, qty: 2 }],
    }
    old
      .prepare(
        'INSERT INTO drafts (api_guid, customer_guid, catalog_guid, document, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)',
      )
      .run(
        '5a4b3c2d-0000-4000-8000-000000000009',
        customer.guid,
        catalogGuid,
        JSON.stringify(draftDocument),
        '2026-11-01T09:30:00.000Z',
        '2026-11-01T09:31:00.000Z',
      )
    const entry = old
      .prepare(
        `INSERT INTO outbox (api_guid, state, customer_guid, customer_name, catalog_guid, rep_totals, attempts, queued_at, updated_at)
      VALUES (?, 'queued', ?, ?, ?, '{"subTotal":1}', 0, ?, ?)`,
      )
      .run(
        '5a4b3c2d-0000-4000-8000-000000000010',
        customer.guid,
        customer.name,
        catalogGuid,
        '2026-11-01T09:40:00.000Z',
        '2026-11-01T09:40:00.000Z',
      )
    old
      .prepare('INSERT INTO outbox_payloads (entry_id, draft, request) VALUES (?, ?, ?)')
      .run(
        entry.lastInsertRowid,
        JSON.stringify({ ...draftDocument, lines: [{ lineId: 'l2', catalogItemGuid: kept[1]!.guid, qty: 1 }] }),
        JSON.stringify({ body: { order: { api_guid: '5a4b3c2d-0000-4000-8000-000000000010' } } }),
      )
    // Read by the columns schema 9 had: later migrations may add columns (with their defaults), never change these.
    const columnsAt9 = (table: string) =>
      old
        .prepare<[], { name: string }>(`PRAGMA table_info(${table})`)
        .all()
        .map((column) => column.name)
        .join(', ')
    const orderTables = ['drafts', 'outbox', 'outbox_payloads'].map((table) => ({ table, columns: columnsAt9(table) }))
    const ordersBefore = orderTables.map(({ table, columns }) =>
      old.prepare(`SELECT ${columns} FROM ${table} ORDER BY 1`).all(),
    )
    closeDatabase(old)

    // The current Satchel opens it.
    const migrated = openDatabase(path)
    expect(migrated.pragma('user_version', { simple: true })).toBe(latestSchemaVersion())
    expect(
      orderTables.map(({ table, columns }) => migrated.prepare(`SELECT ${columns} FROM ${table} ORDER BY 1`).all()),
    ).toEqual(ordersBefore)

    const after = browseQueries(openLocalData(migrated))
    const current = harness.queries
    // The items the draft and the queued order name read as before.
    // (syncedAt is when each copy was fetched, not part of the comparison.)
    const read = (queries: BrowseQueries, guid: string) => ({
      ...queries.catalogs.getCatalogItem({ guid }),
      syncedAt: null,
    })
    expect(read(after, kept[0]!.guid)).toEqual(read(current, kept[0]!.guid))
    expect(read(after, kept[1]!.guid)).toEqual(read(current, kept[1]!.guid))

    for (const [guid, records] of items) {
      const groups = [...after.catalogs.priceGroups(guid).map((group) => group.name), null]
      // Every record whole: the migrated copy and the new write path both give back what the service sent.
      for (const item of records.filter((_, index) => index % 7 === 0)) {
        const sent = JSON.parse(JSON.stringify(item)) as Record<string, unknown>
        for (const db of [migrated, fresh]) {
          const json = db
            .prepare<[string], string>('SELECT json FROM catalog_items WHERE guid = ?')
            .pluck()
            .get(item.guid)!
          expect(JSON.parse(json), item.guid).toStrictEqual(sent)
        }
      }
      // Search results and prices: the same on both, and as the service's records price them.
      const words = [
        ...new Set(
          records.filter((_, index) => index % 97 === 0).flatMap((item) => [item.name!.split(' ')[0]!, item.sku!]),
        ),
      ]
      for (const query of [undefined, ...words]) {
        for (const group of groups) {
          const search = {
            catalogGuid: guid,
            ...(query ? { query } : {}),
            ...(group ? { priceGroupName: group } : {}),
            limit: 100,
          }
          const before = current.catalogs.searchCatalogItems(search)
          const now = after.catalogs.searchCatalogItems(search)
          expect(now.total, `${query} for ${group}`).toBe(before.total)
          expect(now.items).toEqual(
            before.items.map((row) => ({
              ...row,
              syncedAt: now.items.find((other) => other.guid === row.guid)?.syncedAt ?? null,
            })),
          )
          const byGuid = new Map(records.map((item) => [item.guid, item]))
          for (const row of now.items) {
            const { price, offered } = expectedPrice(byGuid.get(row.guid)!, now.priceGroupName)
            expect({ price: row.price, offered: row.offered }, `${row.sku} in ${now.priceGroupName}`).toEqual({
              price,
              offered,
            })
          }
        }
      }
    }
    expect(after.customers.searchCustomers({ query: customer.name.split(' ')[0] })).toEqual(
      current.customers.searchCustomers({ query: customer.name.split(' ')[0] }),
    )
    expect(after.customers.searchCustomers({ includeInactive: false })).toEqual(
      current.customers.searchCustomers({ includeInactive: false }),
    )
    closeDatabase(migrated)
  })
})
