import type { AddressInput } from '../../shared/orders'
import { addressFieldNames } from '../../shared/orders'
import type { ItemRecordRow } from '../local/catalog-items/reads'
import type { LocalData } from '../local/data'
import { stockFieldsOfRecord, stockOf, type Stock } from '../local/stock'
import type { CatalogItemFacts, CustomerFacts, OrderLookup, PriceGroupFacts } from './lookup'

type Json = Record<string, unknown>

const str = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined)
const num = (value: unknown): number | null =>
  typeof value === 'number' && Number.isFinite(value)
    ? value
    : typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value))
      ? Number(value)
      : null

function toAddressInput(address: Json): AddressInput {
  return Object.fromEntries(
    addressFieldNames.map((key) => [key, str(address[key])]).filter(([, value]) => value !== undefined),
  ) as AddressInput
}

/** The order rules' view of the synced tables (see migration 2), read through each table's home. */
export class LocalOrderLookup implements OrderLookup {
  constructor(private readonly local: LocalData) {}

  customer(guid: string): CustomerFacts | null {
    const row = this.local.customers.forChecks(guid)
    if (!row) return null
    const json = JSON.parse(row.json) as Json
    const addresses: CustomerFacts['addresses'] = []
    for (const key of ['Ship_To', 'Bill_To']) {
      const address = json[key]
      if (address && typeof address === 'object' && typeof (address as Json).guid === 'string') {
        const guidOfAddress = (address as Json).guid as string
        if (!addresses.some((a) => a.guid === guidOfAddress))
          addresses.push({ guid: guidOfAddress, address: toAddressInput(address as Json) })
      }
    }
    return {
      guid: row.guid,
      name: row.name,
      // A customer the supplier removed cannot order, even when a draft still names them.
      active: row.active === 1 && row.deleted_at === null,
      requirePo: row.require_po === 1,
      priceGroupId: row.price_group_id,
      creditLimit:
        typeof json.credit_limit === 'number' && Number.isFinite(json.credit_limit) ? json.credit_limit : null,
      openBalance:
        typeof json.open_balance === 'number' && Number.isFinite(json.open_balance) ? json.open_balance : null,
      standingPo: typeof json.standing_po === 'string' ? json.standing_po.trim() : '',
      requirePayment: json.require_payment === true,
      taxExempt: json.tax_exempt === true,
      addresses,
    }
  }

  /** A customer locked to one catalog orders only from it; otherwise from every active catalog. */
  catalogsForCustomer(customerGuid: string): string[] | null {
    const row = this.local.customers.forChecks(customerGuid)
    if (!row) return null
    const catalogs = this.local.catalogs.orderable()
    if (row.lock_catalog_id !== null && row.lock_catalog_id !== 0) {
      const locked = catalogs.filter((c) => c.id === row.lock_catalog_id).map((c) => c.guid)
      if (locked.length > 0) return locked
    }
    return catalogs.map((c) => c.guid)
  }

  priceGroups(catalogGuid: string): PriceGroupFacts[] {
    return this.local.priceGroups.ofCatalog(catalogGuid)
  }

  priceGroupName(id: number): string | null {
    return this.local.priceGroups.nameOf(id)
  }

  /** The one the service puts new customers on first (Catalogs.forNewCustomers), then the others. */
  activeCatalogs(): string[] {
    const first = this.local.catalogs.forNewCustomers()
    const all = this.local.catalogs.orderable().map((c) => c.guid)
    return first ? [first, ...all.filter((guid) => guid !== first)] : all
  }

  lastOrderCatalog(customerGuid: string): string | null {
    return this.local.orderHistory.lastCatalogOf(customerGuid)
  }

  catalogItem(catalogGuid: string, guid: string): CatalogItemFacts | null {
    const row = this.local.catalogItems.recordIn(catalogGuid, guid)
    return row ? toItemFacts(row) : null
  }

  catalogItemBySku(catalogGuid: string, sku: string): CatalogItemFacts | { ambiguous: CatalogItemFacts[] } | null {
    const match = this.local.catalogItems.recordBySku(catalogGuid, sku.trim())
    if (!match) return null
    return 'found' in match ? toItemFacts(match.found) : { ambiguous: match.ambiguous.map(toItemFacts) }
  }

  catalogItemsByUpc(catalogGuid: string, upc: string): CatalogItemFacts[] {
    const code = upc.trim()
    // A code with no letter or digit has no word for the index to match, and no UPC is one.
    if (!/[\p{L}\p{N}]/u.test(code)) return []
    const phrase = `upc : "${code.replaceAll('"', '""')}"`
    return this.local.catalogItems.recordsByUpc(phrase, catalogGuid, code).map(toItemFacts)
  }
}

function availability(stock: Stock): { qtyAvailable: number | null; qtyIncoming: number } {
  return { qtyAvailable: stock.available, qtyIncoming: stock.incoming }
}

export function itemFactsFromRecord(json: Json, deleted: boolean): CatalogItemFacts {
  const pricing = json.pricing && typeof json.pricing === 'object' ? (json.pricing as Record<string, unknown>) : {}
  return {
    guid: String(json.guid),
    sku: str(json.sku) ?? '',
    upc: str(json.upc) ?? null,
    name: str(json.name) ?? '',
    active: json.active !== false,
    deleted: deleted || (typeof json.deleted_at === 'string' && json.deleted_at !== ''),
    pricing,
    minOrderQty: num(json.min_order_qty),
    qtyBreak: num(json.qty_break),
    qtyBreakPrice: num(json.qty_break_price),
    hasInventory: json.has_inventory === true,
    allowBackorder: json.allow_backorder === true,
    // Stock already reserved for submitted orders is not there for this one.
    ...availability(stockOf(stockFieldsOfRecord(json))),
    isFamily: json.is_product_group === true,
  }
}

function toItemFacts(row: ItemRecordRow): CatalogItemFacts {
  return itemFactsFromRecord(JSON.parse(row.json) as Json, row.deleted_at !== null || row.unlisted_at !== null)
}

const lookups = new WeakMap<LocalData, LocalOrderLookup>()

/** The order rules' view of `local`: one per local data surface, so one per core. */
export function orderLookupOf(local: LocalData): LocalOrderLookup {
  let lookup = lookups.get(local)
  if (!lookup) lookups.set(local, (lookup = new LocalOrderLookup(local)))
  return lookup
}
