/**
 * Customers made on this laptop that the local copy does not hold yet, read from their outbox
 * entries (handed in by the composer: browse never reads the outbox itself), as the customers list
 * and a customer's page show them: listed and found from the moment they are made, with where their
 * entry is. Once the service has made one, the local copy holds it under the service's guid and it
 * is no longer one of these.
 */
import type { CustomerDetail, CustomerSummary, MadeHere } from '../../shared/synced'
import { phoneSearchDigits } from '../../shared/phone'
import type { LocalData } from '../local/data'
import { addressesOf } from './order-reads'
import { text } from './values'

/** A new-customer outbox entry, as orders/outbox/reader.ts reads it. */
export interface MadeHereEntry {
  key: string
  state: string
  lastError: string | null
  customerGuid: string | null
  request: Record<string, unknown>
  withOrder?: boolean
}

export type MadeHereEntries = () => MadeHereEntry[]

/** Where the entry is, in the four the rep tells apart; a problem only where the rep has one to act on. */
function madeHereOf(entry: MadeHereEntry): MadeHere {
  const state =
    entry.state === 'sent'
      ? 'sent'
      : entry.state === 'refused'
        ? 'refused'
        : entry.state === 'needsAttention' || entry.state === 'conflict'
          ? 'needsAttention'
          : 'waiting'
  return {
    key: entry.key,
    state,
    problem: state === 'waiting' || state === 'sent' ? null : entry.lastError,
    ...(entry.withOrder ? { withOrder: true } : {}),
  }
}

/** The customer as the rep entered it, in the service's shape (the addresses as AddressInput keeps them). */
function recordOf(entry: MadeHereEntry): Record<string, unknown> {
  const vendor = (entry.request.newVendor ?? {}) as Record<string, unknown>
  const billTo = (entry.request.newVendorBillTo ?? entry.request.newVendorShipTo) as Record<string, unknown> | undefined
  const shipTo = (entry.request.newVendorShipTo ?? entry.request.newVendorBillTo) as Record<string, unknown> | undefined
  return { ...vendor, ...(billTo ? { Bill_To: billTo } : {}), ...(shipTo ? { Ship_To: shipTo } : {}) }
}

function summaryOf(entry: MadeHereEntry): CustomerSummary {
  const record = recordOf(entry)
  const billTo = (record.Bill_To ?? {}) as Record<string, unknown>
  return {
    guid: entry.customerGuid ?? entry.key,
    id: null,
    name: text(record.name) ?? 'New customer',
    customerInternalId: text(record.customer_internal_id),
    email: text(record.email),
    city: text(billTo.city),
    state: text(billTo.state),
    active: true,
    madeHere: madeHereOf(entry),
  }
}

const words = (value: string): string[] =>
  value
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean)

/** As the synced search finds a customer: each word typed begins a word of its name, number, email or city; or its phone's digits. */
function matches(summary: CustomerSummary, phone: string | null, query: string): boolean {
  const typed = words(query)
  if (typed.length === 0) return true
  const digits = phoneSearchDigits(query)
  if (digits && phone?.replace(/\D/g, '').includes(digits)) return true
  const own = [summary.name, summary.customerInternalId, summary.email, summary.city].flatMap((field) =>
    field ? words(field) : [],
  )
  return typed.every((word) => own.some((mine) => mine.startsWith(word)))
}

function phoneOf(entry: MadeHereEntry): string | null {
  const record = recordOf(entry)
  return text(record.phone) ?? text((record.Bill_To as Record<string, unknown> | undefined)?.phone)
}

export class MadeHereCustomers {
  constructor(
    private readonly local: LocalData,
    private readonly entries: MadeHereEntries,
  ) {}

  /** Those the local copy does not hold yet, newest first, that the query finds. */
  search(query: string): CustomerSummary[] {
    return this.waiting().flatMap((entry) => {
      const summary = summaryOf(entry)
      return matches(summary, phoneOf(entry), query) ? [summary] : []
    })
  }

  /** One by its key or the guid the service gave it, while the local copy does not hold it; else null. */
  find(guid: string): { entry: MadeHereEntry } | { customerGuid: string } | null {
    const wanted = guid.toLowerCase()
    const entry = this.entries().find(
      (each) => each.key.toLowerCase() === wanted || each.customerGuid?.toLowerCase() === wanted,
    )
    if (!entry) return null
    if (entry.customerGuid && this.local.customers.byGuid(entry.customerGuid))
      return { customerGuid: entry.customerGuid }
    return { entry }
  }

  /**
   * Its page: what the rep entered, on the catalog the service puts new customers on and that
   * catalog's main price group (what Satchel assumes until the service's copy says otherwise).
   */
  detail(entry: MadeHereEntry): CustomerDetail {
    const record = recordOf(entry)
    const catalogGuid = this.local.catalogs.forNewCustomers()
    const main = catalogGuid ? this.local.priceGroups.ofCatalog(catalogGuid).find((group) => group.isMain) : undefined
    return {
      ...summaryOf(entry),
      status: 'live',
      phone: phoneOf(entry),
      requirePo: false,
      hidePricing: false,
      priceGroup: main?.id != null ? { id: main.id, name: main.name } : null,
      lockCatalogId: null,
      catalogGuid,
      creditLimit: null,
      openBalance: null,
      notes: null,
      addresses: addressesOf(record),
      record,
    }
  }

  private waiting(): MadeHereEntry[] {
    return this.entries().filter((entry) => !(entry.customerGuid && this.local.customers.byGuid(entry.customerGuid)))
  }
}
