/**
 * `quotes` and `customer usual`: read-only, offline, straight from the local database, as the app
 * shows them.
 */
import { browseQueries } from '../browse'
import { UsualItems } from '../usual-items/usual'
import { closeDatabase, type Database } from '../db/database'
import { openLocalData } from '../local/data'
import { orderLookupOf } from '../orders/local-lookup'
import { systemClock } from '../ports'
import { localDay } from '../quotes/desk'
import { QuoteRepository } from '../quotes/repository'
import { refuseWhileItemsWait } from './catalog-update'
import { openExisting } from './database'
import { UsageError, type GlobalOptions, type Output } from './errors'
import { table } from './format'
import { formatMoney } from '../../shared/money'

function withDatabase<T>(global: GlobalOptions, use: (db: Database) => T): T {
  // Opened for writing, as the app opens it, so a database from before quotes gets its quotes table;
  // a missing, empty, damaged or read-only file gets the CLI's own messages.
  const db = openExisting(global.db, 'write')
  try {
    return use(db)
  } finally {
    closeDatabase(db)
  }
}

export function runQuotes(global: GlobalOptions, filter: { customer?: string }, output: Output): number {
  return withDatabase(global, (db) => {
    const quotes = new QuoteRepository(db).list({
      today: localDay(systemClock.now()),
      ...(filter.customer ? { customerGuid: filter.customer } : {}),
    })
    const state = (quote: (typeof quotes)[number]) =>
      quote.convertedAt ? 'converted' : quote.expired ? 'expired' : 'open'
    const human =
      quotes.length === 0
        ? 'No quotes on this laptop.'
        : table(
            ['Number', 'Customer', 'Lines', 'Sub-total', 'Valid until', 'State'],
            quotes.map((quote) => [
              quote.number,
              quote.customerName,
              String(quote.lineCount),
              formatMoney(quote.subTotal),
              quote.validUntil,
              state(quote),
            ]),
          )
    output.result({ quotes }, human)
    return 0
  })
}

export function runCustomerUsual(
  global: GlobalOptions,
  request: { customerGuid: string; limit: number },
  output: Output,
): number {
  return withDatabase(global, (db) => {
    const local = openLocalData(db)
    refuseWhileItemsWait(local)
    const lookup = orderLookupOf(local)
    if (!lookup.customer(request.customerGuid))
      throw new UsageError(`No customer ${request.customerGuid} in the local database`)
    const browse = browseQueries(local)
    const items = new UsualItems(local, lookup, systemClock).list(request.customerGuid, request.limit).map((item) => ({
      guid: item.guid,
      sku: item.sku,
      upc: item.upc ?? null,
      name: item.name,
      orders: item.orders,
      lastQty: item.lastQty,
      lastOrderedAt: item.lastOrderedAt,
      price: item.price,
      offered: item.offered,
      // The figure, not the flag: the flag (offered and in stock) is `orderable` here.
      orderable: item.available,
      available: item.qtyAvailable ?? null,
      incoming: item.incoming ?? 0,
      family: browse.catalogs.getCatalogItem({ guid: item.guid, catalogGuid: item.catalogGuid })?.family ?? null,
    }))
    const human =
      items.length === 0
        ? 'No orders from this customer in the last 12 months.'
        : table(
            ['SKU', 'Name', 'Orders', 'Last qty', 'Last ordered', 'Price'],
            items.map((item) => [
              item.sku,
              item.name,
              String(item.orders),
              String(item.lastQty),
              item.lastOrderedAt.slice(0, 10),
              item.offered && item.price !== null ? formatMoney(item.price) : 'not offered',
            ]),
          )
    output.result({ items }, human)
    return 0
  })
}
