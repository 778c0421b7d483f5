/**
 * The catalogs as the screens and the CLI read them: catalogs with their price groups, categories,
 * the item search and its counts, an item's page and its family, each priced for the customer's
 * price group. Only live rows appear in lists and searches; an item's page also answers for a row
 * kept for a draft, with its status. The SQL is local/'s; this file shapes what it returns.
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
  ItemFamily,
  ItemFamilyLookup,
  PriceGroupSummary,
} from '../../shared/synced'
import { scannedGtin, storedGtinForms } from '../../shared/gtin'
import { ITEM_COUNT_CAP } from '../../shared/synced'
import { describePriceGroupChoice, shownPrice } from '../pricing'
import { familyCell, familyTitle, pricedRow, priceRange, stockFieldsOfRow } from './families'
import { clampLimit, clampOffset, flag, parseObject, text } from './values'
import type { ItemRow } from '../local/catalog-items/reads'
import { stockOf } from '../local/stock'
import { wordPrefixQuery } from './search'
import type { LocalData } from '../local/data'

export class CatalogBrowse {
  constructor(private readonly local: LocalData) {}

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
    const forNewCustomers = this.local.catalogs.forNewCustomers()
    return rows.map((row) => ({
      guid: row.guid,
      id: row.id,
      name: row.name,
      active: row.active === 1,
      priceGroups: this.priceGroups(row.guid),
      itemCount: counts.get(row.guid) ?? 0,
      lastSyncAt: this.local.syncState.catalogItems(row.guid)?.lastSuccessAt ?? null,
      loading: this.catalogLoading(row.guid),
      // Only on the one: a new customer's form and first order start there.
      ...(row.guid === forNewCustomers ? { forNewCustomers: true } : {}),
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
}
