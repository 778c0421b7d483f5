import { defineStore } from 'pinia'
import type { CatalogSummary, CategorySummary, CustomerDetail } from '../../../shared/synced'
import { api, unwrap } from '../api'

/**
 * Catalog-side reference data the screens share: catalogs (per customer), category trees and the
 * customers a screen is working for. Cached for the session and dropped when a sync finishes, so
 * what is shown is always the local copy as it stands.
 */
export const useCatalogStore = defineStore('catalog', () => {
  const catalogsByCustomer = new Map<string, Promise<CatalogSummary[]>>()
  const categoriesByCatalog = new Map<string, Promise<CategorySummary[]>>()
  const customers = new Map<string, Promise<CustomerDetail>>()

  function catalogs(customerGuid?: string | null): Promise<CatalogSummary[]> {
    const key = customerGuid ?? ''
    let pending = catalogsByCustomer.get(key)
    if (!pending) {
      pending = unwrap(api.listCatalogs(customerGuid ? { customerGuid } : undefined))
      pending.catch(() => catalogsByCustomer.delete(key))
      catalogsByCustomer.set(key, pending)
    }
    return pending
  }

  function categories(catalogGuid: string): Promise<CategorySummary[]> {
    let pending = categoriesByCatalog.get(catalogGuid)
    if (!pending) {
      pending = unwrap(api.listCategories({ catalogGuid }))
      pending.catch(() => categoriesByCatalog.delete(catalogGuid))
      categoriesByCatalog.set(catalogGuid, pending)
    }
    return pending
  }

  function customer(guid: string): Promise<CustomerDetail> {
    let pending = customers.get(guid)
    if (!pending) {
      pending = unwrap(api.getCustomer({ guid }))
      pending.catch(() => customers.delete(guid))
      customers.set(guid, pending)
    }
    return pending
  }

  function forget(): void {
    catalogsByCustomer.clear()
    categoriesByCatalog.clear()
    customers.clear()
  }

  api.onEvent((event) => {
    if (event.name === 'syncFinished') forget()
  })

  return { catalogs, categories, customer, forget }
})
