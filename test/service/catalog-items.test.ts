import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startService } from './index'
import type { RunningService } from './types'
import { catalogs, get, ISO_TIMESTAMP, post, priceGroup, UUID, type Json } from './helpers'

let service: RunningService
let first: Json
let second: Json
let itemsPath: string

beforeAll(async () => {
  service = await startService({ size: 'tiny', seed: 5 })
  ;({ first, second } = catalogs(service))
  itemsPath = `/v1/catalog/${first.guid}/catalog_items`
})
afterAll(async () => {
  await service.close()
})

const intFields = ['id', 'catalog_id', 'category_id', 'group_parent_catalog_item_id', 'group_sequence', 'subsection_id']
const stringFields = [
  'sku',
  'upc',
  'name',
  'description',
  'manufacturer',
  'color',
  'style',
  'product_group_type',
  'product_group_display_style',
  'group_title',
  'third_party_sku',
  'third_party_pricing',
  'third_party_size',
]
const booleanFields = [
  'active',
  'is_taxable',
  'has_inventory',
  'allow_backorder',
  'has_serials',
  'has_lots',
  'has_exp_date',
  'is_product_group',
]
const numberFields = [
  'msrp',
  'cost_per_uom',
  'qty_on_hand',
  'qty_incoming',
  'reserved_qty_on_hand',
  'qty_backordered',
  'qty_held_for_backorders',
  'min_qty_on_hand',
  'max_qty_on_hand',
  'min_order_qty',
  'qty_break',
  'qty_break_price',
  'width',
  'height',
  'depth',
  'item_weight',
  'shipping_weight',
]
const categoryKeys = [
  'catalog_id',
  'created_at',
  'guid',
  'hide_category',
  'id',
  'name',
  'parent_category_id',
  'sequence',
  'updated_at',
]

async function allItems(as: 'apiKey' | 'session' = 'apiKey'): Promise<Json[]> {
  const rows: Json[] = []
  for (let offset = 0; ; offset++) {
    const reply = await get(service, `${itemsPath}?limit=100&offset=${offset}`, { as })
    rows.push(...(reply.json.catalog_items as Json[]))
    if (!reply.json.hasMoreItems) return rows
  }
}

describe('catalog items', () => {
  it('the item list answers catalog_items, totalCatalogItems, hasMoreItems, resource and serverTimestamp', async () => {
    const reply = await get(service, itemsPath)
    expect(Object.keys(reply.json).sort()).toEqual([
      'catalog_items',
      'hasMoreItems',
      'resource',
      'serverTimestamp',
      'totalCatalogItems',
    ])
    expect(reply.json.resource).toBe('catalog_items')
    expect(Number.isInteger(reply.json.totalCatalogItems)).toBe(true)
  })

  it('catalog items carry every CatalogItem field with the spec types', async () => {
    for (const item of await allItems()) {
      for (const key of intFields) expect(Number.isInteger(item[key]), key).toBe(true)
      expect(item.guid).toMatch(UUID)
      for (const key of stringFields) expect(typeof item[key], key).toBe('string')
      for (const key of booleanFields) expect(typeof item[key], key).toBe('boolean')
      for (const key of numberFields) expect(typeof item[key], key).toBe('number')
      expect(item.created_at).toMatch(ISO_TIMESTAMP)
      expect(item.updated_at).toMatch(ISO_TIMESTAMP)
      expect(item.deleted_at).toBeNull()
      expect(Object.keys(item.Category).sort()).toEqual(categoryKeys)
      expect(item.Category.id).toBe(item.category_id)
      expect(item.CategoryHierarchy.at(-1)).toEqual(item.Category)
      expect(item.CategoryHierarchy[0].parent_category_id).toBe(0)
      for (const price of Object.values(item.pricing)) expect(typeof price === 'number' || price === 'N/A').toBe(true)
    }
  })

  it('the data has plausible items: short, backorderable and inactive ones, N/A prices, minimum quantities and qty breaks', async () => {
    const items = [...(await allItems()), ...service.control.catalogItems(second.guid)] as Json[]
    expect(items.length).toBeGreaterThan(200)
    expect(new Set(items.map((item) => item.sku)).size).toBe(items.length)
    expect(
      items.some(
        (item) => item.has_inventory && !item.allow_backorder && item.qty_on_hand - item.reserved_qty_on_hand < 5,
      ),
    ).toBe(true)
    expect(items.some((item) => item.allow_backorder)).toBe(true)
    expect(items.some((item) => !item.active)).toBe(true)
    expect(items.some((item) => Object.values(item.pricing).includes('N/A'))).toBe(true)
    expect(items.some((item) => item.min_order_qty > 1)).toBe(true)
    expect(items.some((item) => item.qty_break > 0 && item.qty_break_price > 0)).toBe(true)
    expect(items.some((item) => item.is_product_group)).toBe(true)
    for (const item of items) {
      expect(item.upc).toMatch(/^\d{12}$/)
      const digits = [...(item.upc as string)].map(Number)
      const sum = digits.slice(0, 11).reduce((total, digit, index) => total + digit * (index % 2 === 0 ? 3 : 1), 0)
      expect((10 - (sum % 10)) % 10).toBe(digits[11])
      expect(item.name.length).toBeGreaterThan(10)
      expect(item.manufacturer).not.toBe('')
    }
  })

  it('API key callers get the fixed field set, user sessions the full model', async () => {
    const byKey = (await get(service, `${itemsPath}?limit=1`)).json.catalog_items[0]
    const bySession = (await get(service, `${itemsPath}?limit=1`, { as: 'session' })).json.catalog_items[0]
    const specKeys = [
      ...intFields,
      'guid',
      ...stringFields,
      ...booleanFields,
      ...numberFields,
      'pricing',
      'Category',
      'CategoryHierarchy',
      'created_at',
      'updated_at',
      'deleted_at',
    ]
    expect(Object.keys(byKey).sort()).toEqual(specKeys.sort())
    expect(Object.keys(bySession).length).toBeGreaterThan(specKeys.length)
    expect(bySession).toMatchObject(byKey)
  })

  it('skipCategoryRetrieval=true leaves out Category and CategoryHierarchy', async () => {
    const [item] = (await get(service, `${itemsPath}?limit=3&skipCategoryRetrieval=true`)).json.catalog_items as Json[]
    expect(item.Category).toBeUndefined()
    expect(item.CategoryHierarchy).toBeUndefined()
  })

  it('includeAttributes=true adds the item attributes', async () => {
    const [item] = (await get(service, `${itemsPath}?limit=1&includeAttributes=true`)).json.catalog_items as Json[]
    expect(Array.isArray(item.attributes)).toBe(true)
    expect(item.attributes[0]).toEqual({ name: expect.any(String), value: expect.any(String) })
  })

  it('the legacy alias GET /v1/{catalogGuid}/catalogItems answers like the new path', async () => {
    const query = '?limit=7&offset=2&skipTotalCount=true'
    const current = await get(service, `${itemsPath}${query}`)
    const legacy = await get(service, `/v1/${first.guid}/catalogItems${query}`)
    expect(legacy.status).toBe(200)
    expect({ ...legacy.json, serverTimestamp: 'x' }).toEqual({ ...current.json, serverTimestamp: 'x' })
  })

  it('an unknown catalog GUID on the item list gives 400', async () => {
    const reply = await get(service, '/v1/catalog/00000000-0000-4000-8000-000000000000/catalog_items')
    expect(reply.status).toBe(400)
    expect(reply.json.code).toBe('CATALOG_NOT_FOUND')
  })

  it('a customer locked to another catalog cannot read its items', async () => {
    const locked = (service.control.customers() as Json[]).find((customer) => customer.lock_catalog_id === second.id)
    expect((await get(service, itemsPath, { headers: { vendorGuid: locked.guid } })).status).toBe(403)
    expect(
      (await get(service, `/v1/catalog/${second.guid}/catalog_items`, { headers: { vendorGuid: locked.guid } })).status,
    ).toBe(200)
  })

  it('the single-item read returns catalog_item with category, attachments, options and attributes', async () => {
    const parent = (service.control.catalogItems(second.guid) as Json[]).find(
      (item) => item.is_product_group && item.deleted_at === null,
    )
    const reply = await get(service, `/v1/catalog/${second.guid}/catalog_items/${parent.guid}`)
    expect(reply.status).toBe(200)
    expect(reply.json.resource).toBe('catalog_item')
    const item = reply.json.catalog_item
    expect(item.guid).toBe(parent.guid)
    expect(item.Category.id).toBe(parent.category_id)
    expect(Array.isArray(item.attachments)).toBe(true)
    expect(Array.isArray(item.attributes)).toBe(true)
    expect(item.options[0].values.length).toBeGreaterThan(1)
  })

  it('the single-item read gives 404 for an unknown or deleted item', async () => {
    const unknown = await get(service, `${itemsPath}/00000000-0000-4000-8000-000000000000`)
    expect(unknown.status).toBe(404)
    expect(unknown.json.code).toBe('ITEM_NOT_FOUND')
    const [victim] = (service.control.catalogItems(first.guid) as Json[])
      .filter((item) => item.deleted_at === null)
      .slice(-1)
    service.control.softDelete('catalogItem', victim.guid)
    expect((await get(service, `${itemsPath}/${victim.guid}`)).status).toBe(404)
    const otherCatalog = (service.control.catalogItems(second.guid) as Json[])[0]
    expect((await get(service, `${itemsPath}/${otherCatalog.guid}`)).status).toBe(404)
  })

  it('batch returns items by id or guid in request order and skips unknown ones', async () => {
    const items = (service.control.catalogItems(first.guid) as Json[])
      .filter((item) => item.deleted_at === null)
      .slice(0, 3)
    const byGuid = await post(service, `${itemsPath}/batch`, {
      type: 'guid',
      values: [items[2].guid, 'not-there', items[0].guid],
    })
    expect(byGuid.status).toBe(200)
    expect(byGuid.json.resource).toBe('catalog_items')
    expect((byGuid.json.catalog_items as Json[]).map((item) => item.guid)).toEqual([items[2].guid, items[0].guid])
    const byId = await post(service, `${itemsPath}/batch`, {
      type: 'id',
      values: [items[1].id, 999_999_999, String(items[0].id)],
    })
    expect((byId.json.catalog_items as Json[]).map((item) => item.id)).toEqual([items[1].id, items[0].id])
  })

  it('batch requires type id|guid and non-empty values', async () => {
    for (const body of [
      { values: ['x'] },
      { type: 'sku', values: ['x'] },
      { type: 'id', values: [] },
      { type: 'id' },
    ]) {
      const reply = await post(service, `${itemsPath}/batch`, body)
      expect(reply.status).toBe(400)
      expect(reply.json.code).toBe('VALIDATION_ERROR')
    }
  })

  it('typeahead searches name, SKU, description and UPC', async () => {
    const [item] = (service.control.catalogItems(first.guid) as Json[])
      .filter((row) => row.active && row.deleted_at === null)
      .slice(7)
    const bySku = await post(service, `${itemsPath}/typeahead`, { query: item.sku.toLowerCase() })
    expect(bySku.status).toBe(200)
    expect(bySku.json.catalog_items[0].guid).toBe(item.guid)
    const byUpc = await post(service, `${itemsPath}/typeahead`, { query: item.upc })
    expect((byUpc.json.catalog_items as Json[]).map((row) => row.guid)).toContain(item.guid)
    const words = (item.name as string).split(/[ ,]+/).slice(0, 3).join(' ')
    const byName = await post(service, `${itemsPath}/typeahead`, { query: words, limit: 100 })
    expect((byName.json.catalog_items as Json[]).map((row) => row.guid)).toContain(item.guid)
    for (const row of byName.json.catalog_items as Json[])
      expect(`${row.name} ${row.sku} ${row.description} ${row.upc}`.toLowerCase()).toContain(
        words.split(' ')[0]?.toLowerCase(),
      )
    expect(byName.json.total).toBeGreaterThanOrEqual(byName.json.catalog_items.length)
  })

  it('typeahead filters by category, price group and attributes and pages with limit/offset', async () => {
    const rows = (service.control.catalogItems(first.guid) as Json[]).filter(
      (row) => row.active && row.deleted_at === null,
    )
    const category = (service.control.categories(first.guid) as Json[]).find((row) => row.parent_category_id === 0)
    const inBranch = await post(service, `${itemsPath}/typeahead`, {
      query: '',
      categoryGuid: category.guid,
      limit: 100,
    })
    expect(inBranch.json.catalog_items.length).toBeGreaterThan(0)
    for (const row of inBranch.json.catalog_items as Json[]) expect(row.CategoryHierarchy[0].id).toBe(category.id)
    const notOffered = rows.find((row) => row.pricing.Distributor === 'N/A')
    const distributor = priceGroup(first, 'Distributor')
    const filtered = await post(service, `${itemsPath}/typeahead`, {
      query: notOffered.sku,
      priceGroupGuid: distributor.guid,
    })
    expect(filtered.json.catalog_items).toEqual([])
    const colored = rows.find((row) => row.color !== '')
    const byColor = await post(service, `${itemsPath}/typeahead`, {
      query: '',
      attributes: { Color: colored.color },
      limit: 100,
    })
    for (const row of byColor.json.catalog_items as Json[]) expect(row.color).toBe(colored.color)
    const pageOne = await post(service, `${itemsPath}/typeahead`, { query: '', limit: 5, offset: 1 })
    const wide = await post(service, `${itemsPath}/typeahead`, { query: '', limit: 10 })
    expect((pageOne.json.catalog_items as Json[]).map((row) => row.guid)).toEqual(
      (wide.json.catalog_items as Json[]).slice(5, 10).map((row) => row.guid),
    )
  })

  it('sku-lookup returns a lightweight projection and lists the SKUs not found', async () => {
    const items = (service.control.catalogItems(first.guid) as Json[])
      .filter((item) => item.deleted_at === null)
      .slice(0, 2)
    const reply = await post(service, '/v1/catalog_items/sku-lookup', {
      catalogGuid: first.guid,
      skus: [items[0].sku, 'NOPE-1', items[1].sku],
    })
    expect(reply.status).toBe(200)
    expect((reply.json.catalog_items as Json[]).map((item) => item.guid)).toEqual([items[0].guid, items[1].guid])
    expect(Object.keys(reply.json.catalog_items[0]).sort()).toEqual([
      'active',
      'catalog_id',
      'guid',
      'id',
      'min_order_qty',
      'name',
      'pricing',
      'sku',
      'upc',
    ])
    expect(reply.json.notFound).toEqual(['NOPE-1'])
    expect((await post(service, '/v1/catalog_items/sku-lookup', { skus: ['x'] })).status).toBe(400)
  })
})
