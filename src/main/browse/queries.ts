/**
 * The read side of the local store: what the renderer and the CLI ask of the synced data, shaped for
 * the screens. Only live rows (not soft-deleted, still listed by the service) appear in lists and
 * searches; single-record reads also return rows kept for a draft, with their status, so a draft can
 * still show what it refers to. The SQL is each table's home's (src/main/local/); this file holds none.
 */
import type {
  CatalogLoading,
  CatalogItemDetail,
  CatalogItemLookup,
  CatalogItemCount,
  CatalogItemCountInput,
  CatalogItemSearch,
  CatalogItemSearchResult,
  CatalogItemSummary,
  CatalogSummary,
  CategorySummary,
  CustomerDetail,
  CustomerSearchResult,
  CustomerSummary,
  CustomersLoading,
  ItemFamily,
  ItemFamilyLookup,
  OrderDetail,
  OrderSummary,
  PriceGroupSummary,
  SentOrderSummary,
} from '../../shared/synced'
import { phoneSearchDigits } from '../../shared/phone'
import { scannedGtin, storedGtinForms } from '../../shared/gtin'
import { ITEM_COUNT_CAP } from '../../shared/synced'
import { orderStateName } from '../../shared/order-states'
import { describePriceGroupChoice, shownPrice } from '../pricing'
import { familyCell, familyTitle, pricedRow, priceRange, stockFieldsOfRow } from './families'
import { addressesOf, orderLines, orderSummary, orderTotals, sentMatches } from './order-reads'
import { clampLimit, clampOffset, flag, numberOrNull, parseObject, text } from './values'
import type { ItemRow } from '../local/catalog-items/reads'
import type { CustomerRow } from '../local/customers'
import type { LocalData } from '../local/data'
import type { OrderListOptions } from '../local/order-history'
import { stockOf } from '../local/stock'
import { wordPrefixQuery } from './search'

export interface StoreCounts {
  catalogs: number
  priceGroups: number
  customers: number
  catalogItems: number
  orders: number
}

export class BrowseQueries {
  constructor(private readonly local: LocalData) {}

  /** Live rows per resource: soft-deleted rows do not count; inactive customers and items do. */
  counts(): StoreCounts {
    return {
      catalogs: this.local.catalogs.countLive(),
      priceGroups: this.local.priceGroups.countLive(),
      customers: this.local.customers.countLive(),
      catalogItems: this.local.catalogItems.countLive(),
      orders: this.local.orderHistory.countLive(),
    }
  }

  /**
   * Catalogs, with their price groups. For a customer, only the catalogs that customer may order
   * from: the one it is locked to (lock_catalog_id) when set, otherwise every active catalog.
   */
  listCatalogs(options: { customerGuid?: string } = {}): CatalogSummary[] {
    let rows = this.local.catalogs.live()
    if (options.customerGuid) {
      const customer = this.local.customers.byGuid(options.customerGuid)
      const locked = customer?.lock_catalog_id ? this.local.catalogs.liveGuidOf(customer.lock_catalog_id) : undefined
      rows = locked ? rows.filter((row) => row.guid === locked) : rows.filter((row) => row.active === 1)
    }
    const counts = this.local.catalogItems.liveCountsByCatalog(rows.map((row) => row.guid))
    return rows.map((row) => ({
      guid: row.guid,
      id: row.id,
      name: row.name,
      active: row.active === 1,
      priceGroups: this.priceGroups(row.guid),
      itemCount: counts.get(row.guid) ?? 0,
      lastSyncAt: this.local.syncState.catalogItems(row.guid)?.lastSuccessAt ?? null,
      loading: this.catalogLoading(row.guid),
    }))
  }

  /**
   * A catalog still in its first sync: its items scope never completed, and either has not begun (0
   * of an unknown number) or is in a first listing (pages done so far, of the total the service gave).
   * Null once the catalog has synced once: a later listing or delta replaces rows already usable.
   */
  catalogLoading(catalogGuid: string): CatalogLoading | null {
    const scope = this.local.syncState.catalogItems(catalogGuid)
    if (scope?.lastSuccessAt) return null
    const run = scope?.run ?? null
    if (run && !(run.mode === 'full' && run.fresh)) return null
    if (!run && this.local.catalogItems.anyOf(catalogGuid)) return null
    const total = run?.total ?? null
    const done = run ? scope!.pagesDone * (run.pageSize ?? 100) : 0
    return { itemsDone: total === null ? done : Math.min(done, total), itemsTotal: total }
  }

  priceGroups(catalogGuid: string): PriceGroupSummary[] {
    return this.local.priceGroups.ofCatalog(catalogGuid)
  }

  /** The catalog's categories, flat (parentId gives the tree), each with its live item count. */
  listCategories(catalogGuid: string): CategorySummary[] {
    const counts = this.local.catalogItems.liveCountsByCategory(catalogGuid)
    return this.local.catalogs.categoriesOf(catalogGuid).map((row) => ({
      id: row.id,
      guid: row.guid,
      parentId: row.parent_id,
      name: row.name,
      sequence: row.sequence,
      hidden: row.hidden === 1,
      itemCount: counts.get(row.id) ?? 0,
    }))
  }

  /** The price group whose name keys a catalog item's pricing for this customer, by the one rule (PriceGroups.choose). */
  priceGroupName(catalogGuid: string, customerGuid?: string): string | null {
    return this.local.priceGroups.choose(catalogGuid, { customerGuid: customerGuid ?? null }).group?.name ?? null
  }

  /**
   * A catalog's live items, by search and/or category, each priced for the customer's price group:
   * one page, whether more follow, and (unless `withTotal` is false) the count countCatalogItems gives.
   */
  searchCatalogItems(search: CatalogItemSearch): CatalogItemSearchResult {
    const limit = clampLimit(search.limit, 50)
    const offset = clampOffset(search.offset)
    const choice =
      search.priceGroupName === undefined
        ? this.local.priceGroups.choose(search.catalogGuid, { customerGuid: search.customerGuid ?? null })
        : null
    const priceGroupName = search.priceGroupName ?? choice?.group?.name ?? null
    const priceGroupNote = choice ? describePriceGroupChoice(choice) : null
    const loading = this.catalogLoading(search.catalogGuid)
    const itemSearch = this.itemSearch(search)
    if (!itemSearch)
      return {
        items: [],
        more: false,
        total: search.withTotal === false ? null : 0,
        totalCapped: false,
        priceGroupName,
        priceGroupNote,
        loading,
      }
    const found = this.local.catalogItems.search({ ...itemSearch, limit, offset })
    const byGtin = found.rows.length === 0 && offset === 0 ? this.rowsOfGtin(search) : []
    if (byGtin.length > 0)
      return {
        items: this.withFamilies(search.catalogGuid, byGtin, priceGroupName),
        more: false,
        total: search.withTotal === false ? null : byGtin.length,
        totalCapped: false,
        priceGroupName,
        priceGroupNote,
        loading,
      }
    const { rows, more } = found
    const count = search.withTotal === false ? null : this.local.catalogItems.count(itemSearch, ITEM_COUNT_CAP)
    return {
      items: this.withFamilies(search.catalogGuid, rows, priceGroupName),
      more,
      total: count?.total ?? null,
      totalCapped: count?.capped ?? false,
      priceGroupName,
      priceGroupNote,
      loading,
    }
  }

  /** How many items a search matches: exact up to ITEM_COUNT_CAP, then the cap, `capped` set. */
  countCatalogItems(search: CatalogItemCountInput): CatalogItemCount {
    const itemSearch = this.itemSearch(search)
    return itemSearch ? this.local.catalogItems.count(itemSearch, ITEM_COUNT_CAP) : { total: 0, capped: false }
  }

  /**
   * When the words found nothing: the live items whose stored UPC is the GTIN the text carries in
   * another spelling (EAN-13 or GTIN-14 for a stored UPC-A, a GS1 element string), as the scan box
   * finds them. Only the few spellings are looked up, each an exact UPC through the search index.
   */
  private rowsOfGtin(search: CatalogItemCountInput): ItemRow[] {
    const typed = search.query?.trim() ?? ''
    const gtin = scannedGtin(typed)
    if (gtin === null || search.categoryId !== undefined || search.createdAfter !== undefined) return []
    const rows = new Map<string, ItemRow>()
    for (const form of storedGtinForms(gtin))
      if (form !== typed)
        for (const row of this.local.catalogItems.rowsByUpc(`upc : "${form}"`, search.catalogGuid, form))
          rows.set(row.guid, row)
    return [...rows.values()]
  }

  /** The search as the item home runs it; null when the text holds nothing searchable. */
  private itemSearch(search: CatalogItemCountInput) {
    const match = search.query ? wordPrefixQuery(search.query) : null
    if (!match && search.query && search.query.trim() !== '') return null
    const categoryIds =
      search.categoryId !== undefined
        ? this.local.catalogs.categoryTree(search.catalogGuid, search.categoryId)
        : undefined
    return {
      catalogGuid: search.catalogGuid,
      includeInactive: search.includeInactive,
      familyMembers: search.familyMembers,
      categoryId: search.categoryId,
      categoryIds,
      createdAfter: search.createdAfter,
      match,
    }
  }

  /**
   * A page's rows with their families: each member names its family (the parent's guid and title),
   * each parent its member count and its price range for this group. One look-up per family on the
   * page, not per row.
   */
  private withFamilies(catalogGuid: string, rows: ItemRow[], priceGroupName: string | null): CatalogItemSummary[] {
    const parents = new Map<number, { guid: string; title: string } | null>()
    const familyOf = (row: ItemRow): { guid: string; title: string } | null => {
      if (!row.group_parent_id) return null
      if (!parents.has(row.group_parent_id)) {
        const parent = this.local.catalogItems.byIdIn(catalogGuid, row.group_parent_id)
        parents.set(row.group_parent_id, parent ? { guid: parent.guid, title: familyTitle(parent) } : null)
      }
      return parents.get(row.group_parent_id) ?? null
    }
    // Without the family index a parent's members are a read of the whole catalog: a list page does
    // not pay it for each parent on it; the grid, opened, does once.
    const counted = rows.some((row) => row.is_product_group === 1) && this.local.catalogItems.familiesIndexed()
    return rows.map((row) => {
      const summary = this.itemSummary(row, priceGroupName)
      summary.family = familyOf(row)
      if (row.is_product_group === 1 && !counted)
        summary.familyOf = { memberCount: null, priceMin: null, priceMax: null }
      else if (row.is_product_group === 1 && row.id !== null) {
        const cells = this.local.catalogItems
          .familyMembers(catalogGuid, row.id)
          .map((member) => familyCell(member, priceGroupName, '', ''))
        summary.familyOf = { memberCount: cells.length, ...priceRange(cells) }
      }
      return summary
    })
  }

  /**
   * A family's entry grid for a customer (or a price group): `guid` is the parent's or any member's.
   * Colour × size when every member carries a colour and a size, one row of members otherwise. A
   * member not offered to the group, or inactive, has a cell that says why and takes no quantity.
   */
  getItemFamily(lookup: ItemFamilyLookup): ItemFamily | null {
    const found = this.local.catalogItems.byGuid(lookup.guid)
    if (!found) return null
    const parent =
      found.is_product_group === 1
        ? found
        : found.group_parent_id
          ? this.local.catalogItems.byIdIn(found.catalog_guid, found.group_parent_id)
          : undefined
    if (!parent || parent.id === null) return null
    const priceGroupName = lookup.priceGroupName ?? this.priceGroupName(parent.catalog_guid, lookup.customerGuid)
    const members = this.local.catalogItems.familyMembers(parent.catalog_guid, parent.id)
    const sizeOf = (row: ItemRow): string => text(row.style) ?? text(row.third_party_size) ?? ''
    const crossed = members.length > 0 && members.every((row) => text(row.color) && sizeOf(row))
    const colourOnly = !crossed && members.every((row) => text(row.color) && !sizeOf(row))
    const cells = members.map((row) =>
      crossed
        ? familyCell(row, priceGroupName, text(row.color)!, sizeOf(row))
        : familyCell(
            row,
            priceGroupName,
            '',
            (colourOnly ? text(row.color) : sizeOf(row) || text(row.color)) ?? row.sku,
          ),
    )
    const distinct = (values: string[]): string[] => [...new Set(values)]
    return {
      guid: parent.guid,
      sku: parent.sku,
      title: familyTitle(parent),
      catalogGuid: parent.catalog_guid,
      priceGroupName,
      rowAxis: crossed ? 'Color' : '',
      columnAxis: crossed || !colourOnly ? (members.some((row) => sizeOf(row)) ? 'Size' : 'Item') : 'Color',
      rows: crossed ? distinct(cells.map((cell) => cell.row)) : [''],
      columns: distinct(cells.map((cell) => cell.column)),
      cells,
      ...priceRange(cells),
      syncedAt: members.reduce<string | null>(
        (newest, row) => (row.synced_at && (!newest || row.synced_at > newest) ? row.synced_at : newest),
        null,
      ),
    }
  }

  private itemSummary(row: ItemRow, priceGroupName: string | null): CatalogItemSummary {
    const stock = stockOf(stockFieldsOfRow(row))
    return {
      guid: row.guid,
      id: row.id,
      sku: row.sku,
      name: row.name,
      upc: row.upc,
      manufacturer: row.manufacturer,
      active: row.active === 1,
      msrp: row.msrp,
      qtyOnHand: row.qty_on_hand,
      minOrderQty: row.min_order_qty,
      hasInventory: flag(row.has_inventory),
      allowBackorder: flag(row.allow_backorder),
      categoryId: row.category_id,
      syncedAt: row.synced_at,
      ...shownPrice(pricedRow(row), priceGroupName),
      available: stock.available,
      incoming: stock.incoming,
      family: null,
      familyOf: null,
    }
  }

  /**
   * One catalog item by guid, or by SKU within a catalog (exact, case-insensitive: what a barcode
   * scanner types). Rows kept only for a draft are returned too, with their status.
   */
  getCatalogItem(lookup: CatalogItemLookup): CatalogItemDetail | null {
    let row: ItemRow | undefined
    if (lookup.guid) row = this.local.catalogItems.byGuid(lookup.guid)
    else if (lookup.sku)
      row = lookup.catalogGuid
        ? this.local.catalogItems.bySku(lookup.catalogGuid, lookup.sku)
        : this.local.catalogItems.bySkuAnyCatalog(lookup.sku)
    if (!row || (lookup.catalogGuid && row.catalog_guid !== lookup.catalogGuid)) return null
    const record = parseObject(this.local.catalogItems.jsonOf(row.local_id) ?? null)
    const priceGroupName = lookup.priceGroupName ?? this.priceGroupName(row.catalog_guid, lookup.customerGuid)
    return {
      ...this.withFamilies(row.catalog_guid, [row], priceGroupName)[0]!,
      catalogGuid: row.catalog_guid,
      description: row.description,
      status: row.deleted_at ? 'deleted' : row.unlisted_at ? 'unlisted' : 'live',
      priceGroupName,
      pricing: parseObject(row.pricing),
      record,
    }
  }

  /** Customers by word-prefix search on name, internal id, email and city, and by phone digits; empty lists everyone by name. */
  searchCustomers(search: {
    query?: string
    includeInactive?: boolean
    limit?: number
    offset?: number
  }): CustomerSearchResult {
    const limit = clampLimit(search.limit, 50)
    const offset = clampOffset(search.offset)
    const match = search.query ? wordPrefixQuery(search.query) : null
    const phone = search.query ? phoneSearchDigits(search.query) : null
    if (search.query && search.query.trim() !== '' && !match && !phone)
      return { customers: [], total: 0, loading: this.customersLoading() }
    const { rows, total } = this.local.customers.search({
      match,
      phone,
      includeInactive: search.includeInactive,
      limit,
      offset,
    })
    return { customers: rows.map((row) => this.customerSummary(row)), total, loading: this.customersLoading() }
  }

  /** The customers still in their first sync, as catalogLoading says it of a catalog's items. */
  customersLoading(): CustomersLoading | null {
    const scope = this.local.syncState.pagedScope('customers')
    if (scope?.lastSuccessAt) return null
    const run = scope?.run ?? null
    if (run && !(run.mode === 'full' && run.fresh)) return null
    if (!run && this.local.customers.countLive() > 0) return null
    const total = run?.total ?? null
    const done = run ? scope!.pagesDone * (run.pageSize ?? 100) : 0
    return { customersDone: total === null ? done : Math.min(done, total), customersTotal: total }
  }

  private customerSummary(row: CustomerRow): CustomerSummary {
    return {
      guid: row.guid,
      id: row.id,
      name: row.name,
      customerInternalId: row.customer_internal_id,
      email: row.email,
      city: row.city,
      state: row.state,
      active: row.active === 1,
    }
  }

  /** A customer's details and addresses (bill-to and ship-to as the service sent them). */
  getCustomer(guid: string): CustomerDetail | null {
    const row = this.local.customers.byGuid(guid)
    if (!row) return null
    const record = parseObject(row.json)
    const priceGroupName = row.price_group_id !== null ? this.local.priceGroups.nameOf(row.price_group_id) : null
    return {
      ...this.customerSummary(row),
      status: row.deleted_at ? 'deleted' : row.unlisted_at ? 'unlisted' : 'live',
      // The phone Satchel writes (a change goes as billTo.phone: the customer update shows no phone of
      // its own), so the rep's edit is what the page shows after the next sync; the customer's own
      // phone where the bill-to has none.
      phone: text((record.Bill_To as Record<string, unknown> | null | undefined)?.phone) ?? row.phone,
      requirePo: row.require_po === 1,
      hidePricing: row.hide_pricing === 1,
      priceGroup: row.price_group_id !== null ? { id: row.price_group_id, name: priceGroupName } : null,
      lockCatalogId: row.lock_catalog_id,
      catalogGuid: this.catalogOfCustomer(row),
      creditLimit: numberOrNull(record.credit_limit),
      openBalance: numberOrNull(record.open_balance),
      standingPo: text(record.standing_po),
      requirePayment: record.require_payment === true,
      taxExempt: record.tax_exempt === true,
      notes: text(record.notes),
      addresses: addressesOf(record),
      record,
    }
  }

  /**
   * The catalog a customer orders from, where the catalog screen opens for them: the one they are
   * locked to, else their price group's (a price group belongs to one catalog); null when neither is
   * an orderable catalog on this laptop.
   */
  private catalogOfCustomer(row: CustomerRow): string | null {
    const orderable = this.local.catalogs.orderable()
    const locked = row.lock_catalog_id ? orderable.find((catalog) => catalog.id === row.lock_catalog_id) : undefined
    if (locked) return locked.guid
    const ofGroup = row.price_group_id !== null ? this.local.priceGroups.catalogOf(row.price_group_id) : null
    return ofGroup !== null && orderable.some((catalog) => catalog.guid === ofGroup) ? ofGroup : null
  }

  /** Orders newest first, across customers or for one customer; searched by number, PO or customer, filtered by state and day. */
  listOrders(
    options: OrderListOptions = {},
    sent: SentOrderSummary[] = [],
  ): {
    orders: OrderSummary[]
    total: number
    sentNotSynced: SentOrderSummary[]
    states: { id: number | null; name: string; count: number }[]
  } {
    const limit = clampLimit(options.limit, 50)
    const offset = clampOffset(options.offset)
    const customerId = options.customerGuid ? (this.local.customers.byGuid(options.customerGuid)?.id ?? null) : null
    const { rows, total, states: counted } = this.local.orderHistory.list(options, limit, offset, customerId)
    const states = counted.map((state) => ({
      id: state.id,
      name: orderStateName(state.id, state.name),
      count: state.count,
    }))
    return {
      orders: rows.map((row) => orderSummary(row, parseObject(row.json))),
      total,
      sentNotSynced: this.notYetSynced(sent.filter((entry) => sentMatches(entry, options))),
      states,
    }
  }

  /**
   * The sent orders the history does not hold, whatever it holds them under: its api_guid or the
   * service's guid, in any case (the service's answer and its order list need not agree on case).
   */
  private notYetSynced(sent: SentOrderSummary[]): SentOrderSummary[] {
    if (sent.length === 0) return []
    const keysOf = (entry: SentOrderSummary): string[] =>
      [entry.apiGuid, entry.orderGuid].filter((key): key is string => key !== null).map((key) => key.toLowerCase())
    const wanted = [...new Set(sent.flatMap(keysOf))]
    const held = this.local.orderHistory.held(wanted)
    return sent.filter((entry) => !keysOf(entry).some((key) => held.has(key)))
  }

  getOrder(guid: string): OrderDetail | null {
    const row = this.local.orderHistory.byGuid(guid)
    if (!row) return null
    const record = parseObject(row.json)
    return { ...orderSummary(row, record), lines: orderLines(record), totals: orderTotals(record), record }
  }
}
