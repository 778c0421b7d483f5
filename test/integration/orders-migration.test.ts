import { randomUUID } from 'node:crypto'
import { renameSync, rmSync } from 'node:fs'
import { afterEach, describe, expect, it } from 'vitest'
import { closeDatabase, latestSchemaVersion, openDatabase, type Database } from '../../src/main/db/database'
import { migrations } from '../../src/main/db/migrations'
import { orderRoute, startOrdersHarness, type OrdersHarness } from './orders-support'

/** The first schema with drafts and the outbox. Rows below are written as that version wrote them. */
const outboxSchemaVersion = 3

/**
 * Rebuilds the synced database as an older Satchel had it: a new file migrated only up to `version`,
 * with the synced rows copied in (the columns both schemas share), so later migrations have real
 * data to run over. Writing the rows through schema `version` also fills its search index.
 */
function databaseAtSchema(databasePath: string, version: number): Database {
  const synced = `${databasePath}.synced`
  renameSync(databasePath, synced)
  const old = openDatabase(databasePath, { migrations: migrations.filter((m) => m.version <= version) })
  old.prepare('ATTACH DATABASE ? AS synced').run(synced)
  const tables = old
    .prepare<[], string>(
      "SELECT name FROM main.sqlite_master WHERE type = 'table' AND sql NOT LIKE 'CREATE VIRTUAL%' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '%search_%'",
    )
    .pluck()
    .all()
  for (const table of tables) {
    const columns = (name: string, schema: string) =>
      old
        .prepare<[], { name: string }>(`PRAGMA ${schema}.table_info(${name})`)
        .all()
        .map((c) => c.name)
    const shared = columns(table, 'main').filter((column) => columns(table, 'synced').includes(column))
    if (shared.length > 0)
      old.exec(`INSERT INTO main.${table} (${shared.join(', ')}) SELECT ${shared.join(', ')} FROM synced.${table}`)
  }
  old.exec('DETACH DATABASE synced')
  rmSync(synced, { force: true })
  return old
}

let harness: OrdersHarness | undefined
afterEach(async () => {
  await harness?.close()
  harness = undefined
})

describe('orders across a schema migration', () => {
  it(`a draft and an outbox entry written at schema ${outboxSchemaVersion} survive the migration to the current schema and are sent`, async () => {
    harness = await startOrdersHarness()
    const target = harness.orderable(2)
    const { databasePath, service } = harness
    await harness.core.close()

    // The laptop as an older Satchel left it: schema 3, one draft, one queued order.
    const old = databaseAtSchema(databasePath, outboxSchemaVersion)
    const draftKey = randomUUID()
    const queuedKey = randomUUID()
    const at = '2026-11-01T09:30:00.000Z'
    const line = (guid: string, sku: string, qty: number) => ({
      lineId: randomUUID(),
      catalogItemGuid: guid,
      sku,
      name: sku,
      qty,
      note: '',
      unitPriceSeen: null,
      qtyAvailableSeen: null,
    })
    const draftDocument = {
      newCustomer: null,
      priceGroupGuid: null,
      poNo: 'PO-OLD-1',
      note: 'written by schema 3',
      shippingInstructions: '',
      shipTo: null,
      remainInPreliminary: false,
      lines: [line(target.itemGuids[0]!, target.skus[0]!, 2)],
    }
    old
      .prepare(
        'INSERT INTO drafts (api_guid, customer_guid, catalog_guid, document, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)',
      )
      .run(draftKey, target.customerGuid, target.catalogGuid, JSON.stringify(draftDocument), at, at)
    const queuedDraft = {
      id: 99,
      apiGuid: queuedKey,
      customerGuid: target.customerGuid,
      catalogGuid: target.catalogGuid,
      createdAt: at,
      updatedAt: at,
      ...draftDocument,
      lines: [line(target.itemGuids[1]!, target.skus[1]!, 1)],
    }
    const group = old
      .prepare<[string, string], { guid: string }>(
        'SELECT p.guid FROM price_groups p JOIN customers c ON c.price_group_id = p.id WHERE c.guid = ? AND p.catalog_guid = ?',
      )
      .get(target.customerGuid, target.catalogGuid)!
    const request = {
      vendorGuid: target.customerGuid,
      body: {
        catalogGuid: target.catalogGuid,
        priceGroupGuid: group.guid,
        order: { po_no: 'PO-OLD-2', api_guid: queuedKey },
        orderItems: [{ catalog_item_guid: target.itemGuids[1], qty: 1 }],
        source: 'APP',
        remainInPreliminary: false,
      },
    }
    old
      .prepare(
        `INSERT INTO outbox (api_guid, state, customer_guid, customer_name, catalog_guid, draft, request, rep_totals, attempts, queued_at, updated_at)
         VALUES (?, 'queued', ?, 'Customer as named then', ?, ?, ?, ?, 0, ?, ?)`,
      )
      .run(
        queuedKey,
        target.customerGuid,
        target.catalogGuid,
        JSON.stringify(queuedDraft),
        JSON.stringify(request),
        JSON.stringify({ subTotal: 0, lineCount: 1 }),
        at,
        at,
      )
    closeDatabase(old)

    // The current Satchel opens it: every later migration runs, and both orders are intact.
    await harness.reopenCore()
    expect(harness.core.db.pragma('user_version', { simple: true })).toBe(latestSchemaVersion())
    await harness.api('flushOutbox')
    expect(service.control.ordersByApiGuid(queuedKey)).toHaveLength(1)
    const drafts = await harness.api('listDrafts')
    const draft = drafts.find((d) => d.apiGuid === draftKey)!
    expect(draft).toMatchObject({ lineCount: 1, errorCount: 0 })
    expect((await harness.api('getDraft', { id: draft.id })).draft.note).toBe('written by schema 3')
    await harness.api('sendDraft', { id: draft.id })
    await harness.settle()
    expect(service.control.ordersByApiGuid(draftKey)).toHaveLength(1)
    expect(service.control.requestLog().filter((e) => e.route === orderRoute)).toHaveLength(2)
    expect((await harness.api('listOutbox')).map((e) => e.state)).toEqual(['sent', 'sent'])
  })
})
