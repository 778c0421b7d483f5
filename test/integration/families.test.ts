/**
 * Selling from the catalog: families and their entry grid, scanning by UPC before SKU, one available
 * figure everywhere, and the customer's account at the counter. Against the double's seeded data,
 * synced into a real core.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startOrdersHarness, type OrdersHarness } from './orders-support'

let harness: OrdersHarness

beforeAll(async () => {
  harness = await startOrdersHarness()
})
afterAll(async () => {
  await harness.close()
})

type Json = Record<string, unknown>

function records(where: string, ...params: unknown[]): (Json & { guid: string; catalog_guid: string })[] {
  return harness.core.db
    .prepare<unknown[], { guid: string; catalog_guid: string; json: string }>(
      `SELECT guid, catalog_guid, json FROM catalog_items WHERE ${where}`,
    )
    .all(...params)
    .map((row) => ({ ...(JSON.parse(row.json) as Json), guid: row.guid, catalog_guid: row.catalog_guid }))
}

/** The colour × size family whose last member is not offered to the groups but the main one (the double's first family). */
function crossedFamily() {
  const parents = records(
    "deleted_at IS NULL AND json ->> '$.is_product_group' = 1 AND json ->> '$.product_group_type' = 'Color/Size' ORDER BY id",
  )
  const parent = parents[0]!
  const members = records(
    "json ->> '$.group_parent_catalog_item_id' = ? AND deleted_at IS NULL ORDER BY json ->> '$.group_sequence'",
    parent.id,
  )
  return { parent, members }
}

/** An active customer of the catalog whose group is not the catalog's main one. */
function customerIn(catalogGuid: string, main: boolean): { guid: string; group: string } {
  const row = harness.core.db
    .prepare<[string, number], { guid: string; name: string }>(
      `SELECT c.guid, p.name FROM customers c JOIN price_groups p ON p.id = c.price_group_id AND p.catalog_guid = ?
       WHERE c.active = 1 AND c.deleted_at IS NULL AND c.require_po = 0 AND p.is_main = ? AND (c.lock_catalog_id IS NULL OR c.lock_catalog_id = (SELECT id FROM catalogs WHERE guid = p.catalog_guid))
       ORDER BY c.id LIMIT 1`,
    )
    .get(catalogGuid, main ? 1 : 0)!
  return { guid: row.guid, group: row.name }
}

const availableOf = (record: Json): number =>
  Math.max(0, Number(record.qty_on_hand) - Number(record.reserved_qty_on_hand ?? 0))

describe('a family', () => {
  it('is one grid of its members in group_sequence order, colour × size, priced for each customer with the range of what is offered', async () => {
    const { parent, members } = crossedFamily()
    expect(members.length).toBeGreaterThanOrEqual(4)
    for (const main of [true, false]) {
      const customer = customerIn(parent.catalog_guid, main)
      const grid = await harness.api('getItemFamily', { guid: parent.guid, customerGuid: customer.guid })
      expect(grid.priceGroupName).toBe(customer.group)
      expect(grid.rowAxis).toBe('Color')
      expect(grid.columnAxis).toBe('Size')
      expect(grid.cells.map((cell) => cell.sku)).toEqual(members.map((member) => member.sku))
      expect(grid.rows).toEqual([...new Set(members.map((member) => member.color))])
      expect(grid.columns).toEqual([...new Set(members.map((member) => member.style))])
      const offered = members.filter(
        (member) => member.active === true && typeof (member.pricing as Json)[customer.group] === 'number',
      )
      const prices = offered.map((member) => (member.pricing as Json)[customer.group] as number)
      expect(grid.priceMin).toBe(Math.min(...prices))
      expect(grid.priceMax).toBe(Math.max(...prices))
      for (const [index, cell] of grid.cells.entries()) {
        expect(cell.available).toBe(availableOf(members[index]!))
        expect(cell.incoming).toBe(Number(members[index]!.qty_incoming ?? 0))
      }
      // The same family opened by a member's guid is the same grid.
      expect(await harness.api('getItemFamily', { guid: members[1]!.guid, customerGuid: customer.guid })).toEqual(grid)
    }
  })

  it('refuses, with its reason, a member not offered to the customer’s group and an inactive one; the parent is never a line', async () => {
    const { parent, members } = crossedFamily()
    const customer = customerIn(parent.catalog_guid, false)
    const grid = await harness.api('getItemFamily', { guid: parent.guid, customerGuid: customer.guid })
    const last = grid.cells.at(-1)!
    const inactive = grid.cells.at(-2)!
    expect(last.refused).toBe(`Not offered to ${customer.group}`)
    expect(inactive.refused).toBe('Inactive')
    expect(grid.cells.filter((cell) => cell.refused !== null).length).toBeGreaterThanOrEqual(2)
    expect(grid.priceMax).not.toBeNull()

    const draft = await harness.api('createDraft', { customerGuid: customer.guid, catalogGuid: parent.catalog_guid })
    const added = await harness.api('addDraftLines', {
      id: draft.draft.id,
      lines: [{ sku: String(parent.sku) }, { catalogItemGuid: members.at(-1)!.guid, qty: 1 }],
    })
    expect(added.families).toEqual([{ code: parent.sku, guid: parent.guid, title: parent.group_title }])
    // The member not offered adds no line either: the supplier would refuse it.
    expect(added.check.draft.lines).toEqual([])
    expect(added.notOffered).toEqual([
      {
        code: members.at(-1)!.guid,
        sku: members.at(-1)!.sku,
        reason: `${members.at(-1)!.sku} is not offered to price group ${customer.group}: it cannot be ordered for this customer; ask the supplier, or choose another item.`,
      },
    ])
  })

  it("is one row in the catalog, found by any member's SKU, UPC or name, with member count and price range", async () => {
    const { parent, members } = crossedFamily()
    const customer = customerIn(parent.catalog_guid, true)
    const member = members[0]!
    const search = (query: string) =>
      harness.api('searchCatalogItems', { catalogGuid: parent.catalog_guid, query, customerGuid: customer.guid })
    for (const query of [String(member.sku), String(member.upc), String(members.at(-1)!.name)]) {
      const found = await search(query)
      expect(found.items.map((row) => row.guid)).toEqual([parent.guid])
      expect(found.total).toBe(1)
    }
    // Every member matches the family's title: the family is still one row, and no member is one.
    const byTitle = await search(String(parent.group_title))
    expect(byTitle.items.filter((row) => row.guid === parent.guid)).toHaveLength(1)
    const memberGuids = new Set(members.map((m) => m.guid))
    expect(byTitle.items.filter((row) => memberGuids.has(row.guid))).toEqual([])
    // The CLI's search (familyMembers) lists the members too, each naming its family.
    const listed = await harness.api('searchCatalogItems', {
      catalogGuid: parent.catalog_guid,
      query: String(member.sku),
      customerGuid: customer.guid,
      withTotal: false,
      familyMembers: true,
    })
    expect(listed.items.find((row) => row.guid === member.guid)?.family).toEqual({
      guid: parent.guid,
      title: parent.group_title,
    })
    const parentRow = (
      await harness.api('searchCatalogItems', {
        catalogGuid: parent.catalog_guid,
        query: String(parent.sku),
        customerGuid: customer.guid,
        withTotal: false,
      })
    ).items.find((row) => row.guid === parent.guid)
    const grid = await harness.api('getItemFamily', { guid: parent.guid, customerGuid: customer.guid })
    expect(parentRow?.familyOf).toEqual({
      memberCount: members.length,
      priceMin: grid.priceMin,
      priceMax: grid.priceMax,
    })
  })
})

describe('a scanned code', () => {
  it('is an exact UPC first, then a SKU; a UPC two items carry is named, not guessed', async () => {
    const target = harness.orderable(3, 2)
    const [first, second, third] = target.itemGuids
    const skuOf = (guid: string) => records('guid = ?', guid)[0]!.sku as string
    // The second item's UPC is the first item's SKU: the UPC wins.
    harness.service.control.update('catalogItem', second!, { upc: skuOf(first!) })
    await harness.api('syncNow', {})
    const draft = await harness.api('createDraft', {
      customerGuid: target.customerGuid,
      catalogGuid: target.catalogGuid,
    })
    const byUpc = await harness.api('addDraftLines', { id: draft.draft.id, lines: [{ sku: skuOf(first!) }] })
    expect(byUpc.check.draft.lines.map((line) => line.catalogItemGuid)).toEqual([second])
    // Two items with one UPC: nothing added, both SKUs named.
    harness.service.control.update('catalogItem', third!, { upc: '036000291452' })
    harness.service.control.update('catalogItem', first!, { upc: '036000291452' })
    await harness.api('syncNow', {})
    const twice = await harness.api('addDraftLines', { id: draft.draft.id, lines: [{ sku: '036000291452' }] })
    expect(twice.ambiguous).toEqual([{ code: '036000291452', skus: [skuOf(first!), skuOf(third!)].sort() }])
    expect(twice.check.draft.lines).toHaveLength(1)
  })
})

describe('stock', () => {
  it('gives the same available figure in the catalog, the item panel, the grid, the draft check, usual items and the document', async () => {
    const { parent, members } = crossedFamily()
    const customer = customerIn(parent.catalog_guid, true)
    const member = members[0]!
    harness.service.control.update('catalogItem', member.guid, {
      has_inventory: true,
      allow_backorder: false,
      qty_on_hand: 40,
      reserved_qty_on_hand: 13,
      qty_incoming: 96,
    })
    await harness.api('syncNow', {})
    const search = await harness.api('searchCatalogItems', {
      catalogGuid: parent.catalog_guid,
      query: String(member.sku),
      customerGuid: customer.guid,
      withTotal: false,
      familyMembers: true,
    })
    const row = search.items.find((item) => item.guid === member.guid)!
    const panel = await harness.api('getCatalogItem', { guid: member.guid, customerGuid: customer.guid })
    const cell = (await harness.api('getItemFamily', { guid: parent.guid, customerGuid: customer.guid })).cells.find(
      (c) => c.guid === member.guid,
    )!
    const draft = await harness.api('createDraft', { customerGuid: customer.guid, catalogGuid: parent.catalog_guid })
    await harness.api('addDraftLines', { id: draft.draft.id, lines: [{ catalogItemGuid: member.guid, qty: 2 }] })
    await harness.api('updateDraft', { id: draft.draft.id, changes: { poNo: 'PO-STOCK-ONE' } })
    const { apiGuid } = await harness.api('sendDraft', { id: draft.draft.id })
    const waiting = await harness.api('getDocument', { kind: 'queued', ref: apiGuid })
    await harness.settle()
    const sentDocument = await harness.api('getDocument', { kind: 'queued', ref: apiGuid })
    const usual = (await harness.api('getUsualItems', { customerGuid: customer.guid })).items.find(
      (item) => item.guid === member.guid,
    )!
    const second = await harness.api('createDraft', { customerGuid: customer.guid, catalogGuid: parent.catalog_guid })
    const added = await harness.api('addDraftLines', {
      id: second.draft.id,
      lines: [{ catalogItemGuid: member.guid, qty: 30 }],
    })
    const warning = added.check.issues.find((issue) => issue.lineId === added.lineIds[0])?.message
    const document = await harness.api('getDocument', { kind: 'draft', ref: String(second.draft.id) })
    expect([row.available, panel.available, cell.available, usual.qtyAvailable, document.lines[0]?.available]).toEqual([
      27, 27, 27, 27, 27,
    ])
    expect(warning).toContain('Only 27 of')
    expect([row.incoming, panel.incoming, cell.incoming, usual.incoming]).toEqual([96, 96, 96, 96])
    // Every document gives the figure as of the last sync and says when that was: an order waiting or
    // sent shows what is available now, not what was when it left...
    expect(document.stockAsOf).toBeTruthy()
    for (const printed of [waiting, sentDocument]) {
      expect(printed.lines.map((line) => line.available)).toEqual([27])
      expect(printed.stockAsOf).toBeTruthy()
    }
    // ...so once a sync brings the service's reserve for the order, the order synced back gives the
    // figure the item panel and the draft give then.
    await harness.api('syncNow', {})
    const { orders } = await harness.api('listOrders', { query: 'PO-STOCK-ONE' })
    const orderDocument = await harness.api('getDocument', { kind: 'order', ref: orders[0]!.guid })
    const now = (await harness.api('getCatalogItem', { guid: member.guid, customerGuid: customer.guid })).available
    const draftNow = await harness.api('getDocument', { kind: 'draft', ref: String(second.draft.id) })
    expect(orderDocument.lines.map((line) => line.available)).toEqual([now])
    expect(draftNow.lines[0]?.available).toBe(now)
    expect(orderDocument.stockAsOf).toBe(draftNow.stockAsOf)
  })
})

describe('the customer’s account', () => {
  function customerWhere(condition: string): { guid: string; name: string; record: Json } {
    const row = harness.core.db
      .prepare<[], { guid: string; name: string; json: string }>(
        `SELECT guid, name, json FROM customers WHERE active = 1 AND deleted_at IS NULL AND lock_catalog_id IS NULL AND ${condition} ORDER BY id LIMIT 1`,
      )
      .get()!
    return { guid: row.guid, name: row.name, record: JSON.parse(row.json) as Json }
  }

  it('warns on a draft that takes the open balance past the credit limit, without stopping Send', async () => {
    const over = customerWhere("json ->> '$.open_balance' > json ->> '$.credit_limit' AND require_po = 0")
    const target = harness.orderable(1)
    const draft = await harness.api('createDraft', { customerGuid: over.guid, catalogGuid: target.catalogGuid })
    const added = await harness.api('addDraftLines', { id: draft.draft.id, lines: [{ sku: target.skus[0]!, qty: 1 }] })
    const limit = over.record.credit_limit as number
    const balance = over.record.open_balance as number
    expect(added.check.account).toMatchObject({
      creditLimit: limit,
      openBalance: balance,
      room: Math.round((limit - balance) * 100) / 100,
      overLimit: true,
    })
    const credit = added.check.issues.filter((issue) => issue.field === 'credit')
    expect(credit).toHaveLength(1)
    expect(credit[0]).toMatchObject({ severity: 'warning' })
    expect(credit[0]!.message).toContain(over.name)
    expect(added.check.sendable).toBe(true)
    const entry = await harness.api('sendDraft', { id: draft.draft.id })
    await harness.settle()
    expect((await harness.api('listOutbox')).find((e) => e.apiGuid === entry.apiGuid)?.state).toBe('sent')
  })

  it('gives a customer with room left no warning, and a standing PO fills a new draft’s PO', async () => {
    const roomy = customerWhere("json ->> '$.open_balance' < json ->> '$.credit_limit' * 0.5 AND require_po = 0")
    const target = harness.orderable(1)
    const draft = await harness.api('createDraft', { customerGuid: roomy.guid, catalogGuid: target.catalogGuid })
    const added = await harness.api('addDraftLines', { id: draft.draft.id, lines: [{ sku: target.skus[0]!, qty: 1 }] })
    expect(added.check.account?.overLimit).toBe(false)
    expect(added.check.issues.filter((issue) => issue.field === 'credit')).toEqual([])

    const standing = customerWhere("json ->> '$.standing_po' <> ''")
    const withPo = await harness.api('createDraft', { customerGuid: standing.guid })
    expect(withPo.draft.poNo).toBe(standing.record.standing_po)
    expect(withPo.account?.standingPo).toBe(standing.record.standing_po)
    const detail = await harness.api('getCustomer', { guid: standing.guid })
    expect(detail).toMatchObject({
      standingPo: standing.record.standing_po,
      requirePayment: standing.record.require_payment,
      taxExempt: standing.record.tax_exempt,
    })
  })
})
