/**
 * Every endpoint of the interface, as data: method, path, accepted credential set and handler.
 * Handlers return either an object (serialized by fastify) or a JsonText assembled from cached
 * per-record JSON, which is how listing pages stay O(page).
 */
import { z } from 'zod'
import { newestFirst } from './control'
import { createVendor, parseNewVendor, updateVendor } from './customers'
import {
  DELTA_OVERLAP_MS,
  HttpError,
  PlainTextError,
  contextVendor,
  isUuid,
  page,
  parseBody,
  parseCursor,
  parseLimit,
  parseOffset,
  parsePaging,
  queryBool,
  queryString,
  requireSupplierLevel,
  type Accepts,
  type AuthContext,
  type Headers,
  type Query,
} from './http'
import { galleryPath } from './images'
import {
  createLegacyOrder,
  createOrderV2,
  createOrderWithItems,
  orderObject,
  orderProjection,
  submitOrder,
  updateOrder,
} from './orders'
import {
  itemAttributes,
  jsonPage,
  type CatalogEntry,
  type ItemEntry,
  type OrderEntry,
  type Store,
  type VendorEntry,
} from './store'

/** A response body that is already JSON (assembled from cached rows). */
export class JsonText {
  constructor(readonly body: string | Buffer) {}
}

interface RouteContext {
  auth: AuthContext
  params: Record<string, string>
  query: Query
  body: unknown
  headers: Headers
}

export interface RouteDef {
  method: 'GET' | 'POST' | 'PUT'
  url: string
  accepts: Accepts
  /** The credential set whose absence gets the legacy plain-text 400. */
  plainText?: 'apiKey' | 'session'
  handle(context: RouteContext): unknown
}

function requireCatalog(store: Store, guid: string | undefined): CatalogEntry {
  const catalog = guid && isUuid(guid) ? store.liveCatalog(guid) : undefined
  if (!catalog) throw new HttpError(400, `Unknown catalog ${guid ?? ''}`, 'CATALOG_NOT_FOUND')
  return catalog
}

/** A customer locked to one catalog may not read another. */
/** The customer writes are session only, unless support granted the API key them (control.grantApiKeyCustomers). */
function requireCustomerGrant(store: Store, auth: AuthContext): void {
  if (auth.mode === 'apiKey' && !store.settings.apiKeyCustomers)
    throw new HttpError(
      403,
      'This endpoint requires user session (userGuid/userToken/supplierGuid) credentials',
      'FORBIDDEN',
    )
}

function catalogContext(store: Store, auth: AuthContext, catalog: CatalogEntry): VendorEntry | undefined {
  const vendor = contextVendor(store, auth)
  if (vendor && vendor.rec.lock_catalog_id !== 0 && vendor.rec.lock_catalog_id !== catalog.rec.id) {
    throw new HttpError(
      403,
      `Customer ${vendor.rec.name} may not use catalog ${catalog.rec.name}`,
      'VENDOR_NOT_ACCESSIBLE',
    )
  }
  return vendor
}

function cutoff(query: Query): number | undefined {
  const cursor = parseCursor(queryString(query, 'lastUpdatedAt'))
  return cursor === undefined ? undefined : cursor - DELTA_OVERLAP_MS
}

function orderVisible(store: Store, auth: AuthContext, entry: OrderEntry): void {
  const vendor = contextVendor(store, auth)
  if (vendor && entry.rec.vendor_id !== vendor.rec.id)
    throw new HttpError(403, `Order ${entry.rec.guid} belongs to another customer`, 'FORBIDDEN')
}

function requireOrder(store: Store, guid: string | undefined): OrderEntry {
  if (!isUuid(guid)) throw new HttpError(400, `orderGuid is not a UUID: '${guid ?? ''}'`, 'INVALID_PARAMETER')
  const entry = store.ordersByGuid.get(guid)
  if (!entry || entry.rec.deleted_at !== null) throw new HttpError(404, `Order ${guid} not found`, 'ORDER_NOT_FOUND')
  return entry
}

const vendorOrderColumns = new Set([
  'id',
  'name',
  'email',
  'customer_internal_id',
  'city',
  'state',
  'postal_code',
  'created_at',
  'updated_at',
])

function compareValues(a: unknown, b: unknown): number {
  if (typeof a === 'string' && typeof b === 'string') return a.localeCompare(b, 'en', { sensitivity: 'base' })
  if (typeof a === 'number' && typeof b === 'number') return a - b
  return String(a).localeCompare(String(b))
}

function itemsPage(store: Store, catalog: CatalogEntry, context: RouteContext): JsonText {
  const { query, auth } = context
  catalogContext(store, auth, catalog)
  const paging = parsePaging(query)
  const since = cutoff(query)
  const skipTotal = queryBool(query, 'skipTotalCount') ?? false
  const categories = !(queryBool(query, 'skipCategoryRetrieval') ?? false)
  const attributes = queryBool(query, 'includeAttributes') ?? false
  const collection = store.itemsCollection(catalog)
  const rows =
    since === undefined
      ? store.listing(collection, 'live', () => catalog.items.filter((item) => item.rec.deleted_at === null))
      : store.listing(collection, `delta:${since}`, () => catalog.items.filter((item) => item.updatedMs >= since))
  const { rows: pageRows, hasMore } = page(rows, paging)
  const full = auth.mode === 'session'
  return new JsonText(
    jsonPage(
      '{"catalog_items":[',
      pageRows.map((item) => store.itemChunks(item, full, categories, attributes)),
      `],"totalCatalogItems":${skipTotal ? 0 : rows.length},"hasMoreItems":${hasMore},"resource":"catalog_items","serverTimestamp":"${store.nowIso()}"}`,
    ),
  )
}

/** The single-item read adds attachments and options (structures not shown by the spec). */
function singleItemJson(store: Store, item: ItemEntry, full: boolean): string {
  const rec = item.rec
  const gallery = store.imageGalleries.get(rec.sku)?.count ?? 1
  // The primary is the listing's picture; a gallery's others follow it, not marked primary.
  const attachments =
    typeof rec.image_url === 'string'
      ? Array.from({ length: gallery }, (_, n) => ({
          id: rec.id * 100 + n,
          name: `${rec.sku}-${n + 1}.png`,
          url: n === 0 ? rec.image_url : galleryPath(rec.image_url as string, n + 1),
          type: 'image',
          is_primary: n === 0,
        }))
      : []
  const children = rec.is_product_group
    ? item.catalog.items.filter(
        (child) => child.rec.group_parent_catalog_item_id === rec.id && child.rec.deleted_at === null,
      )
    : []
  const options =
    children.length > 0
      ? [
          {
            name: rec.product_group_type || 'Option',
            values: children.map((child) => ({
              label: child.rec.style || child.rec.name,
              catalog_item_guid: child.rec.guid,
              catalog_item_id: child.rec.id,
              sku: child.rec.sku,
            })),
          },
        ]
      : []
  return (
    store.itemJson(item, full, true, true).slice(0, -1) +
    `,"attachments":${JSON.stringify(attachments)},"options":${JSON.stringify(options)}}`
  )
}

const batchSchema = z.looseObject({
  type: z.enum(['id', 'guid']),
  values: z
    .array(z.union([z.string(), z.number()]))
    .min(1, 'values must not be empty')
    .max(500, 'at most 500 values'),
})

const typeaheadSchema = z.looseObject({
  query: z.string().nullish(),
  search: z.string().nullish(),
  limit: z.number().int().nullish(),
  offset: z.number().int().nullish(),
  categoryGuid: z.string().nullish(),
  priceGroupGuid: z.string().nullish(),
  priceGroupName: z.string().nullish(),
  attributes: z.record(z.string(), z.string()).nullish(),
})

const skuLookupSchema = z.looseObject({
  catalogGuid: z.string(),
  skus: z.array(z.string()).min(1).max(500).nullish(),
  sku: z.string().nullish(),
})

export function apiRoutes(store: Store): RouteDef[] {
  const catalogItemsRoute = (context: RouteContext): JsonText =>
    itemsPage(store, requireCatalog(store, context.params.catalogGuid), context)

  return [
    // ---- customers ----
    {
      method: 'GET',
      url: '/vendors',
      accepts: 'either',
      handle: ({ auth, query }) => {
        requireSupplierLevel(auth)
        const paging = parsePaging(query)
        const since = cutoff(query)
        const name = queryString(query, 'name')?.trim().toLowerCase() || undefined
        const category = queryString(query, 'category')?.trim().toLowerCase() || undefined
        const stateLicense = queryString(query, 'state_license')?.trim() || undefined
        const filterInactive = queryBool(query, 'filter_inactive') ?? queryBool(query, 'filterInactive') ?? false
        const orderBy = queryString(query, 'order_by') ?? 'id'
        if (!vendorOrderColumns.has(orderBy)) {
          throw new HttpError(400, `order_by must be one of ${[...vendorOrderColumns].join(', ')}`, 'INVALID_PARAMETER')
        }
        const orderDir = (queryString(query, 'order_dir') ?? 'asc').toLowerCase()
        if (orderDir !== 'asc' && orderDir !== 'desc')
          throw new HttpError(400, 'order_dir must be asc or desc', 'INVALID_PARAMETER')
        const nameGuidOnly = queryBool(query, 'nameGuidOnly') ?? false
        const key = JSON.stringify([since, name, category, stateLicense, filterInactive, orderBy, orderDir])
        const rows = store.listing('vendors', key, () => {
          const matching = store.vendors.filter((vendor) => {
            if (since === undefined ? vendor.rec.deleted_at !== null : vendor.updatedMs < since) return false
            if (filterInactive && !vendor.rec.active) return false
            if (name && !vendor.rec.name.toLowerCase().includes(name)) return false
            if (category && vendor.connection.category.toLowerCase() !== category) return false
            if (stateLicense && vendor.connection.state_license !== stateLicense) return false
            return true
          })
          const sign = orderDir === 'desc' ? -1 : 1
          return orderBy === 'id'
            ? sign === 1
              ? matching
              : matching.reverse()
            : matching.sort((a, b) => sign * (compareValues(a.rec[orderBy], b.rec[orderBy]) || a.rec.id - b.rec.id))
        })
        const { rows: pageRows, hasMore } = page(rows, paging)
        return new JsonText(
          jsonPage(
            '{"vendors":[',
            pageRows.map((vendor) => store.connectionBuffer(vendor, nameGuidOnly)),
            `],"total":${rows.length},"hasMoreItems":${hasMore},"resource":"vendors","serverTimestamp":"${store.nowIso()}"}`,
          ),
        )
      },
    },
    {
      method: 'POST',
      url: '/vendors',
      accepts: 'either',
      handle: ({ auth, body }) => {
        requireCustomerGrant(store, auth)
        requireSupplierLevel(auth)
        const input = parseNewVendor(body)
        const { vendor, refs } = createVendor(store, input)
        return {
          vendor: store.vendorObject(vendor),
          billTo: refs.billTo,
          shipTo: refs.shipTo,
          contact: refs.contact,
          note: refs.note,
        }
      },
    },
    {
      method: 'GET',
      url: '/v1/vendors/:vendorGuid',
      accepts: 'either',
      handle: ({ auth, params }) => {
        const guid = params.vendorGuid
        if (!isUuid(guid)) throw new HttpError(400, `vendorGuid is not a UUID: '${guid ?? ''}'`, 'INVALID_PARAMETER')
        const context = contextVendor(store, auth)
        const vendor = store.liveVendor(guid)
        if (!vendor) throw new HttpError(404, `Customer ${guid} not found`, 'VENDOR_NOT_FOUND')
        if (context && context !== vendor)
          throw new HttpError(403, `Customer ${guid} is outside this customer context`, 'FORBIDDEN')
        return new JsonText(store.vendorBuffer(vendor))
      },
    },
    {
      method: 'PUT',
      url: '/v1/vendors/:vendorGuid',
      accepts: 'either',
      handle: ({ auth, params, body }) => {
        requireCustomerGrant(store, auth)
        const guid = params.vendorGuid
        if (!isUuid(guid)) throw new HttpError(400, `vendorGuid is not a UUID: '${guid ?? ''}'`, 'INVALID_PARAMETER')
        const context = contextVendor(store, auth)
        const vendor = store.liveVendor(guid)
        if (!vendor) throw new HttpError(404, `Customer ${guid} not found`, 'VENDOR_NOT_FOUND')
        if (context && context !== vendor)
          throw new HttpError(403, `Customer ${guid} is outside this customer context`, 'FORBIDDEN')
        updateVendor(store, vendor, body)
        return { vendorModel: store.vendorObject(vendor), resource: 'vendor' }
      },
    },

    // ---- catalogs and price groups ----
    {
      method: 'GET',
      url: '/v1/catalogs',
      accepts: 'either',
      handle: ({ auth, query }) => {
        const vendor = contextVendor(store, auth, queryString(query, 'vendorGuid'))
        const onlyActive = queryBool(query, 'onlyActive') ?? false
        const checkIfHasCategories = queryBool(query, 'checkIfHasCategories') ?? false
        const includeDeleted = queryBool(query, 'includeDeletedPriceGroups') ?? false
        const catalogs = store.catalogs.filter(
          (catalog) =>
            catalog.rec.deleted_at === null &&
            (!onlyActive || catalog.rec.active) &&
            (!vendor || vendor.rec.lock_catalog_id === 0 || vendor.rec.lock_catalog_id === catalog.rec.id),
        )
        return {
          catalogs: catalogs.map((catalog) => store.catalogObject(catalog, includeDeleted)),
          resource: 'Catalog',
          ...(checkIfHasCategories
            ? {
                catalogsDetails: catalogs.map((catalog) => ({
                  catalogGuid: catalog.rec.guid,
                  catalogName: catalog.rec.name,
                  catalogId: catalog.rec.id,
                  hasCategories: catalog.categories.some((category) => category.rec.deleted_at === null),
                })),
              }
            : {}),
        }
      },
    },
    {
      method: 'GET',
      url: '/v1/catalog/:catalogGuid/price_groups',
      accepts: 'either',
      handle: ({ auth, params }) => {
        const catalog = requireCatalog(store, params.catalogGuid)
        catalogContext(store, auth, catalog)
        return {
          priceGroups: store.livePriceGroups(catalog).map(({ rec }) => ({
            id: rec.id,
            guid: rec.guid,
            name: rec.value,
            created_at: rec.created_at,
            updated_at: rec.updated_at,
          })),
        }
      },
    },

    // ---- catalog items ----
    { method: 'GET', url: '/v1/catalog/:catalogGuid/catalog_items', accepts: 'either', handle: catalogItemsRoute },
    { method: 'GET', url: '/v1/:catalogGuid/catalogItems', accepts: 'either', handle: catalogItemsRoute },
    {
      method: 'GET',
      url: '/v1/catalog/:catalogGuid/catalog_items/:catalogItemGuid',
      accepts: 'either',
      handle: ({ auth, params }) => {
        const catalog = requireCatalog(store, params.catalogGuid)
        catalogContext(store, auth, catalog)
        const guid = params.catalogItemGuid
        if (!isUuid(guid))
          throw new HttpError(400, `catalogItemGuid is not a UUID: '${guid ?? ''}'`, 'INVALID_PARAMETER')
        const item = store.itemsByGuid.get(guid)
        if (!item || item.catalog !== catalog || item.rec.deleted_at !== null)
          throw new HttpError(404, `Catalog item ${guid} not found`, 'ITEM_NOT_FOUND')
        return new JsonText(
          `{"catalog_item":${singleItemJson(store, item, auth.mode === 'session')},"resource":"catalog_item"}`,
        )
      },
    },
    {
      method: 'POST',
      url: '/v1/catalog/:catalogGuid/catalog_items/batch',
      accepts: 'either',
      handle: ({ auth, params, body }) => {
        const catalog = requireCatalog(store, params.catalogGuid)
        catalogContext(store, auth, catalog)
        const input = parseBody(batchSchema, body)
        const seen = new Set<ItemEntry>()
        for (const value of input.values) {
          const item =
            input.type === 'id'
              ? store.itemsById.get(typeof value === 'number' ? value : /^\d+$/.test(value) ? Number(value) : NaN)
              : typeof value === 'string'
                ? store.itemsByGuid.get(value)
                : undefined
          if (item && item.catalog === catalog && item.rec.deleted_at === null) seen.add(item)
        }
        const items = [...seen].map((item) => store.itemChunks(item, auth.mode === 'session', true, false))
        return new JsonText(jsonPage('{"catalog_items":[', items, '],"resource":"catalog_items"}'))
      },
    },
    {
      method: 'POST',
      url: '/v1/catalog/:catalogGuid/catalog_items/typeahead',
      accepts: 'either',
      handle: ({ auth, params, body }) => {
        const catalog = requireCatalog(store, params.catalogGuid)
        catalogContext(store, auth, catalog)
        const input = parseBody(typeaheadSchema, body)
        const limit = parseLimit(input.limit ?? undefined)
        const offset = parseOffset(input.offset ?? undefined)
        const text = (input.query ?? input.search ?? '').trim().toLowerCase()
        const tokens = text.split(/\s+/).filter(Boolean)
        let categoryIds: Set<number> | undefined
        if (input.categoryGuid) {
          const root = store.categoriesByGuid.get(input.categoryGuid)
          if (!root || root.catalog !== catalog)
            throw new HttpError(400, `Unknown category ${input.categoryGuid} in this catalog`, 'CATEGORY_NOT_FOUND')
          categoryIds = new Set([root.rec.id])
          for (let grew = true; grew;) {
            grew = false
            for (const category of catalog.categories) {
              if (!categoryIds.has(category.rec.id) && categoryIds.has(category.rec.parent_category_id)) {
                categoryIds.add(category.rec.id)
                grew = true
              }
            }
          }
        }
        let groupName = input.priceGroupName ?? undefined
        if (input.priceGroupGuid) {
          const group = store.priceGroupsByGuid.get(input.priceGroupGuid)
          if (!group || group.catalog !== catalog)
            throw new HttpError(
              400,
              `Unknown price group ${input.priceGroupGuid} in this catalog`,
              'PRICE_GROUP_NOT_FOUND',
            )
          groupName = group.rec.value
        }
        const wantedAttributes = Object.entries(input.attributes ?? {}).map(
          ([name, value]) => [name.toLowerCase(), value.toLowerCase()] as const,
        )
        const matches = catalog.items.filter((item) => {
          if (item.rec.deleted_at !== null || !item.rec.active) return false
          if (categoryIds && !categoryIds.has(item.rec.category_id)) return false
          if (groupName !== undefined && typeof item.rec.pricing[groupName] !== 'number') return false
          if (wantedAttributes.length > 0) {
            const own = itemAttributes(item.rec).map(
              (attribute) => [attribute.name.toLowerCase(), attribute.value.toLowerCase()] as const,
            )
            if (
              !wantedAttributes.every(([name, value]) =>
                own.some(([ownName, ownValue]) => ownName === name && ownValue === value),
              )
            )
              return false
          }
          const haystack = store.itemSearchText(item)
          return tokens.every((token) => haystack.includes(token))
        })
        // Exact SKU first, then names starting with the query, then catalog order.
        const rank = (item: ItemEntry): number =>
          item.rec.sku.toLowerCase() === text ? 0 : item.rec.name.toLowerCase().startsWith(text) ? 1 : 2
        const ranked = text
          ? matches
              .map((item) => ({ item, rank: rank(item) }))
              .sort((a, b) => a.rank - b.rank || a.item.rec.id - b.item.rec.id)
              .map(({ item }) => item)
          : matches
        const { rows, hasMore } = page(ranked, { limit, offset })
        const items = rows.map((item) => store.itemChunks(item, auth.mode === 'session', true, false))
        return new JsonText(
          jsonPage(
            '{"catalog_items":[',
            items,
            `],"total":${ranked.length},"hasMoreItems":${hasMore},"resource":"catalog_items"}`,
          ),
        )
      },
    },
    {
      method: 'POST',
      url: '/v1/catalog_items/sku-lookup',
      accepts: 'either',
      handle: ({ auth, body }) => {
        const input = parseBody(skuLookupSchema, body)
        const catalog = requireCatalog(store, input.catalogGuid)
        catalogContext(store, auth, catalog)
        const skus = [...(input.skus ?? []), ...(input.sku ? [input.sku] : [])]
        if (skus.length === 0) throw new HttpError(400, 'skus (or sku) is required', 'VALIDATION_ERROR')
        const [index] = store.listing(store.itemsCollection(catalog), 'sku-index', () => {
          const bySku = new Map<string, ItemEntry>()
          for (const item of catalog.items) if (item.rec.deleted_at === null) bySku.set(item.rec.sku, item)
          return [bySku]
        })
        const found: Record<string, unknown>[] = []
        const notFound: string[] = []
        for (const sku of skus) {
          const item = index?.get(sku)
          if (!item) {
            notFound.push(sku)
            continue
          }
          const { rec } = item
          found.push({
            id: rec.id,
            guid: rec.guid,
            catalog_id: rec.catalog_id,
            sku: rec.sku,
            upc: rec.upc,
            name: rec.name,
            active: rec.active,
            min_order_qty: rec.min_order_qty,
            pricing: rec.pricing,
          })
        }
        return { catalog_items: found, notFound, resource: 'catalog_items' }
      },
    },

    // ---- orders ----
    {
      method: 'GET',
      url: '/v1/orders',
      accepts: 'either',
      handle: ({ auth, query }) => {
        const vendor = contextVendor(store, auth, queryString(query, 'vendorGuid'))
        const paging = parsePaging(query)
        const since = cutoff(query)
        const rows = store.listing('orders', JSON.stringify(['orders', vendor?.rec.id, since]), () =>
          store.orders
            .filter(
              (order) =>
                (since === undefined ? order.rec.deleted_at === null : order.updatedMs >= since) &&
                (!vendor || order.rec.vendor_id === vendor.rec.id),
            )
            .sort(newestFirst),
        )
        const { rows: pageRows, hasMore } = page(rows, paging)
        return {
          orders: pageRows.map((order) => orderProjection(store, order)),
          total: rows.length,
          hasMoreItems: hasMore,
          serverTimestamp: store.nowIso(),
        }
      },
    },
    {
      method: 'GET',
      url: '/v1/orders/list',
      accepts: 'either',
      handle: ({ auth, query }) => {
        const vendor = contextVendor(store, auth, queryString(query, 'vendorGuid'))
        const paging = parsePaging(query)
        const since = cutoff(query)
        const search = queryString(query, 'search')?.trim().toLowerCase() || undefined
        const statesParam = queryString(query, 'order_state_id')
        const states = statesParam ? statesParam.split(',').map((part) => Number(part.trim())) : undefined
        if (states?.some((state) => !Number.isInteger(state)))
          throw new HttpError(400, 'order_state_id must be a comma-separated list of ids', 'INVALID_PARAMETER')
        const dateFrom = queryString(query, 'dateFrom')
        const dateTo = queryString(query, 'dateTo')
        for (const [name, value] of [
          ['dateFrom', dateFrom],
          ['dateTo', dateTo],
        ] as const) {
          if (value !== undefined && !/^\d{4}-\d{2}-\d{2}$/.test(value))
            throw new HttpError(400, `${name} must be YYYY-MM-DD`, 'INVALID_PARAMETER')
        }
        const sortBy = queryString(query, 'sortBy') ?? 'created_at'
        if (!['created_at', 'updated_at', 'name', 'grand_total'].includes(sortBy)) {
          throw new HttpError(400, 'sortBy must be created_at, updated_at, name or grand_total', 'INVALID_PARAMETER')
        }
        const sortDir = (queryString(query, 'sortDir') ?? 'desc').toLowerCase()
        if (sortDir !== 'asc' && sortDir !== 'desc')
          throw new HttpError(400, 'sortDir must be asc or desc', 'INVALID_PARAMETER')
        const key = JSON.stringify(['list', vendor?.rec.id, since, search, states, dateFrom, dateTo, sortBy, sortDir])
        const rows = store.listing('orders', key, () => {
          const sign = sortDir === 'desc' ? -1 : 1
          return store.orders
            .filter((order) => {
              const rec = order.rec
              if (since === undefined ? rec.deleted_at !== null : order.updatedMs < since) return false
              if (vendor && rec.vendor_id !== vendor.rec.id) return false
              if (states && !states.includes(rec.order_state_id)) return false
              const day = rec.created_at.slice(0, 10)
              if (dateFrom && day < dateFrom) return false
              if (dateTo && day > dateTo) return false
              if (search) {
                const vendorName = rec.vendor_id === null ? '' : (store.vendorsById.get(rec.vendor_id)?.rec.name ?? '')
                if (![rec.name, rec.po_no ?? '', vendorName].some((field) => field.toLowerCase().includes(search)))
                  return false
              }
              return true
            })
            .sort((a, b) => sign * (compareValues(a.rec[sortBy], b.rec[sortBy]) || a.rec.id - b.rec.id))
        })
        const { rows: pageRows, hasMore } = page(rows, paging)
        return {
          orders: pageRows.map((order) => orderProjection(store, order)),
          total: rows.length,
          hasMoreItems: hasMore,
          resource: 'orders',
          serverTimestamp: store.nowIso(),
        }
      },
    },
    {
      method: 'GET',
      url: '/v1/orders/:orderGuid',
      accepts: 'either',
      handle: ({ auth, params }) => {
        const entry = requireOrder(store, params.orderGuid)
        orderVisible(store, auth, entry)
        const parent = entry.rec.parent_order_id === null ? undefined : store.ordersById.get(entry.rec.parent_order_id)
        const related = [
          ...(parent && parent.rec.deleted_at === null ? [parent] : []),
          ...store.orders.filter(
            (order) => order.rec.parent_order_id === entry.rec.id && order.rec.deleted_at === null,
          ),
        ]
        return { order: orderObject(store, entry), relatedOrders: related.map((order) => orderObject(store, order)) }
      },
    },
    {
      method: 'PUT',
      url: '/v1/orders/:orderGuid',
      accepts: 'session',
      handle: ({ auth, params, body }) => {
        const entry = requireOrder(store, params.orderGuid)
        orderVisible(store, auth, entry)
        return updateOrder(store, entry, auth.user, body)
      },
    },
    {
      method: 'POST',
      url: '/v2/order',
      accepts: 'apiKey',
      plainText: 'apiKey',
      handle: ({ auth, body }) => createOrderV2(store, auth, body),
    },
    {
      method: 'POST',
      url: '/v1/orderWithItems',
      accepts: 'either',
      handle: ({ auth, body }) => createOrderWithItems(store, auth, body),
    },
    {
      method: 'POST',
      url: '/v1/order',
      accepts: 'session',
      plainText: 'session',
      handle: ({ auth, body }) => {
        if (!auth.vendorGuidHeader && auth.user.type !== 'customer')
          throw new PlainTextError('Missing required header: vendorGuid')
        const vendor = contextVendor(store, auth)
        if (!vendor) throw new PlainTextError('Missing required header: vendorGuid')
        return createLegacyOrder(store, auth, vendor, body)
      },
    },
    {
      method: 'POST',
      url: '/v1/order/submit',
      accepts: 'session',
      handle: ({ auth, body }) => submitOrder(store, auth, body, (entry) => orderVisible(store, auth, entry)),
    },
  ]
}
