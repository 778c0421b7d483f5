import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startService } from './index'
import type { RunningService } from './types'
import { catalogs, get, ISO_TIMESTAMP, UUID, type Json } from './helpers'

let service: RunningService
beforeAll(async () => {
  service = await startService({ size: 'tiny', seed: 3 })
})
afterAll(async () => {
  await service.close()
})

describe('catalogs', () => {
  it('GET /v1/catalogs returns catalogs with nested Price_Groups and resource Catalog', async () => {
    const reply = await get(service, '/v1/catalogs')
    expect(reply.status).toBe(200)
    expect(reply.json.resource).toBe('Catalog')
    expect(reply.json.catalogsDetails).toBeUndefined()
    expect(reply.json.catalogs).toHaveLength(2)
    for (const catalog of reply.json.catalogs as Json[]) {
      for (const key of ['id', 'supplier_id', 'order_item_type_id', 'currency_id'])
        expect(Number.isInteger(catalog[key]), key).toBe(true)
      expect(catalog.guid).toMatch(UUID)
      for (const key of ['name', 'email', 'version', 'order_prefix_override'])
        expect(typeof catalog[key], key).toBe('string')
      expect(typeof catalog.active).toBe('boolean')
      for (const key of ['last_inventory_update', 'created_at', 'updated_at'])
        expect(catalog[key], key).toMatch(ISO_TIMESTAMP)
      expect(catalog.Price_Groups.length).toBeGreaterThan(1)
      for (const group of catalog.Price_Groups as Json[]) {
        expect(Object.keys(group).sort()).toEqual([
          'catalog_id',
          'created_at',
          'deleted_at',
          'guid',
          'id',
          'is_main',
          'percentage',
          'price_upcharge_type_id',
          'updated_at',
          'value',
        ])
        expect(group.catalog_id).toBe(catalog.id)
        expect(typeof group.value).toBe('string')
        expect(group.deleted_at).toBeNull()
      }
      expect((catalog.Price_Groups as Json[]).filter((group) => group.is_main)).toHaveLength(1)
    }
    expect((reply.json.catalogs as Json[]).some((catalog) => catalog.order_prefix_override !== '')).toBe(true)
  })

  it('a customer context narrows the catalogs to those the customer may order from', async () => {
    const { second } = catalogs(service)
    const locked = (service.control.customers() as Json[]).find(
      (customer) => customer.lock_catalog_id === second.id && customer.deleted_at === null,
    )
    const open = (service.control.customers() as Json[]).find((customer) => customer.lock_catalog_id === 0)
    const byHeader = await get(service, '/v1/catalogs', { headers: { vendorGuid: locked.guid } })
    expect((byHeader.json.catalogs as Json[]).map((catalog) => catalog.guid)).toEqual([second.guid])
    const byQuery = await get(service, `/v1/catalogs?vendorGuid=${locked.guid}`, { as: 'session' })
    expect((byQuery.json.catalogs as Json[]).map((catalog) => catalog.guid)).toEqual([second.guid])
    expect((await get(service, '/v1/catalogs', { headers: { vendorGuid: open.guid } })).json.catalogs).toHaveLength(2)
    expect(
      (await get(service, '/v1/catalogs', { headers: { vendorGuid: '00000000-0000-4000-8000-000000000000' } })).status,
    ).toBe(403)
    expect((await get(service, '/v1/catalogs?vendorGuid=nope')).status).toBe(400)
  })

  it('checkIfHasCategories=true adds catalogsDetails', async () => {
    const reply = await get(service, '/v1/catalogs?checkIfHasCategories=true')
    expect(reply.json.catalogsDetails).toHaveLength(2)
    for (const detail of reply.json.catalogsDetails as Json[]) {
      expect(Object.keys(detail).sort()).toEqual(['catalogGuid', 'catalogId', 'catalogName', 'hasCategories'])
      expect(detail.hasCategories).toBe(true)
    }
  })

  it('includeDeletedPriceGroups=true includes soft-deleted price groups with deleted_at', async () => {
    const { first } = catalogs(service)
    const plain = await get(service, '/v1/catalogs')
    const withDeleted = await get(service, '/v1/catalogs?includeDeletedPriceGroups=true')
    const count = (reply: Json): number =>
      (reply.json.catalogs as Json[]).find((catalog) => catalog.guid === first.guid).Price_Groups.length
    expect(count(withDeleted)).toBe(count(plain) + 1)
    const deleted = (withDeleted.json.catalogs as Json[])
      .find((catalog) => catalog.guid === first.guid)
      .Price_Groups.find((group: Json) => group.deleted_at !== null)
    expect(deleted.deleted_at).toMatch(ISO_TIMESTAMP)
  })

  it('onlyActive=true leaves out inactive catalogs', async () => {
    const own = await startService({ size: 'tiny', seed: 3 })
    try {
      const { second } = catalogs(own)
      own.control.deactivate('catalog', second.guid)
      expect((await get(own, '/v1/catalogs')).json.catalogs).toHaveLength(2)
      const active = await get(own, '/v1/catalogs?onlyActive=true')
      expect((active.json.catalogs as Json[]).map((catalog) => catalog.guid)).not.toContain(second.guid)
    } finally {
      await own.close()
    }
  })
})

describe('price groups', () => {
  it('GET /v1/catalog/{catalogGuid}/price_groups lists { id, guid, name, created_at, updated_at } whose names key pricing', async () => {
    const { first } = catalogs(service)
    const reply = await get(service, `/v1/catalog/${first.guid}/price_groups`)
    expect(reply.status).toBe(200)
    const groups = reply.json.priceGroups as Json[]
    expect(groups.length).toBeGreaterThan(1)
    for (const group of groups)
      expect(Object.keys(group).sort()).toEqual(['created_at', 'guid', 'id', 'name', 'updated_at'])
    const items = await get(service, `/v1/catalog/${first.guid}/catalog_items?limit=5`)
    for (const item of items.json.catalog_items as Json[]) {
      expect(Object.keys(item.pricing).sort()).toEqual(groups.map((group) => group.name).sort())
    }
  })

  it('an unknown catalog GUID gives 400', async () => {
    const reply = await get(service, '/v1/catalog/00000000-0000-4000-8000-000000000000/price_groups')
    expect(reply.status).toBe(400)
    expect(reply.json.code).toBe('CATALOG_NOT_FOUND')
  })
})
