/**
 * A rep can start work before a first sync ends, instead of waiting on it. Customers (and
 * catalogs) come first; each catalog's items are searchable as their pages land, with the catalog
 * marked as still loading and by how much; once the catalog is in, the mark goes and its browsing
 * indexes are back.
 */
import { afterEach, describe, expect, it } from 'vitest'
import type { CatalogItemRecord } from '../../src/main/ordering-client/schemas'
import type { Page } from '../../src/main/ordering-client/client'
import { liveCatalogGuids, startHarness, type Harness } from './sync-support'

let harness: Harness | undefined

afterEach(async () => {
  await harness?.close()
  harness = undefined
})

interface Seen {
  customersFound: number
  itemsFound: number
  /** The catalog listed with no search, while its name index waits for the listing's end. */
  listed: number
  loading: { itemsDone: number; itemsTotal: number | null } | null | undefined
  otherCatalogLoading: { itemsDone: number; itemsTotal: number | null } | null | undefined
}

describe('usable before the first sync ends', () => {
  it('answers customer and catalog searches mid-sync, saying how much of the catalog is in', async () => {
    let seen: Seen | null = null
    let firstCatalog: string | null = null
    harness = await startHarness({
      // Pages of 10, for a first catalog of several pages beyond the first ones asked for at once: at
      // two requests at once, the one asked ahead of its turn and the two asked as it starts.
      pageSize: 10,
      concurrency: 2,
      source: (client) => ({
        listCatalogs: (options) => client.listCatalogs(options),
        listCustomers: (params, options) => client.listCustomers(params, options),
        listOrders: (params, options) => client.listOrders(params, options),
        listCatalogItems: async (catalogGuid, params, options): Promise<Page<CatalogItemRecord>> => {
          firstCatalog ??= catalogGuid
          // Looked at while the first catalog's sixth page is on its way: pages are written while the
          // next ones are fetched, and the first is in once pages after it have come back.
          if (catalogGuid === firstCatalog && params.offset === 5 && !params.lastUpdatedAt && seen === null) {
            const h = harness!
            const someItem = h.db
              .prepare<[string], string>('SELECT name FROM catalog_item_rows WHERE catalog_guid = ? LIMIT 1')
              .pluck()
              .get(catalogGuid)!
            const other = liveCatalogGuids(h).find((guid) => guid !== catalogGuid)!
            seen = {
              customersFound: h.queries.customers.searchCustomers({
                query: h.queries.customers.searchCustomers({ limit: 1 }).customers[0]!.name.split(' ')[0],
              }).total,
              itemsFound:
                h.queries.catalogs.searchCatalogItems({
                  catalogGuid,
                  query: someItem.split(' ')[0],
                  includeInactive: true,
                }).total ?? Number.NaN,
              loading: h.queries.catalogs.searchCatalogItems({ catalogGuid }).loading,
              listed: h.queries.catalogs.searchCatalogItems({ catalogGuid, includeInactive: true }).items.length,
              otherCatalogLoading: h.queries.catalogs.listCatalogs().find((catalog) => catalog.guid === other)?.loading,
            }
          }
          return client.listCatalogItems(catalogGuid, params, options)
        },
      }),
    })
    const report = await harness.sync()
    expect(report.ok).toBe(true)
    expect(seen).not.toBeNull()
    const mid = seen as unknown as Seen
    expect(mid.customersFound).toBeGreaterThan(0)
    expect(mid.itemsFound).toBeGreaterThan(0)
    expect(mid.listed).toBeGreaterThan(0)
    const total = harness.service.control.catalogItems(firstCatalog!).filter((item) => item.deleted_at === null).length
    expect(mid.loading).toEqual({ itemsDone: expect.any(Number) as number, itemsTotal: total })
    expect(mid.loading!.itemsDone).toBeGreaterThan(0)
    expect(mid.loading!.itemsDone).toBeLessThan(total)
    // A catalog whose turn has not come is loading too, with nothing in yet.
    expect(mid.otherCatalogLoading).toEqual({ itemsDone: 0, itemsTotal: null })

    // Done: no catalog is loading, and the indexes the first listing deferred are back.
    for (const catalog of harness.queries.catalogs.listCatalogs()) expect(catalog.loading ?? null).toBeNull()
    expect(harness.queries.catalogs.searchCatalogItems({ catalogGuid: firstCatalog! }).loading ?? null).toBeNull()
    const indexes = harness.db
      .prepare<[], string>(
        "SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'catalog_item_rows' ORDER BY name",
      )
      .pluck()
      .all()
    expect(indexes).toEqual(
      expect.arrayContaining([
        'catalog_items_by_category',
        'catalog_items_by_id',
        'catalog_items_by_listing',
        'catalog_items_by_name',
        'catalog_items_by_sku',
      ]),
    )
    expect(harness.db.prepare('SELECT count(*) FROM deferred_indexes').pluck().get()).toBe(0)
  })

  it('rebuilds the deferred indexes when a first sync is cut short, and resumes the catalog as a first listing', async () => {
    let fail = true
    harness = await startHarness({
      source: (client) => ({
        listCatalogs: (options) => client.listCatalogs(options),
        listCustomers: (params, options) => client.listCustomers(params, options),
        listOrders: (params, options) => client.listOrders(params, options),
        listCatalogItems: async (catalogGuid, params, options): Promise<Page<CatalogItemRecord>> => {
          if (fail && params.offset === 3) throw new Error('network gone')
          return client.listCatalogItems(catalogGuid, params, options)
        },
      }),
    })
    const cut = await harness.sync()
    expect(cut.ok).toBe(false)
    expect(harness.db.prepare('SELECT count(*) FROM deferred_indexes').pluck().get()).toBe(0)
    expect(
      harness.db.prepare("SELECT count(*) FROM sqlite_schema WHERE name = 'catalog_items_by_name'").pluck().get(),
    ).toBe(1)
    const catalogGuid = harness.queries.catalogs.listCatalogs().find((catalog) => catalog.loading?.itemsDone)?.guid
    expect(catalogGuid).toBeDefined()

    fail = false
    expect((await harness.sync()).ok).toBe(true)
    for (const guid of liveCatalogGuids(harness)) {
      // A family counts once, as its parent's row.
      const server = harness.service.control
        .catalogItems(guid)
        .filter((item) => item.deleted_at === null && !(Number(item.group_parent_catalog_item_id) > 0)).length
      expect(
        harness.queries.catalogs.searchCatalogItems({ catalogGuid: guid, includeInactive: true, limit: 500 }).total,
      ).toBe(server)
    }
  })
})
