import { defineStore } from 'pinia'
import { ref } from 'vue'
import type { MethodInput, MethodOutput } from '../../../shared/contract'
import type { CatalogSummary, CategorySummary, CustomerDetail } from '../../../shared/synced'
import { api, unwrap } from '../api'
import { onProfileReset } from './profile-reset'

/**
 * Catalog-side reference data the screens share: catalogs (per customer), category trees and the
 * customers a screen is working for. Cached for the session and dropped when a sync finishes, so
 * what is shown is always the local copy as it stands; `version` counts the drops, for the screens
 * that hold what they read (a catalog's sync time, its category counts) to read it again. Item
 * searches and an item's details are read afresh each time: every screen asks them with its own
 * text, page and customer, so there is nothing shared to keep.
 */
export const useCatalogStore = defineStore('catalog', () => {
  const catalogsByCustomer = new Map<string, Promise<CatalogSummary[]>>()
  const categoriesByCatalog = new Map<string, Promise<CategorySummary[]>>()
  const customers = new Map<string, Promise<CustomerDetail>>()
  const version = ref(0)

  /** One request per key for the session; a failed one is forgotten, so the next asks again. */
  function cached<T>(cache: Map<string, Promise<T>>, key: string, load: () => Promise<T>): Promise<T> {
    let pending = cache.get(key)
    if (!pending) {
      pending = load()
      pending.catch(() => cache.delete(key))
      cache.set(key, pending)
    }
    return pending
  }

  function catalogs(customerGuid?: string | null): Promise<CatalogSummary[]> {
    return cached(catalogsByCustomer, customerGuid ?? '', () =>
      unwrap(api.listCatalogs(customerGuid ? { customerGuid } : undefined)),
    )
  }

  function categories(catalogGuid: string): Promise<CategorySummary[]> {
    return cached(categoriesByCatalog, catalogGuid, () => unwrap(api.listCategories({ catalogGuid })))
  }

  function customer(guid: string): Promise<CustomerDetail> {
    return cached(customers, guid, () => unwrap(api.getCustomer({ guid })))
  }

  function searchItems(search: MethodInput<'searchCatalogItems'>): Promise<MethodOutput<'searchCatalogItems'>> {
    return unwrap(api.searchCatalogItems(search))
  }

  /** The match count of a search, asked after its rows are painted (capped: "10,000+"). */
  function countItems(search: MethodInput<'countCatalogItems'>): Promise<MethodOutput<'countCatalogItems'>> {
    return unwrap(api.countCatalogItems(search))
  }

  function item(wanted: MethodInput<'getCatalogItem'>): Promise<MethodOutput<'getCatalogItem'>> {
    return unwrap(api.getCatalogItem(wanted))
  }

  /** A family's entry grid, priced for the customer; read afresh, as an item's details are. */
  function family(wanted: MethodInput<'getItemFamily'>): Promise<MethodOutput<'getItemFamily'>> {
    return unwrap(api.getItemFamily(wanted))
  }

  /** One catalog's category tree read again: the catalog update has copied more of its items since. */
  function forgetCategories(catalogGuid: string): void {
    categoriesByCatalog.delete(catalogGuid)
  }

  function forget(): void {
    catalogsByCustomer.clear()
    categoriesByCatalog.clear()
    customers.clear()
    version.value++
  }

  api.onEvent((event) => {
    // The end of the catalog update an upgrade left changes what a sync's end does: items and counts.
    if (event.name === 'syncFinished' || (event.name === 'catalogUpdateChanged' && !event.payload.updating)) forget()
  })
  onProfileReset(forget)

  return { catalogs, categories, customer, searchItems, countItems, item, family, forget, forgetCategories, version }
})
