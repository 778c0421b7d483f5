/**
 * The customers as the screens and the CLI read them: the search (name, internal id, email, city,
 * phone digits), whether their first sync is still running, and a customer's page with the catalog
 * they order from.
 */
import type { CustomerDetail, CustomerSearchResult, CustomerSummary, CustomersLoading } from '../../shared/synced'
import { phoneSearchDigits } from '../../shared/phone'
import { addressesOf } from './order-reads'
import { clampLimit, clampOffset, numberOrNull, parseObject, text } from './values'
import type { CustomerRow } from '../local/customers'
import { wordPrefixQuery } from './search'
import type { LocalData } from '../local/data'
import { MadeHereCustomers, type MadeHereEntries } from './made-here'

export class CustomerBrowse {
  private readonly madeHere: MadeHereCustomers

  constructor(
    private readonly local: LocalData,
    madeHere: MadeHereEntries = () => [],
  ) {
    this.madeHere = new MadeHereCustomers(local, madeHere)
  }

  /**
   * Customers by word-prefix search on name, internal id, email and city, and by phone digits; empty
   * lists everyone by name. `withMadeHere`: those made on this laptop and not synced yet come first.
   */
  searchCustomers(search: {
    query?: string
    includeInactive?: boolean
    withMadeHere?: boolean
    limit?: number
    offset?: number
  }): CustomerSearchResult {
    const limit = clampLimit(search.limit, 50)
    const offset = clampOffset(search.offset)
    const match = search.query ? wordPrefixQuery(search.query) : null
    const phone = search.query ? phoneSearchDigits(search.query) : null
    if (search.query && search.query.trim() !== '' && !match && !phone)
      return { customers: [], total: 0, loading: this.customersLoading() }
    const made = search.withMadeHere ? this.madeHere.search(search.query ?? '') : []
    const first = made.slice(offset, offset + limit)
    const { rows, total } = this.local.customers.search({
      match,
      phone,
      includeInactive: search.includeInactive,
      limit,
      offset: Math.max(0, offset - made.length),
    })
    const customers = [...first, ...rows.map((row) => this.customerSummary(row))].slice(0, limit)
    return { customers, total: total + made.length, loading: this.customersLoading() }
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
    if (!row) {
      // Made on this laptop: its own page from the moment it is made; the service's, once it has it.
      const made = this.madeHere.find(guid)
      if (made && 'entry' in made) return this.madeHere.detail(made.entry)
      return made ? this.getCustomer(made.customerGuid) : null
    }
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
}
