/**
 * The control surface: what tests and drills use to change the double's data, clock and faults
 * behind the client's back, and to read back what happened. The same operations serve drift
 * faults, so "a row inserted between two page requests" is the same insert a test would make.
 */
import type { FaultRule, InFlightOverlap, MutableKind, RequestLogEntry, ServiceControl } from './types'
import { FaultEngine } from './faults'
import type { ImageControl } from './images'
import { leafCategories, makeItems, makeVendor } from './generate'
import { parseLimit, parseOffset, queryString, type Query } from './http'
import type { Price } from './model'
import { fulfilOrder, insertRandomOrder, orderObject, updateOrder } from './orders'
import { ControlError, type CatalogEntry, type ItemEntry, type Store } from './store'
import type { ReplyCacheFigures } from './reply-cache'

/** The request log keeps the most recent entries only, so long benchmark runs stay bounded. */
const REQUEST_LOG_LIMIT = 50_000

export class RequestLog {
  private entries: RequestLogEntry[] = []
  /** Every reply's body since the log was cleared, as the handler wrote it and as it went out. */
  private bytes = { replies: 0, bodyBytes: 0, sentBytes: 0 }
  countReply(bodyBytes: number, sentBytes: number): void {
    this.bytes.replies += 1
    this.bytes.bodyBytes += bodyBytes
    this.bytes.sentBytes += sentBytes
  }
  replyBytes(): { replies: number; bodyBytes: number; sentBytes: number } {
    return { ...this.bytes }
  }
  push(entry: RequestLogEntry): void {
    this.entries.push(entry)
    if (this.entries.length > REQUEST_LOG_LIMIT) this.entries.splice(0, this.entries.length - REQUEST_LOG_LIMIT)
  }
  list(): RequestLogEntry[] {
    return this.entries.map((entry) => structuredClone(entry))
  }
  clear(): void {
    this.entries = []
    this.bytes = { replies: 0, bodyBytes: 0, sentBytes: 0 }
  }
}

export interface Control extends ServiceControl {
  /** Applies a drift rule to the listing a page request is reading. */
  drift(route: string, params: Record<string, string>, query: Query, rule: Extract<FaultRule, { type: 'drift' }>): void
}

function clone<T>(value: T): T {
  return structuredClone(value)
}

export function createControl(
  store: Store,
  faults: FaultEngine,
  log: RequestLog,
  /** The image host's controls, given the update an image change stamps its item with. */
  images: (updateItem: (guid: string, patch: Record<string, unknown>) => void) => ImageControl,
  /** The server's own: it alone knows the seed and size to generate again, and the connections to cut. */
  reset: () => void,
  /** The reply cache's figures, when the server keeps one (reply-cache.ts). */
  replyCache: () => ReplyCacheFigures | null = () => null,
): Control {
  const catalogOf = (guid: string): CatalogEntry => {
    const catalog = store.catalogsByGuid.get(guid)
    if (!catalog) throw new ControlError(`unknown catalog ${guid}`)
    return catalog
  }
  const itemOf = (guid: string): ItemEntry => {
    const item = store.itemsByGuid.get(guid)
    if (!item) throw new ControlError(`unknown catalog item ${guid}`)
    return item
  }
  const guard = (record: { id: number; guid: string }, patch: Record<string, unknown>): void => {
    if (patch.id !== undefined && patch.id !== record.id) throw new ControlError('id cannot change')
    if (patch.guid !== undefined && patch.guid !== record.guid) throw new ControlError('guid cannot change')
  }

  function update(kind: MutableKind, guid: string, patch: Record<string, unknown>): Record<string, unknown> {
    if (typeof patch !== 'object' || patch === null) throw new ControlError('patch must be an object')
    const at = typeof patch.updated_at === 'string' ? patch.updated_at : store.nowIso()
    switch (kind) {
      case 'catalogItem': {
        const item = itemOf(guid)
        guard(item.rec, patch)
        if (patch.catalog_id !== undefined && patch.catalog_id !== item.rec.catalog_id)
          throw new ControlError('catalog_id cannot change')
        Object.assign(item.rec, patch)
        store.touchItem(item, at)
        return clone(item.rec)
      }
      case 'customer': {
        const vendor = store.vendorsByGuid.get(guid)
        if (!vendor) throw new ControlError(`unknown customer ${guid}`)
        guard(vendor.rec, patch)
        const { Bill_To: billTo, Ship_To: shipTo, ...rest } = patch
        Object.assign(vendor.rec, rest)
        if (billTo && typeof billTo === 'object') Object.assign(vendor.billTo, billTo, { updated_at: at })
        if (shipTo && typeof shipTo === 'object') Object.assign(vendor.shipTo, shipTo, { updated_at: at })
        store.touchVendor(vendor, at)
        return clone(store.vendorObject(vendor))
      }
      case 'catalog': {
        const catalog = catalogOf(guid)
        guard(catalog.rec, patch)
        Object.assign(catalog.rec, patch, { updated_at: at })
        store.invalidateCatalog(catalog)
        return clone(store.catalogObject(catalog, true))
      }
      case 'priceGroup': {
        const group = store.priceGroupsByGuid.get(guid)
        if (!group) throw new ControlError(`unknown price group ${guid}`)
        guard(group.rec, patch)
        const before = group.rec.value
        Object.assign(group.rec, patch, { updated_at: at })
        // pricing is keyed by the group's name, so a rename rewrites (and re-stamps) every item's pricing.
        if (group.rec.value !== before) {
          for (const item of group.catalog.items) {
            if (!(before in item.rec.pricing)) continue
            const pricing: Record<string, Price> = {}
            for (const [name, price] of Object.entries(item.rec.pricing))
              pricing[name === before ? group.rec.value : name] = price
            item.rec.pricing = pricing
            store.touchItem(item, at)
          }
        }
        store.invalidateCatalog(group.catalog)
        return clone(group.rec)
      }
      case 'category': {
        const category = store.categoriesByGuid.get(guid)
        if (!category) throw new ControlError(`unknown category ${guid}`)
        guard(category.rec, patch)
        Object.assign(category.rec, patch, { updated_at: at })
        store.invalidateCatalog(category.catalog)
        // Items carry Category/CategoryHierarchy, so the change reaches clients through the items' delta.
        const subtree = new Set<number>([category.rec.id])
        for (let grew = true; grew;) {
          grew = false
          for (const candidate of category.catalog.categories) {
            if (!subtree.has(candidate.rec.id) && subtree.has(candidate.rec.parent_category_id)) {
              subtree.add(candidate.rec.id)
              grew = true
            }
          }
        }
        for (const item of category.catalog.items) if (subtree.has(item.rec.category_id)) store.touchItem(item, at)
        return clone(category.rec)
      }
      case 'order': {
        const order = store.ordersByGuid.get(guid)
        if (!order) throw new ControlError(`unknown order ${guid}`)
        guard(order.rec, patch)
        Object.assign(order.rec, patch)
        store.touchOrder(order, at)
        return clone(orderObject(store, order))
      }
      default:
        throw new ControlError(`unknown kind '${kind as string}'`)
    }
  }

  function insertCatalogItem(catalogGuid: string, fields: Record<string, unknown> = {}): Record<string, unknown> {
    const catalog = catalogOf(catalogGuid)
    const leaves = leafCategories(catalog).filter((leaf) => !store.leafSpecs.get(leaf.rec.id)?.sizeGroup)
    const wanted = typeof fields.category_id === 'number' ? store.categoriesById.get(fields.category_id) : undefined
    const leaf =
      wanted && wanted.catalog === catalog && store.leafSpecs.has(wanted.rec.id)
        ? wanted
        : leaves.length > 0
          ? store.rng.pick(leaves)
          : undefined
    if (!leaf) throw new ControlError(`catalog ${catalogGuid} has no category to insert into`)
    const at = store.nowIso()
    const [rec] = makeItems(store, store.rng, catalog, leaf, { created: at, updated: at }, 20)
    if (!rec) throw new ControlError('item generation failed')
    if (fields.guid !== undefined && (typeof fields.guid !== 'string' || store.itemsByGuid.has(fields.guid)))
      throw new ControlError('guid must be a new string')
    Object.assign(rec, { active: true }, fields, {
      id: rec.id,
      catalog_id: catalog.rec.id,
      created_at: at,
      updated_at: at,
      deleted_at: null,
    })
    return clone(store.addItem(catalog, rec).rec)
  }

  function insertCustomer(fields: Record<string, unknown> = {}): Record<string, unknown> {
    const at = store.nowIso()
    const vendor = makeVendor(store, store.rng, at, at, 20)
    const { Bill_To: billTo, Ship_To: shipTo, ...rest } = fields
    if (rest.guid !== undefined && (typeof rest.guid !== 'string' || store.vendorsByGuid.has(rest.guid)))
      throw new ControlError('guid must be a new string')
    if (typeof rest.guid === 'string') {
      store.vendorsByGuid.delete(vendor.rec.guid)
      store.vendorsByGuid.set(rest.guid, vendor)
    }
    Object.assign(vendor.rec, { active: true }, rest, {
      id: vendor.rec.id,
      created_at: at,
      updated_at: at,
      deleted_at: null,
    })
    if (billTo && typeof billTo === 'object') Object.assign(vendor.billTo, billTo)
    if (shipTo && typeof shipTo === 'object') Object.assign(vendor.shipTo, shipTo)
    store.touchVendor(vendor, at)
    return clone(store.vendorObject(vendor))
  }

  function drift(
    route: string,
    params: Record<string, string>,
    query: Query,
    rule: Extract<FaultRule, { type: 'drift' }>,
  ): void {
    let limit: number
    let offset: number
    try {
      limit = parseLimit(queryString(query, 'limit'))
      offset = parseOffset(queryString(query, 'offset'))
    } catch {
      return
    }
    const start = offset * limit
    const removeCount = Math.max(0, rule.remove ?? 0)
    const insertCount = Math.max(0, rule.insert ?? 0)
    // Removals hit rows already served on earlier pages, so the rows behind them slide forward
    // across the page boundary: the hazard a paging client has to survive.
    const removeFrom = <T>(rows: T[]): T[] => rows.slice(Math.max(0, start - removeCount), start)
    if (route.endsWith('/catalog_items') || route.endsWith('/catalogItems')) {
      const catalog = store.liveCatalog(params.catalogGuid ?? '')
      if (!catalog) return
      const live = catalog.items.filter((item) => item.rec.deleted_at === null)
      for (const item of removeFrom(live)) update('catalogItem', item.rec.guid, { deleted_at: store.nowIso() })
      for (let i = 0; i < insertCount; i++) insertCatalogItem(catalog.rec.guid)
    } else if (route === 'GET /vendors') {
      const live = store.vendors.filter((vendor) => vendor.rec.deleted_at === null)
      for (const vendor of removeFrom(live)) update('customer', vendor.rec.guid, { deleted_at: store.nowIso() })
      for (let i = 0; i < insertCount; i++) insertCustomer()
    } else if (route === 'GET /v1/orders' || route === 'GET /v1/orders/list') {
      const live = store.orders.filter((order) => order.rec.deleted_at === null).sort(newestFirst)
      for (const order of removeFrom(live)) update('order', order.rec.guid, { deleted_at: store.nowIso() })
      for (let i = 0; i < insertCount; i++) insertRandomOrder(store)
    }
  }

  return {
    ...images((guid, patch) => void update('catalogItem', guid, patch)),
    now: () => store.now(),
    shiftClock: (ms) => {
      if (!Number.isFinite(ms)) throw new ControlError('shiftClock needs a number of milliseconds')
      store.shiftClock(ms)
    },
    catalogs: () => store.catalogs.map((catalog) => clone(store.catalogObject(catalog, true))),
    priceGroups: (catalogGuid) => catalogOf(catalogGuid).priceGroups.map((group) => clone(group.rec)),
    categories: (catalogGuid) => catalogOf(catalogGuid).categories.map((category) => clone(category.rec)),
    catalogItems: (catalogGuid) => catalogOf(catalogGuid).items.map((item) => clone(item.rec)),
    customers: () => store.vendors.map((vendor) => clone(store.vendorObject(vendor))),
    orders: () => store.orders.map((order) => clone(orderObject(store, order))),
    update,
    setPrice: (catalogItemGuid, priceGroupName, price) => {
      const item = itemOf(catalogItemGuid)
      if (!store.livePriceGroups(item.catalog).some((group) => group.rec.value === priceGroupName)) {
        throw new ControlError(`catalog ${item.catalog.rec.name} has no price group named '${priceGroupName}'`)
      }
      if (price !== 'N/A' && !(typeof price === 'number' && Number.isFinite(price)))
        throw new ControlError("price must be a number or 'N/A'")
      item.rec.pricing = { ...item.rec.pricing, [priceGroupName]: price }
      store.touchItem(item)
    },
    softDelete: (kind, guid) => {
      update(kind, guid, { deleted_at: store.nowIso() })
    },
    deactivate: (kind, guid) => {
      update(kind, guid, { active: false })
    },
    insertCatalogItem,
    insertCustomer,
    setSupplierSetting: (name, value) => {
      if (name !== 'remainInPreliminary') throw new ControlError(`unknown supplier setting '${name as string}'`)
      store.settings.remainInPreliminary = value === true
    },
    grantApiKeyCustomers: (granted) => {
      store.settings.apiKeyCustomers = granted !== false
    },
    lockOrderStep: (orderGuid, locked) => {
      const order = store.ordersByGuid.get(orderGuid)
      if (!order || order.rec.deleted_at !== null) throw new ControlError(`unknown order ${orderGuid}`)
      if (locked === false) store.lockedOrders.delete(orderGuid)
      else store.lockedOrders.add(orderGuid)
    },
    editOrderHeader: (orderGuid, fields) => {
      const order = store.ordersByGuid.get(orderGuid)
      if (!order || order.rec.deleted_at !== null) throw new ControlError(`unknown order ${orderGuid}`)
      if (!fields || typeof fields !== 'object') throw new ControlError('fields must be an object')
      // The supplier's staff, through the same update the API applies (a locked step does not stop them).
      return updateOrder(store, order, store.masterUser, fields, true)
    },
    expireSession: () => {
      // The token goes on the expired list (its 401 says so) and the user gets a new one, as signing
      // in again would give: the double has no login endpoint (the spec shows none).
      const user = store.sessionUser
      store.expiredTokens.add(user.token)
      const [header, payload] = user.token.split('.')
      user.token = `${header}.${payload}.${Buffer.from(store.rng.hex(32), 'hex').toString('base64url')}`
      return { userToken: user.token }
    },
    fulfilOrder: (orderGuid, step) => {
      const order = store.ordersByGuid.get(orderGuid)
      if (!order || order.rec.deleted_at !== null) throw new ControlError(`unknown order ${orderGuid}`)
      if (!step || typeof step !== 'object') throw new ControlError('step must be an object')
      try {
        fulfilOrder(store, order, step)
      } catch (error) {
        throw new ControlError(error instanceof Error ? error.message : String(error))
      }
      return clone(orderObject(store, order))
    },
    addFault: (rule) => faults.add(rule),
    removeFault: (id) => faults.remove(id),
    clearFaults: () => faults.clear(),
    reset,
    ordersByApiGuid: (apiGuid) =>
      (store.ordersByApiGuid.get(apiGuid) ?? []).map((order) => clone(orderObject(store, order))),
    requestLog: () => log.list(),
    clearRequestLog: () => log.clear(),
    replyBytes: () => log.replyBytes(),
    inFlightOverlaps: () => inFlightOverlaps(log.list()),
    replyCache,
    drift,
  }
}

const orderCreateRoutes = new Set(['POST /v1/orderWithItems', 'POST /v1/order', 'POST /v2/order'])

/** The idempotency key a logged order creation carried, if its body was kept. */
function apiGuidOf(entry: RequestLogEntry): string | null {
  const body = entry.body as { api_guid?: unknown; order?: { api_guid?: unknown } } | undefined
  const key = body?.order?.api_guid ?? body?.api_guid
  return typeof key === 'string' && key !== '' ? key : null
}

/** Pairs of creations of one api_guid where the second arrived before the double was done with the first. */
function inFlightOverlaps(entries: RequestLogEntry[]): InFlightOverlap[] {
  const byKey = new Map<string, RequestLogEntry[]>()
  for (const entry of entries) {
    if (!orderCreateRoutes.has(entry.route)) continue
    const key = apiGuidOf(entry)
    if (key) byKey.set(key, [...(byKey.get(key) ?? []), entry])
  }
  const overlaps: InFlightOverlap[] = []
  const side = (entry: RequestLogEntry) => ({
    url: entry.url,
    startedMs: entry.startedMs,
    endedMs: entry.endedMs ?? null,
  })
  for (const [key, list] of byKey) {
    list.sort((a, b) => a.startedMs - b.startedMs)
    for (let i = 0; i < list.length; i++) {
      for (let j = i + 1; j < list.length; j++) {
        const first = list[i]!
        const second = list[j]!
        if (first.endedMs === undefined || second.startedMs < first.endedMs)
          overlaps.push({ key, first: side(first), second: side(second) })
      }
    }
  }
  return overlaps
}

export function newestFirst(
  a: { rec: { created_at: string; id: number } },
  b: { rec: { created_at: string; id: number } },
): number {
  return a.rec.created_at < b.rec.created_at ? 1 : a.rec.created_at > b.rec.created_at ? -1 : b.rec.id - a.rec.id
}
